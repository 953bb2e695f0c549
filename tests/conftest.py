"""Shared fixtures. Tests run on SQLite by default and on PostgreSQL when DATABASE_URL is set
(CI). Tests that need a service Redis/Chromium skip without it, unless REQUIRE_SERVICES=1
(CI sets it), in which case a missing service is a failure."""

from __future__ import annotations

import json
import os
import uuid
from collections.abc import Callable, Iterable
from datetime import datetime
from typing import Any

import pytest

from memory.ingestion import IngestReport, ingest_records
from memory.models import Graph, Membership
from tests.factories import GraphFactory, MembershipFactory, UserFactory

pytest_plugins = ["tests.fake_openai"]

REQUIRE_SERVICES = os.environ.get("REQUIRE_SERVICES") == "1"


def require(condition: bool, reason: str) -> None:
    """Skip when a service is missing locally; fail in CI, where everything must run."""
    if condition:
        return
    if REQUIRE_SERVICES:
        pytest.fail(f"required service missing: {reason}")
    pytest.skip(reason)


SESSION_CACHE_PREFIX = f"test-{uuid.uuid4().hex[:8]}"


@pytest.fixture(autouse=True, scope="session")
def _tasks_in_process() -> None:
    """Tasks run in-process, as in the embedded default, even when REDIS_URL is set (CI); the
    worker tests switch to the broker explicitly (``tests.worker.broker_mode``)."""
    from dashboard.celery import app

    app.conf.task_always_eager = True


@pytest.fixture(autouse=True, scope="session")
def _fast_password_hashing() -> None:
    """Real hashing costs half a second per user; tests create hundreds of them."""
    from django.conf import settings
    from django.contrib.auth.hashers import get_hashers, get_hashers_by_algorithm

    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
    get_hashers.cache_clear()
    get_hashers_by_algorithm.cache_clear()


@pytest.fixture(autouse=True, scope="session")
def _session_cache_prefix() -> None:
    """Keys of this test session never meet those of an earlier one in a shared Redis.

    Set in the settings, not on the cache object: a test that overrides ``CACHES`` rebuilds the
    caches from the settings when it ends, and a prefix set on the object alone was lost then —
    this process and the worker it starts (``CACHE_PREFIX``) stopped sharing the pipeline's
    settle marks, and the worker tests after the outage tests waited for a run that never came."""
    from django.conf import settings
    from django.core.cache import caches

    settings.CACHES = {alias: {**config, "KEY_PREFIX": SESSION_CACHE_PREFIX}
                       for alias, config in settings.CACHES.items()}
    caches.__init__()  # rebuilt from the settings just changed


@pytest.fixture(autouse=True)
def _stalled_items_off_unless_asked(request: pytest.FixtureRequest, settings: Any) -> None:
    """Stalled items read the wall clock: an item is stalled ``stalled_after_weeks`` after its
    state began, so tests written with fixed dates would find more of them every week that
    passes (the seed of 23 Nov 2026 from 14 Dec). The deployment's default is configured off
    (``STALLED_AFTER_WEEKS=0``; the workers the tests start get the same) unless a test is
    marked ``stalled``: the tests of stalled items, whose dates are relative to now or years
    old."""
    if request.node.get_closest_marker("stalled") is None:
        settings.STALLED_AFTER_WEEKS = 0


@pytest.fixture(autouse=True)
def _fresh_name_indexes() -> None:
    """Each test starts with no cached names (ids are reused after a test's rollback)."""
    from memory import resolution

    resolution._indexes.clear()


@pytest.fixture
def graph(db: None) -> Graph:
    return GraphFactory(slug="project-atlas", name="Project Atlas")


@pytest.fixture
def owner(graph: Graph):  # type: ignore[no-untyped-def]
    """Alice owns the graph."""
    return MembershipFactory(graph=graph, user__username="alice", role=Membership.Role.OWNER).user


@pytest.fixture
def editor(graph: Graph):  # type: ignore[no-untyped-def]
    """Erin may add updates and start runs."""
    return MembershipFactory(graph=graph, user__username="erin", role=Membership.Role.EDITOR).user


@pytest.fixture
def member(graph: Graph):  # type: ignore[no-untyped-def]
    """Bob is on the team: he can read the graph."""
    return MembershipFactory(graph=graph, user__username="bob", role=Membership.Role.VIEWER).user


@pytest.fixture
def outsider(db: None):  # type: ignore[no-untyped-def]
    """Charlie has no access to the graph: everything of it answers 404 to him."""
    return UserFactory(username="charlie")


IngestFn = Callable[..., IngestReport]


@pytest.fixture
def ingest(django_capture_on_commit_callbacks: Any) -> IngestFn:
    """Ingest records into a graph and run what ingestion enqueues (in-process, as in the
    embedded default)."""

    def run(graph: Graph, records: Iterable[dict[str, Any]], *,
            now: datetime | None = None) -> IngestReport:
        numbered = list(enumerate(records, start=1))
        with django_capture_on_commit_callbacks(execute=True):
            return ingest_records(graph, numbered, now=now)

    return run


def jsonl(records: Iterable[dict[str, Any]]) -> bytes:
    return "\n".join(json.dumps(r) for r in records).encode()


@pytest.fixture(scope="session")
def django_db_modify_db_settings(
    django_db_modify_db_settings_parallel_suffix: None, tmp_path_factory: pytest.TempPathFactory,
) -> None:
    """On the embedded default the test database is a file with WAL, as a user's is, not
    SQLite's shared in-memory database: there a table written by one connection is locked for
    every other (``database table is locked``, not retried by the busy timeout), and the web
    process's background thread, the live server's threads and the test each have their own
    connection."""
    from django.conf import settings

    database = settings.DATABASES["default"]
    if database["ENGINE"] == "django.db.backends.sqlite3":
        name = tmp_path_factory.mktemp("database") / "test_observations.sqlite3"
        database.setdefault("TEST", {})["NAME"] = str(name)
