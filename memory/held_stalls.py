"""Patterns whose quiet stalls changed, written again (issue #13 item 5; README, "Stalled
items").

A quiet stall inside a published pattern is that pattern's to show (``Structure.held_stalls``).
It usually goes quiet *after* its pattern was written: the pattern's updates stopped, and
``stalled_after_weeks`` later the item is found stalled with nobody restating it. The pattern's
evidence has not changed, so reconciliation keeps it as it is (untouched, or restated); what it
holds has. Such a pattern is written again as the next version of its lineage over the same
cluster, superseding the old one, the way a pending stand-in is (``pipeline.pending_retries``).

Contract
--------
``held_stall_rewrites(decisions, held, skip) -> [(Created, Retired)]``
    For the observations reconciliation kept (untouched ones whose cluster holds stalls now,
    and every restated one), those whose stored held stalls (``held_key``) differ from the
    ones their cluster holds in this run: each as the next version of its lineage, and the
    retirement (``superseded``) of the version it replaces. One query, reading only the
    ``held_stalls`` of the observations' structures. ``skip``: cluster keys already written
    again (the pending retries).
"""

from __future__ import annotations

from collections.abc import Mapping, Set

from memory.engine.lifecycle import SUPERSEDED, Created, Reconciliation, Retired
from memory.engine.stalled import Stall, held_key
from memory.models import Observation


def held_stall_rewrites(
    decisions: Reconciliation, held: Mapping[int, tuple[Stall, ...]],
    skip: Set[int] = frozenset(),
) -> list[tuple[Created, Retired]]:
    by_id = {u.observation_id: u.cluster_key for u in decisions.untouched
             if u.cluster_key in held}
    by_id.update({r.observation_id: r.cluster_key for r in decisions.restated})
    by_id = {pk: key for pk, key in by_id.items() if key not in skip}
    if not by_id:
        return []
    rows = Observation.objects.filter(
        pk__in=list(by_id), status=Observation.Status.ACTIVE
    ).values_list("pk", "lineage", "version", "structure__held_stalls")
    rewrites = []
    for pk, lineage, version, stored in sorted(rows, key=lambda row: row[0]):
        key = by_id[pk]
        now = {held_key(stall.as_dict()) for stall in held.get(key, ())}
        if {held_key(stall) for stall in stored or []} == now:
            continue
        rewrites.append((
            Created(cluster_key=key, lineage=lineage, version=version + 1, predecessor_ids=(pk,)),
            Retired(observation_id=pk, reason=SUPERSEDED, successor_keys=(key,),
                    closed_fact_ids=(), dropped_episode_ids=(), out_of_window_episode_ids=()),
        ))
    return rewrites
