"""The run's bulk writes: COPY on PostgreSQL and bulk_create elsewhere write the same rows."""

from __future__ import annotations

import uuid
from datetime import UTC, datetime
from typing import Any

import pytest
from django.db import connection

from memory.models import Claim, Entity, Episode, Graph, Observation, PipelineRun
from memory.publishing import insert_links, insert_models, insert_values, uses_copy
from tests.factories import EpisodeFactory, GraphFactory, ObservationFactory, PipelineRunFactory

needs_postgres = pytest.mark.skipif(
    "connection.vendor != 'postgresql'", reason="COPY is PostgreSQL's; SQLite has bulk_create only"
)
IDENTITY = {"id", "uuid", "lineage"}


def observations(graph: Graph, run: PipelineRun, count: int) -> list[Observation]:
    return [ObservationFactory.build(graph=graph, created_by_run=run) for _ in range(count)]


def stored(observation: Observation) -> dict[str, Any]:
    row = Observation.objects.filter(pk=observation.pk).values().get()
    return {k: v for k, v in row.items() if k not in IDENTITY}


def written(observation: Observation) -> dict[str, Any]:
    return {f.attname: getattr(observation, f.attname) for f in Observation._meta.concrete_fields
            if f.attname not in IDENTITY}


@pytest.mark.django_db
def test_the_embedded_database_never_copies() -> None:
    assert uses_copy() == (connection.vendor == "postgresql")


@needs_postgres
@pytest.mark.django_db
def test_copy_and_bulk_create_write_the_same_observations_with_ids_in_order() -> None:
    graph = GraphFactory()
    run = PipelineRunFactory(graph=graph)
    copied, created = observations(graph, run, 3), observations(graph, run, 3)
    for a, b in zip(copied, created, strict=True):
        b.name, b.summary, b.window_end = a.name, a.summary, a.window_end
        b.evidence_fingerprint = a.evidence_fingerprint + "-again"

    insert_models(copied, copy=True)
    insert_models(created, copy=False)

    assert [o.pk for o in copied] == sorted(o.pk for o in copied)
    assert all(not o._state.adding for o in copied)
    for a, b in zip(copied, created, strict=True):
        assert stored(a) == written(a)
        assert stored(a) == {**stored(b), "evidence_fingerprint": a.evidence_fingerprint}
        assert Observation.objects.get(pk=a.pk).uuid == a.uuid


@needs_postgres
@pytest.mark.django_db
def test_copy_and_bulk_create_write_the_same_links_and_claims() -> None:
    graph = GraphFactory()
    run = PipelineRunFactory(graph=graph)
    episodes = [EpisodeFactory(graph=graph).pk for _ in range(4)]
    first, second = observations(graph, run, 2)
    insert_models([first, second])
    through = Observation.episodes.through

    insert_links(through, ("observation_id", "episode_id"), ((first.pk, e) for e in episodes),
                 copy=True)
    insert_links(through, ("observation_id", "episode_id"), ((second.pk, e) for e in episodes),
                 copy=False)
    claims = [Claim(observation=o, position=p, text=f"claim {p}")
              for o in (first, second) for p in range(2)]
    insert_models(claims[:2], copy=True)
    insert_models(claims[2:], copy=False)

    assert sorted(first.episodes.values_list("pk", flat=True)) == sorted(episodes)
    assert sorted(second.episodes.values_list("pk", flat=True)) == sorted(episodes)
    assert [(c.position, c.text) for c in first.claims.all()] == [
        (c.position, c.text) for c in second.claims.all()] == [(0, "claim 0"), (1, "claim 1")]
    assert Episode.objects.filter(observations=first).count() == 4


@pytest.mark.django_db
@pytest.mark.parametrize("copy", [
    pytest.param(True, marks=needs_postgres), False,
])
def test_insert_values_writes_plain_rows_and_returns_their_ids_in_order(copy: bool) -> None:
    graph = GraphFactory()
    at = datetime(2026, 9, 1, tzinfo=UTC)
    columns = ("uuid", "graph_id", "name", "normalized_name", "type", "summary",
               "summary_fingerprint", "summary_generator", "created_at")
    rows = [(uuid.uuid4(), graph.pk, f"Item {n}", f"item {n}", "WorkItem", "", "", "", at)
            for n in range(3)]

    ids = insert_values(Entity, columns, rows, copy=copy)

    assert ids == sorted(ids) and len(set(ids)) == 3
    assert list(Entity.objects.filter(pk__in=ids).order_by("pk").values_list(
        "uuid", "name", "type", "created_at")) == [(r[0], r[2], r[4], at) for r in rows]
    assert insert_values(Entity, columns, [
        (uuid.uuid4(), graph.pk, "Item 9", "item 9", "WorkItem", "", "", "", at)],
        ids=False, copy=copy) == []
    assert Entity.objects.filter(graph=graph).count() == 4
