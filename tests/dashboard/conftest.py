"""Fixtures of the page tests: the seed scenario (DESIGN §1) as real observations, built by
ingesting the three updates and letting the pipeline run in-process."""

from __future__ import annotations

from datetime import datetime

import pytest
from django.test import Client

from memory.models import Graph, Observation
from tests.conftest import IngestFn
from tests.memory.test_pipeline import SHIPPED
from tests.memory.test_processing import SEED


@pytest.fixture
def seeded(graph: Graph, ingest: IngestFn) -> Observation:
    """The seed observation: the auth service refactor blocks Alice, Bob and (downstream) Clara."""
    ingest(graph, SEED)
    return Observation.objects.get(graph=graph, status=Observation.Status.ACTIVE)


@pytest.fixture
def shipped(seeded: Observation, graph: Graph, ingest: IngestFn) -> Observation:
    """The seed observation after the backend team shipped the refactor: retired, with a
    successor around what blocks work now."""
    ingest(graph, [SHIPPED], now=datetime.fromisoformat("2026-12-02T10:05:00+00:00"))
    seeded.refresh_from_db()
    return seeded


def signed_in(client: Client, user) -> Client:  # type: ignore[no-untyped-def]
    client.force_login(user)
    return client


HTMX = {"HTTP_HX_REQUEST": "true"}


def htmx(target: str) -> dict[str, str]:
    """Headers of an htmx request swapping the element with this id."""
    return {**HTMX, "HTTP_HX_TARGET": target}
