"""When updates waiting for the model are due: a full batch at once, else once the oldest has
waited the graph's ``model_wait_seconds``."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import pytest

from memory.models import Episode
from memory.processing.model_queue import extract_due, extraction_delay, pending_ids
from tests.factories import MONDAY, EpisodeFactory, GraphFactory

pytestmark = pytest.mark.django_db


def pending(graph: Any, minutes: int) -> Episode:
    return EpisodeFactory(graph=graph, status=Episode.Status.PENDING,
                          ingested_at=MONDAY + timedelta(minutes=minutes))


def test_nothing_pending_is_never_due() -> None:
    graph = GraphFactory()
    EpisodeFactory(graph=graph)  # processed

    assert extraction_delay(graph, now=MONDAY) is None
    assert extract_due(graph, now=MONDAY) is None


def test_a_lone_update_waits_for_others_until_its_wait_is_over(settings: Any) -> None:
    settings.LLM_EXTRACTION_BATCH_SIZE = 4
    graph = GraphFactory(settings={"model_wait_seconds": 600})
    pending(graph, 0)
    pending(graph, 3)

    assert extraction_delay(graph, now=MONDAY + timedelta(minutes=4)) == 360
    assert extraction_delay(graph, now=MONDAY + timedelta(minutes=10)) == 0
    assert extraction_delay(graph, now=MONDAY + timedelta(minutes=30)) == 0


def test_a_full_batch_is_due_at_once(settings: Any) -> None:
    settings.LLM_EXTRACTION_BATCH_SIZE = 3
    graph = GraphFactory(settings={"model_wait_seconds": 600})
    for minutes in (0, 1, 2):
        pending(graph, minutes)

    assert extraction_delay(graph, now=MONDAY + timedelta(minutes=2)) == 0


def test_due_updates_are_read_oldest_first(settings: Any) -> None:
    graph = GraphFactory(settings={"model_wait_seconds": 0})
    later, earlier = pending(graph, 5), pending(graph, 1)

    assert pending_ids(graph) == [earlier.pk, later.pk]
    assert extract_due(graph, now=MONDAY + timedelta(minutes=6)) == {"processed": 2}
