"""Stalled items (DESIGN §4 step 5, issue #13 item 5): an item that stays in one state for at
least N weeks. Pure: plain data in, plain data out, no ORM.

An observation is a pattern no single update states; a stalled item is the one view of a single
item the board shows (DESIGN §9, "Stalled items"): how long it has been stuck is in no update,
only in the time between them.

Contract
--------
``find_stall(item, as_of, after_weeks, unstuck_status_ids, shown) -> Stall | None``
    Whether ``item`` (an ``ItemState``: its current facts with when each began, and the updates
    that mention it) is stalled at ``as_of``, since when, and how. The states, in the order they
    are tried (the first that has lasted ``after_weeks`` weeks or more wins):

    ``blocked``
        it waits on something (current ``DEPENDS_ON`` facts; a dependency on finished work was
        settled before and is not here) — since the earliest of them began. An item waiting
        in a dependency chain (one of its dependencies in ``shown``) is the chain's to show,
        whatever its state: it is never stalled.
    ``status``
        its one current status began that long ago ("in review since 16 Nov", "in status NEW
        since 20 Jul 2008").
    ``reported``
        it has no status, and is still reported (current ``REPORTED`` facts) since the first of
        them began: a ticket nobody moved. Not when a pattern shows its reports (a recurring
        issue says who reports it and since when).
    ``agenda``
        nothing says what state it is in (no status, dependency or report), but updates mention
        it in ``after_weeks`` distinct weeks or more of the last ``AGENDA_WEEKS``, the first
        ``after_weeks`` weeks ago or more and the latest within ``after_weeks`` weeks of
        ``as_of``: still on the agenda.

    An item in a status that is not stuck (``unstuck_status_ids``: done, ended, on track) is
    never stalled.
``find_stalls(items, as_of, after_weeks, unstuck_status_ids, shown) -> tuple[Stall, ...]``
    The stalled ones, by item id.
``one_stall_per_evidence(stalls, preferred) -> tuple[Stall, ...]``
    Stalls found from the very same updates made one (the ticket's, naming the problem).
``stalls_to_show(stalls, shown, after_weeks, preferred=, trackers=) -> (own, within)``
    The stalls shown as observations of their own, and the quiet ones a published pattern
    holds (a quiet tracker's own stall among them when its tracking is shown).
``held_by_patterns(clusters, stalls) -> {cluster key: stalls}``
    Which pattern holds each of the quiet stalls ``within`` a pattern, oldest first: the
    pattern shows them ("Bug 446261 has been in status NEW since 20 Jul 2008", README,
    "Stalled items").
``held_key(stall_dict) -> tuple``
    What identifies a held stall as stored (item, state, since, others, facts): a pattern
    whose held stalls changed is written again (``memory.pipeline.held_stalls``).
``with_held_stalls(structure, stalls) -> Structure``
    The pattern's structure with the stalls it holds, which its summary, card, page, the
    weekly review and the export show.
``stall_cluster(stall) -> Cluster``
    The stall as a cluster of its own evidence, anchored on the item (``Cluster.anchor``): the
    run reconciles it with the item's earlier stall (``memory.engine.lifecycle``), so it is
    regenerated when its evidence changes and retired (``evidence_ended``) when the item moves
    on.
``stall_structure(stall, cluster, entities, episodes) -> Structure``
    What the observation stores: the ``stalled`` kind with the stall.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Set
from dataclasses import dataclass, replace
from datetime import datetime, timedelta
from typing import Any, NamedTuple

from memory.engine.item_priority import urgency
from memory.engine.structure import (
    DEPENDS_ON,
    HAS_STATUS,
    PERSON,
    REPORTED,
    TRACKS,
    Structure,
)
from memory.engine.types import Cluster, EntityInfo, EpisodeInfo

STALLED = "stalled"
BLOCKED = "blocked"
STATUS = "status"
REPORTED_STATE = "reported"
AGENDA = "agenda"
STATES = (BLOCKED, STATUS, REPORTED_STATE, AGENDA)
WORK_ITEM = "WorkItem"
"""A tracker's item (a ticket, a bug): it has an address; a problem read from messages is an
``Issue``."""

DEFAULT_AFTER_WEEKS = 3
"""The graph setting ``stalled_after_weeks``'s default."""
AGENDA_WEEKS = 52
"""How many weeks back "on the agenda in k of the last n weeks" counts at most."""
WEEK = timedelta(weeks=1)


class StateFact(NamedTuple):
    """A current fact that puts an item in a state, with when it began (``valid_at``)."""

    fact_id: int
    other_id: int
    """The status, the item waited on, or the reporter."""
    valid_at: datetime
    episode_ids: tuple[int, ...]


class Mention(NamedTuple):
    """An update stating current facts about the item."""

    episode_id: int
    reference_time: datetime
    fact_ids: tuple[int, ...]


@dataclass(frozen=True, slots=True)
class ItemState:
    item_id: int
    statuses: tuple[StateFact, ...] = ()
    dependencies: tuple[StateFact, ...] = ()
    """What it waits on (it is the source of these ``DEPENDS_ON`` facts)."""
    reports: tuple[StateFact, ...] = ()
    """Who reports it (it is the target of these ``REPORTED`` facts)."""
    mentions: tuple[Mention, ...] = ()


@dataclass(frozen=True, slots=True)
class Stall:
    item_id: int
    state: str
    """One of ``STATES``."""
    since: datetime
    """When the state began (for ``agenda``: the first counted mention)."""
    as_of: datetime
    """When it was found stalled: the run's time."""
    fact_ids: tuple[int, ...]
    """The facts showing the state: its evidence."""
    episode_ids: tuple[int, ...]
    """The updates stating them."""
    other_ids: tuple[int, ...] = ()
    """The status (``status``), what it waits on (``blocked``) or its reporters
    (``reported``)."""
    weeks_mentioned: int = 0
    """``agenda``: the distinct weeks with a mention among the last ``weeks_counted``."""
    weeks_counted: int = 0
    last_said: datetime | None = None
    """When an update last stated it (the latest of ``episode_ids``), where known: a stall
    nobody has restated for ``after_weeks`` weeks has gone quiet (``is_quiet``)."""
    also_ids: tuple[int, ...] = ()
    """Other items whose stalls had the same updates as evidence (``one_stall_per_evidence``):
    the problem a support message reports with its ticket ("bitwarden/clients#9262 reports
    Login Failures"), named inside this one."""
    priority: str = ""
    """The item's priority in its tracker ("P1"), where its importer kept it (``EntityInfo``):
    set when its observation is written (``stall_structure``), not when it is found."""
    labels: tuple[str, ...] = ()
    """The item's labels, keywords and milestone in its tracker, likewise: what tells forty
    stalled issues of one week apart ("priority-critical", "milestone needsdiagnosis")."""

    @property
    def weeks(self) -> int:
        """Whole weeks in the state at ``as_of``."""
        return weeks_between(self.since, self.as_of)

    def as_dict(self) -> dict[str, Any]:
        return {
            "item": self.item_id,
            "state": self.state,
            "since": self.since.isoformat(),
            "as_of": self.as_of.isoformat(),
            "weeks": self.weeks,
            "facts": list(self.fact_ids),
            "episodes": list(self.episode_ids),
            "others": list(self.other_ids),
            "weeks_mentioned": self.weeks_mentioned,
            "weeks_counted": self.weeks_counted,
            "last_said": self.last_said.isoformat() if self.last_said else None,
            "also": list(self.also_ids),
            "priority": self.priority,
            "labels": list(self.labels),
            # (priority rank, severity rank) from those: what the board sorts stalled cards by
            # in the database (``memory.engine.item_priority.urgency``).
            "urgency": list(urgency(self.priority, self.labels)),
        }


def weeks_between(start: datetime, end: datetime) -> int:
    return max((end - start) // WEEK, 0)


def _ids(values: Iterable[int]) -> tuple[int, ...]:
    return tuple(sorted(set(values)))


def find_stall(
    item: ItemState, as_of: datetime, after_weeks: int, unstuck_status_ids: Set[int],
    shown: Set[int] = frozenset(),
) -> Stall | None:
    """``shown``: the facts the run's patterns show. An item waiting in a dependency chain is the
    chain's to show — it says what the item waits on and since when — so it is not stalled too;
    the root it waits on may be (DESIGN §9, "Stalled items")."""
    if any(status.other_id in unstuck_status_ids for status in item.statuses):
        return None  # done, ended without being done, or on track: nothing is stuck
    if any(f.fact_id in shown for f in item.dependencies):
        return None
    after_weeks = max(int(after_weeks), 1)
    lasted = as_of - after_weeks * WEEK

    def stall(state: str, facts: Iterable[StateFact]) -> Stall:
        chosen = sorted(facts, key=lambda f: (f.valid_at, f.fact_id))
        return Stall(
            item_id=item.item_id, state=state, since=chosen[0].valid_at, as_of=as_of,
            fact_ids=_ids(f.fact_id for f in chosen),
            episode_ids=_ids(e for f in chosen for e in f.episode_ids),
            other_ids=_ids(f.other_id for f in chosen),
        )

    holding = [f for f in item.dependencies if f.valid_at <= as_of]
    if holding and min(f.valid_at for f in holding) <= lasted:
        return stall(BLOCKED, holding)
    statuses = [f for f in item.statuses if f.valid_at <= as_of]
    if statuses:
        # Single-valued: normally one. Two current ones (said at once) — the latest counts.
        latest = max(statuses, key=lambda f: (f.valid_at, f.fact_id))
        if latest.valid_at <= lasted:
            return stall(STATUS, [latest])
    reports = [f for f in item.reports if f.valid_at <= as_of]
    if statuses or holding:
        return None
    if reports:
        if min(f.valid_at for f in reports) <= lasted and not any(
                f.fact_id in shown for f in reports):
            return stall(REPORTED_STATE, reports)
        return None
    return _on_the_agenda(item, as_of, after_weeks)


def _on_the_agenda(item: ItemState, as_of: datetime, after_weeks: int) -> Stall | None:
    """Mentioned in ``after_weeks`` distinct weeks or more of the last ``AGENDA_WEEKS``, the
    first ``after_weeks`` weeks ago or more (it has lasted), the latest within ``after_weeks``
    weeks (it is still there). Weeks are counted back from ``as_of`` (week 0 is the
    seven days up to it), so the count does not depend on where a calendar week starts."""
    counted = [m for m in item.mentions
               if m.reference_time <= as_of and weeks_between(m.reference_time, as_of)
               < AGENDA_WEEKS]
    if not counted:
        return None
    weeks = {weeks_between(m.reference_time, as_of) for m in counted}
    if len(weeks) < after_weeks or min(weeks) >= after_weeks or max(weeks) < after_weeks:
        return None
    first = min(counted, key=lambda m: (m.reference_time, m.episode_id))
    return Stall(
        item_id=item.item_id, state=AGENDA, since=first.reference_time, as_of=as_of,
        fact_ids=_ids(f for m in counted for f in m.fact_ids),
        episode_ids=_ids(m.episode_id for m in counted),
        weeks_mentioned=len(weeks), weeks_counted=max(weeks) + 1,
    )


def find_stalls(
    items: Iterable[ItemState], as_of: datetime, after_weeks: int, unstuck_status_ids: Set[int],
    shown: Set[int] = frozenset(),
) -> tuple[Stall, ...]:
    found = (find_stall(item, as_of, after_weeks, unstuck_status_ids, shown) for item in items)
    return tuple(sorted((s for s in found if s is not None), key=lambda s: s.item_id))


def is_quiet(stall: Stall, after_weeks: int) -> bool:
    """Nobody has stated the state for ``after_weeks`` weeks: it is only known from the updates
    that said it then (a workstream whose updates stopped, not an item someone keeps
    reporting stuck)."""
    return stall.last_said is not None and stall.last_said <= stall.as_of - max(
        int(after_weeks), 1) * WEEK


def one_stall_per_evidence(
    stalls: Iterable[Stall], preferred: Set[int] = frozenset()
) -> tuple[Stall, ...]:
    """One stall per set of updates: stalls found from the very same updates (one message that
    reports a problem and names its ticket makes a ``reported`` stall of each) are one stall,
    the one of the item in ``preferred`` (the work item: the ticket, which has the address),
    else of the smallest item id, holding the others' facts and naming their items
    (``Stall.also_ids``). Two views never share their evidence (the lifecycle's contract);
    the result is by item id, whatever the order of ``stalls``."""
    groups: dict[tuple[int, ...], list[Stall]] = {}
    for stall in sorted(stalls, key=lambda s: s.item_id):
        groups.setdefault(stall.episode_ids or (-stall.item_id,), []).append(stall)
    kept: list[Stall] = []
    for group in groups.values():
        if len(group) == 1:
            kept.append(group[0])
            continue
        first = min(group, key=lambda s: (s.item_id not in preferred, s.item_id))
        others = [s for s in group if s is not first]
        kept.append(replace(
            first,
            fact_ids=_ids(f for s in group for f in s.fact_ids),
            other_ids=_ids((*first.other_ids, *(o for s in others
                                                 if s.state == first.state
                                                 for o in s.other_ids))),
            also_ids=_ids((*first.also_ids, *(s.item_id for s in others),
                           *(a for s in others for a in s.also_ids))),
        ))
    return tuple(sorted(kept, key=lambda s: s.item_id))


def tracking_facts(
    rows: Iterable[tuple[int, int, int, str, int]], shown: Set[int]
) -> dict[int, frozenset[int]]:
    """Item → the ``TRACKS`` facts it is the source of that a pattern shows: a tracker whose
    tracking is a published pattern ("Bug 447581 “… [meta]” tracking 102 items")."""
    found: dict[int, set[int]] = {}
    for _episode, fact, source, relation, _target in rows:
        if relation == TRACKS and fact in shown:
            found.setdefault(source, set()).add(fact)
    return {item: frozenset(facts) for item, facts in found.items()}


def stalls_to_show(
    stalls: Iterable[Stall], shown: Set[int], after_weeks: int, *,
    preferred: Set[int] = frozenset(), trackers: Mapping[int, Set[int]] | None = None,
) -> tuple[tuple[Stall, ...], tuple[Stall, ...]]:
    """(the stalls shown as observations of their own, the stalls shown within a pattern).

    Stalls found from the same updates are one first (``one_stall_per_evidence``, the item in
    ``preferred`` kept). A stall that has gone quiet (``is_quiet``) and whose every fact is
    already a published pattern's evidence is the pattern's to show: the pattern holds the item
    and the update that last said its state, and its window says how long ago that was. So is
    a quiet stall of a tracker whose tracking a pattern shows (``trackers``, from
    ``tracking_facts``): a "[meta]" bug stays NEW by design, and its tracker card says it, as
    it does of trackers whose status is among its evidence. A stall someone keeps restating,
    or that no pattern holds (a tracker's item alone, "in status NEW since 2008"), is an
    observation of its own."""
    trackers = trackers or {}
    own: list[Stall] = []
    within: list[Stall] = []
    for stall in one_stall_per_evidence(stalls, preferred):
        if is_quiet(stall, after_weeks) and (
                stall.item_id in trackers or all(f in shown for f in stall.fact_ids)):
            within.append(stall)
        else:
            own.append(stall)
    return tuple(own), tuple(within)


def held_by_patterns(
    clusters: Iterable[Cluster], stalls: Iterable[Stall],
    trackers: Mapping[int, Set[int]] | None = None,
) -> dict[int, tuple[Stall, ...]]:
    """Cluster key → the stalls it holds, oldest first (by ``since``, then item id). Each stall
    is held by the one cluster holding most of its facts (the smallest key on a tie): a quiet
    stall's facts are all some pattern's evidence, nearly always one pattern's. A tracker's
    stall counts its shown ``TRACKS`` facts (``trackers``) too: its tracker card holds it."""
    stalls = tuple(stalls)
    if not stalls:
        return {}
    trackers = trackers or {}

    def counted(stall: Stall) -> tuple[int, ...]:
        return (*stall.fact_ids, *sorted(trackers.get(stall.item_id, ())))

    wanted = {f for stall in stalls for f in counted(stall)}
    holder: dict[int, int] = {}
    for cluster in sorted(clusters, key=lambda c: c.key, reverse=True):  # smallest key last
        for fact in wanted.intersection(cluster.fact_ids):  # C's loop: ~0.5 M facts a run
            holder[fact] = cluster.key
    held: dict[int, list[Stall]] = {}
    for stall in sorted(stalls, key=lambda s: (s.since, s.item_id)):
        counts: dict[int, int] = {}
        for fact in counted(stall):
            if fact in holder:
                counts[holder[fact]] = counts.get(holder[fact], 0) + 1
        if counts:
            key = min(counts, key=lambda k: (-counts[k], k))
            held.setdefault(key, []).append(stall)
    return {key: tuple(found) for key, found in held.items()}


def held_key(stall: Mapping[str, Any]) -> tuple[Any, ...]:
    """What identifies a held stall in a stored structure (``Stall.as_dict()``): the item, its
    state, since when and through which facts — not the run that found it, nor its weeks."""
    return (int(stall["item"]), stall["state"], stall["since"],
            tuple(stall.get("others") or ()), tuple(stall.get("facts") or ()))


def with_held_stalls(structure: Structure, stalls: tuple[Stall, ...] | None) -> Structure:
    """The pattern's structure with the quiet stalls it holds (``Structure.held_stalls``)."""
    return replace(structure, held_stalls=stalls) if stalls else structure


def stall_cluster(stall: Stall) -> Cluster:
    return Cluster(episode_ids=stall.episode_ids, fact_ids=stall.fact_ids, links=(),
                   anchor=stall.item_id)


def stall_structure(
    stall: Stall,
    cluster: Cluster,
    entities: Mapping[int, EntityInfo],
    episodes: Mapping[int, EpisodeInfo],
) -> Structure:
    """The ``stalled`` kind: the item, what keeps it there, and the updates that show it."""
    entity_ids = _ids((stall.item_id, *stall.other_ids, *stall.also_ids))
    times = [episodes[e].reference_time for e in cluster.episode_ids if e in episodes]
    if (item := entities.get(stall.item_id)) is not None and (item.priority or item.labels):
        stall = replace(stall, priority=item.priority, labels=tuple(item.labels))
    return Structure(
        kind=STALLED,
        entity_ids=entity_ids,
        people=tuple(e for e in entity_ids
                     if (entity := entities.get(e)) is not None and entity.type == PERSON),
        episode_ids=cluster.episode_ids,
        fact_ids=cluster.fact_ids,
        window_start=min(times, default=stall.since),
        window_end=max(times, default=stall.since),
        links=(),
        stalled=stall,
    )


def item_states(
    rows: Iterable[tuple[int, int, int, str, int]],
    valid_at: Mapping[int, datetime],
    items: Set[int],
    reference_times: Mapping[int, datetime] | None = None,
) -> list[ItemState]:
    """Each of ``items``' state from the run's ``(episode, fact, source, relation, target)``
    rows: its statuses and dependencies (it is their source), who reports it (it is their
    target), each with when it began (``valid_at``: fact id → start); and, with
    ``reference_times`` (episode id → when it was written), the updates mentioning it."""
    facts: dict[int, dict[str, dict[int, tuple[int, list[int]]]]] = {
        item: {HAS_STATUS: {}, DEPENDS_ON: {}, REPORTED: {}} for item in items}
    mentions: dict[int, dict[int, set[int]]] = {item: {} for item in items}
    for episode, fact, source, relation, target in rows:
        if relation in (HAS_STATUS, DEPENDS_ON) and source in items:
            facts[source][relation].setdefault(fact, (target, []))[1].append(episode)
        elif relation == REPORTED and target in items:
            facts[target][relation].setdefault(fact, (source, []))[1].append(episode)
        if reference_times is not None:
            for end in (source, target):
                if end in items and episode in reference_times:
                    mentions[end].setdefault(episode, set()).add(fact)

    def state_facts(item: int, relation: str) -> tuple[StateFact, ...]:
        return tuple(
            StateFact(fact, other, valid_at[fact], _ids(episodes))
            for fact, (other, episodes) in sorted(facts[item][relation].items())
            if fact in valid_at
        )

    return [
        ItemState(
            item_id=item,
            statuses=state_facts(item, HAS_STATUS),
            dependencies=state_facts(item, DEPENDS_ON),
            reports=state_facts(item, REPORTED),
            mentions=tuple(
                Mention(episode, reference_times[episode], _ids(found))
                for episode, found in sorted(mentions[item].items())
            ) if reference_times is not None else (),
        )
        for item in sorted(items)
    ]
