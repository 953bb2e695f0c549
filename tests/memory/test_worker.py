"""The pipeline through a real Celery worker on the local Redis, and a crash: a worker killed
with SIGKILL mid-run, then the sweep → the run completes, nothing duplicated, nothing lost."""

from __future__ import annotations

from typing import Any

import pytest

from memory import tasks
from memory.ingestion import ingest_records
from memory.models import Episode, FactEvidence, Graph, LLMCall, Observation, PipelineRun
from tests.fake_openai import FakeOpenAI, default_responder
from tests.scenarios import SEED
from tests.worker import (
    Beat,
    Worker,
    broker_mode,
    new_queue,
    require_worker_services,
    wait_for,
    worker_env,
)

pytestmark = [pytest.mark.worker, pytest.mark.django_db(transaction=True)]


def chains(teams: list[str]) -> list[dict[str, Any]]:
    """One seed-shaped dependency chain per team, each its own cluster."""
    records = []
    for n, team in enumerate(teams):
        records += [
            {"external_id": f"{team}-1", "author": f"Alice{team}",
             "reference_time": f"2026-11-23T09:0{n}:00+00:00",
             "content": f"The {team} migration is blocked. I'm waiting on the {team} refactor, "
                        f"which the {team} team owns."},
            {"external_id": f"{team}-2", "author": f"Bob{team}",
             "reference_time": f"2026-11-24T09:0{n}:00+00:00",
             "content": f"The {team} integration is stalled. I'm also waiting on the {team} "
                        f"refactor from the {team} team."},
        ]
    return records


def test_a_worker_processes_episodes_and_publishes_the_seed_observation() -> None:
    redis = require_worker_services()
    queue = new_queue()
    graph = Graph.objects.create(slug="atlas", name="Atlas", settings={"debounce_seconds": 1})
    worker = Worker(queue=queue, env=worker_env(redis, queue), name="seed").start()
    try:
        with broker_mode(redis, queue):
            report = ingest_records(graph, list(enumerate(SEED, start=1)))
        assert report.stored == 3

        observation = wait_for(
            lambda: Observation.objects.filter(graph=graph, status="active").first(),
            what="the seed observation",
        )
    finally:
        worker.stop()

    assert sorted(observation.episodes.values_list("external_id", flat=True)) == [
        "alice", "bob", "clara"]
    assert observation.structure["reach"]["people"] == 3
    assert set(Episode.objects.values_list("status", "attempts")) == {("processed", 1)}
    run = PipelineRun.objects.get(graph=graph)
    assert (run.status, run.trigger) == ("succeeded", "settled")


def test_a_run_killed_mid_way_is_completed_after_the_sweep_without_duplicates(
    fake_openai: FakeOpenAI, settings: Any
) -> None:
    redis = require_worker_services()
    queue = new_queue()
    graph = Graph.objects.create(slug="crash", name="Crash", settings={"debounce_seconds": 1})
    teams = ["billing", "search", "mobile"]
    # Slow answers keep the first worker inside the summarize stage long enough to kill it there.
    fake_openai.responder = lambda request: _slow(request, seconds=4.0)
    llm_env = {
        "OPENAI_API_KEY": "test-key", "OPENAI_BASE_URL": fake_openai.base_url,
        "LLM_MODEL": "fake-model-1", "LLM_EXTRACTION": "0", "LLM_TIMEOUT_SECONDS": "20",
        "PIPELINE_RUN_STALE_SECONDS": "3",
    }
    env = worker_env(redis, queue, **llm_env)
    first = Worker(queue=queue, env=env, name="doomed").start()
    try:
        with broker_mode(redis, queue):
            ingest_records(graph, list(enumerate(chains(teams), start=1)))
            wait_for(lambda: fake_openai.completions(), what="the first model call")
            first.kill()
            doomed = PipelineRun.objects.get(graph=graph)
            assert doomed.status == PipelineRun.Status.RUNNING
            assert not Observation.objects.filter(graph=graph).exists()

            fake_openai.responder = default_responder
            second = Worker(queue=queue, env=env, name="survivor").start()
            try:
                settings.PIPELINE_RUN_STALE_SECONDS = 3
                wait_for(lambda: _stale(doomed), timeout=30, what="the heartbeat to go stale")
                swept = tasks.sweep()
                assert swept["abandoned_runs"] == 1
                done = wait_for(
                    lambda: PipelineRun.objects.filter(graph=graph, status="succeeded").first(),
                    what="a run to succeed after the sweep",
                )
            finally:
                second.stop()
    finally:
        first.stop()

    doomed.refresh_from_db()
    assert doomed.status == PipelineRun.Status.ABANDONED
    assert doomed.published_at is None
    # Nothing lost: one observation per chain. Nothing duplicated: exactly those three.
    observations = Observation.objects.filter(graph=graph)
    assert observations.count() == 3 and set(observations.values_list("status", flat=True)) == {
        "active"}
    assert all(o.created_by_run_id == done.pk for o in observations)
    assert set(Episode.objects.values_list("status", "attempts")) == {("processed", 1)}
    # Each update states four facts (owner, dependency, team ownership, status): processed once.
    assert FactEvidence.objects.filter(episode__graph=graph).count() == 4 * 2 * len(teams)
    # The call in flight when the worker died was never answered to us; the surviving run made
    # its own — one for the three chains (several clusters share a summary call) — audited.
    assert LLMCall.objects.filter(run=done, outcome="ok").count() == 1
    assert len(fake_openai.completions()) == 2
    assert all(o.generator == "fake-model-1" for o in observations)


def _slow(request: Any, *, seconds: float) -> Any:
    from dataclasses import replace

    return replace(default_responder(request), delay=seconds)


def _stale(run: PipelineRun) -> bool:
    from datetime import timedelta

    from django.utils import timezone

    run.refresh_from_db()
    return run.heartbeat_at is not None and (
        timezone.now() - run.heartbeat_at > timedelta(seconds=3)
    )


def test_with_redis_down_ingestion_still_succeeds_and_the_sweep_catches_up() -> None:
    redis = require_worker_services()
    queue = new_queue()
    graph = Graph.objects.create(slug="outage", name="Outage", settings={"debounce_seconds": 1})
    from datetime import timedelta

    from django.utils import timezone

    with broker_mode("redis://127.0.0.1:1/0", queue):  # nothing listens there
        report = ingest_records(graph, list(enumerate(SEED, start=1)),
                                now=timezone.now() - timedelta(minutes=10))
    assert report.stored == 3
    assert set(Episode.objects.values_list("status", flat=True)) == {"pending"}

    worker = Worker(queue=queue, env=worker_env(redis, queue), name="catch-up").start()
    try:
        with broker_mode(redis, queue):
            swept = tasks.sweep()
            assert swept["pending"] == 3
            observation = wait_for(
                lambda: Observation.objects.filter(graph=graph, status="active").first(),
                what="the observation after the sweep",
            )
    finally:
        worker.stop()
    assert observation.episodes.count() == 3


def test_updates_sent_one_at_a_time_wait_on_the_worker_to_share_one_extraction_call(
    fake_openai: FakeOpenAI, settings: Any
) -> None:
    redis = require_worker_services()
    queue = new_queue()
    settings.LLM_EXTRACTION = True
    graph = Graph.objects.create(slug="waiting", name="Waiting",
                                 settings={"debounce_seconds": 1, "model_wait_seconds": 3})
    env = worker_env(redis, queue, OPENAI_API_KEY="test-key",
                     OPENAI_BASE_URL=fake_openai.base_url, LLM_MODEL="fake-model-1",
                     LLM_EXTRACTION="1", LLM_TIMEOUT_SECONDS="20")
    worker = Worker(queue=queue, env=env, name="waiting").start()
    try:
        with broker_mode(redis, queue):
            for number, record in enumerate(SEED, start=1):
                ingest_records(graph, [(number, record)])  # each alone, as people write
            wait_for(lambda: not Episode.objects.filter(graph=graph).exclude(
                status="processed").exists(), timeout=60, what="the rules to read the updates")
            wait_for(lambda: Observation.objects.filter(graph=graph).exists(), timeout=60,
                     what="the observation")
            wait_for(lambda: not Episode.objects.filter(graph=graph, awaits_model=True)
                     .exists(), timeout=60, what="the model to read the updates")
    finally:
        worker.stop()

    extraction = [r for r in fake_openai.completions() if "<ep " in r.prompt]
    # Read by the rules at once, the three waited for the model (a Celery countdown) and
    # shared one call.
    assert len(extraction) == 1 and extraction[0].prompt.count("<ep ") == 3
    assert LLMCall.objects.filter(graph=graph, purpose="extraction").count() == 1


def test_beat_recovers_episodes_a_lost_worker_left_processing_without_anyone_acting() -> None:
    """A worker died mid-batch: its episodes stay ``processing``. Beat's sweep (every second here,
    episodes stale after two) requeues them, a live worker processes them and the pipeline
    publishes — nobody calls anything by hand."""
    redis = require_worker_services()
    queue = new_queue()
    graph = Graph.objects.create(slug="orphans", name="Orphans", settings={"debounce_seconds": 1})
    report = ingest_records(graph, list(enumerate(SEED, start=1)), process=False)
    from django.utils import timezone

    # What a worker killed with SIGKILL after claiming the batch leaves behind.
    Episode.objects.filter(pk__in=report.stored_ids).update(
        status=Episode.Status.PROCESSING, attempts=1, processing_started_at=timezone.now())
    env = worker_env(redis, queue, EPISODE_STALE_SECONDS="2", SWEEP_INTERVAL_SECONDS="1")
    worker = Worker(queue=queue, env=env, name="rescuer").start()
    beat = Beat(env=env, name="rescuer").start()
    try:
        observation = wait_for(
            lambda: Observation.objects.filter(graph=graph, status="active").first(),
            what="the sweep to requeue the orphaned episodes and the pipeline to publish",
        )
    finally:
        beat.stop()
        worker.stop()

    assert sorted(observation.episodes.values_list("external_id", flat=True)) == [
        "alice", "bob", "clara"]
    assert set(Episode.objects.values_list("status", "attempts")) == {("processed", 2)}
