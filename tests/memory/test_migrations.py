"""Migrations that change data: run against rows shaped as they were before."""

from __future__ import annotations

import pytest
from django.db import connection
from django.db.migrations.executor import MigrationExecutor
from django.utils import timezone


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
