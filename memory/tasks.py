"""Celery tasks: thin, take ids, safe to run twice. The work is in ``memory.processing`` and
``memory.pipeline``; this module only decides when and where it runs.

Without a broker (the embedded default) Celery runs eagerly: the same tasks run in-process right
after the ingesting transaction commits, and the pipeline runs at once instead of waiting for the
graph to settle — so a new episode's observations appear without any worker. With a model
configured, work that may call it is not run inside a request: it goes to the web process's
background thread once the response is made (``memory.background``), so no page or API call waits
for the model.

With a model extracting, an update that arrives by the page or the API is read by the rules at
once and by the model later, with others of its graph, up to ``model_wait_seconds`` after it
arrived (``memory.processing.model_queue``): a Celery countdown in production, a delayed job of
the background thread in the embedded default.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from datetime import datetime, timedelta
from itertools import batched

from celery import Task, shared_task
from django.conf import settings
from django.core.cache import cache
from django.db import OperationalError, transaction
from django.db.models import Q
from django.utils import timezone

from memory import background, entity_summaries, pipeline, processing
from memory.api.idempotency import purge_expired
from memory.llm import llm_enabled
from memory.models import Episode, Graph, PipelineRun
from memory.processing import model_queue

logger = logging.getLogger(__name__)

SWEEP_LIMIT = 500
"""Most ids one sweep hands out per kind of work (the next sweep takes the rest)."""


def pending_grace_seconds() -> int:
    """A pending episode older than this was never picked up (e.g. Redis was down): the sweep
    enqueues it."""
    return int(getattr(settings, "EPISODE_PENDING_GRACE_SECONDS", 120))

QUEUED_RUN_GRACE_SECONDS = 300
ENTITY_RETRY_LIMIT = 50
"""Pending entity summaries one sweep hands out (their worker's breaker stops a dead model)."""


def _eager() -> bool:
    from dashboard.celery import app

    return bool(app.conf.task_always_eager)


SETTLE_MARK_SECONDS = 30
"""How long "a settle check of this graph is on its way" is believed past the check's due time.
The check task can be lost (a killed worker holds countdown tasks unacknowledged until Redis
redelivers them, half an hour later); the mark must not outlive it by much, or the graph would
not run until it expired — the sweep schedules a new check as soon as it has. A second check
is harmless: the one that finds the graph settled runs it, the other finds nothing new."""


def _settle_key(graph_id: int) -> str:
    return f"settle:{graph_id}"


def _extract_key(graph_id: int) -> str:
    return f"extract:{graph_id}"


def _extract_now_key(graph_id: int) -> str:
    return f"extract-now:{graph_id}"


def model_work(fn: Callable[..., object], *args: object) -> None:
    """Run ``fn`` now, unless it would run the model inside a request of the embedded default:
    then after the response, in the background thread."""
    if _eager() and llm_enabled() and background.in_request():
        background.after_response(fn, *args)
    else:
        fn(*args)


@shared_task(
    name="memory.process_episode",
    autoretry_for=(OperationalError,),
    retry_backoff=5,
    retry_backoff_max=300,
    max_retries=5,
)
def process_episode(episode_id: int) -> str:
    if settings.LLM_EXTRACTION and not _eager():
        # The rules now, the model with the others of its graph once due.
        graph_id = Episode.objects.filter(pk=episode_id).values_list("graph_id", flat=True).first()
        if graph_id is None:
            return "gone"
        counts = model_queue.read_with_rules_first([episode_id])
        schedule_extraction(graph_id)
        return ", ".join(f"{k} {v}" for k, v in sorted(counts.items())) or "skipped"
    return processing.process_episode(episode_id)


@shared_task(
    name="memory.read_with_rules_first",
    autoretry_for=(OperationalError,),
    retry_backoff=5,
    retry_backoff_max=300,
    max_retries=5,
)
def read_with_rules_first(episode_ids: list[int]) -> dict[str, int]:
    """Updates read by the rules now, their graphs' model readings scheduled for when due."""
    counts = dict(model_queue.read_with_rules_first(episode_ids))
    for graph_id in set(Episode.objects.filter(pk__in=episode_ids)
                        .values_list("graph_id", flat=True)):
        schedule_extraction(graph_id)
    return counts


@shared_task(
    name="memory.process_episodes",
    autoretry_for=(OperationalError,),
    retry_backoff=5,
    retry_backoff_max=300,
    max_retries=5,
)
def process_episodes(episode_ids: list[int]) -> dict[str, int]:
    # A worker goes on with its graph's queue for a while, then hands the rest to a new task
    # (each task stays well inside the time limit).
    return dict(processing.process_episodes(
        episode_ids, seconds=processing.DRAIN_SECONDS,
        continue_later=lambda episode_id: _send(process_episodes, [episode_id])))


@shared_task(name="memory.extract_when_due", bind=True, max_retries=None,
             autoretry_for=(OperationalError,), retry_backoff=5, retry_backoff_max=300)
def extract_when_due(self: Task, graph_id: int, now_only: bool = False) -> str:
    """Read a graph's pending updates with the rules, and its rules readings with the model
    once they are due (a full batch, or the oldest has waited ``model_wait_seconds``); until
    then, wait. ``now_only``: a check sent beside the waiting one, because work was due at
    once; it does not wait (the other check does)."""
    graph = Graph.objects.filter(pk=graph_id).first()
    if graph is None:
        return "gone"
    delay = model_queue.extraction_delay(graph)
    if now_only:
        cache.delete(_extract_now_key(graph_id))
        if delay is None or delay > 0:
            return "done already"
    elif delay is None:
        cache.delete(_extract_key(graph_id))
        return "idle"
    if delay > 0 and not _eager():
        cache.set(_extract_key(graph_id), 1, timeout=int(delay) + 120)
        self.apply_async((graph_id,), countdown=delay)
        return "waiting"
    if not now_only:
        cache.delete(_extract_key(graph_id))
    counts = model_queue.extract_due(graph) or {}
    if model_queue.extraction_delay(graph) is not None:
        schedule_extraction(graph_id)  # a remainder keeps waiting for its batch
    schedule_pipeline(graph_id)
    return ", ".join(f"{k} {v}" for k, v in sorted(counts.items())) or "idle"


def schedule_extraction(graph_id: int, *, in_background: bool = False) -> None:
    """Read the graph's pending updates with the model when they are due: a Celery countdown
    with a broker (one waiting check per graph), the background thread's delayed job in the
    embedded default's web process, at once anywhere else (a command, a test)."""
    if not _eager():
        if cache.add(_extract_key(graph_id), 1, timeout=600):
            if not _send(extract_when_due, graph_id):
                cache.delete(_extract_key(graph_id))
            return
        # A check is waiting already, maybe hours away (model_wait_seconds): when work is due
        # now (a batch has filled up, updates are pending), one more check goes now.
        graph = Graph.objects.filter(pk=graph_id).first()
        if (graph is not None and model_queue.extraction_delay(graph) == 0
                and cache.add(_extract_now_key(graph_id), 1, timeout=600)
                and not _send(extract_when_due, graph_id, True)):
            cache.delete(_extract_now_key(graph_id))
        return
    if in_background:
        extract_in_background(graph_id)
        return
    graph = Graph.objects.filter(pk=graph_id).first()
    if graph is not None:
        processing.process_episodes(model_queue.pending_ids(graph))


def resume_model_work() -> None:
    """The embedded default's catch-up when its web process starts: updates left waiting for
    the model by a process that stopped are scheduled again (production's sweep does this)."""
    if not (_eager() and settings.LLM_EXTRACTION):
        return
    for graph_id in (Episode.objects.filter(Q(status=Episode.Status.PENDING)
                                            | Q(awaits_model=True))
                     .values_list("graph_id", flat=True).distinct()[:SWEEP_LIMIT]):
        extract_in_background(graph_id)


def extract_in_background(graph_id: int) -> None:
    """The embedded default's ``extract_when_due``: in the background thread, delayed."""
    graph = Graph.objects.filter(pk=graph_id).first()
    if graph is None:
        return
    delay = model_queue.extraction_delay(graph)
    if delay is None:
        return
    if delay > 0:
        background.later(extract_in_background, graph_id, delay=delay)
        return
    model_queue.extract_due(graph)
    remaining = model_queue.extraction_delay(graph)
    if remaining is not None:
        background.later(extract_in_background, graph_id, delay=remaining)
    schedule_pipeline(graph_id)


@shared_task(name="memory.run_pipeline_when_settled", bind=True, max_retries=None)
def run_pipeline_when_settled(self: Task, graph_id: int) -> str:
    graph = Graph.objects.filter(pk=graph_id).first()
    if graph is None:
        return "gone"
    delay = pipeline.settle_delay(graph)
    if delay is None:
        cache.delete(_settle_key(graph_id))
        return "idle"
    if delay > 0 and not _eager():
        cache.set(_settle_key(graph_id), 1, timeout=int(delay) + SETTLE_MARK_SECONDS)
        self.apply_async((graph_id,), countdown=delay)
        return "waiting"
    cache.delete(_settle_key(graph_id))
    run = pipeline.run_pipeline(graph, trigger=PipelineRun.Trigger.SETTLED)
    return run.status if run else "busy"


@shared_task(name="memory.execute_run", bind=True, max_retries=20, default_retry_delay=30)
def execute_run(self: Task, run_id: int) -> str:
    """Run a queued run (started from a page, the API or the sweep)."""
    run = PipelineRun.objects.select_related("graph").filter(pk=run_id).first()
    if run is None or run.status != PipelineRun.Status.QUEUED:
        return "skipped"
    if not pipeline.claim_run(run):
        # Another run holds the graph; try again when it is likely done.
        raise self.retry()
    return pipeline.execute_run(run).status


@shared_task(name="memory.sweep")
def sweep() -> dict[str, int]:
    """Periodic catch-up (beat): nothing is dropped when a worker dies or Redis was down."""
    now = timezone.now()
    counts = {"requeued": 0, "failed": 0, "pending": 0, "abandoned_runs": 0, "graphs": 0,
              "queued_runs": 0, "expired_idempotency_keys": purge_expired(now=now)}
    stale = now - timedelta(seconds=processing.stale_processing_seconds())
    stuck = list(Episode.objects.filter(
        status=Episode.Status.PROCESSING, processing_started_at__lt=stale
    ).values_list("pk", "graph_id", "attempts")[:SWEEP_LIMIT])
    # One task per graph: it takes the graph's queue in ingestion order from its head.
    to_process: dict[int, list[int]] = {}
    for episode_id, graph_id, attempts in stuck:
        if attempts >= processing.MAX_ATTEMPTS:
            Episode.objects.filter(pk=episode_id, status=Episode.Status.PROCESSING).update(
                status=Episode.Status.FAILED,
                error=f"gave up after {attempts} attempts: the worker was lost each time",
                processed_at=now,
            )
            counts["failed"] += 1
        else:
            to_process.setdefault(graph_id, []).append(episode_id)
            counts["requeued"] += 1
    forgotten = now - timedelta(seconds=pending_grace_seconds())
    waiting = list(Episode.objects.filter(
        status=Episode.Status.PENDING, ingested_at__lt=forgotten
    ).values_list("pk", "graph_id")[:SWEEP_LIMIT])
    for episode_id, graph_id in waiting:
        to_process.setdefault(graph_id, []).append(episode_id)
    counts["pending"] = len(waiting)
    for episode_ids in to_process.values():
        _send(read_with_rules_first if settings.LLM_EXTRACTION else process_episodes,
              episode_ids)
    if settings.LLM_EXTRACTION:
        # Rules readings awaiting the model: a waiting check per graph (one at a time).
        for graph_id in (Episode.objects.filter(awaits_model=True)
                         .values_list("graph_id", flat=True).distinct()[:SWEEP_LIMIT]):
            schedule_extraction(graph_id)
            counts["awaiting_model"] = counts.get("awaiting_model", 0) + 1
    counts["abandoned_runs"] = pipeline.abandon_stale_runs(now=now)
    for run_id in PipelineRun.objects.filter(
        status=PipelineRun.Status.QUEUED,
        created_at__lt=now - timedelta(seconds=QUEUED_RUN_GRACE_SECONDS),
    ).values_list("pk", flat=True)[:SWEEP_LIMIT]:
        _send(execute_run, run_id)
        counts["queued_runs"] += 1
    for graph in Graph.objects.all()[:SWEEP_LIMIT]:
        if pipeline.settle_delay(graph, now=now) is not None:
            schedule_pipeline(graph.pk)
            counts["graphs"] += 1
    counts.update(retry_model_stand_ins(now=now))
    return counts


def pending_retry_seconds() -> float:
    """How long after a graph's last run the sweep asks the model again for its stand-ins."""
    return float(getattr(settings, "LLM_PENDING_RETRY_SECONDS", 600))


def retry_model_stand_ins(*, now: datetime) -> dict[str, int]:
    """Templates written because the model failed are asked for again: a run for each graph
    with pending observation summaries whose last run is old enough (the run's breaker stops it
    after a few calls if the model is still down), and the pending entity summaries."""
    from memory.llm import llm_enabled

    counts = {"pending_summary_runs": 0, "pending_entity_summaries": 0}
    if not llm_enabled():
        return counts
    quiet_since = now - timedelta(seconds=pending_retry_seconds())
    for graph_id in pipeline.graphs_with_pending_summaries(limit=SWEEP_LIMIT):
        recent = PipelineRun.objects.filter(graph_id=graph_id).filter(
            Q(created_at__gte=quiet_since) | Q(status__in=[PipelineRun.Status.QUEUED,
                                                          PipelineRun.Status.RUNNING]))
        if recent.exists():
            continue
        if Episode.objects.filter(graph_id=graph_id, awaits_model=True).exists():
            continue  # deferred until the model's reading, whose run asks for them
        graph = Graph.objects.get(pk=graph_id)
        start_run(pipeline.request_run(graph, trigger=PipelineRun.Trigger.SWEEP))
        counts["pending_summary_runs"] += 1
    for entity_id in entity_summaries.pending_entities(limit=ENTITY_RETRY_LIMIT):
        summarize_entity_later(entity_id)
        counts["pending_entity_summaries"] += 1
    return counts


def _send(task: Task, *args: object) -> bool:
    try:
        task.delay(*args)
    except Exception as exc:  # the broker is down: the next sweep tries again
        logger.warning("could not enqueue %s (%s): %s: %s", task.name, _brief(args),
                       type(exc).__name__, exc, exc_info=_eager())  # in-process: a bug's trace
        return False
    return True


def _brief(args: tuple[object, ...]) -> str:
    return ", ".join(f"{len(a)} ids" if isinstance(a, list) else repr(a) for a in args)


def schedule_pipeline(graph_id: int) -> None:
    """Run the graph's pipeline once it has settled (at once in the embedded default). Only one
    waiting check per graph at a time."""
    if _eager():
        _send(run_pipeline_when_settled, graph_id)
        return
    if cache.add(_settle_key(graph_id), 1, timeout=SETTLE_MARK_SECONDS) and not _send(
        run_pipeline_when_settled, graph_id
    ):
        cache.delete(_settle_key(graph_id))


def start_run(run: PipelineRun) -> None:
    """Enqueue a queued run after the current transaction commits (after the response, with a
    model, in the embedded default)."""
    transaction.on_commit(lambda: model_work(_send, execute_run, run.pk))


def enqueue_processing(graph_id: int, episode_ids: list[int]) -> None:
    """After the current transaction commits: process the episodes (in batches, one transaction
    each; a single one as itself — or, when a model extracts, with the others of its graph once
    they are due), then let the graph settle and run its pipeline once."""
    deferred = _eager() and llm_enabled() and background.in_request()

    def send() -> None:
        if settings.LLM_EXTRACTION and deferred:
            # The rules now (this is the background thread), the model with the others of the
            # graph once due (see memory.processing.model_queue).
            model_queue.read_with_rules_first(episode_ids)
            schedule_extraction(graph_id, in_background=True)
        elif settings.LLM_EXTRACTION and not _eager():
            for batch in batched(episode_ids, processing.BATCH_SIZE):
                if not _send(read_with_rules_first, list(batch)):
                    break  # the sweep reads them once the broker is back
        elif len(episode_ids) == 1:
            _send(process_episode, episode_ids[0])
        else:
            for batch in batched(episode_ids, processing.BATCH_SIZE):
                if not _send(process_episodes, list(batch)) and not _eager():
                    # The broker is down, so the other batches would fail too (each after
                    # retries). The episodes are stored and pending: the sweep enqueues them
                    # once it can (EPISODE_PENDING_GRACE_SECONDS).
                    break
        schedule_pipeline(graph_id)

    transaction.on_commit(lambda: model_work(send))


@shared_task(name="memory.summarize_entity", autoretry_for=(OperationalError,), retry_backoff=5,
             max_retries=3)
def summarize_entity(entity_id: int) -> str:
    """(Re)write one entity's summary if its facts changed (``memory.entity_summaries``)."""
    return entity_summaries.write_summary(entity_id)


def summarize_entity_later(entity_id: int) -> None:
    """After the current transaction commits (at once outside one), write the entity's summary
    — after the response in the embedded default's web process."""
    transaction.on_commit(lambda: model_work(_send, summarize_entity, entity_id))


@shared_task(name="memory.run_import", autoretry_for=(OperationalError,), retry_backoff=5,
             max_retries=3)
def run_import(import_run_id: int) -> str:
    """Carry out a recorded tracker import (``memory.importers.runs``)."""
    from memory.importers.runs import execute_run

    return execute_run(import_run_id)
