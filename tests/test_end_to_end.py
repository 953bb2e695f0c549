"""Every write path end to end as in production: the request enqueues to the real Redis broker
after its transaction commits, a real Celery worker (a separate process, on the same PostgreSQL
test database) processes the episodes, waits for the graph to settle and runs the pipeline — the
API's add and bulk, the episodes page's upload and add-update forms, and starting a run from the
runs page and the API. (Elsewhere tasks run in-process, as in the embedded default.)"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import Client
from django.urls import reverse
from rest_framework.test import APIClient

from memory.api.keys import create_api_key
from memory.ingestion import ingest_records
from memory.models import Episode, Graph, Membership, Observation, PipelineRun
from memory.processing import process_episode
from tests.factories import MembershipFactory
from tests.scenarios import SEED
from tests.worker import (
    Worker,
    broker_mode,
    new_queue,
    require_worker_services,
    wait_for,
    worker_env,
)

pytestmark = [pytest.mark.worker, pytest.mark.django_db(transaction=True)]


@dataclass
class Broker:
    redis: str
    queue: str
    worker: Worker

    def log(self) -> str:
        return self.worker.log.read_text(errors="replace") if self.worker.log.exists() else ""


@pytest.fixture(scope="module")
def broker(django_db_setup: Any, django_db_blocker: Any) -> Iterator[Broker]:
    """One worker for the module, on a queue of its own."""
    with django_db_blocker.unblock():
        redis = require_worker_services()
        queue = new_queue()
        worker = Worker(queue=queue, env=worker_env(redis, queue), name="write-paths").start()
    try:
        yield Broker(redis, queue, worker)
    finally:
        worker.stop()


@pytest.fixture
def atlas(db: None) -> Graph:
    # The graph settles after one quiet second (the default is longer), then the worker runs it.
    return Graph.objects.create(slug="atlas", name="Atlas", settings={"debounce_seconds": 1})


@pytest.fixture
def erin(atlas: Graph) -> Any:
    return MembershipFactory(graph=atlas, user__username="erin", role=Membership.Role.EDITOR).user


def key_client(user: Any) -> APIClient:
    _, raw = create_api_key(user, "end to end")
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Api-Key {raw}")
    return client


def tasks_run_by_the_worker(broker: Broker, since: int) -> set[str]:
    """The task names the worker's log says it ran successfully after offset ``since``."""
    return set(re.findall(r"Task (memory\.[a-z_]+)\[[^\]]+\] succeeded", broker.log()[since:]))


def the_seed_observation(graph: Graph) -> Observation:
    """Wait for the worker to publish the seed's observation over all three updates (a first
    version may form from two while the third is on its way)."""

    def published() -> Observation | None:
        observation = Observation.objects.filter(graph=graph, status="active").first()
        if observation is None or observation.episodes.count() < 3:
            return None
        return observation

    observation = wait_for(published, what="the seed observation from the worker")
    assert sorted(observation.episodes.values_list("author", flat=True)) == [
        "Alice", "Bob", "Clara"]
    assert set(Episode.objects.filter(graph=graph).values_list("status", "attempts")) == {
        ("processed", 1)}
    assert set(PipelineRun.objects.filter(graph=graph).values_list("status", "trigger")) == {
        ("succeeded", "settled")}
    return observation


def test_episodes_added_one_by_one_through_the_api(broker: Broker, atlas: Graph, erin) -> None:
    client, since = key_client(erin), len(broker.log())

    with broker_mode(broker.redis, broker.queue):
        answers = [client.post(f"/api/v1/graphs/{atlas.slug}/episodes", record, format="json")
                   for record in SEED]
        assert [a.status_code for a in answers] == [201, 201, 201]
        the_seed_observation(atlas)

    assert {"memory.process_episode", "memory.run_pipeline_when_settled"} <= (
        tasks_run_by_the_worker(broker, since))


def test_a_bulk_add_through_the_api(broker: Broker, atlas: Graph, erin) -> None:
    client, since = key_client(erin), len(broker.log())

    with broker_mode(broker.redis, broker.queue):
        answer = client.post(f"/api/v1/graphs/{atlas.slug}/episodes/bulk", {"episodes": SEED},
                             format="json", HTTP_IDEMPOTENCY_KEY="seed")
        assert answer.status_code == 200 and answer.json()["stored"] == 3
        the_seed_observation(atlas)

    assert {"memory.process_episodes", "memory.run_pipeline_when_settled"} <= (
        tasks_run_by_the_worker(broker, since))


def test_a_file_uploaded_on_the_episodes_page(broker: Broker, atlas: Graph, erin) -> None:
    client, since = Client(), len(broker.log())
    client.force_login(erin)
    upload = SimpleUploadedFile("seed.jsonl", "\n".join(json.dumps(r) for r in SEED).encode())

    with broker_mode(broker.redis, broker.queue):
        answer = client.post(reverse("episode-upload", args=[atlas.slug]), {"file": upload})
        assert answer.status_code == 200
        the_seed_observation(atlas)

    assert {"memory.process_episodes", "memory.run_pipeline_when_settled"} <= (
        tasks_run_by_the_worker(broker, since))


def test_updates_typed_into_the_episodes_page(broker: Broker, atlas: Graph, erin) -> None:
    client, since = Client(), len(broker.log())
    client.force_login(erin)

    with broker_mode(broker.redis, broker.queue):
        for record in SEED:
            answer = client.post(reverse("episode-add", args=[atlas.slug]), {
                "content": record["content"], "author": record["author"],
                "reference_time": record["reference_time"][:16], "source": "standup",
            })
            assert answer.status_code == 302, answer.content[:300]
        observation = the_seed_observation(atlas)

    assert set(observation.episodes.values_list("author", "source")) == {
        ("Alice", "standup"), ("Bob", "standup"), ("Clara", "standup")}
    assert {"memory.process_episode", "memory.run_pipeline_when_settled"} <= (
        tasks_run_by_the_worker(broker, since))


def test_runs_started_from_the_runs_page_and_the_api(broker: Broker, atlas: Graph, erin
                                                     ) -> None:
    # The updates are already read (in this process); only the runs go through the worker.
    report = ingest_records(atlas, list(enumerate(SEED, start=1)), process=False)
    for episode_id in report.stored_ids:
        process_episode(episode_id)
    page, since = Client(), len(broker.log())
    page.force_login(erin)

    with broker_mode(broker.redis, broker.queue):
        answer = page.post(reverse("run-start", args=[atlas.slug]))
        assert answer.status_code == 302
        manual = PipelineRun.objects.get(graph=atlas, trigger=PipelineRun.Trigger.MANUAL)
        assert answer["Location"] == reverse("run", args=[atlas.slug, manual.uuid])
        wait_for(lambda: PipelineRun.objects.filter(pk=manual.pk, status="succeeded").exists(),
                 what="the page's run to succeed on the worker")
        started = key_client(erin).post(f"/api/v1/graphs/{atlas.slug}/runs")
        assert started.status_code == 202
        from_api = PipelineRun.objects.get(uuid=started.json()["uuid"])
        wait_for(lambda: PipelineRun.objects.filter(pk=from_api.pk, status="succeeded").exists(),
                 what="the API's run to succeed on the worker")

    (observation,) = Observation.objects.filter(graph=atlas)
    assert observation.created_by_run_id == manual.pk
    from_api.refresh_from_db()
    assert (from_api.trigger, from_api.counts["untouched"]) == ("api", 1)
    assert "memory.execute_run" in tasks_run_by_the_worker(broker, since)
