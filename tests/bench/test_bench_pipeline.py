"""The pipeline bench (``manage.py bench_pipeline``): the synthetic graph written straight into
the database is the graph the pipeline reads, and the bench's figures say what happened. No
wall-clock thresholds: figures are only checked to be there and positive."""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
from django.core.management import call_command

from memory.bench.fake_openai import FakeOpenAI
from memory.bench.loading import load_synthetic, synthetic_number
from memory.bench.pipeline_bench import (
    PipelineBenchOptions,
    restatable_episode,
    run_pipeline_bench,
)
from memory.bench.synthetic import SyntheticGraph, synthetic_graph
from memory.engine.clustering import ClusteringSettings, cluster_episodes
from memory.engine.context import build_context, extend_clusters
from memory.engine.types import Cluster, Row
from memory.models import Entity, Episode, Fact, FactEvidence, Graph, Observation, PipelineRun
from memory.ontology import default_ontology
from memory.pipeline import run_pipeline
from memory.pipeline.incremental import forget
from tests.factories import GraphFactory

START = datetime(2026, 9, 1, tzinfo=UTC)
Partition = set[tuple[frozenset[int], int]]
"""Clusters as (synthetic episode numbers, number of facts)."""


def expected_partition(synthetic: SyntheticGraph, settings: ClusteringSettings) -> Partition:
    """What the engine makes of the rows: ``cluster_episodes``, then the chains followed
    through the graph (nothing in the synthetic stream is done or was resolved by a customer)."""
    result = cluster_episodes(synthetic.rows, synthetic.linking, synthetic.authors, settings)
    context = build_context(synthetic.rows, result.suppressed_fact_ids)
    clusters = extend_clusters(result.clusters, context)
    return {(frozenset(c.episode_ids), len(c.fact_ids)) for c in clusters}


def partition_of(observations: Iterable[Observation]) -> Partition:
    found = set()
    for observation in observations:
        numbers = frozenset(
            synthetic_number(ext) for ext in observation.episodes.values_list(
                "external_id", flat=True)
        )
        found.add((numbers, observation.fact_count))
    return found  # type: ignore[return-value]


def distinct(synthetic: SyntheticGraph) -> dict[str, int]:
    return {
        "episodes": len(synthetic.authors),
        "facts": len({row[1] for row in synthetic.rows}),
        "evidence": len({(row[0], row[1]) for row in synthetic.rows}),
    }


# --- Loading --------------------------------------------------------------------------------


@pytest.mark.django_db
def test_loading_writes_every_row_as_processing_would_have() -> None:
    synthetic = synthetic_graph(400, seed=3, context_facts=1.5)
    graph = GraphFactory()

    counts = load_synthetic(graph, synthetic, start=START)

    assert {k: counts[k] for k in ("episodes", "facts", "evidence")} == distinct(synthetic)
    assert Episode.objects.filter(graph=graph).count() == counts["episodes"]
    assert Fact.objects.filter(graph=graph).count() == counts["facts"]
    assert FactEvidence.objects.filter(fact__graph=graph).count() == counts["evidence"]
    assert Entity.objects.filter(graph=graph).count() == counts["entities"]
    assert not Episode.objects.filter(graph=graph).exclude(status=Episode.Status.PROCESSED)
    assert not Episode.objects.filter(graph=graph, author_entity__isnull=True)
    assert not Fact.objects.filter(graph=graph, invalid_at__isnull=False)
    assert Graph.objects.get(pk=graph.pk).data_version == graph.data_version + 1
    # Types follow the ontology's relation signatures: structure analysis reads them.
    relations = default_ontology().relations
    for relation, source_type, target_type in Fact.objects.filter(graph=graph).values_list(
        "relation", "source__type", "target__type"
    ).distinct():
        assert source_type in relations[relation].source_types, relation
        assert target_type in relations[relation].target_types, relation
    assert set(Entity.objects.filter(graph=graph, type="Person").values_list(
        "pk", flat=True)) >= set(Episode.objects.filter(graph=graph).values_list(
            "author_entity", flat=True))
    first = Episode.objects.filter(graph=graph).order_by("reference_time").first()
    assert first is not None and first.reference_time == START
    assert first.content and first.author.startswith("Person ")


@pytest.mark.django_db
def test_the_pipeline_clusters_a_loaded_graph_as_cluster_episodes_clusters_its_rows() -> None:
    # Settings and sizes of the clustering tests' order test: splits and a suppressed hub.
    synthetic = synthetic_graph(2500, seed=3, big_project_share=0.2)
    overrides = {"hub_min_share": 0.01, "max_cluster_episodes": 20}
    expected = expected_partition(synthetic, ClusteringSettings.from_mapping(overrides))
    graph = GraphFactory(settings=overrides)
    load_synthetic(graph, synthetic, start=START)

    run = run_pipeline(graph)

    assert run is not None and run.status == PipelineRun.Status.SUCCEEDED, run and run.error
    assert run.audit["clustering"]["splits"] and run.audit["clustering"]["suppressed_signatures"]
    assert partition_of(Observation.objects.filter(graph=graph).exclude(
        kind=Observation.Kind.STALLED)) == expected


# --- The bench ------------------------------------------------------------------------------


def test_the_restated_episode_is_one_of_an_unsplit_cluster_with_a_work_item_and_no_hub() -> None:
    rows: list[Row] = [
        (1, 10, 100, "RESPONSIBLE_FOR", 200), (2, 10, 100, "RESPONSIBLE_FOR", 200),
        (3, 11, 101, "REPORTED", 300), (4, 12, 102, "REPORTED", 300),  # no work item
        (5, 13, 103, "RESPONSIBLE_FOR", 201), (5, 99, 900, "USES", 901),  # a suppressed fact
        (6, 13, 103, "RESPONSIBLE_FOR", 201),
    ]
    clusters = [
        Cluster((1, 2), (10,), (), split_from=1),
        Cluster((3, 4), (11, 12), ()),
        Cluster((5, 6), (13,), ()),
    ]
    assert restatable_episode(clusters, rows) == 6


@pytest.fixture
def fake_server() -> Iterator[FakeOpenAI]:
    server = FakeOpenAI().start()
    yield server
    server.stop()


def bench(episodes: int, server: FakeOpenAI | None = None) -> tuple[dict[str, Any], Graph]:
    result = run_pipeline_bench(
        PipelineBenchOptions(episodes=episodes, repeats=1, keep=True), server)
    return result, Graph.objects.get(slug=result["graph"])


@pytest.mark.django_db
def test_the_bench_measures_the_full_and_the_incremental_run_of_the_loaded_graph() -> None:
    options = PipelineBenchOptions()
    synthetic = synthetic_graph(2000, seed=options.seed, context_facts=options.context_facts)

    result, graph = bench(2000)

    loaded, full, inc = result["loaded"], result["full"], result["incremental"]
    assert {k: loaded[k] for k in ("episodes", "facts", "evidence")} == distinct(synthetic)
    assert (full["episodes"], full["facts"], full["evidence_rows"]) == (
        loaded["episodes"], loaded["facts"], loaded["evidence"])
    # The full run's clusters are those of the synthetic rows.
    full_run = PipelineRun.objects.get(uuid=full["run"])
    expected = expected_partition(synthetic, ClusteringSettings())
    # (Items stuck in one state for weeks are stalled observations beside them: views of one
    # item, not clusters.)
    assert partition_of(Observation.objects.filter(created_by_run=full_run).exclude(
        kind=Observation.Kind.STALLED)) == expected
    assert full["clusters"] == full["created"] - full["stalled"] == len(expected)
    # One new episode restating one of a cluster: that cluster alone gets a new version.
    assert (inc["created"], inc["updated"], inc["retired"]) == (0, 1, 1)
    assert inc["untouched"] + inc["restated"] == full["clusters"] + full["stalled"] - 1
    assert inc["summarized"] == 1 and inc["llm_calls"] == 0
    # It clustered again only the components the new episode touched.
    assert inc["reclustered"] and not full["reclustered"]
    new_episode = Episode.objects.get(pk=inc["episode"])
    assert synthetic_number(new_episode.external_id) == loaded["episodes"] + 1
    [version] = Observation.objects.filter(created_by_run__uuid=inc["run"])
    restated = Episode.objects.get(pk=inc["restated_episode"])
    assert {new_episode, restated} <= set(version.episodes.all())
    [retired] = Observation.objects.filter(status=Observation.Status.RETIRED, graph=graph)
    assert retired.retired_reason == Observation.RetiredReason.SUPERSEDED
    assert set(version.episodes.all()) == {*retired.episodes.all(), new_episode}
    # The figures are there and positive.
    floor, memory = result["floor"], result["memory"]
    for seconds in (result["load_seconds"], full["seconds"], inc["seconds"],
                    floor["ours_seconds"], floor["floor_seconds"], floor["ratio"]):
        assert seconds > 0
    assert set(full["stages"]) == {"load", "cluster", "reconcile", "analyse", "summarize",
                                   "publish"}
    assert memory["tracemalloc_peak_mb_load_and_cluster"] > 0 and memory["max_rss_mb"] > 0
    assert result["targets"]["incremental_summarizes_only_changed"]["met"]


@pytest.mark.django_db
@pytest.mark.stalled
def test_a_run_that_does_all_the_work_again_finds_what_the_incremental_run_published() -> None:
    result, graph = bench(1500)
    full, inc = result["full"], result["incremental"]
    assert inc["reclustered"] and inc["stalled"] > 0
    # Stalled items: only those the new episode names are examined again.
    assert inc["stalled_examined"] < full["stalled_examined"]
    forget()  # as in another process: clustering and stalled-item detection over every row

    again = run_pipeline(graph)

    assert again is not None and again.status == PipelineRun.Status.SUCCEEDED, again.error
    assert not again.counts["reclustered"]
    # Its scan of every row finds each item's digest as the incremental run left it: nothing
    # to examine again, the same stalls.
    assert again.counts["stalled_examined"] == 0
    assert again.counts["stalled"] == inc["stalled"]
    assert (again.counts["created"], again.counts["updated"], again.counts["retired"]) == (0, 0, 0)
    assert again.audit["clustering"] == PipelineRun.objects.get(
        uuid=inc["run"]).audit["clustering"]


@pytest.mark.django_db
def test_with_a_model_the_incremental_run_calls_it_once_for_the_one_changed_cluster(
    fake_server: FakeOpenAI,
) -> None:
    result, _ = bench(300, fake_server)

    full, inc = result["full"], result["incremental"]
    # Several clusters share a summary call (LLM_SUMMARY_BATCH_SIZE).
    assert 0 < full["llm_calls"] == full["server_calls"] < full["clusters"]
    assert inc["llm_calls"] == inc["server_calls"] == inc["summarized"] == 1
    assert inc["untouched"] + inc["restated"] == full["clusters"] + full["stalled"] - 1
    assert result["targets"]["incremental_summarizes_only_changed"]["met"]
    assert result["targets"]["full_run_seconds"]["met"] is None  # a template-summary target


@pytest.mark.django_db
def test_the_command_prints_the_figures_writes_them_and_deletes_its_graph(tmp_path: Path) -> None:
    graphs = Graph.objects.count()

    call_command("bench_pipeline", "--episodes", "300", "--repeats", "1",
                 "--out", str(tmp_path))

    report = json.loads((tmp_path / "bench-pipeline.json").read_text())
    assert report["result"]["loaded"]["episodes"] == 300
    assert report["meta"]["load_average"]
    markdown = (tmp_path / "bench-pipeline.md").read_text()
    assert "| figure | value |" in markdown and "incremental_seconds" in markdown
    assert Graph.objects.count() == graphs
