"""Migrations that change data: run against rows shaped as they were before."""

from __future__ import annotations

import uuid

import pytest
from django.db import connection
from django.db.migrations.executor import MigrationExecutor
from django.utils import timezone

from memory.engine.item_priority import UNKNOWN


@pytest.mark.django_db(transaction=True)
def test_copies_stored_before_the_content_constraint_keep_their_rows_but_not_their_hash() -> None:
    before, after = [("memory", "0007_fewer_indexes_to_write")], [
        ("memory", "0008_episode_unique_content")]
    executor = MigrationExecutor(connection)
    executor.migrate(before)
    old = executor.loader.project_state(before).apps
    Graph, Episode = old.get_model("memory", "Graph"), old.get_model("memory", "Episode")
    graph = Graph.objects.create(slug="old", name="Old")
    now = timezone.now()
    copies = [Episode.objects.create(graph=graph, content="same", content_hash="h1",
                                     reference_time=now) for _ in range(3)]
    other = Episode.objects.create(graph=graph, content="other", content_hash="h2",
                                   reference_time=now)

    executor = MigrationExecutor(connection)
    try:
        executor.migrate(after)
        new = executor.loader.project_state(after).apps.get_model("memory", "Episode")
        hashes = dict(new.objects.values_list("pk", "content_hash"))
    finally:
        # Later migrations (of other work) too: the next tests need the whole schema.
        executor = MigrationExecutor(connection)
        executor.migrate(executor.loader.graph.leaf_nodes())
    assert hashes == {copies[0].pk: "h1", copies[1].pk: "", copies[2].pk: "", other.pk: "h2"}


@pytest.mark.django_db(transaction=True)
def test_stalled_observations_stored_before_the_boards_priority_order_get_their_urgency() -> None:
    before, after = [("memory", "0018_episode_author_role")], [("memory", "0019_stalled_urgency")]
    executor = MigrationExecutor(connection)
    executor.migrate(before)
    old = executor.loader.project_state(before).apps
    Graph, Run = old.get_model("memory", "Graph"), old.get_model("memory", "PipelineRun")
    Observation = old.get_model("memory", "Observation")
    graph = Graph.objects.create(slug="old", name="Old")
    run = Run.objects.create(graph=graph)
    now = timezone.now()

    def observation(kind: str, structure: dict[str, object]) -> int:
        return Observation.objects.create(
            graph=graph, lineage=uuid.uuid4(), kind=kind, name=kind, summary="",
            structure=structure, window_start=now, window_end=now, evidence_fingerprint="f",
            generator="template", created_by_run=run).pk

    critical = observation("stalled", {"stalled": {"item": 1, "priority": "",
                                                   "labels": ["priority-critical"]}})
    unmarked = observation("stalled", {"stalled": {"item": 2}})
    chain = observation("dependency_chain", {"held_stalls": []})

    executor = MigrationExecutor(connection)
    try:
        executor.migrate(after)
        new = executor.loader.project_state(after).apps.get_model("memory", "Observation")
        structures = dict(new.objects.values_list("pk", "structure"))
    finally:
        executor = MigrationExecutor(connection)
        executor.migrate(executor.loader.graph.leaf_nodes())
    assert structures[critical]["stalled"]["urgency"] == [1, UNKNOWN]
    assert structures[unmarked]["stalled"]["urgency"] == [UNKNOWN, UNKNOWN]
    assert structures[chain] == {"held_stalls": []}
