"""A person's labelled line of a round of updates (``memory.extraction.activity_lists``):
"Rod: working on the build, looking into npm smoke-testing" makes Rod responsible for each
piece of work an activity names — and nothing else does: a section label, a routine chore, a
hypothetical or a question."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from memory.extraction.activity_lists import activity_object, find_activities
from memory.extraction.rules import extract_with_rules

REFERENCE_TIME = datetime(2024, 3, 12, tzinfo=UTC)


def responsibilities(text: str) -> set[tuple[str, str]]:
    extraction = extract_with_rules(text, author="", reference_time=REFERENCE_TIME)
    return {(f.source, f.target) for f in extraction.facts if f.relation == "RESPONSIBLE_FOR"}


def test_each_activity_of_a_persons_line_is_their_work() -> None:
    """Round-the-table minutes (nodejs-tsc-meetings-2015-06-03-s6, dev-extra2)."""
    text = (
        "## Stand-up\n\n"
        "* Rod: working on the build, looking into npm smoke-testing\n"
        "* Ben: reviewing pull requests, making libuv threadpool more scalable\n"
        "* Chris: working on getting npm static analysis working\n"
    )
    assert responsibilities(text) == {
        ("Rod", "Build"),
        ("Rod", "Npm Smoke-testing"),
        ("Ben", "Libuv Threadpool"),
        ("Chris", "Npm Static Analysis"),
    }


def test_a_label_with_a_team_in_parentheses_still_names_the_person() -> None:
    text = "## Updates\n\n* Priya Raman (Infra): working on the backup rotation, VM Summit\n"
    assert ("Priya Raman", "Backup Rotation") in responsibilities(text)


def test_a_handle_as_the_label_names_its_person() -> None:
    text = "## Weekly sync\n\n- @alanshaw: working on the IPLD DAG API\n"
    assert responsibilities(text) == {("@alanshaw", "IPLD DAG API")}


@pytest.mark.parametrize(
    "line",
    [
        "* Note: working on the docs site, fixing the search index",  # a label of the notes
        "* Ben: reviewing pull requests, triaging some issues",  # routine, no item named
        "* Dana: would be working on the release notes if we had time",  # hypothetical
        "* Dana: working on the release notes?",  # a question
        "* Dana: not working on the release notes anymore",  # a negation
        "* Dana: looking at the dashboard, attending the summit",  # a glance, being there
        "* Dana: vacation",  # no verb
    ],
)
def test_lines_that_name_no_ones_work_give_nothing(line: str) -> None:
    assert responsibilities(f"## Stand-up\n\n{line}\n") == set()


@pytest.mark.parametrize(
    ("part", "work"),
    [
        ("working on a github bot for the org", "a github bot"),
        ("looking into npm smoke-testing", "npm smoke-testing"),
        ("getting foundation legalities in order", "foundation legalities"),
        ("making libuv threadpool more scalable", "libuv threadpool"),
        ("setting up the staging cluster", "the staging cluster"),
        ("looking forward to the summit", None),
        ("making sure the tests pass", None),
        ("working on it", None),
        ("doing some libuv work", None),
    ],
)
def test_the_work_is_the_object_cut_where_a_purpose_or_result_begins(
    part: str, work: str | None
) -> None:
    assert activity_object(part) == work


@pytest.mark.parametrize(
    "line",
    [
        "working on the build, looking into npm smoke-testing",  # no label
        "Update: looking into the flaky upgrade test",  # a label of the notes, no one's name
        "Status: working on the migration",
        "Rod: Are we working on the build?",
    ],
)
def test_a_line_without_a_persons_label_is_no_ones_update(line: str) -> None:
    assert find_activities(line) is None


def test_a_completed_part_gives_its_item_the_status_and_no_one_the_work() -> None:
    """"Trevor: merged UInt8Array Buffer changes into the next branch"
    (nodejs-tsc-meetings-2015-06-03-s6): finished work is no one's to do (GUIDE §10)."""
    extraction = extract_with_rules(
        "## Stand-up\n\n* Trevor: merged UInt8Array Buffer changes into the next branch\n",
        author="",
        reference_time=REFERENCE_TIME,
    )
    assert {(f.source, f.relation, f.target) for f in extraction.facts} == {
        ("UInt8Array Buffer Changes", "HAS_STATUS", "Merged")
    }


def test_a_work_items_line_is_no_ones_update() -> None:
    text = "## Done\n\n- [mplex#87](https://github.com/acme/mplex/pull/87): fixed stream logic\n"
    assert responsibilities(text) == set()
