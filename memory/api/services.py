"""What the APIs do, as functions the views call: create and delete graphs, add episodes one at a
time or in bulk (through ``memory.ingestion``, whose validation names the field and the reason),
start pipeline runs (``memory.pipeline`` / ``memory.tasks``)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from django.conf import settings
from django.contrib.auth.models import User
from django.db import IntegrityError, transaction
from django.utils import timezone
from django.utils.text import slugify
from rest_framework import status

from memory import pipeline, tasks
from memory.api.errors import ApiError
from memory.graph_settings import ontology_for
from memory.ingestion import IngestReport, InvalidEpisode, ingest_records, parse_episode
from memory.models import (
    Claim,
    Entity,
    Episode,
    Fact,
    FactEvidence,
    Graph,
    LLMCall,
    Membership,
    MergeRecord,
    MergeSuggestion,
    Observation,
    PipelineRun,
)

MAX_SLUG = 80


def max_bulk_episodes() -> int:
    return int(getattr(settings, "API_MAX_BULK_EPISODES", 1000))


# --- Graphs --------------------------------------------------------------------------------------


def create_graph(
    user: User, *, name: str, slug: str | None = None, description: str = "",
) -> Graph:
    """A shared graph owned by ``user``. Without a slug one is made from the name (made unique
    with a number); a slug that is taken is a 400 naming ``slug``."""
    base = slugify(slug or name)[:MAX_SLUG] or "graph"
    with transaction.atomic():
        if slug:
            if Graph.objects.filter(slug=base).exists():
                raise ApiError(status.HTTP_400_BAD_REQUEST, "slug_taken",
                               f"slug: {base!r} is already used by another graph.", param="slug")
            candidate = base
        else:
            candidate = _free_slug(base)
        try:
            with transaction.atomic():
                graph = Graph.objects.create(slug=candidate, name=name, description=description)
        except IntegrityError:
            raise ApiError(status.HTTP_409_CONFLICT, "slug_taken",
                           f"slug: {candidate!r} was just taken; retry.", param="slug") from None
        Membership.objects.create(graph=graph, user=user, role=Membership.Role.OWNER)
    graph.role = Membership.Role.OWNER  # type: ignore[attr-defined]
    return graph


def _free_slug(base: str) -> str:
    taken = set(
        Graph.objects.filter(slug__startswith=base).values_list("slug", flat=True)
    )
    if base not in taken:
        return base
    number = 2
    while f"{base[: MAX_SLUG - 6]}-{number}" in taken:
        number += 1
    return f"{base[: MAX_SLUG - 6]}-{number}"


def delete_graph(graph: Graph) -> dict[str, int]:
    """Delete a graph and everything in it, in one transaction, by its owner's decision. (The
    pipeline itself never deletes; this is the only way data leaves.) Rows are deleted children
    first because facts, entities and runs protect what they point at."""
    counts: dict[str, int] = {}
    with transaction.atomic():
        Graph.objects.select_for_update().filter(pk=graph.pk).first()
        counts["claims"] = Claim.objects.filter(observation__graph=graph).delete()[0]
        counts["observations"] = Observation.objects.filter(graph=graph).delete()[0]
        MergeRecord.objects.filter(graph=graph).delete()
        MergeSuggestion.objects.filter(graph=graph).delete()
        Fact.objects.filter(graph=graph).update(closed_by_fact=None, closed_by_episode=None)
        FactEvidence.objects.filter(fact__graph=graph).delete()
        counts["facts"] = Fact.objects.filter(graph=graph).delete()[0]
        Episode.objects.filter(graph=graph).update(author_entity=None)
        Entity.objects.filter(graph=graph).update(merged_into=None)
        counts["entities"] = Entity.objects.filter(graph=graph).delete()[0]
        LLMCall.objects.filter(graph=graph).delete()
        counts["episodes"] = Episode.objects.filter(graph=graph).delete()[0]
        PipelineRun.objects.filter(graph=graph).delete()
        Graph.objects.filter(pk=graph.pk).delete()
    return counts


# --- Episodes ------------------------------------------------------------------------------------


@dataclass
class Added:
    outcome: str
    """``stored`` or ``duplicate``."""
    episode: Episode


def add_episode(graph: Graph, record: Any) -> Added:
    """Store one episode (or find the one it duplicates); a rejected record is a 400 naming the
    field. Processing is enqueued after commit (in-process in the embedded default)."""
    report = ingest_records(graph, [(1, record)])
    (result,) = report.results
    if result.status == "rejected":
        raise rejected(result.field or "episode", result.reason or "is invalid")
    if result.status == "stored":
        assert result.episode_uuid is not None  # a stored episode has its uuid
        return Added("stored", Episode.objects.get(uuid=result.episode_uuid))
    existing = find_duplicate(graph, record)
    if existing is None:  # pragma: no cover - the duplicate was deleted in between
        raise ApiError(status.HTTP_409_CONFLICT, "conflict", "The episode changed; retry.")
    return Added("duplicate", existing)


def find_duplicate(graph: Graph, record: dict[str, Any]) -> Episode | None:
    """The stored episode a record duplicates: the same external id, or the same content."""
    try:
        parsed = parse_episode(record, ontology_for(graph))
    except InvalidEpisode:
        return None
    episodes = Episode.objects.filter(graph=graph)
    if parsed.external_id:
        return episodes.filter(external_id=parsed.external_id).first()
    return episodes.filter(external_id__isnull=True, content_hash=parsed.content_hash).first()


def add_episodes(graph: Graph, records: list[Any]) -> IngestReport:
    """Store a batch; the report has one result per item, in order (``line`` is the index)."""
    limit = max_bulk_episodes()
    if len(records) > limit:
        raise ApiError(status.HTTP_413_REQUEST_ENTITY_TOO_LARGE, "too_many_episodes",
                       f"episodes: {len(records)} in one request; the limit is {limit}.",
                       param="episodes")
    return ingest_records(graph, list(enumerate(records)))


def rejected(field: str, reason: str) -> ApiError:
    return ApiError(status.HTTP_400_BAD_REQUEST, "invalid_episode", f"{field}: {reason}",
                    param=field, details={"field": field, "reason": reason})


# --- Runs ----------------------------------------------------------------------------------------


def start_run(graph: Graph, user: User) -> PipelineRun:
    """Queue a run (an already queued one is reused) and hand it to a worker after commit (run
    in-process in the embedded default)."""
    run = pipeline.request_run(graph, trigger=PipelineRun.Trigger.API, user=user)
    tasks.start_run(run)
    run.refresh_from_db()
    return run


def now_iso() -> str:
    return timezone.now().isoformat()
