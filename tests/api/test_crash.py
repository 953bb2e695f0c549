"""Bulk ingestion of 10,000 episodes over HTTP against a real server process on PostgreSQL:
nothing lost or duplicated when a batch is retried with its Idempotency-Key, or when the server
is killed with SIGKILL in the middle of a batch and the client retries it after a restart.

The server enqueues extraction to a Redis queue of its own that no worker reads (the test is about
storage), which is purged afterwards."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import threading
import time
from typing import Any

import httpx
import pytest

from memory.api.keys import create_api_key
from memory.models import Episode, Graph, Membership
from tests.factories import UserFactory
from tests.worker import ARTIFACTS, ROOT, new_queue, require_worker_services, worker_env

pytestmark = [pytest.mark.slow, pytest.mark.postgres, pytest.mark.django_db(transaction=True)]

EPISODES = 10_000
BATCH = 1_000


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


class Server:
    """``manage.py runserver`` in its own process group, on the test database."""

    def __init__(self, env: dict[str, str]) -> None:
        self.env, self.port = env, free_port()
        self.process: subprocess.Popen[bytes] | None = None
        ARTIFACTS.mkdir(exist_ok=True)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def start(self, key: str) -> Server:
        log = (ARTIFACTS / "api-crash-server.log").open("ab")
        self.process = subprocess.Popen(
            [sys.executable, "manage.py", "runserver", "--noreload", f"127.0.0.1:{self.port}"],
            cwd=ROOT, env=self.env, stdout=log, stderr=subprocess.STDOUT,
            start_new_session=True,
        )
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            try:
                if httpx.get(f"{self.url}/api/v1/graphs", headers=auth(key),
                             timeout=2).status_code == 200:
                    return self
            except httpx.TransportError:
                pass
            time.sleep(0.2)
        raise AssertionError("the API server did not come up")

    def kill(self) -> None:
        assert self.process is not None
        os.killpg(self.process.pid, signal.SIGKILL)
        self.process.wait(timeout=10)

    def stop(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.kill()


def auth(key: str) -> dict[str, str]:
    return {"Authorization": f"Api-Key {key}"}


def batch(number: int) -> list[dict[str, Any]]:
    start = number * BATCH
    return [{"external_id": f"e{n}", "author": f"Person {n % 97}",
             "reference_time": f"2026-11-{1 + n % 28:02d}T{n % 24:02d}:{n % 60:02d}:00+00:00",
             "content": f"Update {n}: the work item {n % 13} is on track."}
            for n in range(start, start + BATCH)]


def post(server: Server, key: str, graph: Graph, number: int) -> httpx.Response:
    return httpx.post(f"{server.url}/api/v1/graphs/{graph.slug}/episodes/bulk",
                      json={"episodes": batch(number)},
                      headers={**auth(key), "Idempotency-Key": f"batch-{number}"}, timeout=120)


def stored(graph: Graph) -> int:
    return Episode.objects.filter(graph=graph).count()


def test_nothing_is_lost_or_duplicated_across_retries_and_a_killed_server(settings: Any) -> None:
    redis_url = require_worker_services()
    queue = new_queue()
    owner = UserFactory(username="alice")
    graph = Graph.objects.create(slug="firehose", name="Firehose")
    Membership.objects.create(graph=graph, user=owner, role=Membership.Role.OWNER)
    _, key = create_api_key(owner, "loader")
    env = worker_env(redis_url, queue, IDEMPOTENCY_LEASE_SECONDS="600",
                     API_INGEST_THROTTLE_RATE="10000/min")
    server = Server(env).start(key)
    try:
        # A batch retried with the same key: the first response, nothing stored twice.
        first = post(server, key, graph, 0)
        again = post(server, key, graph, 0)
        assert first.status_code == again.status_code == 200
        assert again.json() == first.json() and first.json()["stored"] == BATCH
        assert again.headers["Idempotent-Replayed"] == "true"
        assert stored(graph) == BATCH

        # Kill the server with SIGKILL while a batch is half-stored, then retry it.
        number, killed_at = 1, None
        while killed_at is None and number < EPISODES // BATCH:
            before = stored(graph)
            sender = threading.Thread(target=_try_post, args=(server, key, graph, number))
            sender.start()
            while sender.is_alive() and stored(graph) == before:
                time.sleep(0.002)
            if sender.is_alive():
                server.kill()
                killed_at = stored(graph) - before
            sender.join()
            if killed_at is None:  # the batch finished before we could kill: try the next one
                number += 1
        assert killed_at is not None and 0 < killed_at < BATCH, killed_at
        server = Server(env).start(key)
        retried = post(server, key, graph, number)
        assert retried.status_code == 200, retried.text
        body = retried.json()
        assert body["stored"] + body["duplicates"] == BATCH and body["rejected"] == 0
        assert body["duplicates"] >= killed_at

        for rest in range(number + 1, EPISODES // BATCH):
            assert post(server, key, graph, rest).json()["stored"] == BATCH
        for skipped in range(1, number):  # batches that finished before a kill was possible
            assert post(server, key, graph, skipped).status_code == 200
    finally:
        server.stop()
        _purge(redis_url, queue)

    assert stored(graph) == EPISODES
    ids = list(Episode.objects.filter(graph=graph).values_list("external_id", flat=True))
    assert len(set(ids)) == EPISODES == len(ids)


def _try_post(server: Server, key: str, graph: Graph, number: int) -> httpx.Response | None:
    try:
        return post(server, key, graph, number)
    except httpx.TransportError:
        return None


def _purge(redis_url: str, queue: str) -> None:
    import redis

    redis.Redis.from_url(redis_url).delete(queue)
