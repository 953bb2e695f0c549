"""The work queue of episodes: claiming them (pending, or stuck in processing after their worker
was lost), processing them a batch per graph, marking failures and retrying them."""

from __future__ import annotations

import logging
from collections import Counter, defaultdict
from datetime import datetime, timedelta

from django.conf import settings
from django.db import OperationalError, transaction
from django.db.models import F, Q
from django.utils import timezone

from memory.models import Episode
from memory.processing.batches import apply_episode, apply_episodes

logger = logging.getLogger(__name__)


MAX_ATTEMPTS = 3


def stale_processing_seconds() -> int:
    """An episode "processing" for longer than this lost its worker; the sweep requeues it."""
    return int(getattr(settings, "EPISODE_STALE_SECONDS", 900))


def claim_episode(episode_id: int, *, now: datetime | None = None) -> Episode | None:
    """Move an episode to ``processing`` and count the attempt — only if it is pending, or stuck
    in processing long enough that its worker must be gone. ``None`` when someone else has it or
    it is already done, which makes a duplicate delivery harmless."""
    now = now or timezone.now()
    stale = now - timedelta(seconds=stale_processing_seconds())
    claimable = Q(status=Episode.Status.PENDING) | Q(
        status=Episode.Status.PROCESSING, processing_started_at__lt=stale
    )
    claimed = Episode.objects.filter(claimable, pk=episode_id).update(
        status=Episode.Status.PROCESSING, attempts=F("attempts") + 1, processing_started_at=now
    )
    if not claimed:
        return None
    return Episode.objects.select_related("graph").get(pk=episode_id)


def process_episode(episode_id: int) -> str:
    """Claim and process one episode; returns what happened (for logs and tests)."""
    episode = claim_episode(episode_id)
    if episode is None:
        return "skipped"
    return _process_claimed(episode)


def _process_claimed(episode: Episode) -> str:
    if episode.attempts > MAX_ATTEMPTS:
        mark_failed(episode, f"gave up after {MAX_ATTEMPTS} attempts (the worker was lost)")
        return "failed"
    try:
        apply_episode(episode)
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


def claim_episodes(episode_ids: list[int], *, now: datetime | None = None) -> list[Episode]:
    """``claim_episode`` for many at once, in the order given: those nobody else holds."""
    now = now or timezone.now()
    stale = now - timedelta(seconds=stale_processing_seconds())
    claimable = Q(status=Episode.Status.PENDING) | Q(
        status=Episode.Status.PROCESSING, processing_started_at__lt=stale
    )
    with transaction.atomic():
        # Rows another worker is claiming right now are skipped, not waited for (PostgreSQL;
        # SQLite's immediate transactions already take the claims one at a time).
        claimed = list(
            Episode.objects.select_for_update(skip_locked=True)
            .filter(claimable, pk__in=episode_ids)
            .values_list("pk", flat=True)
        )
        Episode.objects.filter(pk__in=claimed).update(
            status=Episode.Status.PROCESSING, attempts=F("attempts") + 1,
            processing_started_at=now,
        )
    by_id = Episode.objects.select_related("graph").in_bulk(claimed)
    return [by_id[pk] for pk in episode_ids if pk in by_id]


def process_episodes(episode_ids: list[int], *, batch_size: int = BATCH_SIZE) -> Counter[str]:
    """Claim and process many episodes, a batch of one graph per transaction (the ingest command,
    an upload, the bulk API); counts what happened. The facts are the same as processing them one
    at a time in this order. Queries per batch: the claim (3), the transaction's fixed ones and
    one per episode that creates entities or reaches facts the batch had not read.

    With a model extracting, a batch is one model call's worth of episodes
    (``LLM_EXTRACTION_BATCH_SIZE``): its extraction happens before the graph's lock is taken,
    and a model call may take seconds."""
    if settings.LLM_EXTRACTION:
        from memory.extraction.llm import batch_size as model_batch_size

        batch_size = min(batch_size, model_batch_size())
    counts: Counter[str] = Counter()
    for start in range(0, len(episode_ids), batch_size):
        episodes = claim_episodes(episode_ids[start : start + batch_size])
        counts["skipped"] += min(batch_size, len(episode_ids) - start) - len(episodes)
        by_graph: dict[int, list[Episode]] = defaultdict(list)
        for episode in episodes:
            if episode.attempts > MAX_ATTEMPTS:
                counts[_process_claimed(episode)] += 1
            else:
                by_graph[episode.graph_id].append(episode)
        for group in by_graph.values():
            counts.update(_process_batch(group))
    return +counts


def _process_batch(episodes: list[Episode]) -> Counter[str]:
    try:
        apply_episodes(episodes[0].graph, episodes)
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
            return Counter(failed=1)
        # Nothing of the batch was kept: apply its episodes one at a time, so only the one that
        # fails is marked failed.
        logger.warning("a batch of %d episodes failed; applying them one at a time",
                       len(episodes), exc_info=True)
        return Counter(_process_claimed(episode) for episode in episodes)
    return Counter(processed=len(episodes))


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
