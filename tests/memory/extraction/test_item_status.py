"""A status said without its subject under the item a reference names
(``memory.extraction.item_status``): "* Has been merged, nothing to discuss this week." under an
agenda item with its pull request is that pull request's status — never under a heading's
words, a negation, a plan or a question."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from memory.extraction.item_status import listed_status, subjectless_status
from memory.extraction.rules import extract_with_rules

REFERENCE_TIME = datetime(2024, 3, 12, tzinfo=UTC)
ITEM = "* http: refactor the timeout logic [#41263](https://github.com/acme/node/pull/41263)\n"


def statuses(text: str) -> set[tuple[str, str]]:
    extraction = extract_with_rules(text, author="", reference_time=REFERENCE_TIME)
    return {(f.source, f.target) for f in extraction.facts if f.relation == "HAS_STATUS"}


@pytest.mark.parametrize(
    ("line", "status"),
    [
        ("Has been merged, nothing to discuss this week.", "Merged"),  # nodejs-tsc (dev-extra2)
        ("Announced last week, nothing to discuss, issue now closed", "Closed"),
        ("Already landed in 18.x", "Merged"),
        ("Was reverted last week.", "Reverted"),
    ],
)
def test_a_subjectless_status_under_an_item_is_the_items(line: str, status: str) -> None:
    text = f"### acme/node\n\n{ITEM}  * {line}\n"
    assert statuses(text) == {("acme/node#41263", status)}


@pytest.mark.parametrize(
    "line",
    [
        "Not merged yet, waiting for CI",  # a negation
        "Will be merged after the release",  # a plan
        "Should this be closed?",  # a question
        "To be released with 22.0",
        "Anna closed her other PR",  # a subject of its own
        "Accepted or commented on the updates",
    ],
)
def test_a_negation_a_plan_a_question_or_another_subject_gives_no_status(line: str) -> None:
    assert subjectless_status(line) is None


def test_under_a_heading_that_names_no_reference_nothing_is_said() -> None:
    """Only an item a reference names is the subject; a heading's words are no item."""
    assert statuses("### Website redesign\n\n* Has been merged\n") == set()


def test_a_listed_item_with_its_status_beside_it_has_that_status() -> None:
    """A list of pull requests, each with its status in parentheses
    (spdx-ai-2024-2024-04-24-s5, dev-extra2) or after a dash."""
    text = (
        "## PR review\n\n"
        "- https://github.com/spdx/meetings/pull/667 (Approved, wait on merge)\n"
        "- https://github.com/spdx/meetings/pull/668 (not merged)\n"
        "- https://github.com/spdx/meetings/pull/669 (merged?)\n"
        "- [#13](https://github.com/acme/app/pull/13) - merged\n"
    )
    assert statuses(text) == {("spdx/meetings#667", "Approved"), ("acme/app#13", "Merged")}


@pytest.mark.parametrize(
    ("line", "found"),
    [
        ("zzref0zz (Approved, wait on merge)", ("zzref0zz", "approved")),
        ("zzref0zz - in review", ("zzref0zz", "in review")),
        ("zzref0zz (not merged)", None),
        ("zzref0zz (needs review)", None),
        ("zzref0zz (blocked by zzref1zz?)", None),
        ("zzref0zz (merged when CI passes)", None),
        ("See zzref0zz (merged)", None),  # the line is about something else
    ],
)
def test_the_status_must_open_the_aside(line: str, found: tuple[str, str] | None) -> None:
    assert listed_status(line) == found


def test_work_said_to_be_under_way_in_the_passive_is_in_progress() -> None:
    """"Developer survey being developed, testing out content." (nodejs-tsc-meetings-2018-09-12-s8,
    dev-extra2); "by" names who does it."""
    text = (
        "## Updates\n\n"
        "* Developer survey being developed, testing out content.\n"
        "* The migration guide is being written by Alice.\n"
        "* Concerns being raised about the plan\n"  # no work named
        "* The proposal is not being worked on\n"  # a negation
        "* If the guide is being written, tell us\n"  # a condition
    )
    extraction = extract_with_rules(text, author="", reference_time=REFERENCE_TIME)
    assert {(f.source, f.relation, f.target) for f in extraction.facts} == {
        ("Developer Survey", "HAS_STATUS", "In Progress"),
        ("Migration Guide", "HAS_STATUS", "In Progress"),
        ("Alice", "RESPONSIBLE_FOR", "Migration Guide"),
    }


@pytest.mark.parametrize(
    ("line", "status"),
    [
        ("Discussion/work ongoing in github issue, leave on agenda.", "In Progress"),
        ("Work in progress", "In Progress"),
        ("Ongoing work to improve the backport command", None),  # other work, not the item
    ],
)
def test_a_subjectless_line_that_says_work_is_under_way(line: str, status: str | None) -> None:
    """nodejs-tsc-meetings-2018-06-20-s7 (dev-extra2)."""
    expected = {("acme/node#41263", status)} if status else set()
    assert statuses(f"### acme/node\n\n{ITEM}  * {line}\n") == expected
