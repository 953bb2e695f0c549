"""What a pipeline run of now leaves in its process for the next run of the same graph, so that
the next one works in proportion to what changed (issue #13: the incremental run).

A run keeps, for one graph at a time (the last it ran): its rows, its clustering with the state
an incremental one reads (``memory.engine.incremental_clustering``), and the inputs of its
stalled-item detection besides the rows. The next run of that graph in the same process compares
its rows with those (two set differences) and then

* clusters again only the components the added and removed rows touch (``recluster``; it
  declines when a hub judgment could change, and everything is clustered as before);
* scans for stalled items only the items those rows, and the facts or statuses whose standing
  changed, name (``touched_items``), provided the memo it reads is the one that run wrote.

Either gives exactly what the full computation gives on the same rows. A run in another process
(a restarted worker, another graph run in between) finds nothing here and does the full work;
so does a run as of another time, which neither reads nor leaves anything. The cost: the rows of
the graph stay referenced between runs (a set of them), and one set of this run's rows is built.
"""

from __future__ import annotations

from collections.abc import Set
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


@dataclass(slots=True)
class LastRun:
    graph_id: int
    rows: frozenset[Row]
    clustering: ClusteringResult
    stalls: StallInputs | None = None


@dataclass(frozen=True, slots=True)
class Changes:
    """This run's rows against the last run's."""

    rows: frozenset[Row]
    added: frozenset[Row]
    removed: frozenset[Row]
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
    last run left is taken: should this run fail, the next does the full work."""
    global _last
    last, _last = _last, None
    current = frozenset(rows)
    if last is None or last.graph_id != graph_id:
        return Changes(rows=current, added=frozenset(), removed=frozenset(), last=None)
    return Changes(rows=current, added=current - last.rows, removed=last.rows - current, last=last)


def cluster_changes(
    changes: Changes,
    rows: list[Row],
    linking: dict[str, str],
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
