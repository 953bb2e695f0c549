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
