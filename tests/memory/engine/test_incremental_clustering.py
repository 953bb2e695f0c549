"""Clustering again after a change, over the touched components only, gives exactly what
clustering the whole graph gives: clusters, boilerplate and audit, on seeded graphs changed
several times."""

from __future__ import annotations

import random

import pytest

from memory.bench.synthetic import SyntheticGraph, synthetic_graph
from memory.engine.clustering import ClusteringResult, ClusteringSettings, cluster_episodes
from memory.engine.incremental_clustering import recluster
from memory.engine.types import Row

SETTINGS = ClusteringSettings()


def full(graph: SyntheticGraph, rows: list[Row]) -> ClusteringResult:
    return cluster_episodes(rows, graph.linking, graph.authors, SETTINGS, keep_state=True)


def again(
    graph: SyntheticGraph, rows: list[Row], before: list[Row], previous: ClusteringResult
) -> ClusteringResult | None:
    now, then = set(rows), set(before)
    return recluster(
        rows, graph.linking, graph.authors, SETTINGS, previous, added=now - then, removed=then - now
    )


def change(rows: list[Row], graph: SyntheticGraph, rng: random.Random) -> list[Row]:
    """A few updates restating others with a new fact each, a fact closed, an update deleted,
    now and then a dependency joining two items of different updates."""
    rows = list(rows)
    episodes = sorted({row[0] for row in rows})
    next_episode = max(episodes) + 1
    next_fact = max(row[1] for row in rows) + 1
    next_entity = max(max(row[2], row[4]) for row in rows) + 1
    for _ in range(rng.randint(1, 3)):
        restated = rng.choice(episodes)
        own = [row for row in rows if row[0] == restated]
        rows += [(next_episode, *row[1:]) for row in own]
        item = own[0][2]
        rows.append((next_episode, next_fact, item, "USES", next_entity))
        graph.authors[next_episode] = graph.authors.get(restated)
        next_episode, next_fact, next_entity = next_episode + 1, next_fact + 1, next_entity + 1
    if rng.random() < 0.5:
        closed = rng.choice(rows)[1]
        rows = [row for row in rows if row[1] != closed]
    if rng.random() < 0.5:
        deleted = rng.choice(episodes)
        rows = [row for row in rows if row[0] != deleted]
    if rng.random() < 0.3:
        a, b = rng.sample(rows, 2)
        rows.append((next_episode, next_fact, a[2], "DEPENDS_ON", b[2]))
        graph.authors[next_episode] = None
    return rows


def with_boilerplate(graph: SyntheticGraph, rng: random.Random) -> list[Row]:
    """The synthetic rows with two footers restated as asides in about 8% of the updates
    each (the hubs that are suppressed), and an ownership restated next to one of them."""
    rows = list(graph.rows)
    top = max(max(row[1], row[2], row[4]) for row in rows) + 1
    episodes = sorted({row[0] for row in rows})
    for footer in range(2):
        fact, source, target = top + 3 * footer, top + 3 * footer + 1, top + 3 * footer + 2
        rows += [
            (episode, fact, source, "RESPONSIBLE_FOR", target)
            for episode in episodes
            if rng.random() < 0.08
        ]
    return rows


@pytest.mark.parametrize("seed", range(8))
def test_reclustering_the_touched_components_gives_what_clustering_everything_gives(
    seed: int,
) -> None:
    rng = random.Random(seed)
    graph = synthetic_graph(1500, seed=seed, context_facts=1.5)
    rows = with_boilerplate(graph, rng)
    previous = full(graph, rows)
    for _ in range(5):
        before, rows = rows, change(rows, graph, rng)

        incremental = again(graph, rows, before, previous)
        everything = full(graph, rows)

        if incremental is not None:
            assert incremental == everything
            assert incremental.state.component_of == everything.state.component_of
            assert incremental.state.verdicts == everything.state.verdicts
            assert incremental.state.link_sizes == everything.state.link_sizes
        previous = incremental or everything
