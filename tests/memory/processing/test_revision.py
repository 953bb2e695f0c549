"""The model's reading replacing the rules': the rules read an update at once, the model later;
its reading then stands, through the time rules, with no duplicate fact and every fact cited."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import pytest

from memory.ingestion import ingest_records
from memory.models import Episode, Fact, FactEvidence, Graph
from memory.processing.model_queue import read_with_rules_first, revise_due
from tests.factories import MONDAY, GraphFactory
from tests.fake_openai import FakeOpenAI
from tests.fake_openai import fake_openai as fake_openai_fixture  # noqa: F401

pytestmark = pytest.mark.django_db

TUESDAY = MONDAY + timedelta(days=1)


def say(graph: Graph, content: str, at: Any) -> Episode:
    """Alice's update, read by the rules at once (its model reading to follow)."""
    report = ingest_records(graph, [(1, {"author": "Alice", "content": content,
                                         "reference_time": at.isoformat()})],
                            now=at, process=False)
    episode = Episode.objects.get(pk=report.stored_ids[0])
    read_with_rules_first([episode.pk])
    episode.refresh_from_db()
    return episode


def statuses(graph: Graph) -> dict[str, tuple[Any, str]]:
    """Each status fact of the work item, believed now: its end and how it ended."""
    return {f.target.name: (f.invalid_at, f.close_reason)
            for f in Fact.objects.filter(graph=graph, relation="HAS_STATUS")
            .exclude(expired_at__isnull=False, invalid_at__isnull=True)}


def reading(status: str) -> dict[str, Any]:
    """A model's compact reading of "Checkout Redesign is …" by Alice: she is responsible for
    it and its status is ``status``."""
    return {"episodes": [{"id": 1, "entities": [
        {"n": "Alice", "t": "Person"}, {"n": "Checkout Redesign", "t": "WorkItem"},
        {"n": status, "t": "Status"}],
        "facts": [{"s": 0, "r": "RESPONSIBLE_FOR", "o": 1, "q": 1, "d": None, "x": False},
                  {"s": 1, "r": "HAS_STATUS", "o": 2, "q": 1, "d": None, "x": False}]}]}


@pytest.fixture
def model(settings: Any, fake_openai: FakeOpenAI) -> FakeOpenAI:
    settings.LLM_EXTRACTION = True
    return fake_openai


def test_the_rules_reading_is_on_the_board_at_once_and_awaits_the_model(model: FakeOpenAI
                                                                        ) -> None:
    graph = GraphFactory(settings={"model_wait_seconds": 86_400})

    episode = say(graph, "Checkout Redesign is in progress.", MONDAY)

    assert episode.extractor == "rules@1" and episode.awaits_model
    assert statuses(graph) == {"In Progress": (None, "")}
    assert revise_due(graph, now=MONDAY + timedelta(hours=23)) == {}  # not due yet
    assert model.requests == []


def test_a_model_reading_that_agrees_keeps_the_same_facts_now_cited_by_the_model(
    model: FakeOpenAI,
) -> None:
    graph = GraphFactory(settings={"model_wait_seconds": 0})
    episode = say(graph, "Checkout Redesign is in progress.", MONDAY)
    before = set(Fact.objects.filter(graph=graph).values_list("pk", flat=True))

    model.reply_json(reading("In Progress"))
    assert revise_due(graph, now=MONDAY) == {"revised": 1}

    episode.refresh_from_db()
    assert not episode.awaits_model and episode.extractor.startswith("llm:")
    assert set(Fact.objects.filter(graph=graph).values_list("pk", flat=True)) == before
    evidence = FactEvidence.objects.filter(episode=episode)
    assert evidence.count() == len(before)
    assert {row.extractor for row in evidence} == {episode.extractor}


def test_a_model_reading_that_differs_replaces_the_rules_facts_through_the_time_rules(
    model: FakeOpenAI, settings: Any,
) -> None:
    graph = GraphFactory(settings={"model_wait_seconds": 0})
    settings.LLM_EXTRACTION = False
    say(graph, "Checkout Redesign is in progress.", MONDAY)  # read once and for all
    settings.LLM_EXTRACTION = True
    tuesday = say(graph, "Checkout Redesign is done.", TUESDAY)
    assert statuses(graph) == {"In Progress": (TUESDAY, Fact.CloseReason.SINGLE_VALUED),
                               "Done": (None, "")}

    model.reply_json(reading("Blocked"))  # the model reads Tuesday's words otherwise
    revise_due(graph, now=TUESDAY + timedelta(hours=1))

    assert statuses(graph) == {"In Progress": (TUESDAY, Fact.CloseReason.SINGLE_VALUED),
                               "Blocked": (None, "")}
    done = Fact.objects.get(graph=graph, target__name="Done")
    assert done.close_reason == Fact.CloseReason.REREAD and done.expired_at is not None
    assert done.closed_by_episode == tuesday and not done.evidence.exists()
    blocked = Fact.objects.get(graph=graph, target__name="Blocked")
    assert list(blocked.episodes.all()) == [tuesday]
    in_progress = Fact.objects.get(graph=graph, target__name="In Progress")
    assert in_progress.closed_by_fact == blocked
    # Alice is responsible once, cited by both updates.
    responsible = Fact.objects.get(graph=graph, relation="RESPONSIBLE_FOR")
    assert responsible.evidence.count() == 2


def test_when_the_model_fails_the_rules_reading_stays_and_says_why(model: FakeOpenAI) -> None:
    graph = GraphFactory(settings={"model_wait_seconds": 0})
    episode = say(graph, "Checkout Redesign is in progress.", MONDAY)
    facts = list(Fact.objects.filter(graph=graph).values_list("pk", "expired_at"))
    for _ in range(3):
        model.fail(500)

    assert revise_due(graph, now=MONDAY) == {"kept": 1}

    episode.refresh_from_db()
    assert not episode.awaits_model
    assert episode.extractor.startswith("rules@1 (model failed")
    assert list(Fact.objects.filter(graph=graph).values_list("pk", "expired_at")) == facts
    assert FactEvidence.objects.filter(episode=episode).count() == len(facts)


def dependency(graph: Graph) -> Fact:
    return Fact.objects.get(graph=graph, relation="DEPENDS_ON")


def test_a_closure_only_the_rules_read_is_undone_and_one_the_model_reads_too_stays_as_it_was(
    model: FakeOpenAI, settings: Any,
) -> None:
    graph = GraphFactory(settings={"model_wait_seconds": 0})
    settings.LLM_EXTRACTION = False
    say(graph, "Checkout Redesign is blocked by Payments API.", MONDAY)
    settings.LLM_EXTRACTION = True
    said = "Checkout Redesign is no longer blocked by Payments API."
    tuesday = say(graph, said, TUESDAY)
    closed = dependency(graph)
    assert (closed.invalid_at, closed.closed_by_episode) == (TUESDAY, tuesday)

    # The model reads the same closure: nothing changes, not even when it was learned.
    model.reply_json({"episodes": [{"id": 1, "entities": [
        {"n": "Checkout Redesign", "t": "WorkItem"}, {"n": "Payments API", "t": "Service"}],
        "facts": [{"s": 0, "r": "DEPENDS_ON", "o": 1, "q": 1, "d": None, "x": True}]}]})
    assert revise_due(graph, now=TUESDAY + timedelta(hours=1)) == {"revised": 1}
    again = dependency(graph)
    assert (again.invalid_at, again.expired_at, again.close_reason) == (
        closed.invalid_at, closed.expired_at, closed.close_reason)

    # Read otherwise (the model finds only a status): the dependency holds again.
    Episode.objects.filter(pk=tuesday.pk).update(awaits_model=True)
    model.reply_json(reading("In Progress"))
    revise_due(graph, now=TUESDAY + timedelta(hours=2))
    reopened = dependency(graph)
    assert reopened.invalid_at is None and reopened.expired_at is None
    assert reopened.close_reason == "" and reopened.closed_by_episode is None
