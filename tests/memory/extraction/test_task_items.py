"""Action items by their form (``memory.extraction.task_items``): an open task-list box or a
line of an action-items section with its owner makes the owner responsible for the item above,
else for the work the action's object names. A ticked box, a heading, a question, a
hypothetical or an owner who is no one in particular gives nothing."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from memory.extraction.rules import extract_with_rules
from memory.extraction.task_items import object_item, task_action, task_commitment
from memory.language.threads import thread_of_address

REFERENCE_TIME = datetime(2024, 3, 12, tzinfo=UTC)


def responsibilities(text: str) -> set[tuple[str, str]]:
    extraction = extract_with_rules(text, author="", reference_time=REFERENCE_TIME)
    return {(f.source, f.target) for f in extraction.facts if f.relation == "RESPONSIBLE_FOR"}


def test_an_open_task_with_a_handle_before_its_verb_is_that_persons() -> None:
    text = "## Release planning\n\n- [ ] @bob review the migration plan\n"
    assert responsibilities(text) == {("@bob", "Migration Plan")}


@pytest.mark.parametrize(
    "line",
    [
        "- [ ] Alice: update the onboarding guide",
        "- [ ] Update the onboarding guide (Alice)",
        "- [ ] Alice to update the onboarding guide",
    ],
)
def test_an_open_task_with_its_owner_on_either_side_is_on_the_item_above(line: str) -> None:
    """The object names no work by its word ("guide"), so the agenda item above it is the
    item (GUIDE §8.3), as for any action item under an agenda heading."""
    assert responsibilities(f"## Release planning\n\n{line}\n") == {("Alice", "Release Planning")}


def test_under_an_action_items_heading_the_object_is_the_item() -> None:
    """"Action items" is the section's label, no agenda item: the action's object is the only
    thing the line can be about."""
    text = (
        "## Action items\n\n"
        "- Frank: fix the CI pipeline\n"
        "- @dave review the [rollout checklist](https://github.com/acme/ops/issues/5)\n"
    )
    assert responsibilities(text) == {
        ("Frank", "CI Pipeline"),
        ("@dave", "rollout checklist (acme/ops#5)"),
    }


@pytest.mark.parametrize(
    "text",
    [
        "## Release planning\n\n- [x] @erin publish the blog post\n",  # done: no one's to do
        "## Release planning\n\n- [ ] Update the changelog\n",  # no owner
        "## Release planning\n\n- [ ] If Bob takes it, Bob to update the FAQ\n",  # hypothetical
        "## Release planning\n\n- [ ] Should Bob update the FAQ?\n",  # a question
        "## Action items\n\n- We to look into it\n",  # no one named
        "## Action items\n\n- @all: take a look at the draft and give feedback\n",
        "## Action items\n\n- TBD: write the release notes\n",
        "## Action items\n\n- Grace: follow up with Heidi\n",  # a person, no work
        "## Action items\n\n- Judy to ping the client teams\n",
        "## [ ] Bob to update the FAQ\n\nNotes follow.\n",  # a heading states nothing
    ],
)
def test_tasks_that_commit_no_one_to_named_work_give_nothing(text: str) -> None:
    assert responsibilities(text) == set()


def test_a_pull_requests_checklist_is_no_ones_action_item() -> None:
    """A tracker's "- [ ] Tests added" is the change's checklist (read by the tracker rules)."""
    extraction = extract_with_rules(
        "Add retries to the uploader #12\n\n- [ ] @bob review the retry policy\n",
        author="alice",
        reference_time=REFERENCE_TIME,
        thread=thread_of_address("https://github.com/acme/app/pull/12"),
    )
    assert not [f for f in extraction.facts if f.relation == "RESPONSIBLE_FOR"]


@pytest.mark.parametrize(
    ("line", "labelled"),
    [
        ("zzref0zz review the migration plan", "AI - zzref0zz to review the migration plan"),
        ("Alice: update the guide", "AI - Alice to update the guide"),
        ("Update the guide (Alice)", "AI - Alice to update the guide"),
        ("zzref0zz reviewed the migration plan", None),  # past: done, not to do
        ("if zzref0zz reviews the plan", None),
    ],
)
def test_the_owner_of_a_task_line_is_before_or_after_its_action(
    line: str, labelled: str | None
) -> None:
    assert task_action(line) == labelled


def test_no_one_in_particular_owns_nothing() -> None:
    assert task_commitment("We: update the guide") is None
    assert task_commitment("TBD: update the guide") is None


@pytest.mark.parametrize(
    ("work", "item"),
    [
        ("the onboarding guide", "the onboarding guide"),
        ("a look at the FAQ", "the FAQ"),
        ("the draft to the board", "the draft"),
        ("with Heidi", None),
        ("it", None),
        ("some of them", None),
    ],
)
def test_an_object_names_an_item_unless_it_is_a_person_a_pronoun_or_a_quantity(
    work: str, item: str | None
) -> None:
    assert object_item(work) == item


def test_an_imperative_with_its_owner_in_parentheses_is_an_action_item_in_any_list() -> None:
    text = (
        "## Release planning\n\n"
        "- Share the testnet schedule (Tim)\n"
        "- Update the changelog (Carol)\n"
        "- Release process update (Carol)\n"  # an agenda topic and its presenter
        "- Discuss the roadmap (Dave)\n"  # talking about an item is no work
        "- Review of the Q3 roadmap (Dave)\n"
    )
    assert responsibilities(text) == {("Tim", "Testnet Schedule"), ("Carol", "Release Planning")}
