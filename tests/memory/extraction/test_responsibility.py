"""Responsibility in meeting notes read by grammar (``memory.extraction.responsibility``): a
subject, a verb of commitment and the work, where minutes leave one of them implicit. Every
example is a sentence of the corpus's dev split (original or dev-extra batch), named by its
episode id."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from memory.extraction.minutes import find_commitment
from memory.extraction.responsibility import (
    commits_to_work,
    find_responsibility,
    names_activity,
    served_work,
    shared_subject,
    work_under_way,
)
from memory.extraction.rules import extract_with_rules

REFERENCE_TIME = datetime(2023, 6, 5, tzinfo=UTC)


def responsibilities(text: str) -> set[tuple[str, str]]:
    extraction = extract_with_rules(text, author="", reference_time=REFERENCE_TIME)
    return {(f.source, f.target) for f in extraction.facts if f.relation == "RESPONSIBLE_FOR"}


# ------------------------------------------------------------------ a shared subject


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        # cpc-meetings-2024-2024-01-09-s10 (openjs-cpc)
        (
            "### Regular reviews\n\n* For, Dates and Reminders, Ben felt that a twice yearly "
            "elections cycle may be cleaner / easier to manage, and is happy to look into a "
            "proposal for consideration.\n",
            {("Ben", "Proposal")},
        ),
        # pysc-2022-02-14 (python-sc)
        (
            "## 2022-02-14\n- The SC shared thoughts on an overall strategy for development of "
            "Python's C API, and will start on a doc to share with everyone.\n",
            {("SC", "Doc")},
        ),
    ],
)
def test_a_commitment_coordinated_with_another_predicate_is_its_subjects(
    text: str, expected: set[tuple[str, str]]
) -> None:
    """A commitment after ", and" ("is happy to …", "will start on …"): the subject of the
    first predicate takes on the work of the second (openjs-cpc and python-sc)."""
    assert responsibilities(text) == expected


def test_the_subject_of_a_clause_is_the_name_before_its_finite_verb() -> None:
    assert shared_subject("For, Dates and Reminders, Ben felt that a twice yearly cycle") == "Ben"
    assert shared_subject("The SC shared thoughts on an overall strategy") == "The SC"
    assert shared_subject("Discussed 3.12 and 3.13 release schedule planning") is None


# ------------------------------------------------------------------ action items


def test_an_action_label_with_its_owner_in_parentheses_names_who_takes_the_work() -> None:
    """wasm-cg-main-2018-cg-08-21-s20: the label inside a sentence that is otherwise a
    hypothetical ("I would be ok taking this on")."""
    text = (
        "#### Discuss licensing for WebAssembly source code\n\n"
        "DS: I would be ok taking this on AI(DS) figure out relicensing.\n"
    )

    assert responsibilities(text) == {("DS", "relicensing")}


def test_an_action_item_through_a_helping_verb_is_for_the_work_its_object_names() -> None:
    """wasm-cg-main-2023-cg-07-18-s12: "help get publishing working" — the work is
    "publishing"."""
    text = (
        "#### Introduce Mike Smith as the W3C contact\n\n"
        "MS: One area in particular is publishing. I have an action item to help get publishing"
        " working.\n"
    )

    assert ("MS", "publishing") in responsibilities(text)


def test_a_serial_verb_leaves_the_work_to_its_object() -> None:
    assert served_work("get publishing working") == "publishing"
    assert served_work("coordinate a core sprint") == "a core sprint"
    assert served_work("a doc") == "a doc"


def test_an_activity_is_one_long_gerund() -> None:
    assert names_activity("relicensing")
    assert names_activity("publishing")
    assert not names_activity("testing")
    assert not names_activity("get publishing")


# ------------------------------------------------------------------ work under way, "is" left out


def test_a_handle_with_work_under_way_is_responsible_for_the_item_it_sits_under() -> None:
    """cpc-meetings-2021-2021-04-13-s8 (GUIDE §8.3): the item is the agenda line above."""
    text = (
        "### openjs-foundation/cross-project-council\n\n"
        "* Update on [Package Vulnerability Management & Reporting Collaboration Space]"
        "(https://github.com/openjs-foundation/pkg-vuln-collab-space)\n"
        "  * @darcyclarke planning kick-off meeting with initial members\n"
    )

    assert responsibilities(text) == {
        ("@darcyclarke", "Package Vulnerability Management & Reporting Collaboration Space")
    }


def test_a_name_with_work_under_way_and_no_item_above_is_responsible_for_its_object() -> None:
    """pysc-2023-06-05: of two coordinated clauses, the one with a named object."""
    text = (
        "## 2023-06-05\n- EuroPython coming up and Łukasz helping coordinate a core sprint there."
    )

    assert responsibilities(text) == {("Łukasz", "Core Sprint")}


def test_work_under_way_needs_an_object_or_an_item() -> None:
    """pysc-2023-06-05: "EuroPython coming up" takes on nothing."""
    assert responsibilities("## 2023-06-05\n- EuroPython coming up.\n") == set()


# ------------------------------------------------------------------ what is no commitment


@pytest.mark.parametrize(
    "text",
    [
        # wasm-cg-main-2023-cg-07-18-s12
        "#### Introduce Mike Smith as the W3C contact\n\n"
        "MS: I plan to attend more of these meetings in the future\n",
        # wasm-cg-main-2021-cg-09-28-s12 (and -2024-cg-05-21-s10, -2022-cg-04-12-s12)
        "#### Update on [Code Annotations](https://github.com/WebAssembly/tool-conventions/"
        "issues/167) (Yuri Iozzelli) [10 mins]\n\nYI presenting [slides](https://drive.google.com"
        "/file/d/1DC4iLQMT9m7MLqdAq6IZFwXmxJtCjgDN/view?usp=sharing).\n",
        # pysc-2022-03-14
        "## 2022-03-14\n* The SC met with the Developer in Residence to discuss GitHub issues "
        "migration, Language summit invitations, PyCon, release management, and the CLA.\n",
        # wasm-cg-main-2019-cg-04-02-s17: a question, though without its question mark
        "#### Host references\n\nBT: Is WASI going to look at host references -- adding them to"
        " the API.\n",
    ],
)
def test_attending_presenting_discussing_or_asking_takes_on_no_work(text: str) -> None:
    assert responsibilities(text) == set()


def test_verbs_of_meeting_and_talking_commit_to_no_work() -> None:
    """The same verbs in a line about the item above ("X will attend …") and in the
    phrase reader."""
    assert not commits_to_work("will", " attend the board meeting")
    assert not commits_to_work("to", " discuss GitHub issues migration")
    assert not commits_to_work("will", " not write the RFC")
    assert commits_to_work("will", " also write the RFC")
    assert commits_to_work("has an action item", "")
    assert find_commitment("I plan to attend more of these meetings") is None


def test_a_question_is_no_commitment() -> None:
    """wasm-cg-main-2021-cg-06-22-s13."""
    assert find_responsibility("FM: What’s the action item that we would be taking?") is None


# ------------------------------------------------------- a team update's work under way


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        # ethpm-allcoredevs-cl-meetings-call-035-s11 (ethereum-pm)
        (
            "## 2.1—Lighthouse\n\n- Work started towards a peer reputation system.\n",
            {("Lighthouse", "Peer Reputation System")},
        ),
        # ethpm-allcoredevs-cl-meetings-call-028-s11 (ethereum-pm): a member reports for it
        (
            "### Parity\n\n**Wei**\n\n* doing some optimization work for the Beacon chain "
            "state transition implementation\n",
            {("Parity", "Beacon Chain State Transition Implementation")},
        ),
        ("### Prysm\n- Continued work on the slasher\n", {("Prysm", "Slasher")}),
    ],
)
def test_work_under_way_in_a_teams_update_is_the_teams(
    text: str, expected: set[tuple[str, str]]
) -> None:
    assert responsibilities(text) == expected


def test_work_under_way_under_a_topic_heading_names_no_team() -> None:
    assert responsibilities("### Withdrawals\n- Continued work on the slasher\n") == set()


@pytest.mark.parametrize(
    "line",
    [
        "Could we do some work on the slasher?",
        "If we started work on the slasher, we would slip.",
        "Work on the slasher would be nice",
    ],
)
def test_work_under_way_is_never_a_question_or_a_hypothetical(line: str) -> None:
    assert work_under_way(line) is None


def test_an_action_labels_owner_may_be_a_handle_in_lower_case() -> None:
    """"AI(carol): …" as "AI(Carol): …": the label's owner is whoever it names."""
    text = "## Release planning\n\n- AI(carol): draft the security advisory\n"
    assert responsibilities(text) == {("carol", "Release Planning")}
