"""Tracker references: identifiers become placeholders for one entity each, titles beside them
become display names, links, code and quotations are never read."""

from __future__ import annotations

import pytest

from memory.language.references import Reference, find_references, mask, title_line


@pytest.mark.parametrize(
    ("text", "key", "type_"),
    [
        ("see #123", "#123", "WorkItem"),
        ("see rust-lang/rust#85305", "rust-lang/rust#85305", "WorkItem"),
        ("see compiler-team#692", "compiler-team#692", "WorkItem"),
        ("KEP-4671 is owned by sig-scheduling", "KEP-4671", "WorkItem"),
        ("see PROJ-123", "PROJ-123", "WorkItem"),
        ("now depends on bug 123456", "Bug 123456", "WorkItem"),
        ("see https://github.com/rust-lang/cargo/pull/7482.", "rust-lang/cargo#7482", "WorkItem"),
        ("see https://gitlab.com/org/repo/-/issues/5", "org/repo#5", "WorkItem"),
        ("see https://bugzilla.mozilla.org/show_bug.cgi?id=1387512", "Bug 1387512", "WorkItem"),
        ("see https://acme.atlassian.net/browse/OPS-12", "OPS-12", "WorkItem"),
        ("thanks @bob", "@bob", "Person"),
        ("cc @rust-lang/compiler", "@rust-lang/compiler", "Team"),
    ],
)
def test_each_kind_of_identifier_is_a_reference_of_its_type(
    text: str, key: str, type_: str
) -> None:
    assert find_references(text) == [Reference(key, type_)]


@pytest.mark.parametrize(
    "text", ["Use UTF-8 and SHA-256", "mail me at a@b.com", "see https://example.com/page"]
)
def test_things_that_only_look_like_identifiers_are_not_references(text: str) -> None:
    assert find_references(text) == []


@pytest.mark.parametrize(
    "line",
    ['"Add hygiene attributes" compiler-team#692', "Add hygiene attributes (compiler-team#692)",
     "compiler-team#692: Add hygiene attributes", "compiler-team#692 Add hygiene attributes",
     "[Add hygiene attributes](https://github.com/rust-lang/compiler-team/issues/692)"],
)
def test_a_title_beside_an_identifier_becomes_its_display_name(line: str) -> None:
    [reference] = mask(line).references.values()

    assert reference.title == "Add hygiene attributes"
    assert reference.name == f"Add hygiene attributes ({reference.key})"


def test_a_sentence_about_an_item_is_not_taken_for_its_title() -> None:
    masked = mask("#1234 is blocked on 11.0.1")

    assert masked.text == "zzref0zz is blocked on 11.0.1"
    assert masked.references["zzref0zz"] == Reference("#1234", "WorkItem")


def test_links_code_and_quotations_become_placeholders_that_unmask_to_the_words() -> None:
    masked = mask('Run `cargo build`, see https://example.com/x and "the big plan" today')

    assert "`" not in masked.text and "https" not in masked.text and '"' not in masked.text
    assert masked.unmask(masked.text) == (
        'Run `cargo build` , see https://example.com/x and "the big plan" today')
    assert masked.has_hidden(masked.text)


def test_a_phrase_that_is_only_a_reference_names_it() -> None:
    masked = mask("PR #88 needs review")

    assert masked.reference("PR zzref0zz") == Reference("#88", "WorkItem")
    assert masked.reference("the fix in zzref0zz") is None


@pytest.mark.parametrize(
    ("line", "expected"),
    [
        ("# e2e flake: 7 failed node test suite tests #24905",
         Reference("#24905", "WorkItem", "e2e flake: 7 failed node test suite tests")),
        ('Docker stuck on "Starting" after latest update #5859',
         Reference("#5859", "WorkItem", 'Docker stuck on "Starting" after latest update')),
        ('### "make unaligned_references warn-by-default" rust#82525',
         Reference("rust#82525", "WorkItem", "make unaligned_references warn-by-default")),
        ("Fixes #123", None),
        ("This commit moves Cargo onto stable Rust", None),
    ],
)
def test_a_title_line_names_the_episodes_own_item(line: str, expected: Reference | None) -> None:
    assert title_line(line) == expected


def test_a_pull_request_title_that_starts_with_fix_still_names_its_item() -> None:
    # ra-pr-5554 (tests/corpus, dev): "Fix remove_dbg #5554" is the PR's title, "Fixes #12" no
    # title at all
    reference = title_line("Fix remove_dbg #5554")

    assert reference is not None and (reference.key, reference.title) == ("#5554", "Fix remove_dbg")
    assert title_line("Fixes #12") is None
    assert title_line("See also #4") is None


def test_a_closing_keyword_beside_a_reference_is_no_title_of_it() -> None:
    masked = mask("Fix #1178")

    assert masked.text == "Fix zzref0zz"
    assert masked.references["zzref0zz"].title is None


@pytest.mark.parametrize(("sentence", "handle"), [
    ("Worked on this with `@yoshuawuyts.`", "@yoshuawuyts"),  # ra-pr-9871
    ("r? `@epage`", "@epage"),  # cargo-pr-13316
    ("Thanks `@bob`!", "@bob"),
])
def test_a_handle_in_backticks_after_a_word_that_names_someone_is_still_the_handle(
        sentence: str, handle: str) -> None:
    """The rust-lang bots write mentions in commit messages in backticks so as not to ping."""
    masked = mask(sentence)

    assert [(r.key, r.type) for r in masked.references.values()] == [(handle, "Person")]


def test_a_decorator_in_backticks_is_code() -> None:
    masked = mask("Use `@property` instead of a getter.")

    assert masked.references == {}
