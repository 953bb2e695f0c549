"""Synthetic update streams for the clustering tests and benchmark (no database).

``synthetic_graph`` makes a graph of projects: people write updates about the work items they
own (``RESPONSIBLE_FOR``, ``HAS_STATUS``), what those items wait on (``DEPENDS_ON``), sometimes
their team (``MEMBER_OF``) and sometimes a boilerplate sentence shared by the whole organisation;
support queues add ``REPORTED`` / ``AFFECTS`` / ``PRECEDED_BY``. A few projects are large enough
to be split by Leiden.

Run the benchmark (clustering vs the floor: igraph episode graph + connected components)::

    .venv/bin/python -m memory.bench.synthetic --episodes 100000
"""

from __future__ import annotations

import argparse
import gc
import random
import statistics
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field

from memory.bench.alternatives import floor_components
from memory.engine.clustering import ClusteringSettings, cluster_episodes, paused_gc
from memory.engine.types import Row
from memory.ontology import default_ontology

LINKING: dict[str, str] = default_ontology().linking()


STATUS_NAMES = ("planned", "in progress", "in review", "blocked", "at risk", "on hold")
"""The six statuses, none of them a completion status: nothing in the stream is finished, so no
resolution rule would have closed a dependency (``manage.py bench_pipeline`` names them so)."""


@dataclass(frozen=True, slots=True)
class SyntheticGraph:
    rows: list[Row]
    """``(episode, fact, source, relation, target)``; an update naming the same fact twice has
    the row twice (the evidence table keeps one)."""
    authors: dict[int, int | None]
    linking: dict[str, str]
    kinds: dict[int, str] = field(default_factory=dict)
    """entity id → its ontology type (``Person``, ``WorkItem``, ``Status``...), for loading the
    graph into a database whose structure analysis reads the types."""


class _Ids:
    """Entity and fact ids: one fact per (source, relation, target), as in the real model."""

    def __init__(self) -> None:
        self.next_entity = 1
        self.facts: dict[tuple[int, str, int], int] = {}
        self.kinds: dict[int, str] = {}

    def entity(self, kind: str) -> int:
        self.next_entity += 1
        self.kinds[self.next_entity - 1] = kind
        return self.next_entity - 1

    def entities(self, count: int, kind: str) -> list[int]:
        return [self.entity(kind) for _ in range(count)]

    def fact(self, source: int, relation: str, target: int) -> int:
        key = (source, relation, target)
        fact = self.facts.get(key)
        if fact is None:
            fact = self.facts[key] = len(self.facts) + 1
        return fact


def synthetic_graph(
    episodes: int = 100_000,
    seed: int = 7,
    big_project_share: float = 0.03,
    context_facts: float = 0.0,
) -> SyntheticGraph:
    """``context_facts``: standing context added to each update, on average (``USES``: one of the
    work items it mentions, or the customer who reported, uses one of the project's services).
    Services are many, so these are mostly new facts: the knob raises the number of distinct
    facts per episode (the real graphs of issue #3 have ~4) without changing how episodes link,
    since ``USES`` links nothing. 0, the default, draws nothing more from the generator: the
    stream is the one the clustering tests were written against."""
    rng = random.Random(seed)
    ids = _Ids()
    statuses = ids.entities(len(STATUS_NAMES), "Status")
    org, budget = ids.entity("Team"), ids.entity("WorkItem")
    boilerplate = [(org, "RESPONSIBLE_FOR", budget)] + [
        (ids.entity("Team"), "USES", ids.entity("Product")) for _ in range(2)
    ] + [(ids.entity("Person"), "MEMBER_OF", ids.entity("Team"))]
    rows: list[Row] = []
    authors: dict[int, int | None] = {}
    episode = 0
    while episode < episodes:
        size = rng.randint(200, 400) if rng.random() < big_project_share else rng.randint(8, 45)
        size = min(size, episodes - episode)
        project = _project(ids, rng, size, services=context_facts > 0)
        support = rng.random() < 0.2
        for _ in range(size):
            episode += 1
            author = rng.choice(project["people"])
            authors[episode] = author
            facts = _update_facts(rng, project, author, statuses, support)
            if context_facts:
                facts.extend(_context_facts(rng, project, facts, context_facts))
            if rng.random() < 0.08:
                facts.append(rng.choice(boilerplate))
            rows.extend((episode, ids.fact(*f), f[0], f[1], f[2]) for f in facts)
    return SyntheticGraph(rows=rows, authors=authors, linking=LINKING, kinds=ids.kinds)


def _project(
    ids: _Ids, rng: random.Random, size: int, *, services: bool = False
) -> dict[str, list[int]]:
    people = ids.entities(max(2, size // 6), "Person")
    project = {
        "people": people,
        "items": ids.entities(max(3, size // 3), "WorkItem"),
        "teams": ids.entities(max(1, size // 40), "Team"),
        "issues": ids.entities(max(2, size // 8), "Issue"),
        "customers": ids.entities(max(2, size // 4), "Customer"),
        "products": ids.entities(2, "Product"),
        "events": ids.entities(3, "Event"),
    }
    if services:  # last, so that the entities above keep their ids when it is off
        project["services"] = ids.entities(max(4, size // 2), "Service")
    return project


def _context_facts(
    rng: random.Random,
    project: Mapping[str, list[int]],
    facts: list[tuple[int, str, int]],
    mean: float,
) -> list[tuple[int, str, int]]:
    """About ``mean`` ``USES`` facts from what the update is about: its work items (a project
    update) or the reporting customer (a support ticket)."""
    subjects = [t for _, relation, t in facts if relation == "RESPONSIBLE_FOR"]
    subjects = subjects or [facts[0][0]]
    count = int(mean) + (rng.random() < mean - int(mean))
    return [(rng.choice(subjects), "USES", rng.choice(project["services"]))
            for _ in range(count)]


def _update_facts(
    rng: random.Random,
    project: Mapping[str, list[int]],
    author: int,
    statuses: list[int],
    support: bool,
) -> list[tuple[int, str, int]]:
    if support:
        issue = rng.choice(project["issues"])
        facts = [
            (rng.choice(project["customers"]), "REPORTED", issue),
            (issue, "HAS_STATUS", rng.choice(statuses)),
        ]
        if rng.random() < 0.7:
            facts.append((issue, "AFFECTS", rng.choice(project["products"])))
        if rng.random() < 0.5:
            facts.append((issue, "PRECEDED_BY", rng.choice(project["events"])))
        return facts
    facts = []
    for _ in range(1 if rng.random() < 0.3 else 2):
        item = rng.choice(project["items"])
        facts.append((author, "RESPONSIBLE_FOR", item))
        facts.append((item, "HAS_STATUS", rng.choice(statuses)))
        if rng.random() < 0.35:
            waited = rng.choice(project["items"])
            if waited != item:
                facts.append((item, "DEPENDS_ON", waited))
    if rng.random() < 0.15:
        facts.append((author, "MEMBER_OF", rng.choice(project["teams"])))
    return facts


def _best_of(repeats: int, run: Callable[[], object]) -> tuple[float, float, object]:
    times = []
    result = None
    for _ in range(repeats):
        gc.collect()
        start = time.perf_counter()
        result = run()
        times.append(time.perf_counter() - start)
    return min(times), statistics.median(times), result


def benchmark(rows: Sequence[Row], graph: SyntheticGraph, repeats: int) -> None:
    def floor() -> object:
        return floor_components(rows, graph.linking)

    def floor_without_gc() -> object:
        with paused_gc():
            return floor_components(rows, graph.linking)

    def clustering() -> object:
        return cluster_episodes(rows, graph.linking, graph.authors, ClusteringSettings())

    floor_best, floor_median, _ = _best_of(repeats, floor)
    quiet_best, quiet_median, _ = _best_of(repeats, floor_without_gc)
    best, median, result = _best_of(repeats, clustering)
    print(f"  floor (graph + components):   best {floor_best:.3f}s  median {floor_median:.3f}s")
    print(f"  floor with the GC paused too: best {quiet_best:.3f}s  median {quiet_median:.3f}s")
    print(f"  cluster_episodes:             best {best:.3f}s  median {median:.3f}s")
    print(
        f"  ratio to floor: {best / floor_best:.2f}x best, {median / floor_median:.2f}x median; "
        f"to the GC-paused floor: {best / quiet_best:.2f}x best"
    )
    audit = result.audit  # type: ignore[attr-defined]
    suppressed = sum(1 for c in audit["hub_candidates"] if c["suppressed"])
    print(
        f"  {audit['clusters']} clusters over {audit['clustered_episodes']} episodes, "
        f"{len(audit['hub_candidates'])} hub candidates ({suppressed} suppressed), "
        f"{len(audit['splits'])} Leiden splits"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--episodes", type=int, default=100_000)
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--context-facts", type=float, default=0.0,
                        help="USES facts added per update, on average (1.5: ~4 facts/episode)")
    args = parser.parse_args()

    graph = synthetic_graph(args.episodes, seed=args.seed, context_facts=args.context_facts)
    facts = len({row[1] for row in graph.rows})
    print(f"{args.episodes} episodes, {len(graph.rows)} rows, {facts} facts")
    print("rows in episode order (as the evidence table returns them):")
    benchmark(graph.rows, graph, args.repeats)
    shuffled = list(graph.rows)
    random.Random(args.seed).shuffle(shuffled)
    print("rows shuffled:")
    benchmark(shuffled, graph, args.repeats)


if __name__ == "__main__":
    main()
