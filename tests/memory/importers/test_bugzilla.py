"""The Bugzilla importer on the real sample: 58 Mozilla bugs with their history (MPL-2.0, see
fixtures/README.md)."""

from __future__ import annotations

from datetime import datetime

import igraph
import pytest

from memory.importers import bugzilla
from memory.importers.model import LinkKind, WrongFormat
from memory.models import Episode, Fact, Graph, MergeSuggestion
from tests.memory.importers.conftest import ImportFn, facts_of, fixture_bytes

SAMPLE = "bugzilla-bugs.jsonl"


def at(text: str) -> datetime:
    return datetime.fromisoformat(text)


@pytest.fixture
def imported(graph: Graph, run_import: ImportFn) -> Graph:
    report = run_import(graph, "bugzilla", fixture_bytes(SAMPLE))
    assert report.summary() == "stored 433, duplicates 0, rejected 0"
    assert report.items == 58
    return graph


def test_every_bug_of_the_sample_is_read_with_its_history() -> None:
    result = bugzilla.read(fixture_bytes(SAMPLE))

    assert len(result.items) == 58 and result.problems == []
    bug = next(item for item in result.items if item.key == "Bug 1388990")
    assert bug.title == "Back toolbarbutton is perma-disabled after customize toolbar"
    assert bug.url == "https://bugzilla.mozilla.org/show_bug.cgi?id=1388990"
    assert bug.reporters[0].name == "prasanthp96"
    created = bug.changes[0]
    assert created.created and created.at == at("2017-08-10T06:22:54+00:00")
    assert created.links_added == ()  # every link of this bug was added later, in its history
    added = next(c for c in bug.changes if any(link.other == "Bug 309953"
                                               for link in c.links_added))
    assert added.at == at("2017-08-10T16:06:49+00:00")


def test_a_meta_bugs_dependencies_are_what_it_tracks() -> None:
    meta = next(item for item in bugzilla.read(fixture_bytes(SAMPLE)).items
                if item.key == "Bug 447581")

    assert meta.tracker
    assert meta.title == "startup performance tracking bug [meta]"


@pytest.mark.django_db
def test_removed_links_are_closed_at_the_time_history_removed_them(imported: Graph) -> None:
    removed = facts_of(imported, "DEPENDS_ON", current=False)

    link = removed[("Bug 1389136", "Bug 1388761")]
    assert link.invalid_at == at("2017-08-10T17:39:00+00:00")
    assert link.close_reason == Fact.CloseReason.GIVEN
    # "blocks" removed on the blocker's side ends the same edge, direction kept.
    assert removed[("Bug 1325608", "Bug 1348788")].invalid_at == at("2017-05-03T15:02:36+00:00")
    assert removed[("Bug 1047180", "Bug 1050064")].close_reason == Fact.CloseReason.GIVEN
    given = Fact.objects.filter(graph=imported, close_reason=Fact.CloseReason.GIVEN,
                                relation__in=["DEPENDS_ON", "TRACKS"]).count()
    assert given == 11


@pytest.mark.django_db
def test_no_dependency_cycle_that_history_removed_remains(imported: Graph) -> None:
    def cycles(facts: list[Fact]) -> list[set[str]]:
        names = sorted({n for f in facts for n in (f.source.name, f.target.name)})
        index = {name: i for i, name in enumerate(names)}
        graph = igraph.Graph(n=len(names), directed=True,
                             edges=[(index[f.source.name], index[f.target.name]) for f in facts])
        return [{names[v] for v in part} for part in graph.connected_components("strong")
                if len(part) > 1]

    every = list(Fact.objects.filter(graph=imported, relation="DEPENDS_ON")
                 .select_related("source", "target"))
    current = [f for f in every if f.invalid_at is None and f.expired_at is None]

    # Both cycles existed once — and history removed a link of each.
    assert sorted(map(sorted, cycles(every))) == [["Bug 1047180", "Bug 1050064"],
                                                  ["Bug 1572504", "Bug 1572870"]]
    assert cycles(current) == []


@pytest.mark.django_db
def test_meta_bugs_track_their_children_and_wait_on_nothing(imported: Graph) -> None:
    tracks = facts_of(imported, "TRACKS")
    children = {child for (meta, child) in tracks if meta == "Bug 447581"}
    current = {child for (meta, child) in facts_of(imported, "TRACKS", current=True)
               if meta == "Bug 447581"}

    assert (len(children), len(current)) == (104, 102)  # two were removed from it over the years
    assert ("Bug 447581", "Bug 536503") in tracks
    assert tracks[("Bug 447581", "Bug 536503")].invalid_at == at("2011-06-09T23:22:21+00:00")
    assert not Fact.objects.filter(graph=imported, relation="DEPENDS_ON",
                                   source__name__in=["Bug 447581", "Bug 1572869",
                                                     "Bug 1556846"]).exists()


@pytest.mark.django_db
def test_resolved_bugs_have_their_completion_status_and_others_their_ending(
    imported: Graph
) -> None:
    status = {source: f.target.name
              for (source, _), f in facts_of(imported, "HAS_STATUS", current=True).items()}

    assert status["Bug 1388990"] == "VERIFIED"  # VERIFIED FIXED: done
    assert status["Bug 1389136"] == "DUPLICATE"  # ended, not done
    assert status["Bug 1037762"] == "INVALID"
    assert status["Bug 447581"] == "NEW"
    assert len(status) == 58
    assert facts_of(imported, "DUPLICATE_OF")[("Bug 1389136", "Bug 1388761")].invalid_at is None
    suggested = set(MergeSuggestion.objects.filter(graph=imported).values_list(
        "entity__name", "into__name"))
    assert suggested >= {("Bug 1389136", "Bug 1388761"), ("Bug 1488310", "Bug 1488436"),
                         ("Bug 1572874", "Bug 1573281")}


@pytest.mark.django_db
def test_every_episode_links_back_to_its_bug(imported: Graph) -> None:
    episode = Episode.objects.get(graph=imported, external_id="bugzilla:Bug 1389136:created")

    assert episode.url == "https://bugzilla.mozilla.org/show_bug.cgi?id=1389136"
    assert episode.source == "bugzilla"
    assert not Episode.objects.filter(graph=imported, url="").exists()


def test_a_github_export_is_refused_naming_both_formats() -> None:
    with pytest.raises(WrongFormat) as refused:
        bugzilla.read(fixture_bytes("github-webcompat-issues.jsonl"))

    assert "Bugzilla REST JSON" in str(refused.value)
    assert "GitHub issues" in str(refused.value)


def test_a_bug_with_an_unreadable_time_is_reported_and_the_others_are_read() -> None:
    good = b'{"id": 1, "summary": "One", "status": "NEW", "creation_time": "2026-11-02T09:00:00Z"}'
    bad = b'{"id": 2, "summary": "Two", "status": "NEW", "creation_time": "last week"}'
    result = bugzilla.read(b"\n".join([good, b"{not json", bad, good.replace(b'"id": 1',
                                                                           b'"id": 3')]))

    assert [item.key for item in result.items] == ["Bug 1", "Bug 3"]
    assert [(p.position, p.item) for p in result.problems] == [("line 2", ""),
                                                               ("line 3", "Bug 2")]
    assert "last week" in result.problems[1].reason


def test_a_time_without_an_offset_is_utc_as_the_api_documents() -> None:
    bug = b'{"id": 1, "summary": "One", "status": "NEW", "creation_time": "2026-11-02T09:00:00"}'

    item = bugzilla.read(bug).items[0]
    assert item.created_at == at("2026-11-02T09:00:00+00:00")


def test_missing_optional_fields_never_crash_and_unknown_ones_are_ignored() -> None:
    bug = (b'{"id": 7, "summary": "Bare", "creation_time": "2026-11-02T09:00:00Z",'
           b' "cf_something_new": {"x": 1}}')

    item = bugzilla.read(bug).items[0]
    assert (item.key, item.reporters, item.url, item.tracker) == ("Bug 7", (), "", False)
    assert item.changes[0].links_added == ()


def test_blocks_and_depends_keep_their_direction() -> None:
    bug = (b'{"id": 5, "summary": "S", "status": "NEW", "creation_time": "2026-11-02T09:00:00Z",'
           b' "depends_on": [6], "blocks": [4]}')

    links = bugzilla.read(bug).items[0].changes[0].links_added
    assert set(links) == {bugzilla.ItemLink(LinkKind.DEPENDS_ON, "Bug 6"),
                          bugzilla.ItemLink(LinkKind.BLOCKS, "Bug 4")}
