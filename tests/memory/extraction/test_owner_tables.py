"""Tables of work with an owner column (``memory.extraction.owner_tables``): "| Item | Owner |
Status |" rows make their owners responsible for their items, with the status the row states.
Other tables (results, versions, polls) stay data; a row that names no one gives nothing."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from memory.extraction.owner_tables import columns, owner_names, status_word
from memory.extraction.rules import extract_with_rules

REFERENCE_TIME = datetime(2024, 3, 12, tzinfo=UTC)


def facts(text: str) -> set[tuple[str, str, str]]:
    extraction = extract_with_rules(text, author="", reference_time=REFERENCE_TIME)
    return {(f.source, f.relation, f.target) for f in extraction.facts}


def test_each_row_of_an_owner_table_is_its_owners_work_with_its_status() -> None:
    text = (
        "## Action items\n\n"
        "| Item | Owner | Status |\n"
        "|---|---|---|\n"
        "| Update the release doc | Alice | In progress |\n"
        "| Migration plan review | @bob | Blocked |\n"
        "| [Flaky upgrade test](https://github.com/acme/app/issues/7) | Carol, Dave | Done |\n"
    )
    assert facts(text) == {
        ("Alice", "RESPONSIBLE_FOR", "Release Doc"),
        ("Release Doc", "HAS_STATUS", "In Progress"),
        ("@bob", "RESPONSIBLE_FOR", "Migration Plan Review"),
        ("Migration Plan Review", "HAS_STATUS", "Blocked"),
        ("Carol", "RESPONSIBLE_FOR", "Flaky upgrade test (acme/app#7)"),
        ("Dave", "RESPONSIBLE_FOR", "Flaky upgrade test (acme/app#7)"),
        ("Flaky upgrade test (acme/app#7)", "HAS_STATUS", "Done"),
    }


@pytest.mark.parametrize(
    "row",
    [
        "| Hiring plan | TBD | Open |",  # no one yet
        "| Onboarding guide | the infra folks | 50% |",  # no name
        "| Onboarding guide | all | Done |",
    ],
)
def test_a_row_whose_owner_is_no_one_in_particular_is_no_ones_work(row: str) -> None:
    text = f"## Action items\n\n| Task | Assignee | Status |\n|---|---|---|\n{row}\n"
    assert not [f for f in facts(text) if f[1] == "RESPONSIBLE_FOR"]


def test_a_table_without_an_owner_column_stays_unread() -> None:
    text = (
        "## Clients\n\n| Client | Version | Notes |\n|---|---|---|\n"
        "| Geth | 1.2 | Alice upgraded it |\n"
    )
    assert facts(text) == set()


def test_a_table_row_is_never_read_as_a_sentence() -> None:
    """The row's cells together say nothing: "Bob will ship the thing" in a notes column is
    data of the table, not a claim read as prose."""
    text = (
        "## Notes\n\n| Topic | Notes |\n|---|---|\n| Release | Bob will ship the installer |\n"
    )
    assert facts(text) == set()


def test_columns_are_found_by_their_header_words() -> None:
    assert columns(("**Action item**", "Who", "State")) == (0, 1, 2)
    assert columns(("Item", "Owner")) == (0, 1, None)
    assert columns(("Client", "Version", "Notes")) is None
    assert columns(("Owner", "Notes")) is None  # no item column


def test_owner_cells_and_status_cells() -> None:
    assert owner_names("Alice & Bob") == ["Alice", "Bob"]
    assert owner_names("TBD") == []
    assert owner_names("the infra folks") == []
    assert status_word("**In progress**") == "in progress"
    assert status_word("50%") is None
