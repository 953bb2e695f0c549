"""A pipeline run over one graph (DESIGN §4 steps 4–8):

    load → cluster → reconcile → analyse → summarize → publish

Only clusters whose evidence changed are analysed and summarized: an unchanged cluster keeps its
observation untouched, with no model call. Everything computed before ``publish`` is plain data;
``publish`` writes it in one transaction (``memory.publishing``).

Never two runs of one graph at once: a run holds the graph while its row is ``running`` (a partial
unique constraint, so the lock works the same on SQLite and PostgreSQL). A run whose heartbeat
stops — its worker died — is marked abandoned by the next ``start_run`` or by the sweep.

Beside the run, one module each for what only the run uses:

- ``incremental``: what a run leaves in its process for the next run of the same graph (its rows,
  its clustering, its stalled-item inputs), so that one works in proportion to what changed;
- ``held_stalls``: the patterns kept as they are whose quiet stalls changed, written again.
"""

from __future__ import annotations

import logging
import time
import traceback
from collections.abc import Iterator
from contextlib import contextmanager, nullcontext
from datetime import datetime, timedelta
from typing import Any

from django.conf import settings
from django.contrib.auth.models import User
from django.db import IntegrityError, transaction
from django.db.models import Max, Q
from django.utils import timezone

from memory.engine.clustering import ClusteringSettings, cluster_episodes, paused_gc
from memory.engine.context import (
    build_context,
    extend_clusters,
    is_item_history,
    settle_dependencies,
)
from memory.engine.lifecycle import (
    SUPERSEDED,
    Created,
    Reconciliation,
    Retired,
    combine,
    reconcile,
    reconcile_views,
)
from memory.engine.stalled import (
    STALLED,
    held_by_patterns,
    stall_cluster,
    stall_structure,
    stalls_to_show,
    tracking_facts,
    with_held_stalls,
)
from memory.engine.stalled_memo import StallMemo
from memory.engine.structure import analyse_cluster
from memory.graph_settings import graph_settings, ontology_for
from memory.llm import Breaker, llm_enabled
from memory.models import Episode, Graph, Observation, PipelineRun
from memory.pipeline.held_stalls import held_stall_rewrites
from memory.pipeline.incremental import (
    changes_since_last_run,
    cluster_changes,
    remember_run,
    stall_inputs,
    touched_stall_items,
)
from memory.publishing import ObservationDraft, publish_run
from memory.snapshot import (
    completion_status_ids,
    ended_status_ids,
    find_stalled_items,
    load_active_observations,
    load_details,
    load_ended_reports,
    load_snapshot,
    load_stall_anchors,
    load_stalled_items_memo,
    load_titles,
    load_work_item_ids,
    on_track_status_ids,
    stall_kind_ids,
    with_chain_dependencies,
)
from memory.spend import Budget
from memory.summarize import ClusterEvidence, batch_size, summarize_clusters

logger = logging.getLogger(__name__)

STAGES = ("load", "cluster", "reconcile", "analyse", "summarize", "publish")
HEARTBEAT_SECONDS = 5.0
"""At most this long between two progress writes while summarizing (the heartbeat)."""


def run_stale_seconds() -> float:
    """A running run whose heartbeat is older than this lost its worker."""
    return float(getattr(settings, "PIPELINE_RUN_STALE_SECONDS", 600))


class RunProgress:
    """Writes a run's stage-by-stage progress (for the progress bar) and its heartbeat."""

    def __init__(self, run: PipelineRun) -> None:
        self.run = run
        self.stages: list[dict[str, Any]] = [
            {"name": name, "status": "pending", "done": 0, "total": 0} for name in STAGES
        ]
        self.timings: dict[str, float] = {}
        self.last_beat = time.monotonic()

    @contextmanager
    def stage(self, name: str, total: int = 1) -> Iterator[RunProgress]:
        entry = next(s for s in self.stages if s["name"] == name)
        entry.update(status="running", total=total, done=0)
        self._save(stage=name)
        started = time.perf_counter()
        yield self
        self.timings[name] = round(time.perf_counter() - started, 4)
        entry.update(status="done", done=entry["total"], seconds=self.timings[name])
        self._save(stage=name)

    def set_total(self, name: str, total: int) -> None:
        next(s for s in self.stages if s["name"] == name)["total"] = total

    def advance(self, name: str, done: int) -> None:
        next(s for s in self.stages if s["name"] == name)["done"] = done
        self._save(stage=name)

    @property
    def percent(self) -> int:
        finished = sum(1 for s in self.stages if s["status"] == "done")
        running = next((s for s in self.stages if s["status"] == "running"), None)
        partial = running["done"] / running["total"] if running and running["total"] else 0
        return int(100 * (finished + partial) / len(self.stages))

    def _save(self, *, stage: str) -> None:
        self.last_beat = time.monotonic()
        PipelineRun.objects.filter(pk=self.run.pk).update(
            stage=stage,
            progress={"percent": self.percent, "stages": self.stages},
            timings=self.timings,
            heartbeat_at=timezone.now(),
        )


# --- Starting and locking ------------------------------------------------------------------


def abandon_stale_runs(graph_id: int | None = None, *, now: datetime | None = None) -> int:
    """Mark runs whose worker died as abandoned, which frees their graph."""
    now = now or timezone.now()
    stale = now - timedelta(seconds=run_stale_seconds())
    runs = PipelineRun.objects.filter(status=PipelineRun.Status.RUNNING).filter(
        Q(heartbeat_at__lt=stale) | Q(heartbeat_at__isnull=True, started_at__lt=stale)
    )
    if graph_id is not None:
        runs = runs.filter(graph_id=graph_id)
    return runs.update(
        status=PipelineRun.Status.ABANDONED,
        finished_at=now,
        error="abandoned: its worker stopped sending heartbeats",
    )


def request_run(
    graph: Graph,
    *,
    trigger: str = PipelineRun.Trigger.MANUAL,
    user: User | None = None,
    as_of: datetime | None = None,
) -> PipelineRun:
    """A queued run for the graph (an existing queued one is reused): what the pages, the API and
    the scheduler create before a worker takes it. Requests made at the same moment get the same
    run (the database keeps one queued run per graph and as-of time)."""
    queued = PipelineRun.objects.filter(graph=graph, status=PipelineRun.Status.QUEUED,
                                        as_of=as_of)
    existing = queued.first()
    if existing is not None:
        return existing
    try:
        with transaction.atomic():
            return PipelineRun.objects.create(
                graph=graph, trigger=trigger, requested_by=user, as_of=as_of,
                settings=graph_settings(graph),
            )
    except IntegrityError:
        # Another request queued it between our look-up and our insert.
        existing = queued.first()
        if existing is None:  # pragma: no cover - and a worker took it in between
            raise
        return existing


def claim_run(run: PipelineRun) -> bool:
    """queued → running, unless another run of the graph is running (the lock)."""
    abandon_stale_runs(run.graph_id)
    now = timezone.now()
    try:
        with transaction.atomic():
            claimed = PipelineRun.objects.filter(
                pk=run.pk, status=PipelineRun.Status.QUEUED
            ).update(status=PipelineRun.Status.RUNNING, started_at=now, heartbeat_at=now)
    except IntegrityError:
        return False
    if claimed:
        run.refresh_from_db()
    return bool(claimed)


def run_pipeline(
    graph: Graph,
    *,
    trigger: str = PipelineRun.Trigger.COMMAND,
    as_of: datetime | None = None,
    user: User | None = None,
) -> PipelineRun | None:
    """Run the pipeline now, in this process (a run already queued for the graph is taken).
    ``None`` when another run holds the graph — and then nothing is left queued behind it for
    nobody to run: whoever runs the graph next sees what changed."""
    queued = PipelineRun.objects.filter(graph=graph, status=PipelineRun.Status.QUEUED,
                                        as_of=as_of).first()
    if queued is not None:
        return execute_run(queued) if claim_run(queued) else None
    abandon_stale_runs(graph.pk)
    now = timezone.now()
    try:
        with transaction.atomic():
            run = PipelineRun.objects.create(
                graph=graph, trigger=trigger, requested_by=user, as_of=as_of,
                settings=graph_settings(graph), status=PipelineRun.Status.RUNNING,
                started_at=now, heartbeat_at=now,
            )
    except IntegrityError:  # the graph is held by another run
        return None
    return execute_run(run)


# --- The run -------------------------------------------------------------------------------


def execute_run(run: PipelineRun) -> PipelineRun:
    """Run the stages of a claimed run. A failure marks the run failed and publishes nothing."""
    progress = RunProgress(run)
    try:
        _execute(run, progress)
    except Exception as exc:
        logger.exception("pipeline run %s failed", run.uuid)
        PipelineRun.objects.filter(pk=run.pk).update(
            status=PipelineRun.Status.FAILED,
            finished_at=timezone.now(),
            error=f"{type(exc).__name__}: {exc}\n{traceback.format_exc(limit=8)}"[:8000],
        )
    run.refresh_from_db()
    return run


def _execute(run: PipelineRun, progress: RunProgress) -> None:
    graph = run.graph
    options = {**graph_settings(graph), **(run.settings or {})}
    clustering_settings = ClusteringSettings.from_mapping(options)
    ontology = ontology_for(graph)
    linking = ontology.linking()
    is_now = run.as_of is None
    as_of = run.as_of or timezone.now()
    with_model = llm_enabled()

    # The cyclic GC is paused in the stages that allocate hundreds of thousands of tuples and no
    # cycles (its rescans of the growing heap cost a third of the loading); not while a model
    # summarizes, which may make thousands of HTTP calls.
    with progress.stage("load"), paused_gc():
        data_version = Graph.objects.values_list("data_version", flat=True).get(pk=graph.pk)
        snapshot = load_snapshot(graph, as_of=as_of, window_days=options.get("window_days"),
                                 is_now=is_now)
        # A dependency on finished work holds nothing up, whether or not a resolution rule
        # closed it: structure never names a done item a root blocker.
        settled = settle_dependencies(snapshot.rows, completion_status_ids(graph, ontology))
        ended_reports = load_ended_reports(graph, as_of=as_of, is_now=is_now)
        ended_statuses = ended_status_ids(graph, ontology)

    with progress.stage("cluster"), paused_gc():
        # After a run of the graph in this process: only the components its changes touch
        # (memory.pipeline.incremental); a run as of another time clusters everything.
        changes = changes_since_last_run(graph.pk, settled.rows) if is_now else None
        if changes is not None:
            clustering, changes = cluster_changes(changes, settled.rows, linking,
                                                  snapshot.episode_authors, clustering_settings)
        else:
            clustering = cluster_episodes(settled.rows, linking, snapshot.episode_authors,
                                          clustering_settings)
        # The graph around the clusters: chains followed beyond their own updates (owners,
        # upstream, what trackers track, reports customers ended) become their evidence.
        context = build_context(settled.rows, clustering.suppressed_fact_ids, settled.done,
                                ended_reports, ended_statuses)
        # One item's own history is what its tracker shows, not a pattern across updates.
        found = tuple(cluster for cluster in extend_clusters(clustering.clusters, context)
                      if not is_item_history(cluster, context))
        # Stalled items: one view per item that stayed in one state for N weeks (DESIGN §9).
        after_weeks = int(options.get("stalled_after_weeks") or 0)
        unstuck = (completion_status_ids(graph, ontology) | ended_statuses
                   | on_track_status_ids(graph))
        # What a pattern shows already ("waits on … since 9 Dec 2019") is not said twice.
        shown = {f for cluster in found for f in cluster.fact_ids} if after_weeks > 0 else set()
        # Only the items whose inputs changed since the last run, or whose moment came, are
        # examined again (memory.engine.stalled_memo); the others keep what it found.
        stalled_memo: StallMemo | None = None
        examined = 0
        if after_weeks > 0:
            kinds = stall_kind_ids(graph)
            memo = load_stalled_items_memo(graph) if is_now else None
            stalled_memo, examined = find_stalled_items(
                graph, settled.rows, after_weeks=after_weeks, as_of=as_of,
                boilerplate=clustering.suppressed_fact_ids, shown=shown,
                unstuck_status_ids=unstuck, memo=memo, kinds=kinds,
                touched=touched_stall_items(
                    changes, settled.rows, memo, kinds=kinds, unstuck=unstuck,
                    boilerplate=clustering.suppressed_fact_ids, shown=shown)
                if changes is not None else None,
            )
        if changes is not None:
            remember_run(graph.pk, changes, clustering, stall_inputs(
                stalled_memo, kinds=kinds, unstuck=unstuck,
                boilerplate=clustering.suppressed_fact_ids, shown=shown)
                if after_weeks > 0 else None)
        # A stall gone quiet inside a published pattern is that pattern's to show (README,
        # "Stalled items"); the others are observations of their own.
        # One stall per message (the ticket's, naming the problem it reports); a quiet tracker
        # whose tracking a pattern shows is that pattern's to hold.
        trackers = tracking_facts(settled.rows, shown) if stalled_memo is not None else {}
        own, within = stalls_to_show(
            stalled_memo.stalls.values(), shown, after_weeks, trackers=trackers,
            preferred=load_work_item_ids(graph, stalled_memo.stalls.keys()),
        ) if stalled_memo is not None else ((), ())
        stalls = {stall.item_id: stall for stall in own}
        held = held_by_patterns(found, within, trackers)  # each pattern holds its quiet stalls
        views = tuple(stall_cluster(stall) for stall in stalls.values())

    with progress.stage("reconcile"), paused_gc():
        # Read after clustering: the evidence of observations a cluster matches by fingerprint
        # is never looked at, so it is not loaded.
        active = load_active_observations(
            graph, matched_fingerprints={cluster.fingerprint for cluster in (*found, *views)}
        )
        # Only the episodes of observations that may retire are looked up in the window.
        in_window = snapshot.in_window({e for old in active for e in old.episode_ids})
        current = (snapshot.current_fact_ids - settled.settled.keys()) | {
            report.fact_id for report in ended_reports}
        # A chain whose dependencies all ended retires citing the completions that ended them.
        active, completed = with_chain_dependencies(active)
        # Patterns reconcile with patterns by their updates; a stalled item's view with the
        # same item's view (two items' views may share an update).
        decisions: Reconciliation = combine(
            reconcile(found, [old for old in active if old.kind != STALLED], current,
                      in_window, settled.settled, completed),
            reconcile_views(views, {view.key: stalls_item for view in views
                                    if (stalls_item := view.anchor) is not None},
                            [old for old in active if old.kind == STALLED],
                            load_stall_anchors(graph) if stalls or any(
                                old.kind == STALLED for old in active) else {},
                            current, in_window, settled.settled),
        )
    clusters = {cluster.key: cluster for cluster in (*found, *views)}
    created = list(decisions.created)
    # Stand-ins the template wrote because the model failed, over facts that have not changed
    # (untouched or restated): asked again now; published as the next version only if the model
    # answers (below).
    retries = pending_retries(decisions) if with_model else []
    created += [retry for retry, _ in retries]
    # Kept as they are, but what they hold changed (a stall went quiet inside): written again.
    rewrites = held_stall_rewrites(run, decisions, held, after_weeks,
                                   {retry.cluster_key for retry, _ in retries})
    created += [rewrite for rewrite, _ in rewrites]
    changed = [clusters[c.cluster_key] for c in created]

    with progress.stage("analyse", total=len(changed)), paused_gc():
        details = load_details(
            settled.rows,
            {f for cluster in changed for f in cluster.fact_ids},
            {e for cluster in changed for e in cluster.episode_ids},
            # No texts: summaries are written from facts and structure (memory.summarize).
            texts=False, extra_facts=context.facts,  # ended reports are not among the rows
        )
        # Tracker items read by their titles ("Bug 446261 “Clear Private Data…”").
        details.entities.update(load_titles(details.entities, settled.rows))
        structures = {
            cluster.key: stall_structure(stalls[cluster.anchor], cluster, details.entities,
                                         details.episodes)
            if cluster.anchor is not None else
            with_held_stalls(analyse_cluster(cluster, details.facts, details.entities,
                                             details.episodes, context, as_of=as_of),
                             held.get(cluster.key))
            for cluster in changed
        }

    drafts: list[ObservationDraft] = []
    llm = {"calls": 0, "cached": 0, "tokens_in": 0, "tokens_out": 0, "fallbacks": 0,
           "pending": 0, "retried": 0, "still_pending": 0, "deferred": 0}
    # Updates whose rules reading awaits the model's: their clusters' model summaries wait for
    # it (memory.summarize), their facts may still change.
    awaiting = awaiting_model(graph) if with_model and is_now else {}
    # One breaker for this run's summaries: after a few failed calls in a row the model is left
    # alone (and tried again after a cooldown), whatever the clusters skipped meanwhile.
    breaker = Breaker("summaries of this run")
    budget = Budget.for_graph(graph) if with_model else Budget.unlimited()
    retirement_of = {retry.cluster_key: retired for retry, retired in retries}
    superseded: list[Retired] = [old for _, old in rewrites]
    # Template summaries allocate much and make no call: the collector is paused for them too
    # (its rescans of the run's heap were half of this stage at 100,000 episodes).
    quiet = paused_gc() if not with_model else nullcontext()
    step = batch_size() if with_model else len(created) or 1
    with progress.stage("summarize", total=len(changed)), quiet:
        for start in range(0, len(created), step):
            group = created[start:start + step]
            items = [
                ClusterEvidence(clusters[c.cluster_key], structures[c.cluster_key],
                                details.facts, details.entities, details.episodes)
                for c in group
            ]
            outcomes, stats = summarize_clusters(items, graph=graph, run=run, breaker=breaker,
                                                 budget=budget, awaiting=awaiting)
            llm["calls"] += stats.calls
            llm["cached"] += stats.cached
            llm["tokens_in"] += stats.tokens_in
            llm["tokens_out"] += stats.tokens_out
            for decision, outcome in zip(group, outcomes, strict=True):
                cluster = clusters[decision.cluster_key]
                if decision.cluster_key in retirement_of:
                    if not outcome.by_model:
                        llm["still_pending"] += 1
                        continue  # the stand-in stays as it is; no new version for nothing
                    llm["retried"] += 1
                    superseded.append(retirement_of[decision.cluster_key])
                elif outcome.deferred:
                    llm["deferred"] += 1
                else:
                    llm["fallbacks"] += int(bool(outcome.fallback_reason) and not outcome.by_model
                                            and outcome.calls + int(outcome.pending) > 0)
                    llm["pending"] += int(outcome.pending)
                drafts.append(ObservationDraft(
                    cluster=cluster, structure=structures[cluster.key], outcome=outcome,
                    lineage=decision.lineage, version=decision.version,
                    predecessor_ids=decision.predecessor_ids,
                ))
            if time.monotonic() - progress.last_beat > HEARTBEAT_SECONDS or stats.calls:
                progress.advance("summarize", min(start + step, len(created)))
    retired = sorted([*decisions.retired, *superseded], key=lambda r: r.observation_id)

    counts = {
        "episodes": snapshot.episode_count(),
        "evidence_rows": len(snapshot.rows),
        "facts": len(snapshot.current_fact_ids),
        "clusters": len(found),
        "stalled": len(stalls),
        "stalled_within_patterns": len(within),
        "rewritten_for_stalls": len(rewrites),
        # Trackers' own quiet stalls held by their tracker patterns (since 2026-12-05): a run
        # after one from before looks at every pattern holding stalls once.
        "stalled_trackers_held": sum(1 for stall in within if stall.item_id in trackers),
        "stalled_examined": examined,
        "reclustered": bool(changes is not None and changes.reclustered),
        "clustered_episodes": clustering.audit.get("clustered_episodes", 0),
        "created": sum(1 for c in decisions.created if c.lineage is None),
        "updated": sum(1 for c in decisions.created if c.lineage is not None),
        "untouched": len(decisions.untouched),
        "restated": len(decisions.restated),
        "retired": len(decisions.retired),
        "retired_by_reason": _by_reason(decisions),
        "resummarized": llm["retried"],
        "llm": {**llm, "breaker": breaker.state},
    }
    names = {pk: entity.name for pk, entity in details.entities.items()}
    with progress.stage("publish"), paused_gc():
        PipelineRun.objects.filter(pk=run.pk).update(
            data_version=data_version,
            audit={"clustering": clustering.audit, "decisions": decisions.as_dict()},
            llm_calls=llm["calls"], llm_cached=llm["cached"],
            tokens_in=llm["tokens_in"], tokens_out=llm["tokens_out"],
        )
        # A restated stand-in the model has just rewritten is superseded, not restated.
        rewritten = {item.observation_id for item in superseded}
        publish_run(run, drafts=drafts, retired=retired, names=names,
                    now=as_of if not is_now else timezone.now(), counts=counts,
                    restated=[(r, clusters[r.cluster_key]) for r in decisions.restated
                              if r.observation_id not in rewritten],
                    # A run as of another time leaves the memo to the runs of now.
                    stalled_memo=stalled_memo if is_now else None)
    PipelineRun.objects.filter(pk=run.pk).update(
        progress={"percent": 100, "stages": progress.stages}, timings=progress.timings
    )


def awaiting_model(graph: Graph) -> dict[int, datetime]:
    """Episode id → when the model's reading of it is due at the latest, for the graph's rules
    readings awaiting it (one query)."""
    from memory.processing.model_queue import model_wait_seconds

    wait = timedelta(seconds=model_wait_seconds(graph))
    return {pk: ingested_at + wait for pk, ingested_at in Episode.objects.filter(
        graph=graph, awaits_model=True).values_list("pk", "ingested_at")}


def pending_retries(decisions: Reconciliation) -> list[tuple[Created, Retired]]:
    """The observations kept as they are (untouched, or restated by updates that add no fact)
    whose summary is a pending stand-in: each as the next version of its lineage over this
    run's cluster, and the retirement of the stand-in it would replace (one query, on the
    partial index of pending stand-ins)."""
    by_id = {u.observation_id: u.cluster_key for u in decisions.untouched}
    by_id.update({r.observation_id: r.cluster_key for r in decisions.restated})
    if not by_id:
        return []
    rows = Observation.objects.filter(
        pk__in=list(by_id), status=Observation.Status.ACTIVE, summary_pending=True
    ).values_list("pk", "lineage", "version")
    retries = []
    for pk, lineage, version in sorted(rows):
        key = by_id[pk]
        retries.append((
            Created(cluster_key=key, lineage=lineage, version=version + 1, predecessor_ids=(pk,)),
            Retired(observation_id=pk, reason=SUPERSEDED, successor_keys=(key,),
                    closed_fact_ids=(), dropped_episode_ids=(), out_of_window_episode_ids=()),
        ))
    return retries


def graphs_with_pending_summaries(*, limit: int = 500) -> list[int]:
    """Graphs with an active observation whose summary is a pending stand-in."""
    return list(
        Observation.objects.filter(status=Observation.Status.ACTIVE, summary_pending=True)
        .values_list("graph_id", flat=True).distinct()[:limit]
    )


def _by_reason(decisions: Reconciliation) -> dict[str, int]:
    reasons: dict[str, int] = {}
    for item in decisions.retired:
        reasons[item.reason] = reasons.get(item.reason, 0) + 1
    return reasons


# --- When to run ---------------------------------------------------------------------------


def settle_delay(graph: Graph, *, now: datetime | None = None) -> float | None:
    """Seconds to wait before the graph has settled (0: run now), or None when there is nothing
    new to run on. A graph settles when no episode is waiting for processing and none arrived for
    ``debounce_seconds``."""
    now = now or timezone.now()
    debounce = float(graph_settings(graph)["debounce_seconds"])
    unfinished = Episode.objects.filter(
        graph=graph, status__in=[Episode.Status.PENDING, Episode.Status.PROCESSING]
    )
    if unfinished.exists():
        return max(debounce, 1.0)
    last_run_version = PipelineRun.objects.filter(
        graph=graph, status=PipelineRun.Status.SUCCEEDED, as_of__isnull=True
    ).aggregate(v=Max("data_version"))["v"]
    current_version = Graph.objects.values_list("data_version", flat=True).get(pk=graph.pk)
    if last_run_version is not None and last_run_version >= current_version:
        return None
    latest = Episode.objects.filter(graph=graph).aggregate(t=Max("ingested_at"))["t"]
    if latest is None:
        return None
    remaining = debounce - (now - latest).total_seconds()
    return max(remaining, 0.0)
