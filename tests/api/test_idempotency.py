"""Idempotency-Key on writes: a retry gets the first response and nothing is done twice; another
request under the same key is a 422; a key still in flight is a 409; keys are per API key and
expire."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from django.db import OperationalError, connection, connections
from django.utils import timezone
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.test import APIClient, APIRequestFactory

from memory.api import idempotency
from memory.api.keys import create_api_key
from memory.models import ApiKey, Episode, Graph, IdempotencyRecord
from tests.api.conftest import ClientFor, error_of
from tests.scenarios import SEED

pytestmark = pytest.mark.django_db
POSTGRESQL = connection.vendor == "postgresql"


def bulk(client: Any, graph: Graph, records: list[dict[str, Any]], key: str) -> Any:
    return client.post(f"/api/v1/graphs/{graph.slug}/episodes/bulk", {"episodes": records},
                       format="json", HTTP_IDEMPOTENCY_KEY=key)


def test_a_retried_batch_returns_the_first_result_and_stores_nothing_new(
    api: ClientFor, owner, graph: Graph
) -> None:
    client = api(owner)
    first = bulk(client, graph, SEED, "batch-1")

    again = bulk(client, graph, SEED, "batch-1")

    assert again.status_code == first.status_code == 200
    assert again.json() == first.json() and again.json()["stored"] == 3
    assert again["Idempotent-Replayed"] == "true"
    assert Episode.objects.filter(graph=graph).count() == 3


def test_the_same_key_with_another_body_is_a_422(api: ClientFor, owner, graph: Graph) -> None:
    client = api(owner)
    bulk(client, graph, SEED[:1], "batch-1")

    response = bulk(client, graph, SEED[1:], "batch-1")

    assert response.status_code == 422
    assert error_of(response) == {
        "code": "idempotency_key_reused", "param": "Idempotency-Key", "details": {},
        "message": "This Idempotency-Key was already used for a different request; use a new "
                   "key for a new request.",
    }
    assert Episode.objects.filter(graph=graph).count() == 1


class Clock:
    """The time ``django.utils.timezone.now`` tells (the clock is the edge tests may move)."""

    def __init__(self) -> None:
        self.now = datetime(2026, 11, 23, 9, 0, tzinfo=UTC)

    def advance(self, **delta: float) -> None:
        self.now += timedelta(**delta)


@pytest.fixture
def clock(monkeypatch: pytest.MonkeyPatch) -> Clock:
    clock = Clock()
    monkeypatch.setattr(timezone, "now", lambda: clock.now)
    return clock


def died_in_flight() -> None:
    """Leave the key's record as a server killed mid-request leaves it: still in flight, with
    the lease it took when it began."""
    IdempotencyRecord.objects.update(state=IdempotencyRecord.State.IN_FLIGHT, response_body=None)


def test_a_key_is_remembered_for_24_hours_and_then_forgotten(
    api: ClientFor, owner, graph: Graph, clock: Clock
) -> None:
    client = api(owner)
    bulk(client, graph, SEED[:1], "batch-1")

    clock.advance(hours=24, seconds=-1)
    assert bulk(client, graph, SEED[:1], "batch-1")["Idempotent-Replayed"] == "true"
    assert bulk(client, graph, SEED[1:], "batch-1").status_code == 422
    clock.advance(seconds=1)  # exactly 24 hours on: forgotten
    response = bulk(client, graph, SEED[1:], "batch-1")

    assert response.status_code == 200 and response.json()["stored"] == 2
    assert "Idempotent-Replayed" not in response


@pytest.mark.skipif(POSTGRESQL,
                    reason="PostgreSQL decides by advisory lock, not by lease (test below)")
def test_on_sqlite_a_dead_requests_key_is_held_for_its_60_second_lease_with_retry_after(
    api: ClientFor, owner, graph: Graph, clock: Clock
) -> None:
    client = api(owner)
    bulk(client, graph, SEED[:1], "batch-1")
    died_in_flight()

    clock.advance(seconds=59)
    response = bulk(client, graph, SEED[:1], "batch-1")
    assert response.status_code == 409
    assert error_of(response) == {
        "code": "idempotency_key_in_flight", "param": "Idempotency-Key", "details": {},
        "message": "A request with this Idempotency-Key is still being processed; retry later.",
    }
    assert response["Retry-After"] == "2"  # the lease's last second, rounded up, and one more
    clock.advance(seconds=0.5)
    assert bulk(client, graph, SEED[:1], "batch-1")["Retry-After"] == "1"  # at least one
    clock.advance(seconds=1.5)
    response = bulk(client, graph, SEED[:1], "batch-1")

    assert response.status_code == 200 and response.json()["duplicates"] == 1
    assert Episode.objects.filter(graph=graph).count() == 1


@pytest.mark.skipif(not POSTGRESQL,
                    reason="the advisory lock is PostgreSQL's; SQLite uses the lease (above)")
def test_on_postgresql_a_key_whose_lock_another_connection_holds_is_a_409(
    owner, graph: Graph
) -> None:
    api_key, raw = create_api_key(owner, "bot")
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Api-Key {raw}")
    # Another server process is in the middle of this key's request: its own database
    # session holds the key's advisory lock.
    other = connections.create_connection("default")
    try:
        with other.cursor() as cursor:
            cursor.execute("SELECT pg_advisory_lock(%s)",
                           [idempotency._lock_id(f"key:{api_key.pk}", "batch-1")])

        response = bulk(client, graph, SEED, "batch-1")

        assert response.status_code == 409 and response["Retry-After"] == "1"
        assert error_of(response)["code"] == "idempotency_key_in_flight"
        assert not Episode.objects.filter(graph=graph).exists()
        assert not IdempotencyRecord.objects.exists()
    finally:
        other.close()  # the other process ends: PostgreSQL releases its lock

    response = bulk(client, graph, SEED, "batch-1")
    assert response.status_code == 200 and response.json()["stored"] == 3


def test_a_key_whose_request_died_is_taken_over(api: ClientFor, owner, graph: Graph) -> None:
    client = api(owner)
    bulk(client, graph, SEED[:1], "batch-1")
    # The server died mid-request: the record is still in flight, its lease is over (SQLite),
    # and no session holds its advisory lock (PostgreSQL).
    IdempotencyRecord.objects.update(state=IdempotencyRecord.State.IN_FLIGHT,
                                     locked_until=timezone.now() - timedelta(seconds=1),
                                     response_body=None)

    response = bulk(client, graph, SEED[:1], "batch-1")

    assert response.status_code == 200 and response.json()["duplicates"] == 1
    assert Episode.objects.filter(graph=graph).count() == 1


def test_keys_are_scoped_to_the_api_key_that_sent_them(api: ClientFor, owner, editor,
                                                        graph: Graph) -> None:
    bulk(api(owner), graph, SEED[:1], "shared-key")

    response = bulk(api(editor), graph, SEED[1:], "shared-key")

    assert response.status_code == 200 and response.json()["stored"] == 2


def test_an_expired_key_can_be_used_again(api: ClientFor, owner, graph: Graph) -> None:
    client = api(owner)
    bulk(client, graph, SEED[:1], "batch-1")
    IdempotencyRecord.objects.update(expires_at=timezone.now() - timedelta(seconds=1))

    response = bulk(client, graph, SEED[1:], "batch-1")

    assert response.status_code == 200 and response.json()["stored"] == 2


def test_errors_are_not_stored_so_a_retry_runs_again(api: ClientFor, member, graph: Graph) -> None:
    client = api(member)

    assert bulk(client, graph, SEED, "k").status_code == 403
    assert not IdempotencyRecord.objects.exists()


def test_an_overlong_key_is_a_400_naming_the_header(api: ClientFor, owner, graph: Graph) -> None:
    response = bulk(api(owner), graph, SEED, "k" * 300)

    assert response.status_code == 400
    assert error_of(response) == {
        "code": "invalid_idempotency_key", "param": "Idempotency-Key", "details": {},
        "message": "Idempotency-Key must be 1 to 255 characters.",
    }
    assert bulk(api(owner), graph, SEED, "k" * 255).status_code == 200  # the longest allowed


def test_single_episode_adds_replay_too(api: ClientFor, owner, graph: Graph) -> None:
    client = api(owner)
    path = f"/api/v1/graphs/{graph.slug}/episodes"

    first = client.post(path, SEED[0], format="json", HTTP_IDEMPOTENCY_KEY="one")
    again = client.post(path, SEED[0], format="json", HTTP_IDEMPOTENCY_KEY="one")

    assert (first.status_code, again.status_code) == (201, 201)
    assert again.json() == first.json()


@pytest.mark.skipif(not POSTGRESQL, reason="the advisory lock is PostgreSQL's")
def test_on_postgresql_another_keys_lock_does_not_hold_this_one(owner, graph: Graph) -> None:
    api_key, raw = create_api_key(owner, "bot")
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Api-Key {raw}")
    other = connections.create_connection("default")
    try:
        with other.cursor() as cursor:
            for scope, key in ((f"key:{api_key.pk}", "batch-2"), (f"key:{api_key.pk + 1}",
                                                                   "batch-1")):
                cursor.execute("SELECT pg_advisory_lock(%s)", [idempotency._lock_id(scope, key)])

        response = bulk(client, graph, SEED, "batch-1")
    finally:
        other.close()

    assert response.status_code == 200 and response.json()["stored"] == 3


def test_the_sweep_purges_expired_keys_and_keeps_the_others(api: ClientFor, owner,
                                                            graph: Graph) -> None:
    client = api(owner)
    bulk(client, graph, SEED[:1], "old")
    bulk(client, graph, SEED[1:2], "new")
    now = timezone.now()
    IdempotencyRecord.objects.filter(key="old").update(expires_at=now - timedelta(seconds=1))
    IdempotencyRecord.objects.filter(key="new").update(expires_at=now + timedelta(hours=1))

    assert idempotency.purge_expired() == 1
    assert list(IdempotencyRecord.objects.values_list("key", flat=True)) == ["new"]
    # Purged as of a given moment: the other one's time comes two hours on.
    assert idempotency.purge_expired(now=now + timedelta(hours=2)) == 1
    assert not IdempotencyRecord.objects.exists()


def test_each_replay_finds_its_own_record_among_other_keys_and_api_keys(
    api: ClientFor, owner, editor, graph: Graph
) -> None:
    alice, erin = api(owner), api(editor)
    bulk(alice, graph, SEED[:1], "shared")
    bulk(alice, graph, SEED[1:2], "mine")
    bulk(erin, graph, SEED[2:], "shared")

    for client, records, key in ((erin, SEED[2:], "shared"), (alice, SEED[1:2], "mine"),
                                 (alice, SEED[:1], "shared")):
        response = bulk(client, graph, records, key)
        assert response.status_code == 200, (key, response.content[:200])
        assert response["Idempotent-Replayed"] == "true"


@pytest.mark.skipif(POSTGRESQL, reason="the lease is SQLite's")
def test_taking_over_one_dead_key_leaves_the_others_as_they_were(
    api: ClientFor, owner, graph: Graph, clock: Clock
) -> None:
    client = api(owner)
    bulk(client, graph, SEED[:1], "a")
    bulk(client, graph, SEED[1:2], "b")
    died_in_flight()
    clock.advance(seconds=61)

    assert bulk(client, graph, SEED[:1], "a").status_code == 200
    assert bulk(client, graph, SEED[1:2], "b").status_code == 200


@pytest.mark.skipif(POSTGRESQL, reason="the lease is SQLite's")
def test_while_a_request_runs_its_key_holds_a_full_lease(
    api: ClientFor, owner, graph: Graph, clock: Clock
) -> None:
    """The lease read at the moment the request stores its episode: on the first attempt, and
    on the retry that takes over from an attempt that died before its episode was committed."""
    leases: list[timedelta] = []

    def watch(execute: Any, sql: str, params: Any, many: bool, context: Any) -> Any:
        if sql.startswith('INSERT INTO "memory_episode"'):
            until = IdempotencyRecord.objects.values_list("locked_until", flat=True).get()
            leases.append(until - clock.now)
        return execute(sql, params, many, context)

    client = api(owner)
    with connection.execute_wrapper(watch):
        bulk(client, graph, SEED[:1], "a")
        died_in_flight()
        Episode.objects.filter(graph=graph).delete()  # its transaction never committed
        clock.advance(seconds=61)
        retried = bulk(client, graph, SEED[:1], "a")

    assert retried.status_code == 200 and retried.json()["stored"] == 1
    assert leases == [timedelta(seconds=60)] * 2


def on_the_record(sql: str, verb: str) -> bool:
    return sql.startswith(verb) and '"memory_idempotencyrecord"' in sql


def test_a_key_released_between_our_insert_and_our_read_is_claimed_again(
    api: ClientFor, owner, graph: Graph
) -> None:
    client = api(owner)
    bulk(client, graph, SEED[:1], "a")
    released: list[bool] = []

    def released_by_its_request(execute: Any, sql: str, params: Any, many: bool,
                                context: Any) -> Any:
        # Another request under the key failed and released it just as we looked it up.
        if not released and on_the_record(sql, "SELECT"):
            released.append(True)
            IdempotencyRecord.objects.all().delete()
        return execute(sql, params, many, context)

    with connection.execute_wrapper(released_by_its_request):
        response = bulk(client, graph, SEED[:1], "a")

    assert released and response.status_code == 200 and response.json()["duplicates"] == 1
    assert "Idempotent-Replayed" not in response


def test_a_key_taken_and_released_by_others_three_times_running_is_a_409(
    api: ClientFor, owner, graph: Graph
) -> None:
    client = api(owner)
    scope = f"key:{ApiKey.objects.get().pk}"
    busy: list[bool] = []

    def others(execute: Any, sql: str, params: Any, many: bool, context: Any) -> Any:
        if not busy:
            busy.append(True)
            try:
                if on_the_record(sql, "INSERT"):  # another request takes the key first...
                    IdempotencyRecord.objects.create(
                        scope=scope, key="a", fingerprint="theirs", locked_until=timezone.now(),
                        expires_at=timezone.now() + timedelta(hours=1))
                elif on_the_record(sql, "SELECT"):  # ...and releases it before we look
                    IdempotencyRecord.objects.all().delete()
            finally:
                busy.clear()
        return execute(sql, params, many, context)

    with connection.execute_wrapper(others):
        response = bulk(client, graph, SEED[:1], "a")

    assert response.status_code == 409 and response["Retry-After"] == "1"
    assert not Episode.objects.filter(graph=graph).exists()


def test_a_request_that_fails_releases_its_key_so_the_retry_runs_at_once(
    api: ClientFor, owner, graph: Graph
) -> None:
    client = api(owner)
    client.raise_request_exception = False

    def database_gone(execute: Any, sql: str, params: Any, many: bool, context: Any) -> Any:
        if sql.startswith('INSERT INTO "memory_episode"'):
            raise OperationalError("server closed the connection unexpectedly")
        return execute(sql, params, many, context)

    with connection.execute_wrapper(database_gone):
        assert bulk(client, graph, SEED[:1], "a").status_code == 500
    assert not IdempotencyRecord.objects.exists()

    response = bulk(client, graph, SEED[:1], "a")
    assert response.status_code == 200 and response.json()["stored"] == 1


def test_an_error_a_handler_answers_without_raising_is_not_stored_so_a_retry_runs_again(
    owner,
) -> None:
    # Today's handlers raise their errors; one that answers a 4xx must not pin its key either.
    request = Request(APIRequestFactory().post("/api/v1/anything", {"a": 1}, format="json"))
    request.user = owner
    answers = iter([Response({"code": "invalid"}, status=400), Response({"ok": True}, status=201)])

    first = idempotency.run_once(request, "k", lambda: next(answers))
    retry = idempotency.run_once(request, "k", lambda: next(answers))

    assert (first.status_code, retry.status_code) == (400, 201)
    assert IdempotencyRecord.objects.get().response_status == 201
