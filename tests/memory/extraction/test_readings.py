"""Each fact of the rules extractor says which reading produced it (``memory.extraction.readings``):
the bench's ``--by-reading`` counts true and false positives per reading with it."""

from __future__ import annotations

from dataclasses import replace
from datetime import UTC, datetime

from memory.extraction.readings import UNTAGGED, ReadingStack, reading_of
from memory.extraction.rules import extract_with_rules
from memory.language.threads import thread_of_address

REFERENCE_TIME = datetime(2026, 5, 8, 9, 30, tzinfo=UTC)


def readings(text: str, *, url: str = "") -> dict[tuple[str, str, str], str]:
    extraction = extract_with_rules(
        text, author="Alice", reference_time=REFERENCE_TIME, thread=thread_of_address(url)
    )
    return {(f.source, f.relation, f.target): f.reading for f in extraction.facts}


def test_a_pattern_tags_its_facts_with_its_handlers_name() -> None:
    assert readings("The search revamp is blocked by the indexing service.") == {
        ("Search Revamp", "DEPENDS_ON", "Indexing Service"): "blocked_by",
        ("Search Revamp", "HAS_STATUS", "Blocked"): "blocked_by",
        ("Alice", "RESPONSIBLE_FOR", "Search Revamp"): "blocked_by>implied_owner",
    }


def test_a_line_reader_tags_its_facts_and_the_pattern_it_used_inside() -> None:
    # cargo-pr-13729's "this is prep for #13713", and a closing keyword
    url = "https://github.com/rust-lang/cargo/pull/13729"
    assert readings("Fixes #12\n\nHowever, this is prep for #13713.", url=url) == {
        ("#12", "DEPENDS_ON", "rust-lang/cargo#13729"): "closing_keywords",
        ("#13713", "DEPENDS_ON", "rust-lang/cargo#13729"): "tracker_lines>prep_for",
    }


def test_the_reading_is_provenance_only_two_facts_that_differ_in_it_are_equal() -> None:
    [first] = extract_with_rules(
        "Bob owns the payments integration.", author="Alice", reference_time=REFERENCE_TIME
    ).facts
    assert replace(first, reading="other") == first
    assert "reading" not in repr(first)


def test_a_reading_path_names_each_reading_once_from_the_outermost() -> None:
    stack = ReadingStack()
    assert stack.path() == UNTAGGED
    with stack.running("about_context"), stack.running("status"), stack.running("status"):
        assert stack.path() == "about_context>status"
    assert stack.path() == UNTAGGED


def test_a_fact_no_reading_claims_counts_as_untagged() -> None:
    class Added:
        reading = ""

    assert reading_of(Added()) == UNTAGGED

