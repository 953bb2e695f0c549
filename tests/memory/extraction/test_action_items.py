"""Action items in minutes read by their grammar, not by the words of one source: who is asked
to act, on which item (the agenda item a line sits under when its object names no work), in
an action-items section whichever side of the action its owner is written on, and people
asked or tasked by the meeting. Sentences from the corpus's dev split are named by their
episode id; the others are the shapes minutes of any source use."""

from __future__ import annotations

import time
from datetime import UTC, datetime

import pytest

from memory.extraction.minutes import action_item_line, in_action_section
from memory.extraction.responsibility import asked_to, role_owners
from memory.extraction.rules import extract_with_rules

REFERENCE_TIME = datetime(2023, 6, 5, tzinfo=UTC)


def responsibilities(text: str) -> set[tuple[str, str]]:
    extraction = extract_with_rules(text, author="", reference_time=REFERENCE_TIME)
    return {(f.source, f.target) for f in extraction.facts if f.relation == "RESPONSIBLE_FOR"}


# ------------------------------------------------------------ the agenda item it sits under


@pytest.mark.parametrize(
    "line",
    [
        "- Alex to update the spec",
        "- Alex will update the spec",
        "- Alex agreed to update the spec.",
    ],
)
def test_an_action_item_under_an_agenda_heading_is_on_the_headings_item(line: str) -> None:
    """No reference names the item, and "the spec" points back at it: the person is
    responsible for the agenda item the heading names (GUIDE §8.1, §8.3)."""
    assert responsibilities(f"### Withdrawals\n{line}\n") == {("Alex", "Withdrawals")}


def test_an_action_that_reaches_out_is_on_the_item_too() -> None:
    assert responsibilities(
        "### Update on Kubernetes\n- Michael will reach out to the board.\n"
    ) == {("Michael", "Kubernetes")}


def test_a_category_heading_is_never_the_item_of_an_action() -> None:
    """ "Next steps", "Notes", "Action items" name a part of the meeting, not work."""
    assert responsibilities("**Next steps:**\n- Tim and Alex to update the spec\n") == set()
    assert responsibilities("### Notes\n- Alex will update the spec\n") == set()


def test_a_speakers_own_plan_is_not_given_to_the_agenda_item() -> None:
    """In a transcript "I will …" plans as often as it commits: only a named person asked to
    act takes on the item above."""
    assert responsibilities("### Shanghai fork\n**Tim**: I will look at it.\n") == set()


def test_an_action_verb_that_commits_to_no_work_gives_nothing() -> None:
    assert responsibilities("### Shanghai fork\n- Tim will attend the summit.\n") == set()


# ------------------------------------------------------------------ action-items sections


@pytest.mark.parametrize(
    ("heading", "parents", "expected"),
    [
        (("Action items",), (), True),
        (("Meeting notes",), ("Next steps:",), True),
        (("Decisions and Actions Made",), (), True),
        (("Shanghai fork",), (), False),
        ((), (), False),
    ],
)
def test_an_action_items_section_is_known_by_its_label(
    heading: tuple[str, ...], parents: tuple[str, ...], expected: bool
) -> None:
    assert in_action_section(heading, parents) is expected


@pytest.mark.parametrize(
    "line",
    [
        "- Tim: share the testnet schedule",
        "- Share the testnet schedule (Tim)",
        "- [ ] Tim to share the testnet schedule",
    ],
)
def test_an_action_item_names_its_owner_before_or_after_the_action(line: str) -> None:
    assert responsibilities(f"### Action items\n{line}\n") == {("Tim", "Testnet Schedule")}


def test_a_handle_after_the_action_is_its_owner() -> None:
    facts = responsibilities("### Action items\n- Share the testnet schedule - @tim\n")
    assert {(source.lstrip("@"), target) for source, target in facts} == {
        ("tim", "Testnet Schedule")
    }


def test_a_line_of_an_action_items_section_without_an_owner_gives_nothing() -> None:
    assert responsibilities("### Action items\n- Discussion continues next week\n") == set()
    assert action_item_line("Discussion continues next week") is None


def test_an_owner_last_needs_the_action_to_open_on_a_verb() -> None:
    """ "The fork date (Tim)" is a topic and its presenter, no action."""
    assert action_item_line("The fork date (Tim)") is None


# ---------------------------------------------------------------- asked or tasked to act


def test_someone_the_meeting_asked_to_take_on_work_is_responsible_for_it() -> None:
    """pysc-2022-01-10: what was discussed ("the GitHub Issues migration", named work) is what
    "it" means after it."""
    text = (
        "## 2022-01-10\n* The Steering Council discussed the GitHub Issues migration, and has "
        "asked the Developer-in-Residence to take on some of the work for it.\n"
    )
    assert responsibilities(text) == {("Developer-in-Residence", "GitHub Issues Migration")}


@pytest.mark.parametrize(
    "line",
    [
        "- The group asked Tim to draft the timeline.",
        "- Tim was asked to write up the timeline.",
        "- Tim has been tasked to write up the timeline.",
    ],
)
def test_asked_or_tasked_in_either_voice_is_an_action_item(line: str) -> None:
    assert responsibilities(f"### Shanghai fork\n{line}\n") == {("Tim", "Shanghai Fork")}


@pytest.mark.parametrize(
    "line",
    [
        "If we asked Tim to write the EIP, it would be faster.",
        "Nobody asked Tim to write the EIP.",
        "Tim was not asked to write the EIP.",
    ],
)
def test_a_request_under_a_condition_or_a_negation_commits_no_one(line: str) -> None:
    assert asked_to(line) is None
    assert responsibilities(f"### Shanghai fork\n- {line}\n") == set()


def test_a_teams_heading_is_no_agenda_item_for_an_action() -> None:
    """Under "### Prysm" (a team's update) the action is the person's, on no item the heading
    names; under a topic heading ("### Withdrawals") it is on the topic."""
    assert responsibilities("### Prysm\n- Terence will reach out to the other teams.\n") == set()
    assert responsibilities("### Withdrawals\n- Terence will reach out to the other teams.\n") == {
        ("Terence", "Withdrawals")
    }


def test_a_lower_case_handle_before_a_colon_owns_an_action_item() -> None:
    assert action_item_line("scottmcm: write an RFC for the lint") == (
        "AI - scottmcm to write an RFC for the lint"
    )
    assert action_item_line("note: write an RFC for the lint") is None


# ------------------------------------------------------------------- role lines


@pytest.mark.parametrize(
    ("line", "expected"),
    [
        ("- Owner: nikomatsakis", {("nikomatsakis", "Stabilize let-else (rust#93628)")}),
        ("- Champion: Josh", {("Josh", "Stabilize let-else (rust#93628)")}),
        (
            "- Owners: Josh and Niko",
            {
                ("Josh", "Stabilize let-else (rust#93628)"),
                ("Niko", "Stabilize let-else (rust#93628)"),
            },
        ),
    ],
)
def test_a_role_line_under_an_item_makes_its_people_responsible_for_it(
    line: str, expected: set[tuple[str, str]]
) -> None:
    assert responsibilities(f'### "Stabilize let-else" rust#93628\n{line}\n') == expected


@pytest.mark.parametrize("line", ["- Owner: TBD", "- Champion: none", "- Lead: the team"])
def test_a_role_line_that_names_nobody_gives_nothing(line: str) -> None:
    assert responsibilities(f'### "Stabilize let-else" rust#93628\n{line}\n') == set()


def test_a_role_line_needs_an_item_above_it() -> None:
    assert role_owners("Owner: nikomatsakis") == ["nikomatsakis"]
    assert responsibilities("### Notes\n- Owner: nikomatsakis\n") == set()


@pytest.mark.parametrize(
    "line",
    [
        "**Tim Beiko**: So I will write up an EIP for the blob fee.",
        "**Tim Beiko**: Yeah, so I will write up a spec for the blob fee.",
    ],
)
def test_a_speakers_spoken_openers_are_no_part_of_the_commitment(line: str) -> None:
    """Under an item a reference names (EIP-4844), a speaker's "I will write up …" is theirs
    however the transcript opens it."""
    assert responsibilities(f"## EIP-4844\n{line}\n") == {("Tim Beiko", "EIP-4844")}


def test_a_speakers_negated_commitment_after_openers_gives_nothing() -> None:
    line = "**Tim Beiko**: Yeah, so I will not write up a spec for the blob fee."
    assert responsibilities(f"## EIP-4844\n{line}\n") == set()


def test_a_long_line_of_names_is_read_in_bounded_time() -> None:
    """The owner patterns check name by name: no line makes them backtrack."""
    line = "Share the thing (" + "Aand and " * 60 + "x"
    started = time.perf_counter()
    assert action_item_line(line) is None
    assert role_owners("Owner: a" + " and and" * 200 + "!") == []
    assert time.perf_counter() - started < 1.0
