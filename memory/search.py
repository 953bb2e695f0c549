"""Ranked search over a graph's observations, facts, episodes and entities.

* **PostgreSQL**: full-text search — ``websearch_to_tsquery`` (quotes, ``or``, ``-word``) against
  weighted ``tsvector`` documents, ranked by ``ts_rank``. Observations are matched through a GIN
  expression index (migration ``0003``) on their name (weight A) and summary (B); an observation's
  summary is its claims joined, so claims are searched with it.
* **SQLite** (the embedded default): a portable fallback — the query's words, crudely stemmed
  ("blocked" → "block"), must all appear in the document (like ``websearch``'s AND); rows are
  scored by weighted term frequency in Python.

Each kind costs one query whatever the graph's size; results of all kinds are merged by score.
Search ranks a bounded set (``MAX_RESULTS``), as Zep's does.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from django.contrib.postgres.search import SearchQuery, SearchRank, SearchVector
from django.db import connection
from django.db.models import (
    Exists,
    F,
    Model,
    OuterRef,
    Q,
    QuerySet,
    StringAgg,
    Subquery,
    TextField,
    Value,
)
from django.db.models.expressions import Combinable, CombinedExpression
from django.db.models.functions import Coalesce

from memory import selectors
from memory.models import Alias, Claim, Entity, Episode, Fact, Graph, Observation

KINDS = ("observation", "fact", "episode", "entity")
MAX_RESULTS = 500
FALLBACK_CANDIDATES = 2000
CONFIG = "english"
_WORD = re.compile(r"[\w']+", re.UNICODE)
_STOPWORDS = frozenset({
    "a", "an", "and", "are", "as", "at", "be", "by", "for", "from", "has", "have", "i", "in",
    "is", "it", "its", "of", "on", "or", "that", "the", "this", "to", "was", "were", "will",
    "with",
})


@dataclass(frozen=True)
class Hit:
    kind: str
    item: Any
    score: float


@dataclass(frozen=True)
class Scope:
    """What each kind searches: observations of a status, current (or all) facts."""

    observation_status: str = Observation.Status.ACTIVE
    include_ended_facts: bool = False


def observation_document() -> CombinedExpression:
    """The indexed document of an observation (the GIN index in migration 0003 is built on
    exactly this expression; change both together)."""
    return SearchVector("name", weight="A", config=CONFIG) + SearchVector(
        "summary", weight="B", config=CONFIG
    )


def search(
    graph: Graph,
    text: str,
    *,
    kinds: Sequence[str] = KINDS,
    limit: int = 20,
    offset: int = 0,
    scope: Scope | None = None,
    any_word: bool = False,
) -> tuple[list[Hit], bool]:
    """The hits ranked ``offset`` to ``offset + limit`` and whether more follow. By default every
    word must match (``websearch``); ``any_word`` matches any of them (for context building)."""
    scope = scope or Scope()
    wanted = min(offset + limit + 1, MAX_RESULTS + 1)
    if any_word:
        text = " or ".join(_WORD.findall(text)) or text
    hits: list[Hit] = []
    for kind in kinds:
        hits += _search_kind(kind, graph, text, wanted, scope, any_word)
    hits.sort(key=lambda h: (-h.score, h.kind, h.item.pk))
    window = hits[offset : offset + limit]
    more = len(hits) > offset + limit and offset + limit < MAX_RESULTS
    return window, more


def _search_kind(
    kind: str, graph: Graph, text: str, wanted: int, scope: Scope, any_word: bool
) -> list[Hit]:
    queryset, postgres_document, fields = _sources(kind, graph, scope)
    if connection.vendor == "postgresql":
        query = SearchQuery(text, search_type="websearch", config=CONFIG)
        rows = (
            queryset.annotate(document=postgres_document)
            .filter(document=query)
            .annotate(rank=SearchRank(F("document"), query))
            .order_by("-rank", "pk")[:wanted]
        )
        return [Hit(kind, row, float(row.rank)) for row in rows]
    return _fallback(kind, queryset, fields, text, wanted, any_word)


def _sources(kind: str, graph: Graph, scope: Scope) -> tuple[QuerySet[Any], Any, dict[str, float]]:
    """The rows of a kind, its PostgreSQL document and the fallback's weighted fields."""
    if kind == "observation":
        observations = Observation.objects.filter(graph=graph)
        if scope.observation_status != "all":
            observations = observations.filter(status=scope.observation_status)
        return observations, observation_document(), {"name": 3.0, "summary": 1.0}
    if kind == "fact":
        facts = (
            Fact.objects.filter(graph=graph).select_related("source", "target")
            if scope.include_ended_facts
            else selectors.current_facts(graph)
        )
        document: Combinable = (
            SearchVector("sentence", weight="A", config=CONFIG)
            + SearchVector("source__name", "target__name", weight="B", config=CONFIG)
        )
        return facts, document, {"sentence": 2.0, "source__name": 1.0, "target__name": 1.0}
    if kind == "episode":
        episodes = Episode.objects.filter(graph=graph)
        document = SearchVector("content", weight="A", config=CONFIG) + SearchVector(
            "author", weight="B", config=CONFIG
        )
        return episodes, document, {"content": 1.0, "author": 2.0}
    if kind == "entity":
        entities = Entity.objects.filter(graph=graph, merged_into__isnull=True)
        aliases = (
            Alias.objects.filter(entity=OuterRef("pk"))
            .values("entity")
            .annotate(names=StringAgg("name", delimiter=Value(" ")))
            .values("names")
        ) if connection.vendor == "postgresql" else None
        document = SearchVector("name", weight="A", config=CONFIG)
        if aliases is not None:
            document += SearchVector(
                Coalesce(Subquery(aliases), Value(""), output_field=TextField()), weight="B",
                config=CONFIG,
            )
        return entities, document, {"name": 3.0, "aliases__name": 1.0}
    raise ValueError(f"unknown kind {kind!r}")


# --- The portable fallback ---------------------------------------------------------------------


def stem(word: str) -> str:
    """A crude English stem, enough to make "blocked", "blocker" and "blocking" meet "block"."""
    word = word.lower().strip("'")
    for suffix in ("ations", "ation", "ings", "ing", "ers", "ies", "ied", "ed", "er", "es", "s"):
        if word.endswith(suffix) and len(word) - len(suffix) >= 3:
            return word[: -len(suffix)] + ("y" if suffix in {"ies", "ied"} else "")
    return word


def terms(text: str) -> list[str]:
    words = [w for w in _WORD.findall(text.lower()) if w not in _STOPWORDS and len(w) > 1]
    return list(dict.fromkeys(stem(w) for w in words if not w.startswith("-")))


def _fallback(
    kind: str, queryset: QuerySet[Any], fields: dict[str, float], text: str, wanted: int,
    any_word: bool = False,
) -> list[Hit]:
    stems = [t for t in terms(text) if t != "or"]
    if not stems:
        return []
    either: Q | Combinable = Q()
    related = [name for name in fields if "__" in name and name.startswith("aliases")]
    plain = [name for name in fields if name not in related]
    for term in stems:
        matches: Q | Combinable = Q()
        for name in plain:
            matches |= Q(**{f"{name}__icontains": term})
        if related:
            matches |= Exists(Alias.objects.filter(entity=OuterRef("pk"), name__icontains=term))
        if kind == "observation":
            matches |= Exists(Claim.objects.filter(observation=OuterRef("pk"),
                                                   text__icontains=term))
        if any_word:
            either |= matches
        else:
            queryset = queryset.filter(matches)
    if any_word:
        queryset = queryset.filter(either)
    rows = list(queryset.order_by("-pk")[:FALLBACK_CANDIDATES])
    scored = [Hit(kind, row, _score(row, plain, fields, stems)) for row in rows]
    scored.sort(key=lambda h: (-h.score, h.item.pk))
    return scored[:wanted]


def _value(row: Model, path: str) -> str:
    value: Any = row
    for part in path.split("__"):
        value = getattr(value, part, "")
    return str(value or "")


def _score(row: Model, fields: Iterable[str], weights: dict[str, float], stems: list[str]) -> float:
    total = 0.0
    for name in fields:
        words = [stem(w) for w in _WORD.findall(_value(row, name).lower())]
        if not words:
            continue
        hits = sum(weights[name] * sum(1 for w in words if w.startswith(t)) for t in stems)
        total += hits / (1.0 + math.log(len(words)))
    return round(total / (10.0 + total), 6)
