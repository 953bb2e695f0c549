"""Read queries of the APIs, each with a fixed number of queries whatever the page size. The time
rules (current / as of / known at) come from ``memory.selectors``."""

from __future__ import annotations

import uuid
from collections import defaultdict
from datetime import datetime
from typing import Any

from django.db.models import Exists, OuterRef, Prefetch, Q, QuerySet

from memory import selectors
from memory.models import (
    Alias,
    Claim,
    Entity,
    Episode,
    Fact,
    FactEvidence,
    Graph,
    Observation,
    PipelineRun,
)

NODE_EPISODES = 100
"""Zep's ``Node.episode_uuids`` holds at most the newest 100."""


# --- Facts -----------------------------------------------------------------------------------


def facts(
    graph: Graph,
    *,
    as_of: datetime | None = None,
    known_at: datetime | None = None,
    include_ended: bool = False,
) -> QuerySet[Fact]:
    """Current facts by default; what held at ``as_of``; what was believed at ``known_at``
    (about ``as_of`` if given); or every fact, ended ones included. With each fact's episodes
    (one more query)."""
    if include_ended:
        queryset = Fact.objects.filter(graph=graph).select_related("source", "target")
    elif known_at is not None:
        queryset = selectors.facts_known_at(graph, known_at, valid_at=as_of)
    elif as_of is not None:
        queryset = selectors.facts_valid_at(graph, as_of)
    else:
        queryset = selectors.current_facts(graph)
    return selectors.with_evidence(queryset)


def touching(entity_uuids: list[uuid.UUID]) -> Q:
    return Q(source__uuid__in=entity_uuids) | Q(target__uuid__in=entity_uuids)


# --- Entities --------------------------------------------------------------------------------


def entities(graph: Graph, *, entity_type: str | None = None) -> QuerySet[Entity]:
    """The graph's entities (merged-away ones excluded), with their aliases (one more query)."""
    queryset = Entity.objects.filter(graph=graph, merged_into__isnull=True).prefetch_related(
        Prefetch("aliases", queryset=Alias.objects.order_by("name"))
    )
    if entity_type:
        queryset = queryset.filter(type=entity_type)
    return queryset


def episodes_mentioning(entity_ids: list[int]) -> dict[int, tuple[list[str], bool]]:
    """For each entity, the uuids of the episodes that support its facts (either direction),
    newest first, at most ``NODE_EPISODES``, and whether that cut any (one query)."""
    rows = (
        FactEvidence.objects.filter(
            Q(fact__source_id__in=entity_ids) | Q(fact__target_id__in=entity_ids)
        )
        .values_list("fact__source_id", "fact__target_id", "episode__uuid",
                     "episode__reference_time", "episode_id")
        .order_by("-episode__reference_time", "-episode_id")
    )
    wanted = set(entity_ids)
    seen: dict[int, dict[str, None]] = defaultdict(dict)
    for source_id, target_id, episode_uuid, _, _ in rows:
        for entity_id in {source_id, target_id} & wanted:
            seen[entity_id][str(episode_uuid)] = None
    result = {}
    for entity_id in entity_ids:
        uuids = list(seen.get(entity_id, {}))
        result[entity_id] = (uuids[:NODE_EPISODES], len(uuids) > NODE_EPISODES)
    return result


# --- Episodes --------------------------------------------------------------------------------


def episodes(
    graph: Graph,
    *,
    status: str | None = None,
    author: str | None = None,
    mentioned_entity_uuids: list[uuid.UUID] | None = None,
) -> QuerySet[Episode]:
    queryset = Episode.objects.filter(graph=graph)
    if status:
        queryset = queryset.filter(status=status)
    if author:
        queryset = queryset.filter(author__iexact=author)
    if mentioned_entity_uuids:
        queryset = queryset.filter(
            Exists(FactEvidence.objects.filter(episode=OuterRef("pk")).filter(
                Q(fact__source__uuid__in=mentioned_entity_uuids)
                | Q(fact__target__uuid__in=mentioned_entity_uuids)
            ))
        )
    return queryset


# --- Observations ----------------------------------------------------------------------------

SORTS = {
    "latest": ["-window_end", "-pk"],
    "newest": ["-created_at", "-pk"],
    "reach": ["-reach_people", "-reach_work_items", "-pk"],
    "retired": ["-retired_at", "-pk"],
}


def observations(
    graph: Graph,
    *,
    status: str = Observation.Status.ACTIVE,
    kind: str | None = None,
    entity: uuid.UUID | None = None,
    text: str | None = None,
    since: datetime | None = None,
) -> QuerySet[Observation]:
    """The board's filters: status (``active``, ``retired`` or ``all``), kind, an entity involved,
    words in the name or summary, new or updated since a time. Prefetches what a list shows:
    supporting episodes' uuids (one more query)."""
    queryset = Observation.objects.filter(graph=graph)
    if status != "all":
        queryset = queryset.filter(status=status)
    if kind:
        queryset = queryset.filter(kind=kind)
    if entity:
        queryset = queryset.filter(entities__uuid=entity)
    if text:
        for word in text.split():
            queryset = queryset.filter(Q(name__icontains=word) | Q(summary__icontains=word))
    if since:
        queryset = queryset.filter(created_at__gte=since)
    return queryset.prefetch_related(
        Prefetch("episodes", queryset=Episode.objects.only("pk", "uuid").order_by("pk"))
    )


def with_claims(queryset: QuerySet[Observation]) -> QuerySet[Observation]:
    """Add claims and their cited facts' uuids, and the facts and entities of the cluster (four
    more queries) — what Zep's observation attributes carry."""
    return queryset.prefetch_related(
        Prefetch("claims", queryset=Claim.objects.order_by("position").prefetch_related(
            Prefetch("facts", queryset=Fact.objects.only("pk", "uuid").order_by("pk"))
        )),
        Prefetch("facts", queryset=Fact.objects.only("pk", "uuid")),
        Prefetch("entities", queryset=Entity.objects.only("pk", "uuid", "name", "type")),
    )


def observation_detail(graph: Graph, observation_uuid: uuid.UUID) -> Observation | None:
    """One observation with its claims, each cited fact with its episodes, the cluster's
    episodes, facts and entities, and its lineage (a fixed number of queries)."""
    cited = Fact.objects.select_related("source", "target").order_by("pk").prefetch_related(
        Prefetch("evidence", queryset=FactEvidence.objects.select_related("episode").order_by(
            "episode__reference_time", "episode_id"))
    )
    return (
        Observation.objects.filter(graph=graph, uuid=observation_uuid)
        .select_related("created_by_run", "retired_by_run")
        .prefetch_related(
            Prefetch("claims", queryset=Claim.objects.order_by("position").prefetch_related(
                Prefetch("facts", queryset=cited)
            )),
            Prefetch("episodes", queryset=Episode.objects.order_by("reference_time", "pk")),
            Prefetch("facts", queryset=Fact.objects.only("pk", "uuid")),
            Prefetch("entities", queryset=Entity.objects.order_by("name")),
            Prefetch("predecessors", queryset=Observation.objects.only("pk", "uuid")),
            Prefetch("successors", queryset=Observation.objects.only("pk", "uuid")),
        )
        .first()
    )


def lineage_versions(observation: Observation) -> list[Observation]:
    return list(
        Observation.objects.filter(graph_id=observation.graph_id, lineage=observation.lineage)
        .only("pk", "uuid", "version", "status", "created_at", "retired_at", "retired_reason")
        .order_by("version")
    )


_ENTITY_KEYS = frozenset({
    "entities", "people", "members", "entity", "waiting", "waited_on", "via", "cycles",
    "source", "target", "reporter", "event", "issue",
})
_COUNT_KEYS = frozenset({"reach", "window"})


def structure_with_uuids(observation: Observation) -> dict[str, Any]:
    """The stored structure with every entity, fact and episode id replaced by its uuid (reads
    the prefetched ``entities``, ``facts`` and ``episodes``; no query)."""
    maps = {
        "entity": {e.pk: str(e.uuid) for e in observation.entities.all()},
        "fact": {f.pk: str(f.uuid) for f in observation.facts.all()},
        "episode": {e.pk: str(e.uuid) for e in observation.episodes.all()},
    }

    def convert(value: Any, key: str) -> Any:
        if key in _COUNT_KEYS:
            return value
        if isinstance(value, dict):
            if key == "names":
                return {maps["entity"].get(int(k), k): v for k, v in value.items()}
            return {k: convert(v, k) for k, v in value.items()}
        if isinstance(value, list):
            return [convert(v, key) for v in value]
        if isinstance(value, int) and not isinstance(value, bool):
            if key in _ENTITY_KEYS:
                return maps["entity"].get(value)
            if key == "facts":
                return maps["fact"].get(value)
            if key == "episodes":
                return maps["episode"].get(value)
        return value

    return convert(observation.structure or {}, "")


def retirement_with_uuids(observation: Observation) -> dict[str, Any]:
    """What retired it, with uuids (one query per kind named, none for an active one)."""
    retirement = dict(observation.retirement or {})
    fact_ids = retirement.get("closed_facts") or []
    episode_ids = retirement.get("dropped_episodes") or []
    if fact_ids:
        by_pk = dict(Fact.objects.filter(pk__in=fact_ids).values_list("pk", "uuid"))
        retirement["closed_facts"] = [str(by_pk[i]) for i in fact_ids if i in by_pk]
    if episode_ids:
        by_pk = dict(Episode.objects.filter(pk__in=episode_ids).values_list("pk", "uuid"))
        retirement["dropped_episodes"] = [str(by_pk[i]) for i in episode_ids if i in by_pk]
    return retirement


# --- Runs ------------------------------------------------------------------------------------


def runs(graph: Graph) -> QuerySet[PipelineRun]:
    return PipelineRun.objects.filter(graph=graph)
