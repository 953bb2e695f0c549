"""A Redis outage, on a Redis server of the test's own that it stops and starts again: reads and
sign-in keep working (throttles fall back to this process's memory and say so once in the log),
writes are accepted and stored, and nothing that stored data answers 500. Stored episodes wait as
``pending`` until the broker is back; then the sweep enqueues them and they are processed."""

from __future__ import annotations

import io
import logging
from collections.abc import Iterator
from typing import Any

import pytest
from django.test import Client
from django.urls import reverse
from rest_framework.test import APIClient

from dashboard.settings import redis_cache
from memory.api.keys import create_api_key
from memory.models import Episode, Graph, Observation
from tests.conftest import jsonl
from tests.fake_openai import fake_openai as fake_openai_fixture  # noqa: F401
from tests.redis_server import RedisServer
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

PASSWORD = "correct horse battery staple"  # the factories' password
OUTAGE_WARNING = "Redis cache unreachable"
OUTAGE_SECONDS = 8


@pytest.fixture
def redis_server() -> Iterator[RedisServer]:
    server = RedisServer().start()
    try:
        yield server
    finally:
        server.close()


@pytest.fixture
def on_own_redis(redis_server: RedisServer, settings: Any) -> Iterator[RedisServer]:
    """This process's cache and broker on the test's own Redis, as in production."""
    settings.CACHES = {"default": redis_cache(redis_server.url(1), "outage")}
    with broker_mode(redis_server.url(0), new_queue()):
        yield redis_server


def update(n: int) -> dict[str, Any]:
    return {"external_id": f"u{n}", "author": "Alice",
            "reference_time": f"2026-11-23T09:{n:02d}:00+00:00",
            "content": f"The billing {n} migration is blocked. I'm waiting on the auth refactor."}


@pytest.mark.django_db
def test_with_redis_down_reads_sign_in_and_writes_answer_and_nothing_stored_answers_500(
    on_own_redis: RedisServer, graph: Graph, owner: Any, settings: Any,
    caplog: pytest.LogCaptureFixture,
) -> None:
    _, key = create_api_key(owner, "outage")
    api = APIClient()
    api.credentials(HTTP_AUTHORIZATION=f"Api-Key {key}")
    pages = Client(raise_request_exception=False)
    pages.force_login(owner)
    assert api.get("/api/v1/graphs").status_code == 200  # Redis up: counts kept in Redis

    on_own_redis.stop()
    caplog.set_level(logging.WARNING)

    # Reads.
    assert api.get("/api/v1/graphs").status_code == 200
    assert api.get(f"/api/v1/graphs/{graph.slug}/facts").status_code == 200
    assert pages.get(reverse("board", args=[graph.slug])).status_code == 200
    # Sign-in, right and wrong.
    visitor = Client(raise_request_exception=False)
    assert visitor.post(reverse("login"), {"username": "alice", "password": "nope"}
                        ).status_code == 200
    assert visitor.post(reverse("login"), {"username": "alice", "password": PASSWORD}
                        ).status_code == 302
    # Writes: the add-update form, the upload, the bulk and single APIs (v1 and v4).
    added = pages.post(reverse("episode-add", args=[graph.slug]), {
        "content": update(1)["content"], "author": "Alice", "reference_time": "2026-11-23T09:01",
    })
    uploaded = pages.post(reverse("episode-upload", args=[graph.slug]), {
        "file": io.BytesIO(jsonl([update(2), update(3)]))})
    bulk = api.post(f"/api/v1/graphs/{graph.slug}/episodes/bulk",
                    {"episodes": [update(4), update(5)]}, format="json")
    single = api.post(f"/api/v1/graphs/{graph.slug}/episodes", update(6), format="json")
    zep = api.post(f"/api/v4/graphs/{graph.uuid}/episodes", {
        "type": "text", "data": update(7)["content"], "reference_time": "2026-11-23T09:07:00Z",
    }, format="json")

    assert [added.status_code, uploaded.status_code, bulk.status_code, single.status_code,
            zep.status_code] == [302, 200, 200, 201, 202]
    assert bulk.json()["stored"] == 2
    assert b"stored" in uploaded.content
    # Accepted and stored; processed once the broker is back.
    assert Episode.objects.filter(graph=graph, status="pending").count() == 7
    outage_warnings = [r for r in caplog.records if OUTAGE_WARNING in r.getMessage()]
    assert len(outage_warnings) == 1, [r.getMessage() for r in outage_warnings]


@pytest.mark.django_db
def test_with_redis_down_throttles_still_hold_on_this_process_counts(
    on_own_redis: RedisServer, graph: Graph, owner: Any, settings: Any
) -> None:
    settings.API_THROTTLE_RATES = {"api": "3/min", "ingest": "3/min"}
    settings.LOGIN_THROTTLE_PER_USERNAME = 2
    _, key = create_api_key(owner, "outage")
    api = APIClient()
    api.credentials(HTTP_AUTHORIZATION=f"Api-Key {key}")
    on_own_redis.stop()

    codes = [api.get("/api/v1/graphs").status_code for _ in range(4)]
    visitor = Client()
    signs = [visitor.post(reverse("login"), {"username": "alice", "password": password}
                          ).status_code for password in ("nope", "nope", PASSWORD)]

    assert codes == [200, 200, 200, 429]
    assert signs == [200, 200, 429]


@pytest.mark.worker
@pytest.mark.django_db(transaction=True)
def test_writes_accepted_during_an_outage_are_processed_once_redis_returns(
    on_own_redis: RedisServer,
) -> None:
    require_worker_services()
    from tests.factories import MembershipFactory

    graph = Graph.objects.create(slug="outage", name="Outage", settings={"debounce_seconds": 1})
    owner = MembershipFactory(graph=graph, user__username="alice", role="owner").user
    _, key = create_api_key(owner, "outage")
    api = APIClient()
    api.credentials(HTTP_AUTHORIZATION=f"Api-Key {key}")

    on_own_redis.stop()
    response = api.post(f"/api/v1/graphs/{graph.slug}/episodes/bulk", {"episodes": SEED},
                        format="json")
    assert response.status_code == 200 and response.json()["stored"] == 3
    assert set(Episode.objects.values_list("status", flat=True)) == {"pending"}

    on_own_redis.start()
    from dashboard.celery import app

    queue = app.conf.task_default_queue
    env = worker_env(on_own_redis.url(0), queue, CACHE_URL=on_own_redis.url(1),
                     EPISODE_PENDING_GRACE_SECONDS="1", SWEEP_INTERVAL_SECONDS="1")
    worker = Worker(queue=queue, env=env, name="after-outage").start()
    beat = Beat(env=env, name="after-outage").start()
    try:
        observation = wait_for(
            lambda: Observation.objects.filter(graph=graph, status="active").first(),
            what="the sweep to enqueue what was stored during the outage",
        )
    finally:
        beat.stop()
        worker.stop()
    assert observation.episodes.count() == 3
    assert set(Episode.objects.values_list("status", "attempts")) == {("processed", 1)}


@pytest.mark.worker
@pytest.mark.django_db(transaction=True)
def test_a_worker_survives_redis_going_away_mid_task_three_times_and_finishes_the_work(
    redis_server: RedisServer, fake_openai: Any
) -> None:
    """The broker goes away while the worker is in the middle of a task (a slow model call),
    three times. The worker reconnects each time — it must not exit — and every episode ends up
    processed."""
    require_worker_services()
    from dataclasses import replace

    from tests.fake_openai import default_responder

    fake_openai.responder = lambda request: replace(default_responder(request), delay=1.0)
    queue = new_queue()
    graph = Graph.objects.create(slug="flaky", name="Flaky", settings={"debounce_seconds": 1})
    env = worker_env(redis_server.url(0), queue, CACHE_URL=redis_server.url(1),
                     OPENAI_API_KEY="sk-fake", OPENAI_BASE_URL=fake_openai.base_url,
                     LLM_MODEL="fake-model-1", LLM_EXTRACTION="1", LLM_TIMEOUT_SECONDS="20",
                     EPISODE_PENDING_GRACE_SECONDS="1", SWEEP_INTERVAL_SECONDS="1",
                     EPISODE_STALE_SECONDS="5")
    worker = Worker(queue=queue, env=env, name=f"flaky-{queue}", as_deployed=True).start()
    beat = Beat(env=env, name="flaky").start()
    try:
        with broker_mode(redis_server.url(0), queue):
            from memory.ingestion import ingest_records

            ingest_records(graph, list(enumerate([update(n) for n in range(12)], start=1)))
        for outage in range(3):
            calls = len(fake_openai.requests)
            wait_for(lambda calls=calls: len(fake_openai.requests) > calls,
                     what=f"a model call in flight before outage {outage + 1}")
            redis_server.stop()
            import time

            time.sleep(OUTAGE_SECONDS)
            redis_server.start()
            assert worker.process is not None
            assert worker.process.poll() is None, f"the worker exited after outage {outage + 1}"
        wait_for(lambda: not Episode.objects.exclude(status="processed").exists(),
                 timeout=180, what="every episode processed after the outages")
        assert worker.process.poll() is None
    finally:
        beat.stop()
        worker.stop()
    assert Episode.objects.filter(graph=graph).count() == 12
    log = worker.log.read_text(errors="replace")
    assert "Unrecoverable error" not in log
    assert "Error on restarting" not in log  # a consumer part that fails to restart, e.g. gossip
