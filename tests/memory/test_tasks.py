"""The periodic sweep and the scheduling decisions, in-process (the embedded default). The same
tasks through a real worker on Redis are in ``test_worker.py``."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import pytest
from django.utils import timezone

from memory import tasks
from memory.ingestion import ingest_records
from memory.models import Episode, Graph, IdempotencyRecord, Observation, PipelineRun
from memory.pipeline import settle_delay
from tests.conftest import IngestFn
from tests.scenarios import SEED


def store_without_processing(graph: Graph, *, minutes_ago: int) -> None:
    ingest_records(graph, list(enumerate(SEED, start=1)), process=False,
                   now=timezone.now() - timedelta(minutes=minutes_ago))


@pytest.mark.django_db
def test_the_sweep_processes_episodes_nobody_picked_up_and_runs_the_pipeline(
    graph: Graph, django_capture_on_commit_callbacks: Any
) -> None:
    store_without_processing(graph, minutes_ago=10)

    with django_capture_on_commit_callbacks(execute=True):
        counts = tasks.sweep()

    assert counts["pending"] == 3
    assert set(Episode.objects.values_list("status", flat=True)) == {"processed"}
    assert Observation.objects.filter(graph=graph, status="active").count() == 1


@pytest.mark.django_db
def test_the_sweep_leaves_fresh_pending_episodes_to_their_own_tasks(graph: Graph) -> None:
    store_without_processing(graph, minutes_ago=0)

    assert tasks.sweep()["pending"] == 0
    assert set(Episode.objects.values_list("status", flat=True)) == {"pending"}


@pytest.mark.django_db
def test_an_episode_stuck_in_processing_is_retried_then_failed_after_the_cap(
    graph: Graph, settings: Any
) -> None:
    store_without_processing(graph, minutes_ago=60)
    stuck = timezone.now() - timedelta(seconds=settings.EPISODE_STALE_SECONDS + 60)
    Episode.objects.filter(external_id="alice").update(
        status="processing", processing_started_at=stuck, attempts=1)
    Episode.objects.filter(external_id="bob").update(
        status="processing", processing_started_at=stuck, attempts=3)

    counts = tasks.sweep()

    assert (counts["requeued"], counts["failed"]) == (1, 1)
    assert Episode.objects.get(external_id="alice").status == "processed"
    bob = Episode.objects.get(external_id="bob")
    assert bob.status == "failed"
    assert "gave up after 3 attempts" in bob.error


@pytest.mark.django_db
def test_a_run_whose_worker_died_is_abandoned_and_frees_its_graph(graph: Graph,
                                                                   settings: Any) -> None:
    long_ago = timezone.now() - timedelta(seconds=settings.PIPELINE_RUN_STALE_SECONDS + 60)
    dead = PipelineRun.objects.create(graph=graph, status="running", started_at=long_ago,
                                      heartbeat_at=long_ago)

    assert tasks.sweep()["abandoned_runs"] == 1

    dead.refresh_from_db()
    assert dead.status == "abandoned" and "heartbeats" in dead.error


@pytest.mark.django_db
def test_the_sweep_forgets_expired_idempotency_keys(db: None) -> None:
    now = timezone.now()
    for key, expires in (("old", now - timedelta(hours=1)), ("fresh", now + timedelta(hours=1))):
        IdempotencyRecord.objects.create(scope="user:1", key=key, fingerprint="f",
                                         locked_until=now, expires_at=expires)

    assert tasks.sweep()["expired_idempotency_keys"] == 1
    assert list(IdempotencyRecord.objects.values_list("key", flat=True)) == ["fresh"]


@pytest.mark.django_db
def test_a_graph_settles_after_its_debounce_and_idles_once_run(graph: Graph,
                                                               ingest: IngestFn) -> None:
    graph.settings = {"debounce_seconds": 30}
    graph.save()
    ingest_records(graph, [(1, SEED[0])], process=False, now=timezone.now())

    assert settle_delay(graph) == 30  # an episode is still waiting for processing
    from memory.processing import process_episode

    process_episode(graph.episodes.get().pk)
    assert 0 < settle_delay(graph) <= 30  # processed, but the graph has not been quiet long
    assert settle_delay(graph, now=timezone.now() + timedelta(seconds=31)) == 0

    from memory.pipeline import run_pipeline

    run_pipeline(graph)
    assert settle_delay(graph) is None  # nothing new since the run


@pytest.mark.django_db
def test_the_processing_task_takes_its_graphs_queue(graph: Graph) -> None:
    store_without_processing(graph, minutes_ago=0)
    first = graph.episodes.order_by("pk").first()

    assert tasks.process_episodes([first.pk]) == {"processed": 3}
    assert set(Episode.objects.values_list("status", flat=True)) == {"processed"}


@pytest.mark.django_db
def test_a_batch_filling_up_while_a_check_waits_hours_away_is_read_now(
    graph: Graph, monkeypatch: Any, settings: Any,
) -> None:
    from django.core.cache import cache

    from tests.factories import EpisodeFactory

    cache.clear()
    sent: list[tuple[str, tuple[object, ...]]] = []
    monkeypatch.setattr(tasks, "_eager", lambda: False)  # as with a broker
    monkeypatch.setattr(tasks, "_send", lambda task, *args: sent.append((task.name, args)) or True)
    settings.LLM_EXTRACTION = True
    settings.LLM_EXTRACTION_BATCH_SIZE = 2
    Graph.objects.filter(pk=graph.pk).update(settings={"model_wait_seconds": 108_000})
    EpisodeFactory(graph=graph, awaits_model=True, ingested_at=timezone.now())

    tasks.schedule_extraction(graph.pk)  # the check that waits (30 hours)
    tasks.schedule_extraction(graph.pk)  # nothing due now: that check will do
    assert sent == [("memory.extract_when_due", (graph.pk,))]

    EpisodeFactory(graph=graph, awaits_model=True, ingested_at=timezone.now())  # a full batch
    tasks.schedule_extraction(graph.pk)
    tasks.schedule_extraction(graph.pk)

    assert sent[1:] == [("memory.extract_when_due", (graph.pk, True))]
