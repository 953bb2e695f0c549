"""Idempotency-Key on writes: a retry gets the first response and nothing is done twice; another
request under the same key is a 422; a key still in flight is a 409; keys are per API key and
expire."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import pytest
from django.db import connection
from django.utils import timezone

from memory.models import Episode, Graph, IdempotencyRecord
from tests.api.conftest import ClientFor, error_of
from tests.memory.test_processing import SEED

pytestmark = pytest.mark.django_db


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


def test_a_key_in_flight_is_a_409_with_retry_after(api: ClientFor, owner, graph: Graph) -> None:
    if connection.vendor == "postgresql":
        pytest.skip("PostgreSQL decides by advisory lock; see test_crash")
    client = api(owner)
    bulk(client, graph, SEED, "batch-1")
    record = IdempotencyRecord.objects.get()
    record.state = IdempotencyRecord.State.IN_FLIGHT
    record.locked_until = timezone.now() + timedelta(seconds=30)
    record.save()

    response = bulk(client, graph, SEED, "batch-1")

    assert response.status_code == 409
    assert error_of(response)["code"] == "idempotency_key_in_flight"
    assert int(response["Retry-After"]) >= 1


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
