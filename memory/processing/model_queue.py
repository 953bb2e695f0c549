"""Updates waiting for the model: when a model extracts, new updates wait (up to
``model_wait_seconds`` in ``Graph.settings``) for others of their graph to share their call, so a
team writing one update at a time, or a day's few updates at once, costs a call per batch, not
per update or per day. Full batches (``LLM_EXTRACTION_BATCH_SIZE`` pending updates) go at once;
the rest goes when its oldest update has waited long enough. The scheduler (a Celery countdown,
or the embedded default's background thread) asks ``extraction_delay`` and runs ``extract_due``
when it says 0; a command or a test outside a request reads everything at once.
"""

from __future__ import annotations

from datetime import datetime

from django.db.models import Count, Min
from django.utils import timezone

from memory.graph_settings import graph_settings
from memory.models import Episode, Graph
from memory.processing.queue import BATCH_SIZE, process_episodes


def model_wait_seconds(graph: Graph) -> float:
    return float(graph_settings(graph).get("model_wait_seconds") or 0)


def extraction_delay(graph: Graph, *, now: datetime | None = None) -> float | None:
    """Seconds until the graph's pending updates should be read (0: now); ``None`` when none
    is pending (one query)."""
    from memory.extraction.llm import batch_size

    now = now or timezone.now()
    pending = Episode.objects.filter(graph=graph, status=Episode.Status.PENDING).aggregate(
        count=Count("id"), oldest=Min("ingested_at"))
    if not pending["count"]:
        return None
    if pending["count"] >= batch_size():
        return 0.0
    due = pending["oldest"].timestamp() + model_wait_seconds(graph)
    return max(0.0, due - now.timestamp())


def pending_ids(graph: Graph, *, limit: int = BATCH_SIZE) -> list[int]:
    """The graph's pending updates, oldest first (the order they are read and applied in)."""
    return list(Episode.objects.filter(graph=graph, status=Episode.Status.PENDING)
                .order_by("ingested_at", "pk").values_list("pk", flat=True)[:limit])


def due_ids(graph: Graph, *, now: datetime | None = None) -> list[int]:
    """The pending updates to read now, oldest first: all of them once the oldest has waited
    ``model_wait_seconds``, else the full batches (the rest keeps waiting)."""
    from memory.extraction.llm import batch_size

    now = now or timezone.now()
    ids = pending_ids(graph)
    if not ids:
        return []
    oldest = Episode.objects.filter(pk=ids[0]).values_list("ingested_at", flat=True).get()
    if (now - oldest).total_seconds() >= model_wait_seconds(graph):
        return ids
    size = batch_size()
    return ids[: len(ids) // size * size]


def extract_due(graph: Graph, *, now: datetime | None = None) -> dict[str, int] | None:
    """Read the graph's due pending updates; ``None`` if none is due."""
    ids = due_ids(graph, now=now)
    if not ids:
        return None
    return dict(process_episodes(ids))
