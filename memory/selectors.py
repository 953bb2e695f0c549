"""Read queries shared by the pages, the APIs and the commands. Each returns a queryset (or a
list) built with a fixed number of queries, whatever the size of the graph.

Time (DESIGN §3):
* *current*: valid now and not expired — the default everywhere;
* *valid at T* (``as_of``): what we now know held in the world at T;
* *known at T* (``known_at``): what the system believed at system time T about world time W
  (W defaults to T) — a fact closed after T was still believed open at T.
"""

from __future__ import annotations

from collections.abc import Iterable
from datetime import datetime

from django.contrib.auth.models import AnonymousUser, User
from django.db.models import Prefetch, Q, QuerySet
from django.utils import timezone

from memory.models import Entity, Episode, Fact, FactEvidence, Graph


def _facts(graph: Graph) -> QuerySet[Fact]:
    return Fact.objects.filter(graph=graph).select_related("source", "target")


def with_evidence(facts: QuerySet[Fact]) -> QuerySet[Fact]:
    """Add each fact's supporting episodes (one more query)."""
    return facts.prefetch_related(
        Prefetch(
            "evidence",
            queryset=FactEvidence.objects.select_related("episode").order_by(
                "episode__reference_time", "episode_id"
            ),
        )
    )


def valid_at_q(moment: datetime) -> Q:
    return Q(valid_at__lte=moment) & (Q(invalid_at__isnull=True) | Q(invalid_at__gt=moment))


def current_facts(graph: Graph) -> QuerySet[Fact]:
    """Valid now and not expired (one query)."""
    now = timezone.now()
    return _facts(graph).filter(
        valid_at_q(now), expired_at__isnull=True
    ).order_by("valid_at", "pk")


def facts_valid_at(graph: Graph, moment: datetime) -> QuerySet[Fact]:
    """What held in the world at ``moment``, by today's knowledge (one query). Closed facts
    count for the time they held; facts retracted outright (expired with no end) do not."""
    believed = Q(expired_at__isnull=True) | Q(invalid_at__isnull=False)
    return _facts(graph).filter(valid_at_q(moment), believed).order_by("valid_at", "pk")


def facts_known_at(
    graph: Graph, known_at: datetime, *, valid_at: datetime | None = None
) -> QuerySet[Fact]:
    """What the system believed at system time ``known_at`` about world time ``valid_at``
    (default the same moment). One query."""
    world = valid_at or known_at
    learned = Q(created_at__lte=known_at)
    still_believed = Q(expired_at__isnull=True) | Q(expired_at__gt=known_at)
    # An end recorded after known_at was not known then: the fact still looked open.
    held = Q(valid_at__lte=world) & (
        Q(invalid_at__isnull=True) | Q(invalid_at__gt=world) | Q(expired_at__gt=known_at)
    )
    return _facts(graph).filter(learned, still_believed, held).order_by("valid_at", "pk")


def entity_facts(entity: Entity) -> tuple[list[Fact], list[Fact]]:
    """An entity's current and ended facts, either direction (one query)."""
    facts = (
        Fact.objects.filter(Q(source=entity) | Q(target=entity), graph_id=entity.graph_id)
        .select_related("source", "target")
        .order_by("valid_at", "pk")
    )
    return split_ended(facts, timezone.now())


def split_ended(facts: Iterable[Fact], now: datetime) -> tuple[list[Fact], list[Fact]]:
    """Facts split into (still standing, ended) at ``now``. Ended = something closed it (or it
    was retracted); a fact dated ahead still stands."""
    current: list[Fact] = []
    ended: list[Fact] = []
    for fact in facts:
        closed = fact.expired_at is not None or (
            fact.invalid_at is not None and fact.invalid_at <= now
        )
        (ended if closed else current).append(fact)
    return current, ended


def graph_episodes(graph: Graph) -> QuerySet[Episode]:
    """Episodes of a graph in time order (one query)."""
    return Episode.objects.filter(graph=graph).order_by("reference_time", "pk")


def episode_facts(episode: Episode) -> QuerySet[Fact]:
    """The facts an episode supports (one query)."""
    return (
        Fact.objects.filter(evidence__episode=episode)
        .select_related("source", "target")
        .order_by("pk")
    )


def graphs_for_user(user: User | AnonymousUser) -> QuerySet[Graph]:
    if not user.is_authenticated:
        return Graph.objects.none()
    return Graph.objects.filter(memberships__user=user).order_by("name")


def fact_as_dict(fact: Fact) -> dict[str, object]:
    """The JSON form of a fact used by ``export_facts`` (and the same field names as the API)."""
    evidence = getattr(fact, "_prefetched_objects_cache", {}).get("evidence")
    return {
        "uuid": str(fact.uuid),
        "source": fact.source.name,
        "source_type": fact.source.type,
        "relation": fact.relation,
        "target": fact.target.name,
        "target_type": fact.target.type,
        "fact": fact.sentence,
        "valid_at": _iso(fact.valid_at),
        "invalid_at": _iso(fact.invalid_at),
        "created_at": _iso(fact.created_at),
        "expired_at": _iso(fact.expired_at),
        "close_reason": fact.close_reason or None,
        "extractor": fact.extractor,
        "episodes": [e.episode.label for e in evidence] if evidence is not None else None,
    }


def _iso(value: datetime | None) -> str | None:
    return value.isoformat() if value else None
