"""Updates waiting for the model. When a model extracts, an update that arrives by the web page or
the API is read by the rules at once — its facts are on the board within the run, as without a
model — and awaits the model's reading, which replaces the rules' later
(``memory.processing.revision``). The model reads a graph's waiting updates together, so a team
writing one update at a time, or a day's few updates at once, costs a call per batch, not per
update or per day: full batches (``LLM_EXTRACTION_BATCH_SIZE`` waiting updates) go at once, the
rest when its oldest update has waited ``model_wait_seconds`` (``Graph.settings``; a day by
default). The scheduler (a Celery countdown, or the embedded default's background thread) asks
``extraction_delay`` and runs ``extract_due`` when it says 0; a command or a test outside a
request reads everything with the model at once.
"""

from __future__ import annotations

from collections import Counter
from datetime import datetime, timedelta

from django.db.models import Count, Min
from django.utils import timezone

from memory.graph_settings import graph_settings
from memory.models import Episode, Graph
from memory.processing.queue import BATCH_SIZE, process_episodes
from memory.processing.revision import revise_episodes


def model_wait_seconds(graph: Graph) -> float:
    return float(graph_settings(graph).get("model_wait_seconds") or 0)


def model_reading_due(graph: Graph, episode: Episode) -> datetime | None:
    """When the model's reading of a rules reading awaiting it is due at the latest (sooner
    once a batch of others waits); ``None`` when it awaits none."""
    if not episode.awaits_model:
        return None
    return episode.ingested_at + timedelta(seconds=model_wait_seconds(graph))


def extraction_delay(graph: Graph, *, now: datetime | None = None) -> float | None:
    """Seconds until the graph has work for ``extract_due`` (0: now) — pending updates the rules
    read at once, rules readings the model reads when due; ``None`` when there is none (two
    queries)."""
    from memory.extraction.llm import batch_size

    now = now or timezone.now()
    if Episode.objects.filter(graph=graph, status=Episode.Status.PENDING).exists():
        return 0.0
    awaiting = Episode.objects.filter(graph=graph, awaits_model=True).aggregate(
        count=Count("id"), oldest=Min("ingested_at"))
    if not awaiting["count"]:
        return None
    if awaiting["count"] >= batch_size():
        return 0.0
    due = awaiting["oldest"].timestamp() + model_wait_seconds(graph)
    return max(0.0, due - now.timestamp())


def pending_ids(graph: Graph, *, limit: int = BATCH_SIZE) -> list[int]:
    """The graph's pending updates, oldest first (the order they are read and applied in)."""
    return list(Episode.objects.filter(graph=graph, status=Episode.Status.PENDING)
                .order_by("ingested_at", "pk").values_list("pk", flat=True)[:limit])


def awaiting_ids(graph: Graph, *, limit: int = BATCH_SIZE) -> list[int]:
    """The graph's rules readings awaiting the model, oldest first."""
    return list(Episode.objects.filter(graph=graph, awaits_model=True)
                .order_by("ingested_at", "pk").values_list("pk", flat=True)[:limit])


def due_ids(graph: Graph, *, now: datetime | None = None) -> list[int]:
    """The awaiting updates the model reads now, oldest first: all of them once the oldest has
    waited ``model_wait_seconds``, else the full batches (the rest keeps waiting)."""
    from memory.extraction.llm import batch_size

    now = now or timezone.now()
    ids = awaiting_ids(graph)
    if not ids:
        return []
    oldest = Episode.objects.filter(pk=ids[0]).values_list("ingested_at", flat=True).get()
    if (now - oldest).total_seconds() >= model_wait_seconds(graph):
        return ids
    size = batch_size()
    return ids[: len(ids) // size * size]


def read_with_rules_first(episode_ids: list[int]) -> Counter[str]:
    """Read updates (and whatever of their graphs is pending) with the rules now; the model's
    reading follows when due."""
    return process_episodes(episode_ids, model=False)


def revise_due(graph: Graph, *, now: datetime | None = None) -> dict[str, int]:
    """Read the graph's due rules readings with the model, a call's worth at a time, and put
    its readings in their place."""
    from memory.extraction.llm import batch_size

    counts: Counter[str] = Counter()
    ids = due_ids(graph, now=now)
    size = batch_size()
    for start in range(0, len(ids), size):
        chunk = ids[start:start + size]
        by_id = Episode.objects.select_related("graph").in_bulk(chunk)
        episodes = [by_id[pk] for pk in chunk if pk in by_id]
        counts.update(revise_episodes(graph, episodes, now=now).values())
    return dict(counts)


def extract_due(graph: Graph, *, now: datetime | None = None) -> dict[str, int] | None:
    """The graph's pending updates read by the rules, then its due rules readings read by the
    model; ``None`` if there was nothing to do."""
    counts: Counter[str] = Counter()
    pending = pending_ids(graph)
    if pending:
        counts.update(read_with_rules_first(pending))
    counts.update(revise_due(graph, now=now))
    return dict(counts) or None
