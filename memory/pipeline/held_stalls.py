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
``held_stall_rewrites(run, decisions, held, after_weeks, skip) -> [(Created, Retired)]``
    Among the observations reconciliation kept as they are, those whose stored held stalls
    (``held_key``) differ from the ones their cluster holds in this run: each as the next
    version of its lineage, and the retirement (``superseded``) of the version it replaces.
    Looked at: every restated one, and the untouched ones holding a stall that crossed its
    threshold (went quiet, or lasted ``after_weeks``) since the graph's last run of now
    started — for an untouched pattern (same evidence) only time changes what it holds — or
    all of them after a run with another threshold or one from before held stalls. One query
    for when the last run started, one for the candidates reading only the ``held_stalls`` of
    their structures (none when there are none). ``skip``: cluster keys already written again
    (the pending retries).

Not looked at: an untouched pattern whose stall stopped being quiet because an update outside
it restated the item (the item is a card again; the pattern lists it until its next version).
"""

from __future__ import annotations

from collections.abc import Mapping, Set
from datetime import datetime

from memory.engine.lifecycle import SUPERSEDED, Created, Reconciliation, Retired
from memory.engine.stalled import WEEK, Stall, held_key
from memory.models import Observation, PipelineRun


def held_stall_rewrites(
    run: PipelineRun, decisions: Reconciliation, held: Mapping[int, tuple[Stall, ...]],
    after_weeks: int, skip: Set[int] = frozenset(),
) -> list[tuple[Created, Retired]]:
    candidates = {u.observation_id: u.cluster_key for u in decisions.untouched
                  if u.cluster_key in held}
    if candidates and run.as_of is None:
        since = last_run_started(run, after_weeks)
        candidates = {pk: key for pk, key in candidates.items()
                      if any(crossed_after(stall, since, after_weeks) for stall in held[key])}
    candidates.update({r.observation_id: r.cluster_key for r in decisions.restated})
    candidates = {pk: key for pk, key in candidates.items() if key not in skip}
    if not candidates:
        return []
    rows = Observation.objects.filter(
        pk__in=list(candidates), status=Observation.Status.ACTIVE
    ).values_list("pk", "lineage", "version", "structure__held_stalls")
    rewrites = []
    for pk, lineage, version, stored in sorted(rows, key=lambda row: row[0]):
        key = candidates[pk]
        now = {held_key(stall.as_dict()) for stall in held.get(key, ())}
        if {held_key(stall) for stall in stored or []} == now:
            continue
        rewrites.append((
            Created(cluster_key=key, lineage=lineage, version=version + 1, predecessor_ids=(pk,)),
            Retired(observation_id=pk, reason=SUPERSEDED, successor_keys=(key,),
                    closed_fact_ids=(), dropped_episode_ids=(), out_of_window_episode_ids=()),
        ))
    return rewrites


def crossed_after(stall: Stall, since: datetime | None, after_weeks: int) -> bool:
    """Whether the stall became one a pattern holds after ``since``: it lasted ``after_weeks``
    weeks, and went quiet, no earlier than that (``None``: no run before, so it may have)."""
    if since is None:
        return True
    began = max(stall.since, stall.last_said or stall.since)
    return began + max(int(after_weeks), 1) * WEEK > since


def last_run_started(run: PipelineRun, after_weeks: int) -> datetime | None:
    """When the graph's last successful run of now before ``run`` started; ``None`` when there
    was none, it ran with another threshold (what is stalled changed all at once), or it
    predates held stalls (its counts have no ``rewritten_for_stalls``: its patterns were
    written without them) or trackers' own stalls held by their tracker patterns (no
    ``stalled_trackers_held``: a [meta] bug's stall was a card of its own then)."""
    last = PipelineRun.objects.filter(
        graph_id=run.graph_id, status=PipelineRun.Status.SUCCEEDED, as_of__isnull=True,
    ).exclude(pk=run.pk).order_by("-started_at").values_list(
        "started_at", "settings", "counts").first()
    if last is None:
        return None
    started, settings, counts = last
    if int((settings or {}).get("stalled_after_weeks") or 0) != after_weeks or not {
            "rewritten_for_stalls", "stalled_trackers_held"} <= (counts or {}).keys():
        return None
    return started
