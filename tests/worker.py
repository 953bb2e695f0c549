"""A real Celery worker in a subprocess, for the tests whose behaviour depends on one.

It talks to the same Redis and the same PostgreSQL *test* database as the test process, on a
queue of its own, so concurrent test runs never steal each other's tasks."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
import uuid
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import dj_database_url
from django.db import connection

from memory.bench.services import deployed_worker_switches
from tests.conftest import SESSION_CACHE_PREFIX, require

ROOT = Path(__file__).resolve().parent.parent
ARTIFACTS = ROOT / "test-artifacts"


def redis_url() -> str | None:
    url = os.environ.get("REDIS_URL") or "redis://127.0.0.1:6379/13"
    try:
        import redis

        redis.Redis.from_url(url, socket_connect_timeout=1).ping()
    except Exception:
        return None
    return url


def require_worker_services() -> str:
    """Redis, and PostgreSQL (the worker must see the test database; SQLite's is in memory)."""
    url = redis_url()
    require(url is not None, "Redis is not reachable")
    require(connection.vendor == "postgresql", "worker tests need PostgreSQL (DATABASE_URL)")
    assert url is not None
    return url


def test_database_url() -> str:
    config = dict(connection.settings_dict)
    base = os.environ["DATABASE_URL"]
    parsed = dj_database_url.parse(base)
    user = parsed.get("USER") or ""
    password = f":{parsed['PASSWORD']}" if parsed.get("PASSWORD") else ""
    host = parsed.get("HOST") or "127.0.0.1"
    port = parsed.get("PORT") or 5432
    return f"postgres://{user}{password}@{host}:{port}/{config['NAME']}"


class Worker:
    def __init__(self, *, queue: str, env: dict[str, str], name: str,
                 as_deployed: bool = False) -> None:
        """``as_deployed``: with the ``--without-*`` switches of docker-compose.yml's worker
        command (what the deployment runs), not the lean set the other tests use."""
        self.queue = queue
        self.env = env
        self.name = name
        self.as_deployed = as_deployed
        self.process: subprocess.Popen[bytes] | None = None
        ARTIFACTS.mkdir(exist_ok=True)
        self.log = ARTIFACTS / f"worker-{name}.log"

    def start(self) -> Worker:
        command = [
            sys.executable, "-m", "celery", "-A", "dashboard", "worker",
            "--queues", self.queue, "--concurrency", "1", "--loglevel", "INFO",
            "--hostname", f"{self.name}@%h",
        ]
        if self.as_deployed:
            command += deployed_worker_switches()
        else:
            command += ["--without-gossip", "--without-mingle", "--without-heartbeat"]
        with self.log.open("ab") as log:
            # A session of its own, so that SIGKILL reaches the pool's child too.
            self.process = subprocess.Popen(command, cwd=ROOT, env=self.env, stdout=log,
                                            stderr=subprocess.STDOUT, start_new_session=True)
        return self

    def kill(self) -> None:
        """SIGKILL, no goodbye: the worker and its pool die mid-task."""
        assert self.process is not None
        os.killpg(self.process.pid, signal.SIGKILL)
        self.process.wait(timeout=10)

    def stop(self) -> None:
        if self.process is None or self.process.poll() is not None:
            return
        os.killpg(self.process.pid, signal.SIGTERM)
        try:
            self.process.wait(timeout=15)
        except subprocess.TimeoutExpired:
            os.killpg(self.process.pid, signal.SIGKILL)
            self.process.wait(timeout=5)


class Beat:
    """``celery beat`` in a subprocess: the periodic schedule of ``dashboard.celery``, sent to the
    worker's queue (``CELERY_QUEUE`` in ``env``), its schedule file under test-artifacts."""

    def __init__(self, *, env: dict[str, str], name: str) -> None:
        self.env = env
        self.name = name
        self.process: subprocess.Popen[bytes] | None = None
        ARTIFACTS.mkdir(exist_ok=True)
        self.log = ARTIFACTS / f"beat-{name}.log"
        self.schedule = ARTIFACTS / f"beat-{name}-{uuid.uuid4().hex[:6]}.schedule"

    def start(self) -> Beat:
        command = [sys.executable, "-m", "celery", "-A", "dashboard", "beat", "--loglevel",
                   "INFO", "--schedule", str(self.schedule)]
        with self.log.open("ab") as log:
            self.process = subprocess.Popen(command, cwd=ROOT, env=self.env, stdout=log,
                                            stderr=subprocess.STDOUT, start_new_session=True)
        return self

    def stop(self) -> None:
        if self.process is not None and self.process.poll() is None:
            os.killpg(self.process.pid, signal.SIGTERM)
            try:
                self.process.wait(timeout=15)
            except subprocess.TimeoutExpired:
                os.killpg(self.process.pid, signal.SIGKILL)
                self.process.wait(timeout=5)
        for leftover in ARTIFACTS.glob(f"{self.schedule.name}*"):
            leftover.unlink(missing_ok=True)


@contextmanager
def broker_mode(redis: str, queue: str) -> Iterator[None]:
    """Make this test process enqueue to Redis instead of running tasks in-process."""
    from dashboard.celery import app

    saved = {k: app.conf[k] for k in ("broker_url", "task_always_eager", "task_default_queue")}
    app.conf.update(broker_url=redis, task_always_eager=False, task_default_queue=queue)
    _forget_connections(app)
    try:
        yield
    finally:
        app.conf.update(saved)
        _forget_connections(app)


def _forget_connections(app: Any) -> None:
    """Drop the app's cached connection and producer pools so the next send uses the broker now
    configured (kombu keeps one pool per broker URL, so nothing is leaked or closed under
    someone else)."""
    app._pool = None
    app.amqp._producer_pool = None


def worker_env(redis: str, queue: str, **extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("OPENAI_", "LLM_"))}
    env.update(
        DJANGO_SETTINGS_MODULE="dashboard.settings",
        DATABASE_URL=test_database_url(),
        REDIS_URL=redis,
        CELERY_QUEUE=queue,
        CACHE_PREFIX=SESSION_CACHE_PREFIX,
        LOG_LEVEL="INFO",
        # As in this process (tests/conftest.py): fixed-date stories grow no stalled items.
        STALLED_AFTER_WEEKS="0",
    )
    env.update(extra)
    return env


def new_queue() -> str:
    return f"test-{uuid.uuid4().hex[:10]}"


def wait_for(condition: Callable[[], Any], *, timeout: float = 90, what: str = "") -> Any:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = condition()
        if value:
            return value
        time.sleep(0.25)
    raise AssertionError(f"timed out after {timeout}s waiting for {what or condition}")
