"""The Jira importers: the REST search answer with its changelog, and the CSV export, on fixtures
written from Atlassian's documentation (see fixtures/README.md)."""

from __future__ import annotations

from datetime import datetime

import pytest

from memory.importers import jira
from memory.importers.model import WrongFormat
from memory.models import Episode, Fact, Graph
from tests.memory.importers.conftest import ImportFn, facts_of, fixture_bytes


def at(text: str) -> datetime:
    return datetime.fromisoformat(text)


@pytest.mark.django_db
def test_the_changelog_becomes_facts_at_the_time_of_each_change(
    graph: Graph, run_import: ImportFn
) -> None:
    report = run_import(graph, "jira", fixture_bytes("jira-search-changelog.json"))

    assert report.summary() == "stored 11, duplicates 0, rejected 0"
    depends = facts_of(graph, "DEPENDS_ON")
    # "is blocked by" on ATL-2 and "blocks" on ATL-3 are one edge, the waiting item first.
    assert depends[("ATL-2", "ATL-3")].valid_at == at("2026-11-05T11:00:00+00:00")
    assert depends[("ATL-2", "ATL-3")].invalid_at == at("2026-11-12T15:00:00+00:00")  # Done
    # The link removed at 08:30 -06:00 ended then.
    assert depends[("ATL-2", "ATL-5")].invalid_at == at("2026-11-07T14:30:00+00:00")
    assert depends[("ATL-2", "ATL-5")].close_reason == Fact.CloseReason.GIVEN
    owners = facts_of(graph, "RESPONSIBLE_FOR")
    assert owners[("Mia Krystof", "ATL-2")].invalid_at == at("2026-11-10T16:00:00+00:00")
    assert owners[("Bob Okafor", "ATL-2")].invalid_at is None
    assert set(facts_of(graph, "TRACKS")) == {("ATL-1", "ATL-2")}  # the epic is the parent
    status = {s: f.target.name for (s, _), f in facts_of(graph, "HAS_STATUS", current=True).items()}
    assert status == {"ATL-1": "In Progress", "ATL-2": "In Progress", "ATL-3": "Done",
                      "ATL-4": "Duplicate"}
    assert set(facts_of(graph, "DUPLICATE_OF")) == {("ATL-4", "ATL-3")}


@pytest.mark.django_db
def test_every_episode_links_to_the_issue_in_jira(graph: Graph, run_import: ImportFn) -> None:
    run_import(graph, "jira", fixture_bytes("jira-search-changelog.json"))

    episode = Episode.objects.get(graph=graph, external_id="jira:ATL-2:history:30003")
    assert episode.url == "https://your-domain.atlassian.net/browse/ATL-2"
    assert episode.author == "Mia Krystof"
    assert episode.reference_time == at("2026-11-07T14:30:00+00:00")


@pytest.mark.django_db
def test_the_csv_export_gives_the_same_links_and_statuses(
    graph: Graph, run_import: ImportFn
) -> None:
    report = run_import(graph, "jira-csv", fixture_bytes("jira-export.csv"),
                        options={"base_url": "https://your-domain.atlassian.net"})

    assert report.rejected == 0 and report.items == 4
    assert set(facts_of(graph, "DEPENDS_ON")) == {("ATL-2", "ATL-3")}
    assert set(facts_of(graph, "TRACKS")) == {("ATL-1", "ATL-2")}  # Parent: the epic's id
    assert set(facts_of(graph, "DUPLICATE_OF")) == {("ATL-4", "ATL-3")}
    status = {s: f.target.name for (s, _), f in facts_of(graph, "HAS_STATUS", current=True).items()}
    assert status == {"ATL-1": "In Progress", "ATL-2": "In Progress", "ATL-3": "Done",
                      "ATL-4": "Duplicate"}
    done = facts_of(graph, "HAS_STATUS")[("ATL-3", "Done")]
    assert done.valid_at == at("2026-11-12T15:00:00+00:00")  # Resolved, read as UTC
    assert Episode.objects.filter(graph=graph, url="https://your-domain.atlassian.net/browse/ATL-2"
                                  ).exists()


def test_csv_times_follow_the_exporting_users_time_zone() -> None:
    result = jira.read_csv(fixture_bytes("jira-export.csv"), timezone="America/Chicago")

    created = next(item for item in result.items if item.key == "ATL-1").created_at
    assert created == at("2026-11-02T09:00:00-06:00")  # Chicago's standard time in November


def test_an_unknown_time_zone_is_refused() -> None:
    with pytest.raises(ValueError, match="unknown time zone 'Mars/Olympus'"):
        jira.read_csv(fixture_bytes("jira-export.csv"), timezone="Mars/Olympus")


def test_a_csv_row_with_an_unreadable_date_is_reported_by_its_row() -> None:
    text = fixture_bytes("jira-export.csv").decode().replace("06/Nov/26 9:00 AM", "someday")

    result = jira.read_csv(text.encode())
    assert [item.key for item in result.items] == ["ATL-1", "ATL-2", "ATL-3"]
    assert [(p.position, p.item) for p in result.problems] == [("row 5", "ATL-4")]
    assert "Created: 'someday'" in result.problems[0].reason


def test_the_rest_json_given_as_csv_is_refused() -> None:
    with pytest.raises(WrongFormat, match=r"expected a Jira CSV export.*found JSON, not CSV"):
        jira.read_csv(fixture_bytes("jira-search-changelog.json"))


def test_a_linear_csv_given_as_jira_json_is_refused() -> None:
    with pytest.raises(WrongFormat, match="expected Jira REST search JSON"):
        jira.read_json(fixture_bytes("linear-export.csv"))


def test_missing_optional_fields_never_crash() -> None:
    bare = b'{"issues": [{"key": "ATL-9", "fields": {"created": "2026-11-02T09:00:00.000+0000"}}]}'

    item = jira.read_json(bare).items[0]
    assert (item.key, item.title, item.reporters, item.url) == ("ATL-9", "", (), "")
    assert item.changes[0].status is None
