"""Idempotency-Key on writes: a retry gets the first response and nothing is done twice; another
request under the same key is a 422; a key still in flight is a 409; keys are per API key and
expire."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from django.db import connection, connections
from django.utils import timezone
from rest_framework.test import APIClient

from memory.api import idempotency
from memory.api.keys import create_api_key
from memory.models import Episode, Graph, IdempotencyRecord
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
    assert error_of(response)["code"] == "idempotency_key_reused"
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
    clock.advance(seconds=2)
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
    assert error_of(response)["code"] == "idempotency_key_in_flight"
    assert response["Retry-After"] == "2"  # the lease's last second, rounded up, and one more
    clock.advance(seconds=2)
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
    assert error_of(response)["param"] == "Idempotency-Key"


def test_single_episode_adds_replay_too(api: ClientFor, owner, graph: Graph) -> None:
    client = api(owner)
    path = f"/api/v1/graphs/{graph.slug}/episodes"

    first = client.post(path, SEED[0], format="json", HTTP_IDEMPOTENCY_KEY="one")
    again = client.post(path, SEED[0], format="json", HTTP_IDEMPOTENCY_KEY="one")

    assert (first.status_code, again.status_code) == (201, 201)
    assert again.json() == first.json()
