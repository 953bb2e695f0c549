"""The current graph around the clusters: what structure analysis follows beyond a cluster's own
facts (DESIGN §4 step 5). Pure: plain rows in, plain data out.

A cluster is a group of updates, but the questions a PM asks about it are about the graph: who
owns the root blocker (maybe said in an update of its own), whether an item is done (a status
said anywhere ends its part in every chain), what a tracking item tracks and which of those are
still open, which customers said an issue was resolved for them. This module answers them from
the run's rows, once per run.

Contract
--------
``settle_dependencies(rows, completion_status_ids) -> Settled``
    Rows without the dependencies a completion has settled: a ``DEPENDS_ON`` fact whose
    waited-on item (or waiting item) has a current completion status no longer holds anything
    up, even where no resolution rule closed it (a dependency restated after the work shipped,
    a tracker's link imported after the status). ``settled`` maps each such fact to the status
    fact that completed it, so a retirement can cite it.
``build_context(rows, suppressed_fact_ids, done, ended_reports, ended_status_ids) -> GraphContext``
    One pass over the rows, keeping only what structure follows: dependencies, tracking links,
    owners of the items in them, completion statuses, and the reports customers ended. The
    suppressed facts (boilerplate) are left out: the graph that is followed is the one the
    clusters were built from. Where something is tracked, a second pass tells each tracked
    item's state (``TRACKED_STATES``): a tracker's "23 items, 7 open" counts only what the
    updates say is open.
``is_item_history(cluster, context) -> bool``
    Whether a cluster is only one item's own history (its thread, one reporter, nothing joining
    it to other work): not an observation.
``extend_clusters(clusters, context, max_depth) -> tuple[Cluster, ...]``
    Each cluster with dependencies or tracking links gets, as evidence, the graph's facts its
    structure needs beyond its own updates: the dependencies upstream of its items (bounded
    depth: cycles end the walk, and only current facts are followed, so a cycle exists only
    while every edge of it holds), the owners of its items, what its tracking items track, and
    the ended reports of its issues (``Cluster.ended_fact_ids``). An update carrying an upstream
    dependency that no cluster holds joins the cluster (the first by key, if several reach it).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence, Set
from dataclasses import dataclass, field, replace
from datetime import datetime
from typing import NamedTuple

from memory.engine.structure import (
    ANSWERED,
    DEPENDS_ON,
    HAS_STATUS,
    REPORTED,
    RESPONSIBLE_FOR,
    TRACKS,
)
from memory.engine.types import Cluster, FactInfo, Row

TRACKED_STATES = ("open", "done", "ended", "unknown")
"""A tracked item is *done* (a completion status), *ended* (ended without being done: won't fix,
duplicate...), *open* (another status, or any other fact about it: someone owns it, reported it,
waits on it) or *unknown*: the updates say nothing of it but that it is tracked (a [meta] bug's
children outside the export)."""

MAX_DEPTH = 8
"""How many dependencies beyond its own a chain is followed upstream."""


class EndedReport(NamedTuple):
    """A customer's report that they ended themselves ("resolved for us"), while the issue goes
    on for others."""

    fact_id: int
    reporter_id: int
    issue_id: int
    episode_ids: tuple[int, ...]
    """The updates that reported it."""
    first_reported: datetime
    ended_at: datetime
    ended_by_episode: int | None

    def as_fact(self) -> FactInfo:
        return FactInfo(self.fact_id, self.reporter_id, REPORTED, self.issue_id,
                        self.episode_ids, self.first_reported)


@dataclass(frozen=True)
class Settled:
    rows: list[Row]
    settled: dict[int, int]
    """Dependency fact id → the completion status fact that settled it."""
    done: dict[int, int]
    """Item → its current completion status fact."""


def settle_dependencies(rows: Sequence[Row], completion_status_ids: Set[int]) -> Settled:
    done: dict[int, int] = {}
    if completion_status_ids:
        for row in rows:
            if row[3] == HAS_STATUS and row[4] in completion_status_ids:
                # The lowest fact id when an item was said done twice: stable.
                known = done.get(row[2])
                done[row[2]] = row[1] if known is None else min(known, row[1])
    if not done:
        return Settled(rows=list(rows), settled={}, done={})
    kept: list[Row] = []
    settled: dict[int, int] = {}
    for row in rows:
        if row[3] == DEPENDS_ON and (row[4] in done or row[2] in done):
            settled[row[1]] = done.get(row[4], done.get(row[2], 0))
            continue
        kept.append(row)
    return Settled(rows=kept, settled=settled, done=done)


@dataclass(frozen=True)
class GraphContext:
    dependencies: dict[int, tuple[int, int]] = field(default_factory=dict)
    """``DEPENDS_ON`` fact id → (waiting item, waited-on item)."""
    waits_on: dict[int, list[int]] = field(default_factory=dict)
    """Item → the dependency facts it is the waiting side of."""
    waited_by: dict[int, list[int]] = field(default_factory=dict)
    """Item → the dependency facts pointing at it."""
    tracking: dict[int, tuple[int, int]] = field(default_factory=dict)
    """``TRACKS`` fact id → (tracking item, tracked item)."""
    tracks: dict[int, list[int]] = field(default_factory=dict)
    """Tracking item → its ``TRACKS`` facts."""
    owners: dict[int, list[tuple[int, int]]] = field(default_factory=dict)
    """Item of a dependency or tracking link → [(owner, ``RESPONSIBLE_FOR`` fact)]."""
    done: dict[int, int] = field(default_factory=dict)
    """Item → its current completion status fact."""
    ended_reports: dict[int, list[EndedReport]] = field(default_factory=dict)
    """Issue → the reports its customers ended."""
    fact_episodes: dict[int, tuple[int, ...]] = field(default_factory=dict)
    """The episodes of the dependencies and tracking links (what an update joining a chain
    carries)."""
    facts: dict[int, FactInfo] = field(default_factory=dict)
    """The ended reports as ``FactInfo``: they are not among a run's (current) rows."""
    tracked_states: dict[int, str] = field(default_factory=dict)
    """Tracked item → its state (``TRACKED_STATES``)."""
    answers: frozenset[int] = frozenset()
    """``ANSWERED`` fact ids: an agent's answers in a thread, which link with its reports
    (``Relation.links_as``) but report nothing."""

    def state_of(self, item: int) -> str:
        if item in self.done:
            return "done"
        return self.tracked_states.get(item, "open")

    def reach_of(self, item: int, limit: int = 10_000) -> set[int]:
        """Every item waiting on ``item`` through current dependencies (``item`` excluded)."""
        seen: set[int] = set()
        frontier = [item]
        while frontier and len(seen) < limit:
            node = frontier.pop()
            for fact in self.waited_by.get(node, ()):
                waiting = self.dependencies[fact][0]
                if waiting != item and waiting not in seen:
                    seen.add(waiting)
                    frontier.append(waiting)
        return seen


def build_context(
    rows: Sequence[Row],
    suppressed_fact_ids: Set[int] = frozenset(),
    done: Mapping[int, int] | None = None,
    ended_reports: Iterable[EndedReport] = (),
    ended_status_ids: Set[int] = frozenset(),
) -> GraphContext:
    dependencies: dict[int, tuple[int, int]] = {}
    tracking: dict[int, tuple[int, int]] = {}
    owner_rows: list[Row] = []
    episodes: dict[int, list[int]] = defaultdict(list)
    answers: set[int] = set()
    for row in rows:
        relation = row[3]
        if relation in (DEPENDS_ON, TRACKS):
            fact = row[1]
            if fact in suppressed_fact_ids:
                continue
            (dependencies if relation == DEPENDS_ON else tracking)[fact] = (row[2], row[4])
            episodes[fact].append(row[0])
        elif relation == RESPONSIBLE_FOR:
            owner_rows.append(row)
        elif relation == ANSWERED:
            answers.add(row[1])
    items = {e for pair in (*dependencies.values(), *tracking.values()) for e in pair}
    waits_on: dict[int, list[int]] = defaultdict(list)
    waited_by: dict[int, list[int]] = defaultdict(list)
    for fact, (waiting, waited) in sorted(dependencies.items()):
        waits_on[waiting].append(fact)
        waited_by[waited].append(fact)
    tracks: dict[int, list[int]] = defaultdict(list)
    for fact, (tracker, _) in sorted(tracking.items()):
        tracks[tracker].append(fact)
    owners: dict[int, set[tuple[int, int]]] = defaultdict(set)
    for row in owner_rows:
        if row[4] in items and row[1] not in suppressed_fact_ids:
            owners[row[4]].add((row[2], row[1]))
    fact_episodes = {fact: tuple(sorted(set(eps))) for fact, eps in episodes.items()}
    infos: dict[int, FactInfo] = {}
    by_issue: dict[int, list[EndedReport]] = defaultdict(list)
    for report in sorted(ended_reports, key=lambda r: r.fact_id):
        by_issue[report.issue_id].append(report)
        infos[report.fact_id] = report.as_fact()
    return GraphContext(
        dependencies=dependencies, waits_on=dict(waits_on), waited_by=dict(waited_by),
        tracking=tracking, tracks=dict(tracks),
        owners={item: sorted(pairs, key=lambda p: p[1]) for item, pairs in owners.items()},
        done=dict(done or {}), ended_reports=dict(by_issue), fact_episodes=fact_episodes,
        facts=infos,
        tracked_states=tracked_states(rows, {t for _, t in tracking.values()}, done or {},
                                      ended_status_ids),
        answers=frozenset(answers),
    )


def tracked_states(
    rows: Sequence[Row], tracked: Set[int], done: Mapping[int, int], ended_status_ids: Set[int]
) -> dict[int, str]:
    """Each tracked item's state (``TRACKED_STATES``). A second pass over the rows, only when
    something is tracked."""
    if not tracked:
        return {}
    ended: set[int] = set()
    stated: set[int] = set()
    for row in rows:
        relation = row[3]
        if relation == TRACKS:
            continue
        if row[2] in tracked:
            stated.add(row[2])
            if relation == HAS_STATUS and row[4] in ended_status_ids:
                ended.add(row[2])
        if row[4] in tracked:
            stated.add(row[4])
    return {
        item: "done" if item in done else "ended" if item in ended
        else "open" if item in stated else "unknown"
        for item in tracked
    }


def extend_clusters(
    clusters: Sequence[Cluster], context: GraphContext, max_depth: int = MAX_DEPTH
) -> tuple[Cluster, ...]:
    """The clusters with the evidence their structure needs from the rest of the graph (see the
    module), in the same order; a cluster that needs nothing is returned as it was."""
    clustered = {e for cluster in clusters for e in cluster.episode_ids}
    joined: set[int] = set()
    extended: list[Cluster] = []
    for cluster in clusters:  # by key: the first cluster reaching a free update takes it
        extra_facts, extra_episodes, ended = _extension(cluster, context, max_depth)
        free = sorted(e for e in extra_episodes if e not in clustered and e not in joined)
        joined.update(free)
        if not extra_facts and not free and not ended:
            extended.append(cluster)
            continue
        extended.append(replace(
            cluster,
            episode_ids=tuple(sorted({*cluster.episode_ids, *free})),
            fact_ids=tuple(sorted({*cluster.fact_ids, *extra_facts, *ended})),
            ended_fact_ids=tuple(sorted(ended)),
        ))
    return tuple(extended)


def is_item_history(cluster: Cluster, context: GraphContext) -> bool:
    """One item's own history, which is no observation: every update of the cluster is held to
    the others only by the item's thread — one reporter's ``REPORTED`` restated by each change
    (DESIGN §9, "An item's history is one thread"), its agents' answers in it aside (they
    report nothing: a ticket's one customer and the agent who answered are still one ticket) —
    and none of its facts joins the item to other work (a dependency, a tracking link) or ends a
    customer's report. The tracker already shows an item's history; an observation is a pattern
    no single item states (a stalled item is a view of its own, not a cluster)."""
    if cluster.anchor is not None or cluster.ended_fact_ids or not cluster.links:
        return False
    if any(link.relation != REPORTED or link.source_id is not None for link in cluster.links):
        return False
    reports = {fact for link in cluster.links for fact in link.fact_ids
               if fact not in context.answers}
    if len({link.target_id for link in cluster.links}) != 1 or len(reports) != 1:
        return False  # two items, or two reporters of one: a recurring report
    return not any(fact in context.dependencies or fact in context.tracking
                   for fact in cluster.fact_ids)


def _extension(
    cluster: Cluster, context: GraphContext, max_depth: int
) -> tuple[set[int], set[int], set[int]]:
    """(facts to add, updates carrying the dependencies followed, ended report facts)."""
    own = set(cluster.fact_ids)
    nodes: set[int] = set()
    issues: set[int] = set()
    for fact in cluster.fact_ids:
        pair = context.dependencies.get(fact) or context.tracking.get(fact)
        if pair is not None:
            nodes.update(pair)
    if context.ended_reports:
        issues = _issues_with_ended_reports(cluster, context)
    if not nodes and not issues:
        return set(), set(), set()
    extra: set[int] = set()
    episodes: set[int] = set()
    # Upstream (what the chain's items wait on) and downstream (what waits on them, such as
    # the work waiting on a tracking item), beyond the cluster, a bounded number of steps.
    seen = set(nodes)
    for direction, end in ((context.waits_on, 1), (context.waited_by, 0)):
        frontier = sorted(nodes)
        for _ in range(max_depth):
            following: list[int] = []
            for node in frontier:
                for fact in direction.get(node, ()):
                    other = context.dependencies[fact][end]
                    if fact not in own:
                        extra.add(fact)
                        episodes.update(context.fact_episodes.get(fact, ()))
                    if other not in seen:
                        seen.add(other)
                        following.append(other)
            if not following:
                break
            frontier = sorted(following)
    # What its tracking items track: "tracks 23 items, 7 open" counts all of them.
    for node in sorted(seen):
        for fact in context.tracks.get(node, ()):
            if fact not in own:
                extra.add(fact)
    # Owners of every item of the chain not owned in its own updates.
    for node in sorted(seen):
        owned = context.owners.get(node, ())
        if owned and not any(fact in own for _, fact in owned):
            extra.update(fact for _, fact in owned)
    ended = set()
    for issue in issues:
        for report in context.ended_reports[issue]:
            ended.add(report.fact_id)
            if report.ended_by_episode is not None:
                episodes.add(report.ended_by_episode)  # "resolved for us": the words that ended it
    return extra, episodes, ended


def _issues_with_ended_reports(cluster: Cluster, context: GraphContext) -> set[int]:
    """The issues with ended reports that this cluster is about: one of its links is about the
    issue, or one of its updates reported it."""
    about = {link.target_id for link in cluster.links if link.relation == REPORTED}
    about |= {link.target_id for link in cluster.links if link.source_id is None}
    inside = set(cluster.episode_ids)
    found = set()
    for issue, reports in context.ended_reports.items():
        if issue in about or any(inside.intersection(r.episode_ids) for r in reports):
            found.add(issue)
    return found
