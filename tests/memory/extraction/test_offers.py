"""Commitments in other words than "X will …" (``memory.extraction.offers``, issue #17): a
first-person offer with "can" in a speaker's line, an action taken by name, a hyphenated
phrasal verb; and the forms around them that any project's minutes share — a serial comma in
a list of names, "X and I", a speaker's "Have been working on …". Questions, conditions,
negations, possibilities ("you can", "we can") and headings commit no one."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from memory.extraction.minutes import find_commitment
from memory.extraction.offers import commitment_words, offered_object
from memory.extraction.rules import extract_with_rules

REFERENCE_TIME = datetime(2024, 3, 12, tzinfo=UTC)


def responsibilities(text: str) -> set[tuple[str, str]]:
    extraction = extract_with_rules(text, author="", reference_time=REFERENCE_TIME)
    return {(f.source, f.target) for f in extraction.facts if f.relation == "RESPONSIBLE_FOR"}


def test_a_speakers_offer_to_help_is_on_the_agenda_item_it_sits_under() -> None:
    text = "## Symbol Predicates\n\nDLM: I can help review.\n\nNRO: I can help too.\n"
    assert responsibilities(text) == {("DLM", "Symbol Predicates"), ("NRO", "Symbol Predicates")}


def test_an_offer_with_someone_else_names_both_and_its_object() -> None:
    text = "## Standard modules\n\nDH: Luke and I can craft a dependency graph offline.\n"
    assert responsibilities(text) == {("DH", "Dependency Graph"), ("Luke", "Dependency Graph")}


@pytest.mark.parametrize(
    "line",
    [
        "DLM: Can I help review?",  # a question
        "DLM: I can help review if needed.",  # a condition
        "DLM: Maybe I can help review.",  # a hedge
        "DLM: I can't help review.",  # a negation
        "DLM: I cannot help review.",
        "DLM: I can not help review.",
        "DLM: I can see the problem with the dependency graph.",  # perception, no work
        "DLM: I can confirm the dependency graph is fine.",  # a statement
        "DLM: You can review the dependency graph.",  # a possibility, not the speaker's offer
        "DLM: We can review the dependency graph.",
        "DLM: Users can review the dependency graph.",
    ],
)
def test_no_offer_in_a_question_a_condition_a_negation_or_a_possibility(line: str) -> None:
    assert responsibilities(f"## Symbol Predicates\n\n{line}\n") == set()


def test_a_heading_with_can_is_no_offer() -> None:
    assert responsibilities("## What I can help review\n\nNothing else was discussed.\n") == set()


def test_an_action_taken_by_name_is_an_action_item() -> None:
    text = "## Release planning\n\n- Bob: I'll take an action to update the changelog\n"
    assert responsibilities(text) == {("Bob", "Release Planning")}
    found = find_commitment("I'll take an action item to update the changelog")
    assert found is not None and found.labelled and found.action == "update the changelog"


@pytest.mark.parametrize(
    "line",
    [
        "Bob: Should I take an action to update the changelog?",
        "Bob: I'll take an action to update the changelog if nobody else does.",
    ],
)
def test_an_action_asked_about_or_under_a_condition_is_none(line: str) -> None:
    assert responsibilities(f"## Release planning\n\n- {line}\n") == set()


def test_a_hyphenated_phrasal_verb_reads_as_the_verb() -> None:
    assert commitment_words("Prasad will follow-up on the use cases")[0] == (
        "Prasad will follow up on the use cases"
    )
    text = "## Release planning\n\n- Prasad will follow-up on the use cases\n"
    assert responsibilities(text) == {("Prasad", "Release Planning")}
    found = find_commitment("Prasad will follow-up on the migration plan")
    assert found is not None and found.work == "the migration plan"  # "up on" is one particle


@pytest.mark.parametrize(
    "names",
    ["Ivana, Gary, and Prasad", "Ivana, Gary and Prasad"],
)
def test_a_list_of_names_with_or_without_a_serial_comma_names_them_all(names: str) -> None:
    text = f"## Release planning\n\n- {names} will review the migration plan\n"
    assert responsibilities(text) == {
        ("Ivana", "Migration Plan"),
        ("Gary", "Migration Plan"),
        ("Prasad", "Migration Plan"),
    }


def test_a_serial_comma_before_a_clause_still_ends_the_clause() -> None:
    """Only names before ", and" are a list: "The release slipped, and Ivana will review the
    migration plan" is two clauses."""
    text = (
        "## Release planning\n\n"
        "- The release slipped, and Ivana will review the migration plan\n"
    )
    assert ("Ivana", "Migration Plan") in responsibilities(text)


def test_a_speakers_work_so_far_is_theirs() -> None:
    text = "## Schedule\n\nAKI: Have been working on draft schedule. Lots of us with lots to say.\n"
    assert responsibilities(text) == {("AKI", "Draft Schedule")}


@pytest.mark.parametrize(
    "line",
    [
        "AKI: Have not been working on draft schedule.",
        "AKI: Have you been working on draft schedule?",
    ],
)
def test_no_work_so_far_when_negated_or_asked(line: str) -> None:
    assert responsibilities(f"## Schedule\n\n{line}\n") == set()


def test_an_offers_object_drops_its_adverbs_and_names_no_pronoun() -> None:
    assert offered_object("a dependency graph offline") == "a dependency graph"
    assert offered_object("too") is None
    assert offered_object("on this") is None


def statuses(text: str) -> set[tuple[str, str]]:
    extraction = extract_with_rules(text, author="", reference_time=REFERENCE_TIME)
    return {(f.source, f.target) for f in extraction.facts if f.relation == "HAS_STATUS"}


@pytest.mark.parametrize(
    "line",
    [
        "No objections to adding it to the License List.",
        "Removed from the agenda, no objections to the bot user.",
        "No concerns/objections from the 11 TSC members in the meeting",
    ],
)
def test_no_objection_under_an_item_accepts_it(line: str) -> None:
    """``memory.extraction.item_status.no_objection``: the group accepted the item above."""
    text = f"* [#52857](https://github.com/nodejs/node/pull/52857)\n  * {line}\n"
    assert statuses(text) == {("nodejs/node#52857", "Accepted")}


@pytest.mark.parametrize(
    "line",
    [
        "Any objections?",  # a question
        "No objections?",
        "If there are no objections we will land it next week.",  # a condition
        "No objections yet, will revisit next week.",  # the call is still open
        "There were objections to landing it.",  # objections raised
        "Kris, no objections from the board, legal reviewed the policies",  # someone's report
    ],
)
def test_no_acceptance_in_a_question_a_condition_an_open_call_or_a_report(line: str) -> None:
    text = f"* [#52857](https://github.com/nodejs/node/pull/52857)\n  * {line}\n"
    assert ("nodejs/node#52857", "Accepted") not in statuses(text)


def test_no_objection_without_an_item_or_as_a_heading_is_nothing() -> None:
    assert statuses("## Notes\n\n* No objections to the new meeting time.\n") == set()
    assert statuses("## No objections\n\nWe met on Tuesday.\n") == set()


@pytest.mark.parametrize(
    "line", ["Dave volunteers to draft the migration guide", "Dave also offers to draft it"]
)
def test_a_present_tense_offer_is_read_as_a_past_one(line: str) -> None:
    assert responsibilities(f"## Release planning\n\n- {line}\n") == {("Dave", "Release Planning")}


@pytest.mark.parametrize(
    "line",
    [
        "Dave never volunteers to draft the migration guide",
        "Would Dave volunteer to draft the migration guide?",
        "If needed, Dave offers to draft the migration guide",
        "Kate also willing to help with it.",  # a willingness: left out (module docstring)
    ],
)
def test_no_present_tense_offer_when_negated_asked_or_conditional(line: str) -> None:
    assert responsibilities(f"## Release planning\n\n- {line}\n") == set()


def test_a_handle_after_a_dash_owns_an_imperative_of_work_in_any_list() -> None:
    text = "## Release planning\n\n- Draft the migration guide - @carol\n"
    assert responsibilities(text) == {("@carol", "Release Planning")}
    # a topic and its presenter: no imperative of work, no one's action
    assert responsibilities("## Agenda\n\n- Release process update - @carol\n") == set()
