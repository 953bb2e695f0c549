"""Membership written beside a name in minutes (``memory.extraction.affiliations``): the
organisation in parentheses, an appositive role of an organisation, a welcome to a body.
Sentences from the corpus's dev split are named by their episode id."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from memory.extraction.affiliations import find_memberships
from memory.extraction.rules import extract_with_rules
from memory.language.words import is_common_word

REFERENCE_TIME = datetime(2023, 6, 5, tzinfo=UTC)


def members(text: str, author: str = "") -> set[tuple[str, str]]:
    extraction = extract_with_rules(text, author=author, reference_time=REFERENCE_TIME)
    return {(f.source, f.target) for f in extraction.facts if f.relation == "MEMBER_OF"}


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("* Alex (Teku) said the testnet was stable.\n", {("Alex", "Teku")}),
        ("**Terence (Prysm)**: We are working on optimistic sync.\n", {("Terence", "Prysm")}),
        ("**Terence** (Prysm): We are working on optimistic sync.\n", {("Terence", "Prysm")}),
    ],
)
def test_a_person_with_their_organisation_in_parentheses_is_its_member(
    text: str, expected: set[tuple[str, str]]
) -> None:
    """GUIDE §3: "Alex (Teku)" → `Alex MEMBER_OF Teku`."""
    assert members(text) == expected


@pytest.mark.parametrize(
    "text",
    [
        "### Update on CSP integration (Francis McCabe) [15 min]\n",
        "**Danny** (23:51): hello everyone\n",
        "Vote (Yes): 12\n",
        "* Tim (release manager hat) will cut the branch.\n",
    ],
)
def test_a_time_a_word_or_a_role_in_parentheses_is_no_organisation(text: str) -> None:
    assert members(text) == set()


def test_an_appositive_role_of_an_organisation_makes_a_member() -> None:
    """pysc-2022-06-27: the team, not the company that owns it."""
    text = (
        "* The SC met with Michael Droetboom, manager of Microsoft’s Faster CPython team, "
        "and talked about the challenges of having a team of full-timers.\n"
    )
    assert members(text) == {("Michael Droetboom", "Faster CPython team")}


def test_the_organisation_named_before_the_role_is_the_persons() -> None:
    """pysc-2022-04-11: "Welcomed" is the verb, not part of the name."""
    assert members("* Welcomed Deb, our new PSF General Director.\n") == {("Deb", "PSF")}


def test_someone_welcomed_to_a_body_is_its_member() -> None:
    """pysc-2022-12-19."""
    assert members("- The SC welcomed Emily to the SC.\n") == {("Emily", "SC")}


def test_a_question_states_no_membership() -> None:
    names = lambda word: not is_common_word(word)  # noqa: E731
    assert find_memberships("Is Alex (Teku) on the call?", names) == []


def test_a_customers_message_is_not_read_for_memberships() -> None:
    """In support text "Docker (WSL)" names a product's part, not a member."""
    assert members("Docker (WSL) fails to start after the update.\n", author="jy1989") == set()


# ------------------------------------------- "Name (Word)" that states no membership (#17)


def test_an_attendance_list_states_no_membership() -> None:
    """ossf-tac-minutes-2022-07-18-s1 (dev-extra2): a roster under "Attendance" says who came,
    which the labels do not read as membership (GUIDE §3 reads "Alex (Teku)" in what is said)."""
    text = (
        "Attendance (please add yourself)\n\n"
        "* Dana Whitfield (Acme Labs)\n"
        "* Ravi Menon (Northwind)\n"
        "* Guido van Rossum (Microsoft)\n"
        "* Jo Kim (LF, OpenSSF)\n"
    )
    assert members(text) == set()


def test_a_labelled_list_of_names_states_no_membership() -> None:
    """tc39 notes (dev-extra2): "Presenter: …" names who presents, in the minutes' initials."""
    assert members("Presenter: Maria Lopez (ML), Tom Baker (TB)\n") == set()
    assert members("Present: Alex (Teku), Ben (Prysm)\n") == set()


def test_a_speakers_label_before_what_they_say_is_still_a_membership() -> None:
    """nodejs-tsc-meetings-2016-04-07-s6: "James Snell (TSC): …" introduces an update."""
    assert members("* Dana Whitfield (TSC): working on the release tooling\n") == {
        ("Dana Whitfield", "TSC")}
    names = lambda word: not is_common_word(word)  # noqa: E731
    assert [(m.person, m.team) for m in find_memberships("**Terence (Prysm)**:", names)] == [
        ("Terence", "Prysm")]


def test_a_persons_initials_in_parentheses_are_no_organisation() -> None:
    """tc39 notes (dev-extra2): "Michael Ficarra (MF)", "Shu-yu Guo (SYG)": the letters
    abbreviate the name; "Alex (AWS)" does not."""
    assert members("* Maria Lopez (ML) said the proposal had reached stage 3.\n") == set()
    assert members("* Kai-lin Chen (KLC) will write the tests.\n") == set()
    assert members("* Alex (AWS) said the testnet was stable.\n") == {("Alex", "AWS")}


def test_a_given_name_in_parentheses_inside_a_name_is_no_organisation() -> None:
    """ossf-tac-minutes-2022-07-18-s1: "VM (Vicky) Brasseur", here in a sentence."""
    assert ("JT", "Jamie") not in members("* JT (Jamie) Torres said the budget was approved.\n")


def test_a_line_labelled_as_attendance_is_a_roster_whatever_else_it_lists() -> None:
    """Minutes that list teams with their companies under a bold label, in one line."""
    text = ("**Attendance:** Harbor (Northwind), Quill (Acme Labs), the Foundation, and "
            "community representatives\n")
    assert members(text) == set()


def test_a_short_form_in_parentheses_is_no_organisation() -> None:
    """"the integration of WebAssembly (Wasm)": the name's own short form."""
    assert members("* We covered the integration of WebAssembly (Wasm) with the chain.\n") == set()
    assert members("* Potuz (Prysm) will write the spec PR.\n") == {("Potuz", "Prysm")}


def test_a_word_in_capitals_is_no_person() -> None:
    """"08:00–09:00 PM GST (Dubai)": a time zone and its city."""
    assert members("**Time:** 08:00–09:00 PM GST (Dubai)\n") == set()


def test_a_title_then_its_presenter_in_parentheses_is_no_membership() -> None:
    """Subgroup agendas: "How to add stacks to V8 (Ilya Rezvov)", "[… for WebAssembly](…)
    (Donald Pinckney)": the name ends a talk's title; the parentheses name who presents."""
    assert members("* How to add green threads to V8 (Maria Lopez)\n") == set()
    assert members("* [Coroutines for WebAssembly](https://example.org/talk.pdf) "
                   "(Tom Baker) [30 min]\n") == set()
    assert members("* The call with Danny (EF) went well.\n") == {("Danny", "EF")}


def test_initials_after_a_longer_name_are_no_organisation() -> None:
    """Roll calls written "(Jordan Harband (JHD))": the initials cover the whole name."""
    assert members("* (Maria Lopez Garcia (MLG)) said the proposal reached stage 3.\n") == set()
