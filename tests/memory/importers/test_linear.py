"""The Linear importer on a CSV written from Linear's export columns (see fixtures/README.md)."""

from __future__ import annotations

from datetime import datetime

import pytest

from memory.importers import linear
from memory.importers.model import WrongFormat
from memory.models import Graph
from tests.memory.importers.conftest import ImportFn, facts_of, fixture_bytes


def at(text: str) -> datetime:
    return datetime.fromisoformat(text)


@pytest.mark.django_db
def test_the_export_becomes_items_with_their_links_and_statuses(
    graph: Graph, run_import: ImportFn
) -> None:
    report = run_import(graph, "linear", fixture_bytes("linear-export.csv"),
                        options={"base_url": "https://linear.app/acme"})

    assert report.summary() == "stored 8, duplicates 0, rejected 0"  # 4 created, 4 statuses
    assert set(facts_of(graph, "DEPENDS_ON")) == {("ENG-2", "ENG-3")}
    assert set(facts_of(graph, "TRACKS")) == {("ENG-1", "ENG-2")}  # Parent issue
    assert set(facts_of(graph, "DUPLICATE_OF")) == {("ENG-4", "ENG-3")}
    status = {s: f.target.name for (s, _), f in facts_of(graph, "HAS_STATUS", current=True).items()}
    assert status == {"ENG-1": "In Progress", "ENG-2": "In Progress", "ENG-3": "Done",
                      "ENG-4": "Canceled"}
    assert facts_of(graph, "HAS_STATUS")[("ENG-3", "Done")].valid_at == at(
        "2026-11-12T15:00:00+00:00")  # Completed
    # Done ends what waited on it; Canceled ends ENG-4 without being done.
    assert facts_of(graph, "DEPENDS_ON")[("ENG-2", "ENG-3")].invalid_at == at(
        "2026-11-12T15:00:00+00:00")


def test_items_link_back_to_the_workspace_when_it_is_given() -> None:
    items = linear.read(fixture_bytes("linear-export.csv"), base_url="https://linear.app/acme")

    assert items.items[0].url == "https://linear.app/acme/issue/ENG-1"
    assert linear.read(fixture_bytes("linear-export.csv")).items[0].url == ""


def test_a_row_without_an_issue_id_is_reported_and_the_others_read() -> None:
    text = fixture_bytes("linear-export.csv").decode().replace("\nENG-3,", "\n,", 1)

    result = linear.read(text.encode())
    assert [item.key for item in result.items] == ["ENG-1", "ENG-2", "ENG-4"]
    assert [(p.position, p.reason) for p in result.problems] == [
        ("row 4", "ID '' is not an issue id such as ENG-123")]


def test_a_jira_csv_is_refused_naming_the_columns_found() -> None:
    with pytest.raises(WrongFormat) as refused:
        linear.read(fixture_bytes("jira-export.csv"))

    assert "expected a Linear CSV export" in str(refused.value)
    assert "found CSV columns Summary, Issue key" in str(refused.value)


def test_times_are_utc_with_or_without_an_offset() -> None:
    header = "ID,Title,Status,Created\n"
    rows = ("ENG-1,A,Todo,2026-11-02T09:00:00\n"
            "ENG-2,B,Todo,Mon Nov 02 2026 09:00:00 GMT+0100 (CET)\n")
    result = linear.read((header + rows).encode())

    assert [item.created_at for item in result.items] == [at("2026-11-02T09:00:00+00:00"),
                                                          at("2026-11-02T08:00:00+00:00")]
