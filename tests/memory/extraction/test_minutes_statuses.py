"""Statuses minutes give in shapes other than a main clause: a relative clause after the item
("Fixes for the CLA bot, which have been deployed."), and a decision whose object is a
reference followed by what it applies to ("approved <changes> to PEP 387"). Sentences from the
corpus's dev split are named by their episode id."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from memory.extraction.minutes import relative_status
from memory.extraction.rules import extract_with_rules

REFERENCE_TIME = datetime(2023, 8, 21, tzinfo=UTC)


def statuses(text: str) -> set[tuple[str, str]]:
    extraction = extract_with_rules(text, author="", reference_time=REFERENCE_TIME)
    return {(f.source, f.target) for f in extraction.facts if f.relation == "HAS_STATUS"}


@pytest.mark.parametrize(
    ("line", "expected"),
    [
        # pysc-2023-08-21
        (
            "- Fixes for the CLA bot, which have been deployed.",
            ("Fixes for the CLA Bot", "Released"),
        ),
        # pysc-2023-08-07
        (
            "- Updates to the CLA bot, which are almost complete.",
            ("Updates to the CLA Bot", "In Progress"),
        ),
        ("- The new parser, which has been merged last week.", ("New Parser", "Merged")),
    ],
)
def test_a_relative_clause_gives_the_item_before_it_its_status(
    line: str, expected: tuple[str, str]
) -> None:
    assert statuses(f"## 2023-08-21\n{line}\n") == {expected}


@pytest.mark.parametrize(
    "line",
    [
        "The new parser, which has not been merged.",
        "We talked about it, which was fixed.",
        "The new parser, which is almost merged.",
        "The new parser, which could be deployed.",
    ],
)
def test_a_relative_clause_negated_hedged_or_about_no_item_gives_nothing(line: str) -> None:
    assert relative_status(line) is None
    assert statuses(f"## 2023-08-21\n- {line}\n") == set()


def test_a_decision_on_a_reference_is_on_the_reference_not_what_it_applies_to() -> None:
    """pysc-2023-06-19: the approved item is the proposed changes (#196), not "#196 to PEP
    387"."""
    text = (
        "## 2023-06-19\n- The SC approved [Petr’s proposed changes]"
        "(https://github.com/python/steering-council/issues/196) to [PEP 387 (Backwards "
        "Compatibility Policy)](https://peps.python.org/pep-0387/).\n"
    )
    facts = statuses(text)
    assert len(facts) == 1
    ((item, status),) = facts
    assert "python/steering-council#196" in item and status == "Approved"


# ------------------------------------------------- what is no decision on an item


@pytest.mark.parametrize(
    "line",
    [
        "Clients agreed on the gas limit.",  # who agreed, on what
        "Most people agreed.",  # people agree; nothing is decided on an item
        "Danny approved.",  # someone approving, not an item approved
        "The earlier version was rejected in 2019 but is now back.",  # no named item
        "Tim said the team accepted a few PRs last week.",  # some PRs, none named
    ],
)
def test_agreement_by_people_or_a_decision_on_no_named_item_gives_no_status(line: str) -> None:
    """Under an agenda item the sentence names none of these either: the item above is not
    what they are about."""
    assert statuses(f"### EIP-4844\n- {line}\n") == set()


@pytest.mark.parametrize(
    ("line", "expected"),
    [
        # ethpm-allcoredevs-el-meetings-meeting-115-s8: a row of the decisions table
        (
            "| **Decision 2**   | London testnet fork blocks agreed, Tim to document | "
            "[1:01:29](https://youtu.be/XYhN26UrJ5o?t=3689) |",
            ("London Testnet Fork Blocks", "Accepted"),
        ),
        # cpc-meetings (openjs-cpc): the item with the decision's participle
        (
            "* 5 ECMA JavaScript related specs approved today",
            ("5 ECMA JavaScript related specs", "Approved"),
        ),
        ("- The SC accepted PEP 655.", ("PEP 655", "Accepted")),
    ],
)
def test_a_named_item_decided_keeps_its_status(line: str, expected: tuple[str, str]) -> None:
    assert statuses(f"{line}\n") == {expected}


# ----------------------------------------------- consent, consensus and moves (GUIDE §9)

ITEM = "* Update the charter [#123](https://github.com/openjs-foundation/cross-project-council/issues/123)\n"
ITEM_NAME = "Update the charter (openjs-foundation/cross-project-council#123)"


@pytest.mark.parametrize(
    ("line", "status"),
    [
        ("No objections", "Accepted"),
        ("There were no objections", "Accepted"),
        ("No objections, so approved", "Accepted"),
        ("Consensus to merge", "Approved"),
        ("Moving to next meeting", "Postponed"),
    ],
)
def test_consent_consensus_and_a_move_to_the_next_meeting_decide_the_item_above(
    line: str, status: str
) -> None:
    assert statuses(f"{ITEM}  * {line}\n") == {(ITEM_NAME, status)}


@pytest.mark.parametrize(
    "line",
    [
        "No consensus to merge",
        "And we are waiting for consensus to merge it",
        "We will not move to next meeting",
    ],
)
def test_no_consensus_or_a_consensus_awaited_decides_nothing(line: str) -> None:
    assert statuses(f"{ITEM}  * {line}\n") == set()


def test_a_participle_after_a_determiner_qualifies_a_noun_and_decides_nothing() -> None:
    """spdx-service-2023-2023-08-14-s6: the approved licenses are a list, not a decision."""
    line = ("- Reference https://opensource.org/licenses/ - This lists all the approved licenses "
            "by OSI\n")
    assert statuses(f"## License list\n\n{line}") == set()
    assert statuses("- The board approved the budget proposal.\n") == {
        ("Budget Proposal", "Approved")}


def test_no_objections_on_the_item_a_line_names_decide_that_item_not_the_heading_above() -> None:
    """nodejs-tsc-meetings-2018-03-14-s7."""
    text = ("## Strategic Initiatives - Tracking Issue [#423](https://github.com/nodejs/TSC/"
            "issues/423)\n\n* N-api: [#19262](https://github.com/nodejs/node/pull/19262) PR take "
            "n-api out of experimental, no objections 🎉, waiting to pass CI\n")
    decided = statuses(text)
    assert ("nodejs/node#19262", "Accepted") in decided
    assert not any("#423" in item for item, _ in decided)
