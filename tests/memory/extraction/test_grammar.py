"""Grammar the rules read by, not phrase by phrase: manner adverbs, the time or reason of a
statement not read, and pull requests that report nothing (issue #17's precision round).
Each case quotes the dev episode it comes from (corpus ids of ``tests/corpus``)."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from memory.extraction.rules import extract_with_rules
from memory.language.threads import thread_of_address
from memory.language.words import without_manner_adverbs

REFERENCE_TIME = datetime(2026, 5, 8, 9, 30, tzinfo=UTC)

Signature = tuple[str, str, str]


def signatures(text: str, *, author: str = "", url: str = "") -> set[Signature]:
    extraction = extract_with_rules(
        text, author=author, reference_time=REFERENCE_TIME, thread=thread_of_address(url)
    )
    return {(f.source, f.relation, f.target) for f in extraction.facts}


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (
            "Guido has been working extensively on asyncio",  # pysc-2024-09-11
            "Guido has been working on asyncio",
        ),
        ("Successfully published iso-url@0.1.0", "published iso-url@0.1.0"),  # ipfs-weekly
        ("The SC unanimously agreed that it was OK", "The SC agreed that it was OK"),  # python-sc
    ],
)
def test_a_manner_adverb_says_only_how(text: str, expected: str) -> None:
    assert without_manner_adverbs(text) == expected


@pytest.mark.parametrize(
    "text",
    [
        "It is probably blocked",  # a hedge
        "The export partially works",  # a degree
        "It was previously blocked",  # a time
        "Docker randomly crashes",  # a frequency: the symptom's words
        "Apply the family fix",  # no adverbs
    ],
)
def test_an_adverb_that_changes_what_is_said_stays(text: str) -> None:
    assert without_manner_adverbs(text) == text


def test_work_said_with_a_manner_adverb_is_read_as_without_it() -> None:
    # pysc-2024-09-11
    assert signatures(
        "- Guido has been working extensively on [asyncio]"
        "(https://docs.python.org/3/library/asyncio.html)"
    ) == {("Guido", "RESPONSIBLE_FOR", "Asyncio")}


def test_the_time_of_a_statement_not_read_says_nothing_of_its_own() -> None:
    # k8s-93210-liggitt-2020-07-18: "since #92442 merged" dates the flakes; no status of #92442
    found = signatures(
        "These tests have flaked consistently since "
        "https://github.com/kubernetes/kubernetes/pull/92442 merged.",
        author="liggitt",
        url="https://github.com/kubernetes/kubernetes/issues/93210",
    )

    assert [f for f in found if f[1] == "HAS_STATUS"] == []


def test_a_reason_of_a_statement_read_still_gives_the_blockers_status() -> None:
    # the rules table's row 34 family: "…, which is delayed" / "because Y is late"
    found = signatures(
        "The checkout flow can't move forward because the payments integration is delayed.",
        author="Alice",
    )

    assert ("Checkout Flow", "DEPENDS_ON", "Payments Integration") in found


def test_a_pull_request_reports_no_problem() -> None:
    # uv-pr-10697: what the change is about, not a customer's report
    assert (
        signatures(
            "The new ARM runners report a permission error:",
            author="zanieb",
            url="https://github.com/astral-sh/uv/pull/10697",
        )
        == set()
    )
    assert ("Globex", "REPORTED", "Timeout Errors") in signatures(
        "Globex reported timeouts.", author="Alice"
    )
