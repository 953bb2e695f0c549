"""Read queries of the pages. Each builds its rows in a fixed number of queries whatever the size
of the graph (the view tests pin the counts); the pages turn the rows into cards and diagrams
without touching the database again."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from datetime import date, datetime
from typing import TYPE_CHECKING, Any, TypedDict
from uuid import UUID

from django.db import connection
from django.db.models import (
    Case,
    CharField,
    Count,
    Exists,
    F,
    IntegerField,
    Min,
    OuterRef,
    Prefetch,
    Q,
    QuerySet,
    Subquery,
    Value,
    When,
    prefetch_related_objects,
)
from django.db.models.fields.json import KT
from django.db.models.functions import Cast, Coalesce, Substr, TruncDate

from memory.engine.item_priority import UNKNOWN
from memory.models import (
    Claim,
    Entity,
    Episode,
    Fact,
    FactEvidence,
    Graph,
    MergeRecord,
    MergeSuggestion,
    Observation,
    PipelineRun,
)
from memory.selectors import graphs_for_user

if TYPE_CHECKING:
    from django_stubs_ext import WithAnnotations

ENTITY_CHOICES = 40
"""How many entities the board's entity filter offers (those most observations involve)."""
CLUSTER_EPISODES_SHOWN = 200
"""An observation page lists at most this many of its episodes (clusters are capped far lower
by ``max_cluster_episodes``; this guards the page against a graph configured without a cap)."""

SORTS = {
    # Stalled cards have no reach: among them, the tracker's priority, then severity, then the
    # longest stalled (``stall_order``), as the weekly review lists them.
    "reach": ["-reach_total", "stall_priority", "stall_severity", "stall_since", "-window_end",
              "-pk"],
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
    """What a card shows, plus when its lineage began (for the "new" / "updated" badge). The
    entities a card links to come with ``with_card_entities``, once the page is known."""
    lineage_started = Observation.objects.filter(
        lineage=OuterRef("lineage"), version=1
    ).values("created_at")[:1]
    return observations.annotate(lineage_started_at=Subquery(lineage_started))


def with_card_entities(
    observations: list[Observation], entity_ids: Iterable[int]
) -> list[Observation]:
    """Prefetch, as each observation's ``entities``, those of ``entity_ids`` it involves (one
    query). Only the ones its card links to: the widest observations involve ~80 entities each,
    and a page of all of them cost more than the rest of the board."""
    prefetch_related_objects(observations, Prefetch(
        "entities",
        queryset=Entity.objects.filter(pk__in=set(entity_ids)).only("pk", "uuid", "name", "type"),
    ))
    return observations


def board_observations(graph: Graph, filters: BoardFilters) -> QuerySet[Observation]:
    """The board's observations, filtered and sorted. Counting, one page of rows and their
    entities are three queries."""
    observations = Observation.objects.filter(graph=graph, status=filters.status)
    if filters.status == Observation.Status.RETIRED:
        # Endings only: a superseded version lives on in its successor's history.
        observations = observations.exclude(retired_reason=Observation.RetiredReason.SUPERSEDED)
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
    sort = SORTS.get(filters.sort, SORTS["reach"])
    if "stall_priority" in sort:
        observations = stall_order(observations)
    return _card_fields(observations).order_by(*sort)


def stall_order(observations: QuerySet[Observation]) -> QuerySet[Observation]:
    """Annotated with what orders stalled cards: ``stall_priority`` and ``stall_severity`` (the
    ranks ``Stall.as_dict`` stores as ``urgency``, lower first; ``UNKNOWN`` when the tracker
    gives none) and ``stall_since`` (ISO time in UTC: in text order, the oldest first). Other
    cards come first (-1, "") and keep the order that follows."""
    stalled = Q(kind=Observation.Kind.STALLED)

    def rank(index: int) -> Case:
        stored = Cast(KT(f"structure__stalled__urgency__{index}"), IntegerField())
        return Case(When(stalled, then=Coalesce(stored, Value(UNKNOWN))), default=Value(-1),
                    output_field=IntegerField())

    return observations.annotate(
        stall_priority=rank(0), stall_severity=rank(1),
        stall_since=Case(When(stalled, then=KT("structure__stalled__since")), default=Value(""),
                         output_field=CharField()),
    )


def retired_observations(
    graph: Graph, *, reason: str = "", since: datetime | None = None,
    until: datetime | None = None,
) -> QuerySet[Observation]:
    """Retired observations, most recently retired first: the endings (evidence ended, split,
    merged) unless ``reason`` asks for superseded versions — those live on in their successor's
    history, and listing them buried the one real resolution among near-duplicate cards."""
    observations = Observation.objects.filter(graph=graph, status=Observation.Status.RETIRED)
    if reason:
        observations = observations.filter(retired_reason=reason)
    else:
        observations = observations.exclude(retired_reason=Observation.RetiredReason.SUPERSEDED)
    if since:
        observations = observations.filter(retired_at__gte=since)
    if until:
        observations = observations.filter(retired_at__lt=until)
    return _card_fields(observations).order_by("-retired_at", "-pk")


def entity_choices(graph: Graph, selected: UUID | None = None) -> list[tuple[str, str]]:
    """The entities most active observations involve, for the board's entity filter (one query;
    a second when the selected entity is not among them).

    The links are counted per entity id first, and only the entities at or above the
    ``ENTITY_CHOICES``-th count are joined for their names: joining every link to its entity
    before grouping cost 400 ms at 10,000 active observations (140,000 links)."""
    quote = connection.ops.quote_name
    links = quote(Observation.entities.through._meta.db_table)
    sql = f"""
        WITH counts AS (
            SELECT l.entity_id AS id, COUNT(*) AS n
            FROM {links} l JOIN {quote(Observation._meta.db_table)} o ON o.id = l.observation_id
            WHERE o.graph_id = %s AND o.status = %s
            GROUP BY l.entity_id
        ), cutoff AS (
            SELECT n FROM counts ORDER BY n DESC LIMIT 1 OFFSET %s
        )
        SELECT e.uuid, e.name FROM counts c JOIN {quote(Entity._meta.db_table)} e ON e.id = c.id
        WHERE e.graph_id = %s AND c.n >= COALESCE((SELECT n FROM cutoff), 0)
        ORDER BY c.n DESC, e.name, e.id
        LIMIT %s
    """
    with connection.cursor() as cursor:
        cursor.execute(sql, [graph.pk, Observation.Status.ACTIVE.value, ENTITY_CHOICES - 1,
                             graph.pk, ENTITY_CHOICES])
        # SQLite hands back the uuid column as 32 hex digits, PostgreSQL as a UUID.
        top = [(UUID(str(uuid)), name) for uuid, name in cursor.fetchall()]
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
            "external_id", "url",
        )[:CLUSTER_EPISODES_SHOWN]
    )


def entity_pages(observation: Observation) -> dict[int, UUID]:
    """Entity id → uuid for the entities the observation involves, to link their names to their
    pages (one query)."""
    return dict(observation.entities.values_list("pk", "uuid"))


def lineage_versions(observation: Observation) -> list[Observation]:
    """Every version of the observation's lineage, oldest first (one query)."""
    return list(
        Observation.objects.filter(graph_id=observation.graph_id, lineage=observation.lineage)
        .order_by("version")
        .only(
            "pk", "uuid", "graph_id", "lineage", "version", "status", "kind", "name",
            "created_at", "retired_at", "retired_reason", "retirement", "episode_count",
            "fact_count", "restatements", "evidence_fingerprint",
        )
    )


class Succession(TypedDict):
    is_successor: bool


def related_observations(
    observation: Observation,
) -> list[WithAnnotations[Observation, Succession]]:
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


# --- Episodes ---------------------------------------------------------------------------------

EPISODE_EXCERPT = 320
"""Characters of an episode's text a list row shows (cut in the database: a row can be 64 KB)."""
CHOICES_LISTED = 100
"""At most this many distinct authors or sources are offered as filter suggestions."""


@dataclass(frozen=True, slots=True)
class EpisodeFilters:
    author: str = ""
    source: str = ""
    status: str = ""
    since: datetime | None = None
    until: datetime | None = None
    entity: UUID | None = None


def episode_list(graph: Graph, filters: EpisodeFilters) -> QuerySet[Episode]:
    """The graph's episodes, newest first (by when they were written), each with an excerpt of
    its text and how many facts it supports. Counting and one page are two queries."""
    episodes = Episode.objects.filter(graph=graph)
    if filters.author:
        episodes = episodes.filter(author__iexact=filters.author)
    if filters.source:
        episodes = episodes.filter(source__iexact=filters.source)
    if filters.status:
        episodes = episodes.filter(status=filters.status)
    if filters.since:
        episodes = episodes.filter(reference_time__gte=filters.since)
    if filters.until:
        episodes = episodes.filter(reference_time__lt=filters.until)
    if filters.entity:
        mentions = FactEvidence.objects.filter(
            Q(fact__source__uuid=filters.entity) | Q(fact__target__uuid=filters.entity),
            episode=OuterRef("pk"),
        )
        episodes = episodes.filter(Exists(mentions))
    supported = FactEvidence.objects.filter(episode=OuterRef("pk")).values("episode")
    return (
        episodes.annotate(
            excerpt=Substr("content", 1, EPISODE_EXCERPT),
            fact_count=Subquery(supported.annotate(n=Count("pk")).values("n")[:1]),
        )
        .only("pk", "uuid", "graph_id", "author", "source", "type", "reference_time",
              "ingested_at", "status", "error", "attempts", "external_id", "extractor")
        .order_by("-reference_time", "-pk")
    )


def episode_sources(graph: Graph) -> list[str]:
    """The sources the graph's episodes came from, for the filter (one query)."""
    return list(
        Episode.objects.filter(graph=graph).exclude(source="")
        .order_by("source").values_list("source", flat=True).distinct()[:CHOICES_LISTED]
    )


def episode_authors(graph: Graph) -> list[str]:
    """The graph's authors, as suggestions for the filter and the form (one query)."""
    return list(
        Episode.objects.filter(graph=graph).exclude(author="")
        .order_by("author").values_list("author", flat=True).distinct()[:CHOICES_LISTED]
    )


def episode_status_counts(graph: Graph, *, ingested_at: datetime | None = None) -> dict[str, int]:
    """How many of the graph's episodes — or of one upload's, which share their ingestion
    time — are in each processing status (one query)."""
    episodes = Episode.objects.filter(graph=graph)
    if ingested_at is not None:
        episodes = episodes.filter(ingested_at=ingested_at)
    counts = {status: 0 for status in Episode.Status.values}
    for status, count in episodes.values_list("status").annotate(n=Count("pk")).order_by():
        counts[status] = count
    return counts


def episode_evidence(episode: Episode) -> list[FactEvidence]:
    """The facts an episode supports, each with the sentence this episode says it in and what
    closed it (one query)."""
    return list(
        FactEvidence.objects.filter(episode=episode)
        .select_related(
            "fact__source", "fact__target", "fact__closed_by_episode",
            "fact__closed_by_fact__source", "fact__closed_by_fact__target",
        )
        .order_by("fact__valid_at", "fact_id")
    )


def facts_closed_by(episode: Episode) -> list[Fact]:
    """The facts this episode ended (one query)."""
    return list(_fact_rows().filter(closed_by_episode=episode).order_by("invalid_at", "pk"))


def episode_observations(episode: Episode) -> list[Observation]:
    """The observations built on this episode: active ones first, then retired versions, newest
    first (one query)."""
    return list(
        episode.observations.only(
            "pk", "uuid", "graph_id", "name", "kind", "status", "version", "created_at",
            "retired_at", "retired_reason",
        ).order_by("status", "-created_at", "-pk")
    )


# --- Pipeline runs ----------------------------------------------------------------------------

RUN_FIELDS = (
    "pk", "uuid", "graph_id", "status", "trigger", "as_of", "stage", "progress", "counts",
    "timings", "llm_calls", "llm_cached", "tokens_in", "tokens_out", "error", "created_at",
    "started_at", "finished_at", "published_at", "requested_by__username",
)
RUN_OBSERVATIONS_SHOWN = 60


def graph_runs(graph: Graph) -> QuerySet[PipelineRun]:
    """The graph's runs, newest first, without their (large) audit and settings; counting and one
    page are two queries."""
    return (
        PipelineRun.objects.filter(graph=graph)
        .select_related("requested_by")
        .only(*RUN_FIELDS)
        .order_by("-created_at", "-pk")
    )


def run_observations(run: PipelineRun) -> tuple[list[Observation], list[Observation]]:
    """The observations a run wrote and those it retired (two queries), capped."""
    fields = ("pk", "uuid", "graph_id", "name", "kind", "status", "version", "created_at",
              "retired_reason")
    created = list(run.created_observations.only(*fields)
                   .order_by("-reach_people", "-reach_work_items", "pk")[:RUN_OBSERVATIONS_SHOWN])
    retired = list(run.retired_observations.only(*fields)
                   .order_by("pk")[:RUN_OBSERVATIONS_SHOWN])
    return created, retired


# --- Entities and merges ----------------------------------------------------------------------

ENTITY_EPISODES_SHOWN = 20
ENTITY_OBSERVATIONS_SHOWN = 30
MERGES_SHOWN = 20


def first_episode_uuid() -> Subquery:
    """An annotation: the uuid of the earliest episode supporting a fact (where a click on the
    fact leads)."""
    return Subquery(
        FactEvidence.objects.filter(fact=OuterRef("pk"))
        .order_by("episode__reference_time", "episode_id")
        .values("episode__uuid")[:1]
    )


def entity_fact_rows(entity: Entity) -> list[Fact]:
    """Every fact about an entity, either direction, with what closed it and where it was first
    said (one query)."""
    return list(
        _fact_rows()
        .filter(Q(source=entity) | Q(target=entity), graph_id=entity.graph_id)
        .annotate(first_episode=first_episode_uuid())
        .order_by("valid_at", "pk")
    )


def episodes_mentioning(facts: Iterable[Fact]) -> list[Episode]:
    """The episodes supporting any of these facts, newest first, one more than shown (so the page
    knows there are more) (one query)."""
    return list(
        Episode.objects.filter(evidence__fact__in=[f.pk for f in facts])
        .distinct()
        .annotate(excerpt=Substr("content", 1, EPISODE_EXCERPT))
        .only("pk", "uuid", "graph_id", "author", "source", "type", "reference_time",
              "ingested_at", "status")
        .order_by("-reference_time", "-pk")[: ENTITY_EPISODES_SHOWN + 1]
    )


def entity_observations(entity: Entity) -> list[Observation]:
    """The active observations involving the entity (one query)."""
    return list(
        entity.observations.filter(status=Observation.Status.ACTIVE)
        .only("pk", "uuid", "graph_id", "name", "kind", "status", "version", "window_start",
              "window_end", "reach_people", "reach_work_items")
        .order_by("-reach_people", "-reach_work_items", "name")[:ENTITY_OBSERVATIONS_SHOWN]
    )


def entity_suggestions(entity: Entity) -> list[MergeSuggestion]:
    """Open merge suggestions involving the entity, either side (one query)."""
    return list(
        MergeSuggestion.objects.filter(graph_id=entity.graph_id,
                                       status=MergeSuggestion.Status.OPEN)
        .filter(Q(entity=entity) | Q(into=entity))
        .select_related("entity", "into")
        .order_by("-score", "pk")
    )


def open_suggestions(graph: Graph) -> QuerySet[MergeSuggestion]:
    """Open merge suggestions, most likely first; counting and one page are two queries."""
    return (
        MergeSuggestion.objects.filter(graph=graph, status=MergeSuggestion.Status.OPEN)
        .select_related("entity", "into")
        .order_by("-score", "created_at", "pk")
    )


def facts_by_entity(entity_ids: Iterable[int]) -> dict[int, list[Fact]]:
    """For each entity, its facts in either direction, newest first (one query)."""
    ids = set(entity_ids)
    by_entity: dict[int, list[Fact]] = {pk: [] for pk in ids}
    rows = (
        Fact.objects.filter(Q(source_id__in=ids) | Q(target_id__in=ids))
        .select_related("source", "target")
        .order_by("-valid_at", "-pk")
    )
    for fact in rows:
        for side in (fact.source_id, fact.target_id):
            if side in by_entity:
                by_entity[side].append(fact)
    return by_entity


def recent_merges(graph: Graph) -> list[MergeRecord]:
    """The merge journal, newest first, capped (one query)."""
    return list(
        MergeRecord.objects.filter(graph=graph)
        .select_related("kept", "merged", "performed_by", "undone_by")
        .order_by("-created_at", "-pk")[:MERGES_SHOWN]
    )


# --- Timeline ---------------------------------------------------------------------------------

ROW_TYPE_ORDER = ("WorkItem", "Customer", "Issue", "Service", "Product", "Team", "Person",
                  "Event", "Plan")
"""Rows of the graph timeline come in this order of their entity's type (then by first fact)."""
TIMELINE_OBSERVATIONS = 200
"""The most observation versions the graph timeline loads (it draws ``LINEAGES_DRAWN`` lanes)."""


@dataclass(frozen=True, slots=True)
class TimelineWindow:
    """World-time range of a timeline and the system time its knowledge is cut at."""

    start: datetime
    end: datetime
    known_at: datetime
    entity_type: str = ""


def known_facts_in(graph: Graph, window: TimelineWindow) -> QuerySet[Fact]:
    """Facts that held at some point of the window, as known at ``known_at``: learned by then,
    not retracted by then, and — with what was known of their end then — overlapping it. Status
    entities are values, not rows."""
    cut = window.known_at
    known = Q(created_at__lte=cut) & (
        Q(expired_at__isnull=True) | Q(expired_at__gt=cut) | Q(invalid_at__isnull=False)
    )
    overlapping = Q(valid_at__lt=window.end) & (
        Q(invalid_at__isnull=True) | Q(invalid_at__gte=window.start) | Q(expired_at__gt=cut)
    )
    facts = Fact.objects.filter(known, overlapping, graph=graph).exclude(source__type="Status")
    if window.entity_type:
        facts = facts.filter(source__type=window.entity_type)
    return facts


def timeline_rows(graph: Graph, window: TimelineWindow) -> QuerySet[Any]:
    """One row per entity with facts in the window (its id, name, type, uuid, first fact and
    fact count), work items first; counting and one page are two queries."""
    rank = Case(
        *[When(source__type=name, then=Value(i)) for i, name in enumerate(ROW_TYPE_ORDER)],
        default=Value(len(ROW_TYPE_ORDER)), output_field=IntegerField(),
    )
    return (
        known_facts_in(graph, window)
        .values("source_id", "source__name", "source__type", "source__uuid")
        .annotate(first=Min("valid_at"), facts=Count("pk"), rank=rank)
        .order_by("rank", "first", "source__name", "source_id")
    )


def timeline_facts(graph: Graph, window: TimelineWindow, source_ids: list[int]) -> list[Fact]:
    """The facts of one page of rows, with what closed them and where each was first said (one
    query)."""
    return list(
        known_facts_in(graph, window)
        .filter(source_id__in=source_ids)
        .select_related("source", "target", "closed_by_episode")
        .annotate(first_episode=first_episode_uuid())
        .order_by("valid_at", "pk")
    )


def timeline_episodes(graph: Graph, window: TimelineWindow, limit: int) -> list[Episode]:
    """Episodes written in the window and known by then, oldest first, at most ``limit`` (one
    query)."""
    return list(
        Episode.objects.filter(graph=graph, reference_time__gte=window.start,
                               reference_time__lt=window.end, ingested_at__lte=window.known_at)
        .annotate(excerpt=Substr("content", 1, 160))
        .only("pk", "uuid", "author", "type", "reference_time", "graph_id")
        .order_by("reference_time", "pk")[:limit]
    )


def timeline_day_counts(graph: Graph, window: TimelineWindow) -> dict[date, int]:
    """How many episodes were written on each day of the window (one query)."""
    rows = (
        Episode.objects.filter(graph=graph, reference_time__gte=window.start,
                               reference_time__lt=window.end, ingested_at__lte=window.known_at)
        .annotate(day=TruncDate("reference_time"))
        .values_list("day")
        .annotate(n=Count("pk"))
        .order_by("day")
    )
    return {day: count for day, count in rows}


def timeline_observations(graph: Graph, window: TimelineWindow) -> list[Observation]:
    """Observation versions published by ``known_at`` that were active at some point of the
    window, oldest first, capped: one more than ``TIMELINE_OBSERVATIONS`` tells the page that
    some were left out (one query)."""
    return list(
        Observation.objects.filter(graph=graph, created_at__lte=window.known_at,
                                   created_at__lt=window.end)
        .filter(Q(retired_at__isnull=True) | Q(retired_at__gte=window.start))
        .only("pk", "uuid", "graph_id", "lineage", "version", "kind", "name", "status",
              "created_at", "retired_at", "retired_reason", "retirement")
        .order_by("created_at", "pk")[: TIMELINE_OBSERVATIONS + 1]
    )
