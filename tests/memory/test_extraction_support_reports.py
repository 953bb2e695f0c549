"""One report per problem in a customer's message (``memory.extraction.support_reports``),
with phrasings from the corpus's dev episodes (ids in the comments)."""

from __future__ import annotations

from datetime import UTC, datetime

from memory.extraction import ExtractedFact, Extraction
from memory.extraction.rules import extract_with_rules
from memory.extraction.support_reports import one_report_per_problem

REFERENCE_TIME = datetime(2026, 5, 8, 9, 30, tzinfo=UTC)


def reports(text: str, author: str) -> list[str]:
    extraction = extract_with_rules(text, author=author, reference_time=REFERENCE_TIME,
                                    author_type="Customer")
    return [f.target for f in extraction.facts if f.relation == "REPORTED"]


def test_a_problem_restated_in_the_same_words_is_reported_once() -> None:
    # bw-11475-grauerpanther-bitwarden-2024-10-09
    text = ("Autofill does not work with Chrome or Edge, which I also tried. Disabling the browser "
            "extension and only using the Bitwarden programme under Windows does not solve the "
            "problem, autofill does not work.")

    assert reports(text, "grauerpanther") == ["Autofill Doesn't Work"]


def test_a_problem_told_again_as_the_story_goes_on_is_reported_once() -> None:
    # cur-3488-YeKao-2025-08-13: "freeze" and "froze" are one verb
    assert reports("After one update, it started to freeze. Every time I changed it, it froze.",
                   "YeKao") == ["freeze"]


def test_two_symptoms_stay_two_reports() -> None:
    # dfw-1089-brunolm: "Docker won't start" and "Docker loads forever" are both labelled
    extraction = Extraction(extractor="rules@1", entities=[], facts=[
        ExtractedFact("brunolm", "Customer", "REPORTED", "Docker won't start (#1089)", "Issue",
                      "t"),
        ExtractedFact("brunolm", "Customer", "REPORTED", "Docker loads forever", "Issue", "s")])

    kept = one_report_per_problem(extraction, "brunolm")

    assert [f.target for f in kept.facts] == ["Docker won't start (#1089)", "Docker loads forever"]


def test_what_was_said_of_a_restatement_is_said_of_the_first_report() -> None:
    extraction = Extraction(extractor="rules@1", entities=[], facts=[
        ExtractedFact("ana", "Customer", "REPORTED", "Autofill doesn't work", "Issue", "a"),
        ExtractedFact("ana", "Customer", "REPORTED", "autofill does not work", "Issue", "b"),
        ExtractedFact("autofill does not work", "Issue", "PRECEDED_BY", "Update", "Event", "b")])

    kept = one_report_per_problem(extraction, "ana")

    assert [(f.source, f.relation, f.target) for f in kept.facts] == [
        ("ana", "REPORTED", "Autofill doesn't work"),
        ("Autofill doesn't work", "PRECEDED_BY", "Update")]
