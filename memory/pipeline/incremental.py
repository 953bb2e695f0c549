"""What a pipeline run of now leaves in its process for the next run of the same graph, so that
the next one works in proportion to what changed (issue #13: the incremental run).

A run keeps, for one graph at a time (the last it ran): its rows, its clustering with the state
an incremental one reads (``memory.engine.incremental_clustering``), and the inputs of its
stalled-item detection besides the rows. The next run of that graph in the same process compares
its rows with those (by their hashes) and then

* clusters again only the components the added and removed rows touch (``recluster``; it
  declines when a hub judgment could change, and everything is clustered as before);
* scans for stalled items only the items those rows, and the facts or statuses whose standing
  changed, name (``touched_items``), provided the memo it reads is the one that run wrote.

Either gives exactly what the full computation gives on the same rows (rows are told apart by
their 64-bit hashes: ``changes_since_last_run``). A run in another process
(a restarted worker, another graph run in between) finds nothing here and does the full work;
so does a run as of another time, which neither reads nor leaves anything. The cost: the rows of
the graph stay referenced between runs with their hashes (a list and a set of ints), and this
run's rows are hashed once.
"""

from __future__ import annotations

from collections.abc import Mapping, Set
from dataclasses import dataclass

from memory.engine.clustering import (
    AuthorLookup,
    ClusteringResult,
    ClusteringSettings,
    cluster_episodes,
)
from memory.engine.incremental_clustering import recluster
from memory.engine.stalled_memo import StallMemo, touched_items
from memory.engine.types import Row


@dataclass(frozen=True, slots=True)
class StallInputs:
    """What a run's stalled-item detection read besides the rows, and the memo it wrote."""

    kinds: frozenset[int]
    unstuck: frozenset[int]
    boilerplate: frozenset[int]
    shown: frozenset[int]
    memo: StallMemo

    def wrote(self, memo: StallMemo) -> bool:
        """Whether ``memo`` (read back from the database) is the one this run wrote."""
        return (
            memo.as_of == self.memo.as_of
            and memo.after_weeks == self.memo.after_weeks
            and memo.digests == self.memo.digests
        )


class RowSet:
    """A run's rows with each row's hash, and the set of those hashes: what the next run's rows
    are compared with. Comparing the rows themselves (two set differences of ~540,000 tuples)
    took 2 s at 100,000 updates on a loaded machine; their hashes, computed in C, a tenth of
    that."""

    __slots__ = ("hashes", "present", "rows")

    def __init__(self, rows: list[Row]) -> None:
        self.rows = rows
        self.hashes = list(map(hash, rows))
        self.present = set(self.hashes)

    @property
    def distinct(self) -> bool:
        """No two rows with one hash (a row given twice, or two rows colliding)."""
        return len(self.present) == len(self.rows)


@dataclass(slots=True)
class LastRun:
    graph_id: int
    rows: RowSet
    clustering: ClusteringResult
    stalls: StallInputs | None = None


@dataclass(frozen=True, slots=True)
class Changes:
    """This run's rows against the last run's."""

    rows: RowSet
    added: list[Row]
    removed: list[Row]
    last: LastRun | None
    """The last run of the graph in this process (``None``: nothing to compare with)."""
    reclustered: bool = False


_last: LastRun | None = None


def forget() -> None:
    """Drop what the last run left (tests; a graph deleted)."""
    global _last
    _last = None


def changes_since_last_run(graph_id: int, rows: list[Row]) -> Changes:
    """This run's rows, and what was added and removed since the graph's last run here. What the
    last run left is taken: should this run fail, the next does the full work.

    Rows are compared by their hashes: a row whose hash the other run's rows have counts as
    theirs. Two different rows would have to share a 64-bit hash for a change to be missed
    (about one chance in 10^13 per run at 540,000 rows); rows sharing a hash within one run make
    it compare nothing (the full work)."""
    global _last
    last, _last = _last, None
    current = RowSet(rows)
    if last is None or last.graph_id != graph_id or not current.distinct or not last.rows.distinct:
        return Changes(rows=current, added=[], removed=[], last=None)
    added = current.present - last.rows.present
    removed = last.rows.present - current.present
    return Changes(
        rows=current,
        added=[row for row, h in zip(rows, current.hashes, strict=True) if h in added]
        if added
        else [],
        removed=[
            row for row, h in zip(last.rows.rows, last.rows.hashes, strict=True) if h in removed
        ]
        if removed
        else [],
        last=last,
    )


def cluster_changes(
    changes: Changes,
    rows: list[Row],
    linking: Mapping[str, str],
    episode_authors: AuthorLookup,
    settings: ClusteringSettings,
) -> tuple[ClusteringResult, Changes]:
    """The clustering of ``rows``: only the touched components when the last run's is at hand
    and a hub judgment cannot change, else everything (keeping the state for the next run)."""
    if changes.last is not None:
        result = recluster(
            rows,
            linking,
            episode_authors,
            settings,
            changes.last.clustering,
            changes.added,
            changes.removed,
        )
        if result is not None:
            return result, Changes(
                changes.rows, changes.added, changes.removed, changes.last, reclustered=True
            )
    return cluster_episodes(rows, linking, episode_authors, settings, keep_state=True), changes


def touched_stall_items(
    changes: Changes,
    rows: list[Row],
    memo: StallMemo | None,
    *,
    kinds: Set[int],
    unstuck: Set[int],
    boilerplate: Set[int],
    shown: Set[int],
) -> set[int] | None:
    """The items whose stalled-item inputs may have changed since the last run, when ``memo`` is
    the one it wrote (``None``: scan every item)."""
    last = changes.last
    if last is None or last.stalls is None or memo is None or not last.stalls.wrote(memo):
        return None
    before = last.stalls
    return touched_items(
        [*changes.added, *changes.removed],
        rows,
        facts=(shown ^ before.shown) | (boilerplate ^ before.boilerplate),
        targets=unstuck ^ before.unstuck,
        items=kinds ^ before.kinds,
    )


def remember_run(
    graph_id: int,
    changes: Changes,
    clustering: ClusteringResult,
    stalls: StallInputs | None,
) -> None:
    """Leave this run's rows and results for the next run of the graph in this process."""
    global _last
    _last = LastRun(graph_id=graph_id, rows=changes.rows, clustering=clustering, stalls=stalls)


def stall_inputs(
    memo: StallMemo | None,
    *,
    kinds: Set[int],
    unstuck: Set[int],
    boilerplate: Set[int],
    shown: Set[int],
) -> StallInputs | None:
    if memo is None:
        return None
    return StallInputs(
        kinds=frozenset(kinds),
        unstuck=frozenset(unstuck),
        boilerplate=frozenset(boilerplate),
        shown=frozenset(shown),
        memo=memo,
    )
