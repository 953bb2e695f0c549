"""Read selectors: each answers with a fixed number of queries, whatever the graph's size."""

from __future__ import annotations

import io
import json
from collections.abc import Callable
from datetime import timedelta
from typing import Any

import pytest
from django.core.management import call_command

from memory.models import Graph
from memory.selectors import (
    current_facts,
    entity_facts,
    episode_facts,
    facts_known_at,
    facts_valid_at,
    graph_episodes,
    with_evidence,
)
from tests.conftest import IngestFn
from tests.factories import MONDAY, EntityFactory, EpisodeFactory, FactFactory
from tests.scenarios import SEED


def grow(graph: Graph, n: int) -> None:
    """n more facts, each with its own episode, all touching one hub entity."""
    hub = EntityFactory(graph=graph, name="Auth Service Refactor")
    for i in range(n):
        FactFactory(graph=graph, target=hub, valid_at=MONDAY + timedelta(hours=i))


def use(rows: Any) -> None:
    """Touch everything a page or an export reads from each fact."""
    for fact in rows:
        (fact.source.name, fact.target.name, [e.episode.label for e in fact.evidence.all()])


SELECTORS: dict[str, Callable[[Graph], Any]] = {
    # 1 query for the facts (with source and target joined) + 1 for their evidence and episodes
    "current": lambda g: with_evidence(current_facts(g)),
    "valid at": lambda g: with_evidence(facts_valid_at(g, MONDAY + timedelta(days=30))),
    "known at": lambda g: with_evidence(facts_known_at(g, MONDAY + timedelta(days=30))),
}


@pytest.mark.django_db
@pytest.mark.parametrize("name", SELECTORS)
@pytest.mark.parametrize("size", [3, 150])
def test_fact_selectors_take_two_queries_at_any_size(
    graph: Graph, django_assert_num_queries: Any, name: str, size: int
) -> None:
    grow(graph, size)

    with django_assert_num_queries(2):
        rows = list(SELECTORS[name](graph))
    with django_assert_num_queries(0):
        use(rows)
    assert len(rows) == size


@pytest.mark.django_db
@pytest.mark.parametrize("size", [3, 150])
def test_an_entitys_facts_take_one_query(graph: Graph, django_assert_num_queries: Any,
                                         size: int) -> None:
    grow(graph, size)
    hub = graph.entities.get(name="Auth Service Refactor")

    # 1 query: the entity's facts in either direction, source and target joined
    with django_assert_num_queries(1):
        current, ended = entity_facts(hub)
    with django_assert_num_queries(0):
        [(f.source.name, f.target.name) for f in [*current, *ended]]
    assert len(current) == size


@pytest.mark.django_db
@pytest.mark.parametrize("size", [3, 150])
def test_episodes_in_time_order_take_one_query(graph: Graph, django_assert_num_queries: Any,
                                               size: int) -> None:
    for i in range(size):
        EpisodeFactory(graph=graph, reference_time=MONDAY - timedelta(hours=i))

    with django_assert_num_queries(1):
        times = [e.reference_time for e in graph_episodes(graph)]
    assert times == sorted(times) and len(times) == size


@pytest.mark.django_db
def test_an_episodes_facts_take_one_query(graph: Graph, ingest: IngestFn,
                                          django_assert_num_queries: Any) -> None:
    ingest(graph, SEED[:1])
    episode = graph.episodes.get()

    with django_assert_num_queries(1):
        names = sorted(f"{f.source.name} {f.relation} {f.target.name}"
                       for f in episode_facts(episode))
    assert "API Migration DEPENDS_ON Auth Service Refactor" in names


@pytest.mark.django_db
def test_an_entitys_ended_facts_are_kept_apart_from_its_current_ones(
    graph: Graph, ingest: IngestFn
) -> None:
    ingest(graph, [*SEED, {"author": "Dana", "reference_time": "2026-11-28T10:00:00+00:00",
                           "content": "The backend team shipped the auth service refactor."}])
    refactor = graph.entities.get(name="Auth Service Refactor")

    current, ended = entity_facts(refactor)

    assert {(f.source.name, f.relation) for f in ended} == {
        ("API Migration", "DEPENDS_ON"), ("Payments Integration", "DEPENDS_ON")}
    assert ("Auth Service Refactor", "HAS_STATUS") in {(f.source.name, f.relation)
                                                       for f in current}


@pytest.mark.django_db
def test_export_facts_prints_current_facts_as_json_with_their_episodes(
    graph: Graph, ingest: IngestFn
) -> None:
    ingest(graph, SEED)
    out = io.StringIO()

    call_command("export_facts", "--graph", graph.slug, stdout=out)

    rows = json.loads(out.getvalue())
    owned = next(r for r in rows if r["source"] == "Backend Team")
    assert owned["relation"] == "RESPONSIBLE_FOR" and owned["target"] == "Auth Service Refactor"
    assert owned["episodes"] == ["alice", "bob"]
    assert owned["valid_at"] == "2026-11-23T09:00:00+00:00"
    assert owned["invalid_at"] is None and owned["expired_at"] is None
    assert {"uuid", "fact", "created_at", "extractor", "close_reason"} <= owned.keys()


@pytest.mark.django_db
def test_export_facts_as_of_a_date_before_the_updates_is_empty(graph: Graph,
                                                             ingest: IngestFn) -> None:
    ingest(graph, SEED)
    out = io.StringIO()

    call_command("export_facts", "--graph", graph.slug, "--as-of", "2026-11-01T00:00:00+00:00",
                 stdout=out)

    assert json.loads(out.getvalue()) == []
