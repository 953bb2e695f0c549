"""Structure analysis of one cluster (DESIGN §4 step 5). Deterministic, plain data.

Contract
--------
``analyse_cluster(cluster, facts, entities, episodes) -> Structure``

``cluster``
    A ``Cluster`` from clustering. Only its ``fact_ids`` are analysed.
``facts``
    fact id → ``FactInfo`` for at least every fact of the cluster (``KeyError`` otherwise).
``entities``
    entity id → ``EntityInfo`` for every entity those facts touch.
``episodes``
    episode id → ``EpisodeInfo`` for every episode of the cluster.

``Structure.as_dict()`` is what ``Observation.structure`` stores; its reach figures fill
``Observation.reach_people`` / ``reach_work_items`` and rank blockers in the weekly review.

Kinds
-----
``dependency_chain``
    the cluster has ``DEPENDS_ON`` facts (``BLOCKS`` is stored as ``DEPENDS_ON`` reversed).
``recurring_issue``
    otherwise, when its ``REPORTED`` facts come from two reporters or more, or a ``PRECEDED_BY``
    / ``AFFECTS`` signature (relation, target) recurs in two of its episodes or more.
``shared_context``
    anything else: what links the episodes is described, nothing is inferred.

Dependency chains
-----------------
The ``DEPENDS_ON`` subgraph points from the waiting item to what it waits on. Strongly connected
components make it cycle-safe: every cycle is reported, and a cycle with nothing outside it to
wait on is a root blocker whose members block together. A root blocker is waited on and waits on
nothing else inside the cluster. For each: its owners (``RESPONSIBLE_FOR`` sources), its direct
and downstream (transitive) dependents — with the items each waits on towards the blocker — and
the people (``Person`` entities) responsible for those waiting items. Its **unblock reach** is
the number of waiting work items plus those people. Blockers are ranked by reach (desc), then
name. Every figure carries the fact ids that justify it, for the summaries to cite.

Recurring issues
----------------
For each issue: who reported it and when (first reference time of the reporting episodes), what
it affects, and which events it followed (``PRECEDED_BY``), each with fact and episode ids; an
event preceding issues in two episodes or more is a *recurring* preceding event. These are
co-occurrences, never causes.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from datetime import datetime
from typing import TYPE_CHECKING, Any

import igraph

from memory.engine.types import Cluster, EntityInfo, EpisodeInfo, FactInfo, Link

if TYPE_CHECKING:  # the context module imports this one's names
    from memory.engine.context import GraphContext

DEPENDENCY_CHAIN = "dependency_chain"
RECURRING_ISSUE = "recurring_issue"
SHARED_CONTEXT = "shared_context"

DEPENDS_ON = "DEPENDS_ON"
RESPONSIBLE_FOR = "RESPONSIBLE_FOR"
REPORTED = "REPORTED"
ANSWERED = "ANSWERED"
"""An agent answered in a thread: linked with its reports, never one of them."""
AFFECTS = "AFFECTS"
PRECEDED_BY = "PRECEDED_BY"
HAS_STATUS = "HAS_STATUS"
TRACKS = "TRACKS"
PERSON = "Person"
CUSTOMER = "Customer"

TREE_RELATIONS = frozenset({DEPENDS_ON, TRACKS})
"""Relations that join work items into one tree, whichever way they point."""
RESEMBLES = "RESEMBLES"
ISSUE_AS_TARGET = frozenset({REPORTED, RESEMBLES})
"""What an update is about when its facts point at an issue: a report of it, or a customer's
message that resembles its reports (``memory.support_issues``: linked as one, no report)."""
ISSUE_AS_SOURCE = frozenset({AFFECTS, PRECEDED_BY})


def _ids(values: Iterable[int]) -> tuple[int, ...]:
    return tuple(sorted(set(values)))


@dataclass(frozen=True, slots=True)
class Party:
    """An entity in a role (owner, reporter, affected product...) and the facts saying so."""

    entity_id: int
    fact_ids: tuple[int, ...]

    def as_dict(self) -> dict[str, Any]:
        return {"entity": self.entity_id, "facts": list(self.fact_ids)}


@dataclass(frozen=True, slots=True)
class Dependent:
    """A work item waiting on a root blocker, directly or through other waiting items."""

    entity_id: int
    via: tuple[int, ...]
    """What it waits on inside the chain, on its way to the blocker."""
    fact_ids: tuple[int, ...]
    """The ``DEPENDS_ON`` facts from it to ``via``."""
    owners: tuple[Party, ...]

    def as_dict(self) -> dict[str, Any]:
        return {
            "entity": self.entity_id,
            "via": list(self.via),
            "facts": list(self.fact_ids),
            "owners": [owner.as_dict() for owner in self.owners],
        }


@dataclass(frozen=True, slots=True)
class RootBlocker:
    members: tuple[int, ...]
    """One work item, or every member of a cycle that waits on nothing outside itself."""
    owners: tuple[Party, ...]
    direct: tuple[Dependent, ...]
    downstream: tuple[Dependent, ...]
    people: tuple[Party, ...]
    """``Person`` entities responsible for the waiting items."""
    cycle_fact_ids: tuple[int, ...] = ()
    """For a cycle: the ``DEPENDS_ON`` facts among its members."""

    @property
    def is_cycle(self) -> bool:
        return len(self.members) > 1

    @property
    def reach_work_items(self) -> int:
        return len(self.direct) + len(self.downstream)

    @property
    def reach_people(self) -> int:
        return len(self.people)

    @property
    def reach(self) -> int:
        return self.reach_work_items + self.reach_people

    @property
    def chain_fact_ids(self) -> tuple[int, ...]:
        """The ``DEPENDS_ON`` facts of everything waiting on it (and of the cycle)."""
        waiting = (*self.direct, *self.downstream)
        return _ids([*self.cycle_fact_ids, *(f for d in waiting for f in d.fact_ids)])

    @property
    def fact_ids(self) -> tuple[int, ...]:
        return _ids(
            [
                *self.chain_fact_ids,
                *(f for owner in self.owners for f in owner.fact_ids),
                *(f for person in self.people for f in person.fact_ids),
                *(f for d in (*self.direct, *self.downstream) for o in d.owners
                  for f in o.fact_ids),
            ]
        )

    def as_dict(self) -> dict[str, Any]:
        return {
            "members": list(self.members),
            "cycle": self.is_cycle,
            "owners": [owner.as_dict() for owner in self.owners],
            "direct": [d.as_dict() for d in self.direct],
            "downstream": [d.as_dict() for d in self.downstream],
            "people": [person.as_dict() for person in self.people],
            "reach": {
                "work_items": self.reach_work_items,
                "people": self.reach_people,
                "total": self.reach,
            },
            "facts": list(self.fact_ids),
        }


@dataclass(frozen=True, slots=True)
class DependencyEdge:
    waiting: int
    waited_on: int
    fact_ids: tuple[int, ...]

    def as_dict(self) -> dict[str, Any]:
        return {"waiting": self.waiting, "waited_on": self.waited_on, "facts": list(self.fact_ids)}


@dataclass(frozen=True, slots=True)
class DependencyAnalysis:
    edges: tuple[DependencyEdge, ...]
    root_blockers: tuple[RootBlocker, ...]
    """Ranked by unblock reach (desc), then name."""
    cycles: tuple[tuple[int, ...], ...]
    """Every cycle of the chain (members sorted), whether or not it is a root blocker."""

    def as_dict(self) -> dict[str, Any]:
        return {
            "edges": [edge.as_dict() for edge in self.edges],
            "root_blockers": [root.as_dict() for root in self.root_blockers],
            "cycles": [list(cycle) for cycle in self.cycles],
        }


@dataclass(frozen=True, slots=True)
class TrackedItem:
    entity_id: int
    fact_ids: tuple[int, ...]
    """The ``TRACKS`` facts saying it is tracked."""
    open: bool
    """Not finished: open, or nothing said of it but that it is tracked."""
    reach: int
    """Work items waiting on it, directly or not, anywhere in the graph."""
    state: str = "open"
    """``memory.engine.context.TRACKED_STATES``: open, done, ended or unknown."""

    def as_dict(self) -> dict[str, Any]:
        return {"entity": self.entity_id, "facts": list(self.fact_ids), "open": self.open,
                "reach": self.reach, "state": self.state}


@dataclass(frozen=True, slots=True)
class Tracker:
    """A tracking item (a meta bug, an epic): the parent of what it tracks, never a blocker."""

    tracker_id: int
    items: tuple[TrackedItem, ...]
    """Open ones first, ranked by reach (desc), then name; then the closed ones by name."""
    owners: tuple[Party, ...] = ()

    @property
    def open_items(self) -> tuple[TrackedItem, ...]:
        return tuple(item for item in self.items if item.open)

    @property
    def fact_ids(self) -> tuple[int, ...]:
        return _ids([*(f for i in self.items for f in i.fact_ids),
                     *(f for o in self.owners for f in o.fact_ids)])

    def as_dict(self) -> dict[str, Any]:
        return {
            "tracker": self.tracker_id,
            "tracked": len(self.items),
            "open": len(self.open_items),
            "items": [item.as_dict() for item in self.items],
            "owners": [owner.as_dict() for owner in self.owners],
        }


@dataclass(frozen=True, slots=True)
class Report:
    reporter_id: int
    fact_ids: tuple[int, ...]
    episode_ids: tuple[int, ...]
    first_reported: datetime
    resolved_at: datetime | None = None
    """When the reporter said it was resolved for them (their report ended, the issue did
    not)."""

    @property
    def resolved(self) -> bool:
        return self.resolved_at is not None

    def as_dict(self) -> dict[str, Any]:
        return {
            "reporter": self.reporter_id,
            "facts": list(self.fact_ids),
            "episodes": list(self.episode_ids),
            "first_reported": self.first_reported.isoformat(),
            "resolved_at": self.resolved_at.isoformat() if self.resolved_at else None,
        }


@dataclass(frozen=True, slots=True)
class PrecedingEvent:
    event_id: int
    fact_ids: tuple[int, ...]
    episode_ids: tuple[int, ...]

    @property
    def recurring(self) -> bool:
        return len(self.episode_ids) >= 2

    def as_dict(self) -> dict[str, Any]:
        return {
            "event": self.event_id,
            "facts": list(self.fact_ids),
            "episodes": list(self.episode_ids),
            "recurring": self.recurring,
        }


@dataclass(frozen=True, slots=True)
class IssuePattern:
    issue_id: int
    reports: tuple[Report, ...]
    """By first report, then reporter id."""
    affected: tuple[Party, ...]
    preceded_by: tuple[PrecedingEvent, ...]
    """Most episodes first."""
    episode_ids: tuple[int, ...]

    @property
    def fact_ids(self) -> tuple[int, ...]:
        return _ids(
            [
                *(f for r in self.reports for f in r.fact_ids),
                *(f for a in self.affected for f in a.fact_ids),
                *(f for p in self.preceded_by for f in p.fact_ids),
            ]
        )

    @property
    def resolved_reports(self) -> tuple[Report, ...]:
        return tuple(r for r in self.reports if r.resolved)

    def as_dict(self) -> dict[str, Any]:
        return {
            "issue": self.issue_id,
            "reporters": len(self.reports),
            "resolved_reporters": len(self.resolved_reports),
            "reports": [report.as_dict() for report in self.reports],
            "affected": [party.as_dict() for party in self.affected],
            "preceded_by": [event.as_dict() for event in self.preceded_by],
            "episodes": list(self.episode_ids),
        }


@dataclass(frozen=True, slots=True)
class RecurringAnalysis:
    issues: tuple[IssuePattern, ...]
    """Most reporters first, then most episodes, then name."""
    recurring_events: tuple[PrecedingEvent, ...]
    """Events preceding issues of this cluster in two episodes or more, across issues."""

    def as_dict(self) -> dict[str, Any]:
        return {
            "issues": [issue.as_dict() for issue in self.issues],
            "recurring_events": [event.as_dict() for event in self.recurring_events],
        }


@dataclass(frozen=True, slots=True)
class Structure:
    kind: str
    entity_ids: tuple[int, ...]
    people: tuple[int, ...]
    """``Person`` entities among the facts' entities."""
    episode_ids: tuple[int, ...]
    fact_ids: tuple[int, ...]
    window_start: datetime
    """First evidence: the earliest reference time of the cluster's episodes."""
    window_end: datetime
    """Latest evidence."""
    links: tuple[Link, ...]
    dependency: DependencyAnalysis | None = None
    recurring: RecurringAnalysis | None = None
    trackers: tuple[Tracker, ...] = ()
    """Tracking items among its facts, most tracked items first."""
    stalled: Any = None
    """For a stalled item: ``memory.engine.stalled.Stall``."""
    held_stalls: tuple[Any, ...] = ()
    """For a pattern: the quiet stalls it holds (``memory.engine.stalled.held_by_patterns``),
    oldest first."""
    as_of: datetime | None = None
    """When it was analysed (the run's moment): its summary's days carry their year when the
    evidence ended in another year."""

    @property
    def top_blocker(self) -> RootBlocker | None:
        if self.dependency and self.dependency.root_blockers:
            return self.dependency.root_blockers[0]
        return None

    @property
    def reach_people(self) -> int:
        top = self.top_blocker
        return top.reach_people if top else 0

    @property
    def reach_work_items(self) -> int:
        top = self.top_blocker
        return top.reach_work_items if top else 0

    def as_dict(self) -> dict[str, Any]:
        return {
            "kind": self.kind,
            "entities": list(self.entity_ids),
            "people": list(self.people),
            "episodes": list(self.episode_ids),
            "facts": list(self.fact_ids),
            "window": {"start": self.window_start.isoformat(), "end": self.window_end.isoformat()},
            "links": [link.as_dict() for link in self.links],
            "reach": {"people": self.reach_people, "work_items": self.reach_work_items},
            "dependency": self.dependency.as_dict() if self.dependency else None,
            "recurring": self.recurring.as_dict() if self.recurring else None,
            "trackers": [tracker.as_dict() for tracker in self.trackers],
            "stalled": self.stalled.as_dict() if self.stalled else None,
            "held_stalls": [stall.as_dict() for stall in self.held_stalls],
        }


def analyse_cluster(
    cluster: Cluster,
    facts: Mapping[int, FactInfo],
    entities: Mapping[int, EntityInfo],
    episodes: Mapping[int, EpisodeInfo],
    context: GraphContext | None = None,
    as_of: datetime | None = None,
) -> Structure:
    """``context``: the graph around the cluster (``memory.engine.context``), for what is done,
    how far an item's dependents reach and which reports their customers ended; without it the
    cluster's own facts are all there is. ``as_of``: the run's moment (``Structure.as_of``)."""
    cluster_facts = [facts[fact_id] for fact_id in cluster.fact_ids]
    inside = set(cluster.episode_ids)
    entity_ids = _ids(e for f in cluster_facts for e in (f.source_id, f.target_id))
    times = [episodes[episode].reference_time for episode in cluster.episode_ids]
    kind = classify(cluster_facts, inside)
    trackers = analyse_trackers(cluster_facts, entities, context)
    dependency = (
        analyse_dependencies(cluster_facts, entities, context, trackers)
        if kind == DEPENDENCY_CHAIN else None
    )
    ended = _ended_reports(cluster, context)
    recurring = (
        analyse_recurrence(cluster_facts, entities, episodes, inside, min(times), ended)
        if kind == RECURRING_ISSUE else None
    )
    return Structure(
        kind=kind,
        entity_ids=entity_ids,
        people=tuple(e for e in entity_ids if _is_person(e, entities)),
        episode_ids=cluster.episode_ids,
        fact_ids=cluster.fact_ids,
        window_start=min(times),
        window_end=max(times),
        links=cluster.links,
        dependency=dependency,
        recurring=recurring,
        trackers=trackers,
        as_of=as_of,
    )


def _ended_reports(cluster: Cluster, context: GraphContext | None) -> dict[int, datetime]:
    """Ended report fact id → when its reporter ended it, for the cluster's ended facts."""
    if context is None or not cluster.ended_fact_ids:
        return {}
    wanted = set(cluster.ended_fact_ids)
    return {r.fact_id: r.ended_at for reports in context.ended_reports.values()
            for r in reports if r.fact_id in wanted}


def classify(cluster_facts: list[FactInfo], inside: set[int]) -> str:
    if any(f.relation == DEPENDS_ON for f in cluster_facts):
        return DEPENDENCY_CHAIN
    reporters = {f.source_id for f in cluster_facts if f.relation == REPORTED}
    if len(reporters) >= 2:
        return RECURRING_ISSUE
    episodes_of: dict[tuple[str, int], set[int]] = defaultdict(set)
    for f in cluster_facts:
        if f.relation in (PRECEDED_BY, AFFECTS):
            episodes_of[(f.relation, f.target_id)].update(set(f.episode_ids) & inside)
    if any(len(eps) >= 2 for eps in episodes_of.values()):
        return RECURRING_ISSUE
    return SHARED_CONTEXT


def _is_person(entity_id: int, entities: Mapping[int, EntityInfo]) -> bool:
    entity = entities.get(entity_id)
    return entity is not None and entity.type == PERSON


def _name_key(entity_id: int, entities: Mapping[int, EntityInfo]) -> tuple[str, int]:
    entity = entities.get(entity_id)
    return ((entity.name.casefold() if entity else ""), entity_id)


def analyse_dependencies(
    cluster_facts: list[FactInfo],
    entities: Mapping[int, EntityInfo],
    context: GraphContext | None = None,
    trackers: tuple[Tracker, ...] = (),
) -> DependencyAnalysis:
    edge_facts: dict[tuple[int, int], list[int]] = defaultdict(list)
    for f in cluster_facts:
        if f.relation == DEPENDS_ON:
            edge_facts[(f.source_id, f.target_id)].append(f.id)
    owners_of: dict[int, dict[int, list[int]]] = defaultdict(lambda: defaultdict(list))
    for f in cluster_facts:
        if f.relation == RESPONSIBLE_FOR:
            owners_of[f.target_id][f.source_id].append(f.id)
    # A tracking item is a parent, never a blocker: what waits on it waits on what it tracks
    # and is still open (its TRACKS facts are the evidence of that wait).
    tracker_ids = {t.tracker_id for t in trackers}
    waited_on = {target for _, target in edge_facts}
    for tracker in trackers:
        if tracker.tracker_id in waited_on:
            for item in tracker.open_items:
                edge_facts[(tracker.tracker_id, item.entity_id)].extend(item.fact_ids)

    nodes = sorted({n for edge in edge_facts for n in edge})
    component_of = strongly_connected(nodes, sorted(edge_facts))
    members: dict[int, list[int]] = defaultdict(list)
    for node in nodes:
        members[component_of[node]].append(node)
    waits_on: dict[int, list[int]] = defaultdict(list)
    waited_by: dict[int, list[int]] = defaultdict(list)
    for waiting, waited in sorted(edge_facts):
        waits_on[waiting].append(waited)
        waited_by[waited].append(waiting)

    roots = []
    for component, group in members.items():
        leaves = any(component_of[t] != component for n in group for t in waits_on[n])
        if leaves or set(group) <= tracker_ids:
            continue  # it waits on something else, or it is a tracker with nothing open
        # A sink: waited on by someone, or a cycle waiting on itself.
        roots.append(describe_root(group, waits_on, waited_by, edge_facts, owners_of, entities))
    roots.sort(key=lambda r: (-r.reach, _name_key(r.members[0], entities)))
    cycles = sorted(tuple(group) for group in members.values() if len(group) > 1)
    edges = tuple(
        DependencyEdge(waiting, waited, _ids(ids)) for (waiting, waited), ids in
        sorted(edge_facts.items())
    )
    return DependencyAnalysis(edges=edges, root_blockers=tuple(roots), cycles=tuple(cycles))


def analyse_trackers(
    cluster_facts: list[FactInfo],
    entities: Mapping[int, EntityInfo],
    context: GraphContext | None,
) -> tuple[Tracker, ...]:
    """The tracking items among the facts, each with what it tracks and its state anywhere in
    the graph (open, done, ended, or unknown: nothing said of it but that it is tracked), the
    unfinished ones ranked by how many work items wait on them in the graph."""
    tracked: dict[int, dict[int, list[int]]] = defaultdict(lambda: defaultdict(list))
    owners: dict[int, dict[int, list[int]]] = defaultdict(lambda: defaultdict(list))
    for f in cluster_facts:
        if f.relation == TRACKS:
            tracked[f.source_id][f.target_id].append(f.id)
        elif f.relation == RESPONSIBLE_FOR:
            owners[f.target_id][f.source_id].append(f.id)
    def state_of(item: int) -> str:
        return context.state_of(item) if context else "open"

    found = []
    for tracker_id, items in tracked.items():
        listed = []
        for item, fact_ids in items.items():
            state = state_of(item)
            unfinished = state in ("open", "unknown")
            listed.append(TrackedItem(
                entity_id=item,
                fact_ids=_ids(fact_ids),
                open=unfinished,
                reach=len(context.reach_of(item)) if context and unfinished else 0,
                state=state,
            ))
        listed.sort(key=lambda i: (not i.open, -i.reach, _name_key(i.entity_id, entities)))
        found.append(Tracker(tracker_id, tuple(listed), parties(owners.get(tracker_id, {}),
                                                               entities)))
    found.sort(key=lambda t: (-len(t.items), _name_key(t.tracker_id, entities)))
    return tuple(found)


def strongly_connected(nodes: list[int], edges: list[tuple[int, int]]) -> dict[int, int]:
    """node → its strongly connected component (igraph; nodes and edges given sorted).

    igraph's C type directly: ``igraph.Graph()`` retries a failing ``import numpy`` on every
    call (a search of the whole import path), which cost a third of the analysis of a full run
    (6,600 small graphs), and ``connected_components()`` wraps the result in Python objects."""
    index = {node: i for i, node in enumerate(nodes)}
    graph = igraph.GraphBase(len(nodes), [(index[a], index[b]) for a, b in edges], True)
    membership = igraph.GraphBase.connected_components(graph, "strong")
    return {node: membership[index[node]] for node in nodes}


def describe_root(
    group: list[int],
    waits_on: Mapping[int, list[int]],
    waited_by: Mapping[int, list[int]],
    edge_facts: Mapping[tuple[int, int], list[int]],
    owners_of: Mapping[int, Mapping[int, list[int]]],
    entities: Mapping[int, EntityInfo],
) -> RootBlocker:
    root = set(group)
    upstream = waiting_on(root, waited_by)
    toward = root | upstream

    def dependent(node: int) -> Dependent:
        via = sorted(t for t in waits_on[node] if t in toward)
        return Dependent(
            entity_id=node,
            via=tuple(via),
            fact_ids=_ids(f for t in via for f in edge_facts[(node, t)]),
            owners=parties(owners_of.get(node, {}), entities),
        )

    def by_name(node: int) -> tuple[str, int]:
        return _name_key(node, entities)

    direct_ids = {n for n in upstream if any(t in root for t in waits_on[n])}
    direct = tuple(dependent(n) for n in sorted(direct_ids, key=by_name))
    downstream = tuple(dependent(n) for n in sorted(upstream - direct_ids, key=by_name))

    people: dict[int, list[int]] = defaultdict(list)
    for node in upstream:
        for owner, fact_ids in owners_of.get(node, {}).items():
            if _is_person(owner, entities):
                people[owner].extend(fact_ids)
    cycle_facts = [
        f for a in group for b in waits_on[a] if b in root for f in edge_facts[(a, b)]
    ]
    owners: dict[int, list[int]] = defaultdict(list)
    for member in group:
        for owner, fact_ids in owners_of.get(member, {}).items():
            owners[owner].extend(fact_ids)
    return RootBlocker(
        members=tuple(sorted(group, key=by_name)),
        owners=parties(owners, entities),
        direct=direct,
        downstream=downstream,
        people=parties(people, entities),
        cycle_fact_ids=_ids(cycle_facts),
    )


def waiting_on(targets: set[int], waited_by: Mapping[int, list[int]]) -> set[int]:
    """Everything that waits on ``targets`` directly or transitively (``targets`` excluded)."""
    seen: set[int] = set()
    frontier = list(targets)
    while frontier:
        node = frontier.pop()
        for waiting in waited_by.get(node, ()):
            if waiting not in seen and waiting not in targets:
                seen.add(waiting)
                frontier.append(waiting)
    return seen


def parties(
    fact_ids_of: Mapping[int, list[int]], entities: Mapping[int, EntityInfo]
) -> tuple[Party, ...]:
    """People first, then by name: the summaries say "Alice's API Migration"."""
    ordered = sorted(
        fact_ids_of, key=lambda e: (not _is_person(e, entities), _name_key(e, entities))
    )
    return tuple(Party(entity, _ids(fact_ids_of[entity])) for entity in ordered)


def analyse_recurrence(
    cluster_facts: list[FactInfo],
    entities: Mapping[int, EntityInfo],
    episodes: Mapping[int, EpisodeInfo],
    inside: set[int],
    window_start: datetime,
    ended: Mapping[int, datetime] | None = None,
) -> RecurringAnalysis:
    """``ended``: report fact id → when its reporter said it was resolved for them."""
    ended = ended or {}
    def episodes_of(fact: FactInfo) -> set[int]:
        return set(fact.episode_ids) & inside

    reports: dict[int, dict[int, list[FactInfo]]] = defaultdict(lambda: defaultdict(list))
    affected: dict[int, dict[int, list[int]]] = defaultdict(lambda: defaultdict(list))
    preceded: dict[int, dict[int, list[FactInfo]]] = defaultdict(lambda: defaultdict(list))
    for f in cluster_facts:
        if f.relation == REPORTED:
            reports[f.target_id][f.source_id].append(f)
        elif f.relation == AFFECTS:
            affected[f.source_id][f.target_id].append(f.id)
        elif f.relation == PRECEDED_BY:
            preceded[f.source_id][f.target_id].append(f)

    def report(reporter: int, facts_: list[FactInfo]) -> Report:
        eps = _ids(e for f in facts_ for e in episodes_of(f))
        # A fact always cites an episode of its cluster; the window start is a safe fallback.
        first = min((episodes[e].reference_time for e in eps if e in episodes),
                    default=min((f.valid_at for f in facts_ if f.valid_at), default=window_start))
        endings = [ended[f.id] for f in facts_ if f.id in ended]
        # Resolved for them only when every report of theirs ended.
        resolved = max(endings) if endings and len(endings) == len(facts_) else None
        return Report(reporter, _ids(f.id for f in facts_), eps, first, resolved)

    def event(event_id: int, facts_: list[FactInfo]) -> PrecedingEvent:
        eps = _ids(e for f in facts_ for e in episodes_of(f))
        return PrecedingEvent(event_id, _ids(f.id for f in facts_), eps)

    issues = []
    for issue in set(reports) | set(affected) | set(preceded):
        issue_reports = sorted(
            (report(r, fs) for r, fs in reports[issue].items()),
            key=lambda r: (r.first_reported, r.reporter_id),
        )
        events = sorted(
            (event(e, fs) for e, fs in preceded[issue].items()),
            key=lambda ev: (-len(ev.episode_ids), _name_key(ev.event_id, entities)),
        )
        issue_facts = [
            *(f for fs in reports[issue].values() for f in fs),
            *(f for fs in preceded[issue].values() for f in fs),
        ]
        issue_episodes = {e for f in issue_facts for e in episodes_of(f)}
        issue_episodes |= {
            e for f in cluster_facts if f.relation == AFFECTS and f.source_id == issue
            for e in episodes_of(f)
        }
        issues.append(
            IssuePattern(
                issue_id=issue,
                reports=tuple(issue_reports),
                affected=parties(affected[issue], entities),
                preceded_by=tuple(events),
                episode_ids=_ids(issue_episodes),
            )
        )
    issues.sort(
        key=lambda i: (-len(i.reports), -len(i.episode_ids), _name_key(i.issue_id, entities))
    )
    across: dict[int, list[FactInfo]] = defaultdict(list)
    for by_event in preceded.values():
        for event_id, facts_ in by_event.items():
            across[event_id].extend(facts_)
    recurring_events = sorted(
        (ev for ev in (event(e, fs) for e, fs in across.items()) if ev.recurring),
        key=lambda ev: (-len(ev.episode_ids), _name_key(ev.event_id, entities)),
    )
    return RecurringAnalysis(issues=tuple(issues), recurring_events=tuple(recurring_events))
