"""The work queue of episodes: claiming them (pending, or stuck in processing after their worker
was lost), processing them a batch per graph, marking failures and retrying them."""

from __future__ import annotations

import logging
import time
from collections import Counter
from collections.abc import Callable
from datetime import datetime, timedelta

from django.conf import settings
from django.db import OperationalError, transaction
from django.db.models import F
from django.utils import timezone

from memory.models import Episode
from memory.processing.batches import apply_episode, apply_episodes

logger = logging.getLogger(__name__)


MAX_ATTEMPTS = 3


def stale_processing_seconds() -> int:
    """An episode "processing" for longer than this lost its worker; the sweep requeues it."""
    return int(getattr(settings, "EPISODE_STALE_SECONDS", 900))


UNFINISHED = (Episode.Status.PENDING, Episode.Status.PROCESSING)


def claim_next(graph_id: int, *, limit: int, now: datetime | None = None
               ) -> tuple[list[Episode], bool]:
    """Claim the graph's next unfinished episodes in the order they were ingested
    (``ingested_at``, then id: a file's line order) — pending ones, and ones processing so long
    that their worker must be lost — and count the attempt; stop at the first one a live worker
    holds. Returns the claimed episodes, in order, and whether there may be more right after
    them.

    The graph's episodes are therefore applied in one order whatever order their tasks arrive
    in, however many workers run and whichever of them dies: an episode is applied only after
    every episode ingested before it. The time rules read what earlier episodes wrote, so this
    is what makes a crash, a retry or a second worker end in the same facts — world time and
    system time alike — as one uninterrupted worker."""
    now = now or timezone.now()
    stale = now - timedelta(seconds=stale_processing_seconds())
    claimed: list[int] = []
    with transaction.atomic():
        # Locked, not skipped: a concurrent claim of the same head waits for this one and then
        # sees these episodes held (SQLite's immediate transactions take claims one at a time).
        head = list(
            Episode.objects.select_for_update()
            .filter(graph_id=graph_id, status__in=UNFINISHED)
            .order_by("ingested_at", "pk")
            .values_list("pk", "status", "processing_started_at")[:limit]
        )
        for pk, status, started in head:
            if status == Episode.Status.PROCESSING and (started is None or started >= stale):
                break  # a live worker is applying it: what follows must wait for it
            claimed.append(pk)
        if claimed:
            Episode.objects.filter(pk__in=claimed).update(
                status=Episode.Status.PROCESSING, attempts=F("attempts") + 1,
                processing_started_at=now,
            )
    by_id = Episode.objects.select_related("graph").in_bulk(claimed) if claimed else {}
    return [by_id[pk] for pk in claimed], len(claimed) == limit


def process_episode(episode_id: int) -> str:
    """Process one episode — with, before it, any episode of its graph ingested earlier and not
    processed yet, and after it whatever of the graph is waiting. Returns what happened to it:
    ``processed``, ``failed``, or ``skipped`` (done already, or by the worker that holds its
    graph's queue)."""
    counts = Counter[str]()
    outcome = _process(
        [episode_id], batch_size=1 if settings.LLM_EXTRACTION else BATCH_SIZE, counts=counts)
    return outcome.get(episode_id, "skipped")


def _process_claimed(episode: Episode, *, model: bool = True) -> str:
    if episode.attempts > MAX_ATTEMPTS:
        mark_failed(episode, f"gave up after {MAX_ATTEMPTS} attempts (the worker was lost)")
        return "failed"
    try:
        apply_episode(episode, model=model)
    except OperationalError:
        # The database was unreachable or busy: give the episode back and let the task retry.
        Episode.objects.filter(pk=episode.pk).update(status=Episode.Status.PENDING)
        raise
    except Exception as exc:
        logger.exception("episode %s failed", episode.uuid)
        mark_failed(episode, f"{type(exc).__name__}: {exc}")
        return "failed"
    return "processed"


BATCH_SIZE = 500
"""Episodes of one graph applied in one transaction by ``process_episodes``."""


DRAIN_SECONDS = 120.0
"""How long one call keeps taking its graph's next episodes before it hands over (a task has a
time limit); ``continue_later`` is told where to go on."""


def process_episodes(
    episode_ids: list[int],
    *,
    batch_size: int = BATCH_SIZE,
    seconds: float | None = None,
    continue_later: Callable[[int], object] | None = None,
    model: bool = True,
) -> Counter[str]:
    """Process episodes (the ingest command, an upload, the bulk API, the sweep): for each of
    their graphs, the graph's unfinished episodes in ingestion order, a batch per transaction,
    until none is left — including earlier ones nobody picked up and later ones that arrived
    meanwhile, which their own tasks then skip. The facts are the same as processing them one
    at a time in that order. Counts what happened; ``skipped`` counts the ones given that this
    call did not apply (done already, or held by another worker that goes on with them).

    ``seconds`` bounds how long it goes on; then ``continue_later(episode_id)`` is called with a
    waiting episode of each unfinished graph (the task enqueues itself again).

    With a model extracting, a batch is one model call's worth of episodes
    (``LLM_EXTRACTION_BATCH_SIZE``): its extraction happens before the graph's lock is taken,
    and a model call may take seconds. ``model=False``: the rules read them now and the model
    later (``memory.processing.revision``)."""
    if settings.LLM_EXTRACTION and model:
        from memory.extraction.llm import batch_size as model_batch_size

        batch_size = min(batch_size, model_batch_size())
    counts: Counter[str] = Counter()
    outcomes = _process(episode_ids, batch_size=batch_size, counts=counts, seconds=seconds,
                        continue_later=continue_later, model=model)
    counts["skipped"] += sum(1 for pk in set(episode_ids) if pk not in outcomes)
    return +counts


def _process(
    episode_ids: list[int],
    *,
    batch_size: int,
    counts: Counter[str],
    seconds: float | None = None,
    continue_later: Callable[[int], object] | None = None,
    model: bool = True,
) -> dict[int, str]:
    """Drain the queues of the given episodes' graphs; what happened to each episode applied."""
    outcomes: dict[int, str] = {}
    graph_ids = dict.fromkeys(
        Episode.objects.filter(pk__in=episode_ids).order_by("pk")
        .values_list("graph_id", flat=True))
    deadline = None if seconds is None else time.monotonic() + seconds
    for graph_id in graph_ids:
        while True:
            episodes, more = claim_next(graph_id, limit=batch_size)
            ready = []
            for episode in episodes:
                if episode.attempts > MAX_ATTEMPTS:
                    outcomes[episode.pk] = _process_claimed(episode, model=model)
                else:
                    ready.append(episode)
            if ready:
                outcomes.update(_process_batch(ready, model=model))
            if not more and not _waiting(graph_id):
                break  # (asked again after applying: episodes stored meanwhile are taken too)
            if not episodes:
                break  # held by another worker, which goes on with the rest
            if deadline is not None and time.monotonic() > deadline:
                waiting = _waiting(graph_id)
                if waiting and continue_later is not None:
                    continue_later(waiting)
                break
    counts.update(outcomes.values())
    return outcomes


def _waiting(graph_id: int) -> int | None:
    """A pending episode of the graph, if any."""
    return Episode.objects.filter(graph_id=graph_id, status=Episode.Status.PENDING).values_list(
        "pk", flat=True).first()


def _process_batch(episodes: list[Episode], *, model: bool = True) -> dict[int, str]:
    try:
        apply_episodes(episodes[0].graph, episodes, model=model)
    except OperationalError:
        # The database was unreachable or busy: give them back and let the task retry.
        Episode.objects.filter(pk__in=[e.pk for e in episodes]).update(
            status=Episode.Status.PENDING
        )
        raise
    except Exception as exc:
        if len(episodes) == 1:
            logger.exception("episode %s failed", episodes[0].uuid)
            mark_failed(episodes[0], f"{type(exc).__name__}: {exc}")
            return {episodes[0].pk: "failed"}
        # Nothing of the batch was kept: apply its episodes one at a time, so only the one that
        # fails is marked failed.
        logger.warning("a batch of %d episodes failed; applying them one at a time",
                       len(episodes), exc_info=True)
        return {episode.pk: _process_claimed(episode, model=model) for episode in episodes}
    return dict.fromkeys((e.pk for e in episodes), "processed")


def mark_failed(episode: Episode, error: str) -> None:
    Episode.objects.filter(pk=episode.pk).update(
        status=Episode.Status.FAILED, error=error[:4000], processed_at=timezone.now()
    )


def retry_episode(episode: Episode) -> bool:
    """Put a failed episode back in the queue (the retry button); True if it was failed."""
    return bool(
        Episode.objects.filter(pk=episode.pk, status=Episode.Status.FAILED).update(
            status=Episode.Status.PENDING, attempts=0, error=""
        )
    )
