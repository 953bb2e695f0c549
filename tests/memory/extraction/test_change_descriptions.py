"""What a pull request's description says that is no fact of the tracker (issue #17, precision
on text no reading was tuned on, here PR descriptions of a repository outside the corpus):
the bug the change fixes told by its author, a reference that only qualifies a noun, words
listed before their noun, a tool as co-author. Sentences are written like real PR bodies."""

from __future__ import annotations

from datetime import UTC, datetime

from memory.extraction.minutes import find_decisions
from memory.extraction.rules import extract_with_rules
from memory.language.threads import thread_of_address

REFERENCE_TIME = datetime(2026, 5, 8, tzinfo=UTC)
PR = "https://github.com/example/linter/pull/{}"


def facts(text: str, number: int = 2501, author: str = "Dana Reyes") -> set[tuple[str, str]]:
    extraction = extract_with_rules(text, author=author, reference_time=REFERENCE_TIME,
                                    author_type="Person",
                                    thread=thread_of_address(PR.format(number)))
    return {(f.relation, f.source) for f in extraction.facts}


def test_the_bug_a_change_fixes_is_no_report_by_its_author() -> None:
    text = ("Narrow unions of enum literals #2501\n\n## Summary\n\n"
            "Prior to this change, the checker failed to narrow a union containing an enum "
            "literal. Type parameter lists did not run the same validation as class "
            "parameter lists.\n\nFixes #2480.\n")
    found = facts(text)
    assert not any(relation in {"REPORTED", "AFFECTS"} for relation, _ in found)
    assert ("DEPENDS_ON", "#2480") in found


def test_the_same_words_in_an_issue_are_still_a_report() -> None:
    text = "Docker Desktop fails to start after the update.\n"
    extraction = extract_with_rules(
        text, author="jane", reference_time=REFERENCE_TIME, author_type="Customer",
        thread=thread_of_address("https://github.com/docker/for-mac/issues/7001"))
    assert any(f.relation == "REPORTED" for f in extraction.facts)


def test_a_reference_that_qualifies_a_noun_tracks_nothing() -> None:
    """"as part of PEP-257 normalization of docstrings": part of the normalization."""
    qualified = facts("This corrects how tabs expand as part of #2400 normalization of "
                      "docstrings.\n")
    assert not any(relation == "TRACKS" for relation, _ in qualified)
    assert ("TRACKS", "#2400") in facts("This is done as part of #2400.\n")
    assert ("TRACKS", "#2400") in facts("Part of #2400 and #2401.\n")


def test_words_listed_before_their_noun_are_no_decision() -> None:
    assert find_decisions("Cover incomplete, rejected, and unsolved solutions.") == []
    assert find_decisions("Approved, merged, and released.") != []


def test_a_tool_as_co_author_is_no_one_responsible() -> None:
    text = ("Fix a typo in the tutorial #2502\n\nCo-authored-by: Claude <noreply@example.com>\n\n"
            "Co-authored-by: releasebot <4242+releasebot@users.noreply.github.com>\n\n"
            "Co-authored-by: Bob Smith <123+bobsmith@users.noreply.github.com>\n")
    responsible = {source for relation, source in facts(text, 2502) if
                   relation == "RESPONSIBLE_FOR"}
    assert "Bob Smith" in responsible
    assert not responsible & {"Claude", "releasebot"}


def test_struck_through_text_is_withdrawn() -> None:
    """"~~I'll send a PR to rustc to see if they'd keep it.~~": the writer took it back."""
    from memory.extraction.assertions import without_struck_text

    text = ("Keep the stable attribute in dependencies #2503\n\n"
            "~~Currently, the lint is not working because the attribute is dropped. I'll send "
            "a PR to fix this.~~\n\nIt is fixed here instead.\n")
    assert not any(relation == "RESPONSIBLE_FOR" for relation, _ in facts(text, 2503))
    assert without_struck_text("a ~~b c~~ d") == "a   d"
    assert without_struck_text("a ~ b ~ c") == "a ~ b ~ c"
