"""Quality metrics against a scenario's ground truth (pure functions of plain data).

Partitions are given as ``{item: label}`` over the same items; an item left out of every found
cluster is its own singleton (what an unclustered episode is).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Hashable, Iterable, Mapping, Sequence
from math import comb
from typing import NamedTuple


def labels_from_clusters(
    items: Iterable[Hashable], clusters: Iterable[Iterable[Hashable]]
) -> dict[Hashable, Hashable]:
    """item → label: the index of its cluster, or the item itself when in none (a singleton)."""
    labels: dict[Hashable, Hashable] = {item: ("single", item) for item in items}
    for index, cluster in enumerate(clusters):
        for item in cluster:
            if item in labels:
                labels[item] = ("cluster", index)
    return labels


def _contingency(
    truth: Mapping[Hashable, Hashable], found: Mapping[Hashable, Hashable]
) -> tuple[Counter, Counter, Counter]:
    items = truth.keys()
    pairs = Counter((truth[i], found[i]) for i in items)
    return pairs, Counter(truth[i] for i in items), Counter(found[i] for i in items)


def adjusted_rand_index(
    truth: Mapping[Hashable, Hashable], found: Mapping[Hashable, Hashable]
) -> float:
    """Hubert & Arabie's ARI: 1 for identical partitions, about 0 for chance agreement."""
    pairs, rows, cols = _contingency(truth, found)
    n = sum(rows.values())
    if n < 2:
        return 1.0
    index = sum(comb(c, 2) for c in pairs.values())
    sum_rows = sum(comb(c, 2) for c in rows.values())
    sum_cols = sum(comb(c, 2) for c in cols.values())
    expected = sum_rows * sum_cols / comb(n, 2)
    maximum = (sum_rows + sum_cols) / 2
    if maximum == expected:
        return 1.0
    return (index - expected) / (maximum - expected)


class PairScores(NamedTuple):
    precision: float
    """Of the episode pairs put together, the share that belong together."""
    recall: float
    """Of the pairs that belong together, the share put together."""


def pairwise_scores(
    truth: Mapping[Hashable, Hashable], found: Mapping[Hashable, Hashable]
) -> PairScores:
    pairs, rows, cols = _contingency(truth, found)
    together = sum(comb(c, 2) for c in pairs.values())
    found_pairs = sum(comb(c, 2) for c in cols.values())
    true_pairs = sum(comb(c, 2) for c in rows.values())
    return PairScores(
        precision=together / found_pairs if found_pairs else 1.0,
        recall=together / true_pairs if true_pairs else 1.0,
    )


class ReachError(NamedTuple):
    work_items: float
    """Mean absolute error of the work items waiting on the root blocker."""
    people: float
    """Mean absolute error of the people waiting on it."""
    relative: float
    """Mean of |found - true| / true over both figures."""


def reach_error(pairs: Sequence[tuple[tuple[int, int], tuple[int, int]]]) -> ReachError:
    """``pairs`` of ((true work items, true people), (found work items, found people)), one per
    chain; a chain whose root blocker was not found counts as found (0, 0)."""
    if not pairs:
        return ReachError(0.0, 0.0, 0.0)
    items = [abs(f[0] - t[0]) for t, f in pairs]
    people = [abs(f[1] - t[1]) for t, f in pairs]
    relative = [abs(f[i] - t[i]) / t[i] for t, f in pairs for i in (0, 1) if t[i]]
    return ReachError(
        work_items=sum(items) / len(pairs),
        people=sum(people) / len(pairs),
        relative=sum(relative) / len(relative) if relative else 0.0,
    )


def share(hits: int, total: int) -> float:
    """hits / total, and 1.0 for nothing to score (a metric over no cases cannot fail)."""
    return hits / total if total else 1.0


def recall_of(
    expected: Mapping[str, set[tuple[str, str, str]]],
    extracted: Mapping[str, set[tuple[str, str, str]]],
) -> tuple[int, int, int]:
    """(expected facts recovered, expected facts, extracted facts) summed over episodes; facts
    are compared as normalized ``(source, relation, target)`` triples."""
    hits = total = produced = 0
    for episode, facts in expected.items():
        got = extracted.get(episode, set())
        hits += len(facts & got)
        total += len(facts)
        produced += len(got)
    return hits, total, produced
