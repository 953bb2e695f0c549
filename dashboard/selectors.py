"""Read queries of the pages. Each builds its rows in a fixed number of queries whatever the size
of the graph (the view tests pin the counts); the pages turn the rows into cards and diagrams
without touching the database again."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime
from typing import Any
from uuid import UUID

from django.db.models import (
    Count,
    Exists,
    F,
    OuterRef,
    Prefetch,
    Q,
    QuerySet,
    Subquery,
)

from memory.models import (
    Claim,
    Entity,
    Episode,
    Fact,
    FactEvidence,
    Graph,
    Observation,
    PipelineRun,
)
from memory.selectors import graphs_for_user

ENTITY_CHOICES = 40
"""How many entities the board's entity filter offers (those most observations involve)."""
CLUSTER_EPISODES_SHOWN = 200
"""An observation page lists at most this many of its episodes (clusters are capped far lower
by ``max_cluster_episodes``; this guards the page against a graph configured without a cap)."""

SORTS = {
    "reach": ["-reach_total", "-window_end", "-pk"],
    "latest": ["-window_end", "-pk"],
    "newest": ["-created_at", "-pk"],
}


@dataclass(frozen=True, slots=True)
class BoardFilters:
    status: str = Observation.Status.ACTIVE
    kind: str = ""
    entity: UUID | None = None
    q: str = ""
    since: datetime | None = None
    sort: str = "reach"


def _card_fields(observations: QuerySet[Observation]) -> QuerySet[Observation]:
    """What a card shows, plus when its lineage began (for the "new" / "updated" badge)."""
    lineage_started = Observation.objects.filter(
        lineage=OuterRef("lineage"), version=1
    ).values("created_at")[:1]
    return observations.annotate(lineage_started_at=Subquery(lineage_started)).prefetch_related(
        Prefetch("entities", queryset=Entity.objects.only("pk", "uuid", "name", "type"))
    )


def board_observations(graph: Graph, filters: BoardFilters) -> QuerySet[Observation]:
    """The board's observations, filtered and sorted. Counting, one page of rows and their
    entities are three queries."""
    observations = Observation.objects.filter(graph=graph, status=filters.status)
    if filters.kind:
        observations = observations.filter(kind=filters.kind)
    if filters.entity:
        observations = observations.filter(entities__uuid=filters.entity)
    if filters.q:
        observations = observations.filter(
            Q(name__icontains=filters.q) | Q(summary__icontains=filters.q)
        )
    if filters.since:
        observations = observations.filter(created_at__gte=filters.since)
    observations = observations.annotate(reach_total=F("reach_people") + F("reach_work_items"))
    return _card_fields(observations).order_by(*SORTS.get(filters.sort, SORTS["reach"]))


def retired_observations(
    graph: Graph, *, reason: str = "", since: datetime | None = None,
    until: datetime | None = None,
) -> QuerySet[Observation]:
    """Retired observations, most recently retired first."""
    observations = Observation.objects.filter(graph=graph, status=Observation.Status.RETIRED)
    if reason:
        observations = observations.filter(retired_reason=reason)
    if since:
        observations = observations.filter(retired_at__gte=since)
    if until:
        observations = observations.filter(retired_at__lt=until)
    return _card_fields(observations).order_by("-retired_at", "-pk")


def entity_choices(graph: Graph, selected: UUID | None = None) -> list[tuple[str, str]]:
    """The entities most active observations involve, for the board's entity filter (one query;
    a second when the selected entity is not among them)."""
    top = list(
        Entity.objects.filter(graph=graph, observations__status=Observation.Status.ACTIVE)
        .annotate(observation_count=Count("observations"))
        .order_by("-observation_count", "name", "pk")
        .values_list("uuid", "name")[:ENTITY_CHOICES]
    )
    if selected and all(uuid != selected for uuid, _ in top):
        top += list(Entity.objects.filter(graph=graph, uuid=selected).values_list("uuid", "name"))
    return [(str(uuid), name) for uuid, name in top]


def switcher_graphs(user: Any) -> QuerySet[Graph]:
    """The graphs the user is a member of, for the graph switcher (one query, when listed)."""
    return graphs_for_user(user).only("pk", "slug", "name")


def active_run(graph: Graph) -> PipelineRun | None:
    """The run a graph is waiting for or running now, if any (one query)."""
    return (
        PipelineRun.objects.filter(
            graph=graph, status__in=[PipelineRun.Status.QUEUED, PipelineRun.Status.RUNNING]
        )
        .order_by("-status", "created_at")  # running before queued
        .first()
    )


def graph_has_episodes(graph: Graph) -> bool:
    return Episode.objects.filter(graph=graph).exists()


# --- One observation --------------------------------------------------------------------------


def _fact_rows() -> QuerySet[Fact]:
    return Fact.objects.select_related(
        "source", "target", "closed_by_episode", "closed_by_fact__source",
        "closed_by_fact__target",
    )


def observation_claims(observation: Observation) -> list[Claim]:
    """Its claims in order, each with the facts it cites and what closed them (two queries)."""
    return list(
        Claim.objects.filter(observation=observation)
        .order_by("position")
        .prefetch_related(Prefetch("facts", queryset=_fact_rows().order_by("valid_at", "pk")))
    )


def fact_evidence(fact_ids: Iterable[int]) -> dict[int, list[FactEvidence]]:
    """The episodes supporting each fact, oldest first, with the sentence each says it in
    (one query)."""
    by_fact: dict[int, list[FactEvidence]] = {}
    rows = (
        FactEvidence.objects.filter(fact_id__in=list(fact_ids))
        .select_related("episode")
        .order_by("episode__reference_time", "episode_id")
    )
    for row in rows:
        by_fact.setdefault(row.fact_id, []).append(row)
    return by_fact


def cluster_episodes(observation: Observation) -> list[Episode]:
    """The episodes of the observation's cluster in time order, capped (one query)."""
    return list(
        observation.episodes.order_by("reference_time", "pk").only(
            "pk", "uuid", "author", "reference_time", "content", "type", "data", "source",
            "external_id",
        )[:CLUSTER_EPISODES_SHOWN]
    )


def lineage_versions(observation: Observation) -> list[Observation]:
    """Every version of the observation's lineage, oldest first (one query)."""
    return list(
        Observation.objects.filter(graph_id=observation.graph_id, lineage=observation.lineage)
        .order_by("version")
        .only(
            "pk", "uuid", "graph_id", "lineage", "version", "status", "name", "created_at",
            "retired_at", "retired_reason", "retirement", "episode_count", "fact_count",
        )
    )


def related_observations(observation: Observation) -> list[Observation]:
    """Observations of other lineages it came from (a split or a merge) or went into, each
    annotated ``is_successor`` (one query)."""
    through = Observation.predecessors.through
    successor = through.objects.filter(
        from_observation=OuterRef("pk"), to_observation=observation.pk
    )
    return list(
        Observation.objects.filter(graph_id=observation.graph_id)
        .filter(
            Q(pk__in=through.objects.filter(to_observation=observation.pk)
              .values("from_observation"))
            | Q(pk__in=through.objects.filter(from_observation=observation.pk)
                .values("to_observation"))
        )
        .exclude(lineage=observation.lineage)
        .annotate(is_successor=Exists(successor))
        .only("pk", "uuid", "name", "version", "status", "created_at", "lineage")
        .order_by("created_at", "pk")
    )


@dataclass(frozen=True, slots=True)
class RetirementEvidence:
    closed_facts: list[Fact]
    dropped_episodes: list[Episode]


def retirement_evidence(observation: Observation) -> RetirementEvidence | None:
    """For a retired observation: the facts whose closing and the episodes whose leaving
    retired it (two queries; none for an active one)."""
    retirement: dict[str, Any] = observation.retirement or {}
    if observation.status != Observation.Status.RETIRED:
        return None
    closed = list(
        _fact_rows().filter(graph_id=observation.graph_id,
                            pk__in=retirement.get("closed_facts", []))
        .order_by("invalid_at", "pk")
    )
    dropped = list(
        Episode.objects.filter(graph_id=observation.graph_id,
                               pk__in=retirement.get("dropped_episodes", []))
        .order_by("reference_time", "pk")
        .only("pk", "uuid", "author", "reference_time", "content", "type", "external_id")
    )
    return RetirementEvidence(closed_facts=closed, dropped_episodes=dropped)
