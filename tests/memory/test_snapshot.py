"""What a run reads: the active observations' evidence is read only where reconciliation looks."""

from __future__ import annotations

import uuid
from datetime import datetime

import pytest
from django.utils import timezone

from memory.engine.clustering import ClusteringSettings, cluster_episodes
from memory.engine.lifecycle import reconcile
from memory.engine.types import EntityInfo
from memory.graph_settings import graph_settings, ontology_for
from memory.ingestion import ingest_records
from memory.models import Entity, Graph, Observation
from memory.processing import process_episodes
from memory.snapshot import load_active_observations, load_snapshot, load_titles
from tests.conftest import IngestFn
from tests.scenarios import SEED, SHIPPED, TICKETS


def clusters_now(graph: Graph):  # type: ignore[no-untyped-def]
    snapshot = load_snapshot(graph, as_of=timezone.now(), window_days=None, is_now=True)
    linking = {name: r.linking for name, r in ontology_for(graph).relations.items()}
    settings = ClusteringSettings.from_mapping(graph_settings(graph))
    clusters = cluster_episodes(snapshot.rows, linking, snapshot.episode_authors, settings)
    return snapshot, clusters.clusters


def observation_about(graph: Graph, external_id: str) -> Observation:
    return Observation.objects.get(graph=graph, status=Observation.Status.ACTIVE,
                                   episodes__external_id=external_id)


@pytest.fixture
def two_patterns_one_changed(graph: Graph, ingest: IngestFn) -> Graph:
    """The seed chain and the recurring support issue, each an observation; then the root blocker
    ships, which changes the chain's evidence and leaves the support issue's alone."""
    ingest(graph, [*SEED, *TICKETS])
    assert Observation.objects.filter(graph=graph, status="active").count() == 2
    report = ingest_records(graph, [(1, SHIPPED)], process=False,
                            now=datetime.fromisoformat("2026-12-02T10:05:00+00:00"))
    process_episodes(report.stored_ids)  # extracted, but no run yet
    return graph


@pytest.mark.django_db
def test_an_observation_a_cluster_matches_by_fingerprint_is_read_without_its_evidence(
    two_patterns_one_changed: Graph,
) -> None:
    graph = two_patterns_one_changed
    _, clusters = clusters_now(graph)
    chain, issue = observation_about(graph, "alice"), observation_about(graph, "t1")

    active = load_active_observations(
        graph, matched_fingerprints={cluster.fingerprint for cluster in clusters}
    )

    by_id = {old.id: old for old in active}
    assert by_id[issue.pk].fingerprint in {cluster.fingerprint for cluster in clusters}
    assert (by_id[issue.pk].episode_ids, by_id[issue.pk].fact_ids) == ((), ())
    assert by_id[chain.pk].episode_ids == tuple(
        sorted(chain.episodes.values_list("pk", flat=True)))
    assert by_id[chain.pk].fact_ids == tuple(sorted(chain.facts.values_list("pk", flat=True)))


@pytest.mark.django_db
def test_reconciling_with_only_the_unmatched_evidence_decides_what_the_full_evidence_decides(
    two_patterns_one_changed: Graph,
) -> None:
    graph = two_patterns_one_changed
    snapshot, clusters = clusters_now(graph)
    lazy = load_active_observations(
        graph, matched_fingerprints={cluster.fingerprint for cluster in clusters}
    )
    full = load_active_observations(graph)
    assert lazy != full

    def decide(active):  # type: ignore[no-untyped-def]
        in_window = snapshot.in_window({e for old in active for e in old.episode_ids})
        return reconcile(clusters, active, snapshot.current_fact_ids, in_window).as_dict()

    decided = decide(lazy)
    assert decided == decide(full)
    assert [u["observation"] for u in decided["untouched"]] == [
        observation_about(graph, "t1").pk]
    assert [r["observation"] for r in decided["retired"]] == [
        observation_about(graph, "alice").pk]
    assert decided["retired"][0]["closed_facts"]


@pytest.mark.django_db
def test_observations_sharing_a_fingerprint_keep_their_evidence(
    two_patterns_one_changed: Graph,
) -> None:
    """Only one of two observations with the same evidence can be matched; the other is
    retired, and its retirement needs its evidence."""
    graph = two_patterns_one_changed
    _, clusters = clusters_now(graph)
    issue = observation_about(graph, "t1")
    twin = Observation.objects.get(pk=issue.pk)
    twin.pk, twin.uuid, twin.version = None, uuid.uuid4(), issue.version + 1
    twin.save()
    twin.episodes.set(issue.episodes.all())
    twin.facts.set(issue.facts.all())

    active = load_active_observations(
        graph, matched_fingerprints={cluster.fingerprint for cluster in clusters}
    )

    evidence = {old.id: (old.episode_ids, old.fact_ids) for old in active}
    expected = (tuple(sorted(issue.episodes.values_list("pk", flat=True))),
                tuple(sorted(issue.facts.values_list("pk", flat=True))))
    assert evidence[issue.pk] == evidence[twin.pk] == expected


# -- titles of tracker items (issue #13, "prose that reads") ---------------------------------------


def tracker_change(at: str, title: str, fact: tuple[str, str, str]) -> dict[str, object]:
    source, relation, target = fact
    return {"external_id": f"bugzilla:Bug 446261:{at}", "reference_time": at,
            "content": f"Bug 446261: {title}",
            "entities": [{"name": "Bug 446261", "type": "WorkItem", "title": title}],
            "facts": [{"source": source, "relation": relation, "target": target,
                       "source_type": "WorkItem", "target_type": "WorkItem"}]}


def test_a_tracker_item_reads_by_its_latest_title_and_a_written_name_has_none(
    graph: Graph, ingest: IngestFn,
) -> None:
    # Renamed on 9 Dec; the updates arrive newest first, so the last stored is the oldest.
    ingest(graph, [
        tracker_change("2019-12-09T10:00:00+00:00", "Reset the last directory on clearing data",
                       ("Bug 1102808", "DEPENDS_ON", "Bug 446261")),
        tracker_change("2008-07-20T10:00:00+00:00", "Clear Private Data should also reset last "
                       "directory saved to", ("API Migration", "DEPENDS_ON", "Bug 446261")),
    ])
    snapshot, _ = clusters_now(graph)
    entities = {e.pk: EntityInfo(e.pk, e.name, e.type) for e in Entity.objects.filter(graph=graph)}

    titled = {info.name: info.title for info in load_titles(entities, snapshot.rows).values()}

    assert titled == {"Bug 446261": "Reset the last directory on clearing data"}
