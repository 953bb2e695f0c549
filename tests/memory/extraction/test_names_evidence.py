"""Words a reading cut out of a sentence name nothing when the cut lands mid-grammar
(``memory.extraction.names_evidence``, issue #17). Sentences from the corpus's tuning sources
are named by their episode id."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from memory.extraction.names_evidence import can_name
from memory.extraction.rules import extract_with_rules

REFERENCE_TIME = datetime(2018, 11, 14, tzinfo=UTC)


def names(text: str) -> set[str]:
    extraction = extract_with_rules(text, author="", reference_time=REFERENCE_TIME)
    return {name for f in extraction.facts for name in (f.source, f.target)}


@pytest.mark.parametrize(
    "words", ["Onboarded zzref0zz", "or commented on Jeff's updates", "and merged the fix"]
)
def test_a_masked_mention_or_the_second_half_of_a_coordination_names_nothing(words: str) -> None:
    assert not can_name(words)


@pytest.mark.parametrize(
    "words",
    [
        "Review & merge files API changes from zzref1zz (ipfs/js-ipfs#1671)",
        "canary branch",
        "Orchestration",
        "Andrew",
    ],
)
def test_a_noun_phrase_or_an_items_title_with_its_reference_names_something(words: str) -> None:
    assert can_name(words)


def test_someone_onboarded_is_not_read_into_a_name() -> None:
    """nodejs-tsc-meetings-2018-11-14-s7."""
    text = (
        "## Strategic Initiatives - Tracking Issue [#423](https://github.com/nodejs/TSC/"
        "issues/423)\n\n* Onboarded @ryzokuken to help to keep the canary branch "
        "up-to-date\n"
    )
    assert not any("zz" in name or name.startswith("Onboarded") for name in names(text))


def test_either_of_two_verbs_records_no_decision_on_what_follows_the_second() -> None:
    """spdx-service-2023-2023-08-28-s5."""
    assert not any(
        name.startswith("or ")
        for name in names("## Use cases\n\n* Accepted or commented on Jeff's updates\n")
    )


def relations(text: str) -> set[tuple[str, str, str]]:
    extraction = extract_with_rules(text, author="", reference_time=REFERENCE_TIME)
    return {(f.source, f.relation, f.target) for f in extraction.facts}


def test_someone_waiting_is_no_work_that_depends_on_anything() -> None:
    """spdx-tech-2017-2017-05-09-s3."""
    found = relations("## Spec Hosting\n\n- Thomas waiting for repository on other side.\n")
    assert not any(source == "Thomas" for source, _, _ in found)


def test_work_waiting_for_work_still_depends_on_it() -> None:
    assert ("Release Notes", "DEPENDS_ON", "Security Review") in relations(
        "The release notes are waiting for the security review.\n"
    )


def test_needing_more_work_depends_on_no_item() -> None:
    """nodejs-tsc-meetings-2022-04-13-s7."""
    found = relations(
        "## Discussion\n\n* Current implementation needs more work, has some issues.\n"
    )
    assert not any(relation == "DEPENDS_ON" for _, relation, _ in found)


def test_needing_a_named_item_still_depends_on_it() -> None:
    assert ("Checkout Flow", "DEPENDS_ON", "Payments API") in relations(
        "The checkout flow needs the payments API.\n"
    )
