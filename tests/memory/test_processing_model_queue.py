"""When a model extracts: pending updates are read by the rules at once; their rules readings wait
for the model — a full batch at once, else once the oldest has waited the graph's
``model_wait_seconds``."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import pytest

from memory.models import Episode
from memory.processing.model_queue import (
    awaiting_ids,
    extract_due,
    extraction_delay,
    model_reading_due,
)
from tests.factories import MONDAY, EpisodeFactory, GraphFactory
from tests.fake_openai import FakeOpenAI
from tests.fake_openai import fake_openai as fake_openai_fixture  # noqa: F401

pytestmark = pytest.mark.django_db


def awaiting(graph: Any, minutes: int) -> Episode:
    """A rules reading, published, awaiting the model's."""
    return EpisodeFactory(graph=graph, awaits_model=True,
                          ingested_at=MONDAY + timedelta(minutes=minutes))


def test_nothing_pending_or_awaiting_is_never_due() -> None:
    graph = GraphFactory()
    EpisodeFactory(graph=graph)  # processed, its reading final

    assert extraction_delay(graph, now=MONDAY) is None
    assert extract_due(graph, now=MONDAY) is None


def test_a_pending_update_is_read_by_the_rules_at_once_and_then_awaits_the_model(
    settings: Any,
) -> None:
    settings.LLM_EXTRACTION = True
    graph = GraphFactory(settings={"model_wait_seconds": 600})
    episode = EpisodeFactory(graph=graph, status=Episode.Status.PENDING, ingested_at=MONDAY)

    assert extraction_delay(graph, now=MONDAY) == 0
    assert extract_due(graph, now=MONDAY) == {"processed": 1}

    episode.refresh_from_db()
    assert episode.status == Episode.Status.PROCESSED and episode.extractor == "rules@1"
    assert episode.facts.exists()  # on the board now
    assert episode.awaits_model
    assert model_reading_due(graph, episode) == MONDAY + timedelta(minutes=10)
    assert extraction_delay(graph, now=MONDAY) == 600


def test_a_lone_rules_reading_waits_for_others_until_its_wait_is_over(settings: Any) -> None:
    settings.LLM_EXTRACTION_BATCH_SIZE = 4
    graph = GraphFactory(settings={"model_wait_seconds": 600})
    awaiting(graph, 0)
    awaiting(graph, 3)

    assert extraction_delay(graph, now=MONDAY + timedelta(minutes=4)) == 360
    assert extraction_delay(graph, now=MONDAY + timedelta(minutes=10)) == 0
    assert extraction_delay(graph, now=MONDAY + timedelta(minutes=30)) == 0


def test_a_full_batch_is_due_at_once(settings: Any) -> None:
    settings.LLM_EXTRACTION_BATCH_SIZE = 3
    graph = GraphFactory(settings={"model_wait_seconds": 600})
    for minutes in (0, 1, 2):
        awaiting(graph, minutes)

    assert extraction_delay(graph, now=MONDAY + timedelta(minutes=2)) == 0


def test_due_readings_go_to_the_model_oldest_first_and_stay_when_it_reads_nothing(
    settings: Any, fake_openai: FakeOpenAI,
) -> None:
    settings.LLM_EXTRACTION = True
    graph = GraphFactory(settings={"model_wait_seconds": 0})
    later, earlier = awaiting(graph, 5), awaiting(graph, 1)

    assert awaiting_ids(graph) == [earlier.pk, later.pk]
    # The fake model's default extraction is empty: not a reading, so the rules' stays.
    assert extract_due(graph, now=MONDAY + timedelta(minutes=6)) == {"kept": 2}
    assert not Episode.objects.filter(awaits_model=True).exists()
    assert len(fake_openai.requests) == 1  # both in one call
