"""Facts whose words name nothing the labels hold (``memory.extraction.assertions.states_a_fact``,
issue #17's second precision round, branch ``rtprec2``): found by running the rules on minutes
and PR descriptions outside the corpus (W3C WebExtensions CG, the CNCF TOC batch subproject,
the OpenJS standards WG, nushell). Sentences are written like those, not copied; each test also
reads the line the guard must leave alone."""

from __future__ import annotations

from datetime import UTC, datetime

from memory.extraction.affiliations import find_memberships
from memory.extraction.assertions import (
    expands_initials,
    names_one_of_many,
    supposes,
    unchecked_goals,
)
from memory.extraction.rules import extract_with_rules
from memory.language.documents import read_document

REFERENCE_TIME = datetime(2025, 7, 29, tzinfo=UTC)


def facts(text: str) -> set[tuple[str, str, str]]:
    extraction = extract_with_rules(text, author="", reference_time=REFERENCE_TIME)
    return {(f.source, f.relation, f.target) for f in extraction.facts}


def test_a_roster_line_with_a_role_in_brackets_states_no_membership() -> None:
    assert find_memberships("Priya Raman (Contoso) [host]", lambda word: True) == []
    assert find_memberships("* Tomas Berg (Initech) [presenter]", lambda word: True) == []
    assert not any(rel == "MEMBER_OF" for _, rel, _ in facts(
        "## Attendees\n\n* Priya Raman (Contoso) [host]\n* Tomas Berg (Initech) [presenter]\n"))


def test_a_person_with_an_organisation_in_a_statement_is_still_its_member() -> None:
    assert find_memberships("Tomas Berg (Initech) presented the new queueing design.",
                            lambda word: True)


def test_one_of_many_has_no_status() -> None:
    assert facts("### Announcements\n\n* Liaison reports\n  * ECMA - Plenary in Lisbon. One "
                 "proposal went to stage 4, several advanced to stage 2.\n") == set()
    assert names_one_of_many("One Proposal", "One proposal went to stage 4")
    assert not names_one_of_many("Repo", "DS: Poll passes, will create a repo for this.")


def test_taking_part_is_no_work_owned() -> None:
    assert not any(rel == "RESPONSIBLE_FOR" for _, rel, _ in facts(
        "## Next steps\n\nAcme and Globex will participate in future meetings.\n"))
    assert not any(rel == "RESPONSIBLE_FOR" for _, rel, _ in facts(
        "## Next steps\n\nDana will attend the upcoming sync.\n"))


def test_a_supposed_block_is_no_dependency() -> None:
    assert supposes("[kim] If a content script runs a long loop, that blocks the worker.")
    assert supposes("Unless the flag is set, the loader blocks the build.")
    assert not supposes("[kim] The long loop blocks the worker until the timeout.")
    assert not any(rel == "DEPENDS_ON" for _, rel, _ in facts(
        "#### [Issue 512](https://github.com/acme/ext/issues/512): long-running scripts\n\n"
        " * [kim] If a content script executes a long loop, that effectively block the worker "
        "for 30 seconds.\n"))


def test_the_tail_of_a_list_of_statuses_is_no_item() -> None:
    assert not any(source.startswith("&") for source, _, _ in facts(
        "### Add Sam as member\n\nApproved & Merged\n"))


def test_a_short_form_after_its_words_owns_nothing() -> None:
    assert expands_initials("DRA", "Device Resource Allocation (DRA)")
    assert not expands_initials("DRA", "Resource work (DRA) by Dana")
    assert not any(rel == "RESPONSIBLE_FOR" for _, rel, _ in facts(
        "## Next Steps\n\n- Groups to follow:\n- Storage Working Group\n"
        "- Device Resource Allocation (DRA)\n- Research User Group (RUG)\n"))


def test_a_noun_pointed_back_at_is_no_item() -> None:
    text = ("I squashed the commits into one, because the first one broke the build, which the "
            "second fixed, but that fix was reverted and replaced in the third.")
    assert not any(name == "That Fix" for fact in facts(text) for name in (fact[0], fact[2]))
    assert names_one_of_many("That Fix", text)
    assert not names_one_of_many("This Change", "We merged this change to `toSorted`.")


def test_an_unchecked_box_is_a_goal_not_a_status() -> None:
    text = ("Fix the intermittent login tests #7031\n\n### Acceptance Criteria\n\n"
            "- [ ] These tests are no longer flaky.\n")
    assert unchecked_goals(read_document(text)) == {"These tests are no longer flaky."}
    extraction = extract_with_rules(text, author="tpen", reference_time=REFERENCE_TIME)
    assert not any(f.relation == "HAS_STATUS" for f in extraction.facts)


def test_a_checked_box_or_an_action_in_a_box_is_still_read() -> None:
    assert unchecked_goals(read_document("- [x] These tests are no longer flaky.\n")) == frozenset()
    assert ("Alice", "RESPONSIBLE_FOR", "Migration Guide") in facts(
        "## Action items\n\n- [ ] Alice to write the migration guide\n")
