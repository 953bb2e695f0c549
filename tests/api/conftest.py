"""Fixtures of the API tests: a client that speaks with a persona's API key, and the seed graph
(Alice, Bob and Clara's three updates → one observation)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from rest_framework.test import APIClient

from memory.api.keys import create_api_key
from memory.models import Graph, Observation
from tests.conftest import IngestFn
from tests.scenarios import SEED

ClientFor = Callable[..., APIClient]


@pytest.fixture
def api(db: None) -> ClientFor:
    """``api(user)`` → a client sending ``Authorization: Api-Key <a new key of user>``;
    ``api()`` → a client with no credentials."""

    def client_for(user: Any = None, *, scheme: str = "Api-Key") -> APIClient:
        client = APIClient()
        if user is not None:
            _, raw = create_api_key(user, "test")
            client.credentials(HTTP_AUTHORIZATION=f"{scheme} {raw}")
        return client

    return client_for


@pytest.fixture
def seeded(graph: Graph, ingest: IngestFn) -> Graph:
    """The seed scenario ingested and its pipeline run: one active observation."""
    ingest(graph, SEED)
    return graph


@pytest.fixture
def seed_observation(seeded: Graph) -> Observation:
    return Observation.objects.get(graph=seeded, status=Observation.Status.ACTIVE)


def error_of(response: Any) -> dict[str, Any]:
    """The error object of a JSON error response (and check it is one)."""
    assert response["Content-Type"].startswith("application/json"), response.content[:200]
    body = response.json()
    assert set(body) == {"error"}
    assert {"code", "message", "param", "details"} <= set(body["error"])
    return body["error"]
