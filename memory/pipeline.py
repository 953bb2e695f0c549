"""A pipeline run over one graph (DESIGN §4 steps 4–8):

    load → cluster → reconcile → analyse → summarize → publish

Only clusters whose evidence changed are analysed and summarized: an unchanged cluster keeps its
observation untouched, with no model call. Everything computed before ``publish`` is plain data;
``publish`` writes it in one transaction (``memory.publishing``).

Never two runs of one graph at once: a run holds the graph while its row is ``running`` (a partial
unique constraint, so the lock works the same on SQLite and PostgreSQL). A run whose heartbeat
stops — its worker died — is marked abandoned by the next ``start_run`` or by the sweep.
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
from django.contrib.auth.models import AbstractBaseUser
from django.db import IntegrityError, transaction
from django.db.models import Max, Q
from django.utils import timezone

from memory.engine.clustering import ClusteringSettings, cluster_episodes, paused_gc
from memory.engine.context import build_context, extend_clusters, settle_dependencies
from memory.engine.lifecycle import Reconciliation, reconcile
from memory.engine.structure import analyse_cluster
from memory.graph_settings import graph_settings, ontology_for
from memory.llm import llm_enabled
from memory.models import Episode, Graph, PipelineRun
from memory.publishing import ObservationDraft, publish_run
from memory.snapshot import (
    completion_status_ids,
    load_active_observations,
    load_details,
    load_ended_reports,
    load_snapshot,
)
from memory.summarize import TEMPLATE_GENERATOR, summarize_cluster

logger = logging.getLogger(__name__)

STAGES = ("load", "cluster", "reconcile", "analyse", "summarize", "publish")
MODEL_FAILURES_TO_STOP = 3
"""Clusters in a row whose model call failed before a run stops calling the model."""
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
    user: AbstractBaseUser | None = None,
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
    user: AbstractBaseUser | None = None,
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
    linking = {name: relation.linking for name, relation in ontology.relations.items()}
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

    with progress.stage("cluster"), paused_gc():
        clustering = cluster_episodes(settled.rows, linking, snapshot.episode_authors,
                                      clustering_settings)
        # The graph around the clusters: chains followed beyond their own updates (owners,
        # upstream, what trackers track, reports customers ended) become their evidence.
        context = build_context(settled.rows, clustering.suppressed_fact_ids, settled.done,
                                ended_reports)
        found = extend_clusters(clustering.clusters, context)

    with progress.stage("reconcile"), paused_gc():
        # Read after clustering: the evidence of observations a cluster matches by fingerprint
        # is never looked at, so it is not loaded.
        active = load_active_observations(
            graph, matched_fingerprints={cluster.fingerprint for cluster in found}
        )
        # Only the episodes of observations that may retire are looked up in the window.
        in_window = snapshot.in_window({e for old in active for e in old.episode_ids})
        current = (snapshot.current_fact_ids - settled.settled.keys()) | {
            report.fact_id for report in ended_reports}
        decisions: Reconciliation = reconcile(found, active, current, in_window,
                                              settled.settled)
    clusters = {cluster.key: cluster for cluster in found}
    changed = [clusters[created.cluster_key] for created in decisions.created]

    with progress.stage("analyse", total=len(changed)), paused_gc():
        details = load_details(
            settled.rows,
            {f for cluster in changed for f in cluster.fact_ids},
            {e for cluster in changed for e in cluster.episode_ids},
            texts=with_model, extra_facts=context.facts,  # ended reports are not among the rows
        )
        structures = {
            cluster.key: analyse_cluster(cluster, details.facts, details.entities,
                                         details.episodes, context)
            for cluster in changed
        }

    drafts: list[ObservationDraft] = []
    llm = {"calls": 0, "cached": 0, "tokens_in": 0, "tokens_out": 0, "fallbacks": 0}
    last_beat = time.monotonic()
    failures_in_a_row = 0
    # Template summaries allocate much and make no call: the collector is paused for them too
    # (its rescans of the run's heap were half of this stage at 100,000 episodes).
    quiet = paused_gc() if not with_model else nullcontext()
    with progress.stage("summarize", total=len(changed)), quiet:
        for done, created in enumerate(decisions.created, start=1):
            cluster = clusters[created.cluster_key]
            outcome = summarize_cluster(
                cluster, structures[cluster.key],
                facts=details.facts, entities=details.entities, episodes=details.episodes,
                episode_texts=details.episode_texts, fact_sentences=details.fact_sentences,
                graph=graph, run=run, call_model=failures_in_a_row < MODEL_FAILURES_TO_STOP,
            )
            # A model that keeps failing would cost a timeout per cluster: after a few failures
            # in a row the rest of the run uses the template (the next run asks again).
            failed = outcome.calls > 0 and outcome.generator == TEMPLATE_GENERATOR
            failures_in_a_row = failures_in_a_row + 1 if failed else 0
            llm["calls"] += outcome.calls
            llm["cached"] += int(outcome.cached)
            llm["tokens_in"] += outcome.tokens_in
            llm["tokens_out"] += outcome.tokens_out
            llm["fallbacks"] += int(bool(outcome.fallback_reason) and outcome.calls > 0)
            drafts.append(ObservationDraft(
                cluster=cluster, structure=structures[cluster.key], outcome=outcome,
                lineage=created.lineage, version=created.version,
                predecessor_ids=created.predecessor_ids,
            ))
            if time.monotonic() - last_beat > HEARTBEAT_SECONDS or outcome.calls:
                progress.advance("summarize", done)
                last_beat = time.monotonic()

    counts = {
        "episodes": snapshot.episode_count(),
        "evidence_rows": len(snapshot.rows),
        "facts": len(snapshot.current_fact_ids),
        "clusters": len(found),
        "clustered_episodes": clustering.audit.get("clustered_episodes", 0),
        "created": sum(1 for c in decisions.created if c.lineage is None),
        "updated": sum(1 for c in decisions.created if c.lineage is not None),
        "untouched": len(decisions.untouched),
        "restated": len(decisions.restated),
        "retired": len(decisions.retired),
        "retired_by_reason": _by_reason(decisions),
        "llm": llm,
    }
    names = {pk: entity.name for pk, entity in details.entities.items()}
    with progress.stage("publish"), paused_gc():
        PipelineRun.objects.filter(pk=run.pk).update(
            data_version=data_version,
            audit={"clustering": clustering.audit, "decisions": decisions.as_dict()},
            llm_calls=llm["calls"], llm_cached=llm["cached"],
            tokens_in=llm["tokens_in"], tokens_out=llm["tokens_out"],
        )
        publish_run(run, drafts=drafts, retired=decisions.retired, names=names,
                    now=as_of if not is_now else timezone.now(), counts=counts,
                    restated=[(r, clusters[r.cluster_key]) for r in decisions.restated])
    PipelineRun.objects.filter(pk=run.pk).update(
        progress={"percent": 100, "stages": progress.stages}, timings=progress.timings
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
