"""A status said without its subject under the item a reference names
(``memory.extraction.item_status``): "* Has been merged, nothing to discuss this week." under an
agenda item with its pull request is that pull request's status — never under a heading's
words, a negation, a plan or a question."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from memory.extraction.item_status import subjectless_status
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
