"""Entity resolution (DESIGN §4 step 3): exact match on the normalized name, then aliases, then
fuzzy candidates.

A fuzzy candidate of the same type scoring at least ``AUTO_MERGE_SCORE`` is the same entity — unless
the names differ in a word that begins with another letter (``is_another_word``) — the mention
resolves to it, its spelling becomes an alias and the decision is journaled as an automatic
merge (reversible). Candidates between ``SUGGEST_SCORE`` and that, or of a compatible but different
type, become a new entity plus a merge suggestion for a person to accept or reject.

Matching needs the graph's names in memory; ``NameIndex`` keeps them per process and catches up
with one query per batch of episodes (entities created since it last looked), so the number of
queries per episode does not grow with the graph. A batch resolves through one ``NameCache``: the
names its episodes mention are looked up together, and what one episode creates the next one
finds without asking the database.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from datetime import datetime
from typing import NamedTuple

from rapidfuzz import fuzz, process

from memory.models import Alias, Entity, Graph, MergeRecord, MergeSuggestion
from memory.names import normalize_name

AUTO_MERGE_SCORE = 95.0
SUGGEST_SCORE = 85.0
MIN_FUZZY_LENGTH = 5
"""Names shorter than this are only matched exactly ("Bob" and "Rob" are different people)."""

# Types that may describe the same thing (a merge between them is suggested, never automatic).
_COMPATIBLE = [{"WorkItem", "Service", "Product"}, {"Customer"}, {"Person"}, {"Team"}]
_NUMBER = re.compile(r"\d+")
_ORG_SUFFIX = re.compile(r"\s+(inc|corp|corporation|ltd|llc|gmbh|co|company|plc|sa|ag)$")


class Candidate(NamedTuple):
    """A fuzzy candidate for a new name: an entity of the graph, how alike the names are."""

    pk: int
    score: float
    type: str
    automatic: bool
    """Alike enough to be the same entity without asking: ``AUTO_MERGE_SCORE`` or more, and
    not another word (``is_another_word``)."""


def is_another_word(key: str, other: str) -> bool:
    """Two names alike but for a word that begins with another letter ("amber toucan cleanup",
    "umber toucan cleanup": two projects; ``fuzz.ratio`` 95, one letter in twenty). A
    misspelling seldom changes a word's first letter, a different word of the same shape
    always does, and one letter apart in a 20-letter name reaches ``AUTO_MERGE_SCORE`` exactly
    (longer ones pass it): such a pair is suggested to a person, never merged."""
    words, others = key.split(), other.split()
    return len(words) == len(others) and any(
        a != b and a[:1] != b[:1] for a, b in zip(words, others, strict=True))


def compatible_types(a: str, b: str) -> bool:
    return a == b or any(a in group and b in group for group in _COMPATIBLE)


def match_key(normalized: str) -> str:
    """A looser key for fuzzy matching: organisation suffixes and plural endings dropped."""
    key = _ORG_SUFFIX.sub("", normalized)
    return " ".join(w[:-1] if len(w) > 3 and w.endswith("s") and not w.endswith("ss") else w
                    for w in key.split())


@dataclass
class NameIndex:
    """The canonical entities of one graph, for fuzzy matching and for typing known names."""

    graph_id: int
    last_id: int = 0
    types: dict[str, str] = field(default_factory=dict)
    """normalized name → type (also handed to extractors as ``known_entities``)."""
    by_type: dict[str, dict[int, str]] = field(default_factory=dict)
    """type → {entity id → match key}."""

    def catch_up(self) -> None:
        rows = Entity.objects.filter(
            graph_id=self.graph_id, pk__gt=self.last_id, merged_into__isnull=True
        ).values_list("pk", "normalized_name", "type")
        for pk, normalized, entity_type in rows:
            self.add(pk, normalized, entity_type)

    def add(self, pk: int, normalized: str, entity_type: str) -> None:
        self.types[normalized] = entity_type
        self.by_type.setdefault(entity_type, {})[pk] = match_key(normalized)
        self.last_id = max(self.last_id, pk)

    def candidates(self, normalized: str, entity_type: str) -> list[Candidate]:
        """Fuzzy candidates, best first, scoring at least SUGGEST_SCORE."""
        if len(normalized) < MIN_FUZZY_LENGTH:
            return []
        key = match_key(normalized)
        numbers = _NUMBER.findall(key)
        found: list[Candidate] = []
        for other_type, names in self.by_type.items():
            if not compatible_types(entity_type, other_type) or not names:
                continue
            for other, score, pk in process.extract(
                key, names, scorer=fuzz.ratio, score_cutoff=SUGGEST_SCORE, limit=5
            ):
                # "502 Errors" and "500 Errors", "Q3 Plan" and "Q4 Plan": one digit apart in
                # spelling, never the same thing.
                if _NUMBER.findall(other) == numbers:
                    found.append(Candidate(
                        pk, float(score), other_type,
                        score >= AUTO_MERGE_SCORE and not is_another_word(key, other)))
        # A merge only where sure: a candidate that may be merged comes before one as alike
        # that may not (the latter is still suggested).
        found.sort(key=lambda c: (-c.score, not c.automatic, c.pk))
        return found


_indexes: dict[int, NameIndex] = {}


def name_index(graph: Graph) -> NameIndex:
    index = _indexes.get(graph.pk)
    if index is None:
        index = _indexes[graph.pk] = NameIndex(graph.pk)
    index.catch_up()
    return index


def forget_name_index(graph_id: int) -> None:
    """Merges and undos change which names are canonical, and a rolled-back batch may have added
    entities that were never stored; the next look-up rebuilds."""
    _indexes.pop(graph_id, None)


@dataclass
class NameCache:
    """What one batch of episodes knows about its graph's names: normalized name → canonical
    entity, or ``None`` when the graph had none when it looked. Lives inside the batch's
    transaction (it holds the graph's lock), so nobody else adds names meanwhile."""

    graph: Graph
    index: NameIndex
    entities: dict[str, Entity | None] = field(default_factory=dict)

    def look_up(self, keys: set[str]) -> None:
        """Two queries at most (names, then aliases) for the keys not looked up yet."""
        unknown = {k for k in keys if k and k not in self.entities}
        if not unknown:
            return
        for entity in Entity.objects.filter(
            graph=self.graph, normalized_name__in=unknown, merged_into__isnull=True
        ):
            self.entities[entity.normalized_name] = entity
        missing = unknown - self.entities.keys()
        if missing:
            for alias in Alias.objects.filter(
                graph=self.graph, normalized_name__in=missing
            ).select_related("entity"):
                self.entities[alias.normalized_name] = _canonical(alias.entity)
        for key in unknown - self.entities.keys():
            self.entities[key] = None

    def learn(self, entity: Entity) -> None:
        """A new canonical entity: later episodes of the batch resolve and match it."""
        self.entities[entity.normalized_name] = entity
        self.index.add(entity.pk, entity.normalized_name, entity.type)

    def refresh_index(self) -> None:
        """A merge made the process forget the index; read it again (inside our transaction,
        so it sees what this batch created)."""
        if _indexes.get(self.graph.pk) is not self.index:
            self.index = name_index(self.graph)


@dataclass
class Resolution:
    entities: dict[tuple[str, str], Entity]
    """(name as mentioned, type) → the entity it resolved to."""
    created: list[Entity]
    suggestions: list[MergeSuggestion]
    automatic_merges: list[MergeRecord]


def resolve_entities(
    graph: Graph,
    mentions: list[tuple[str, str]],
    *,
    now: datetime,
    names: NameCache | None = None,
) -> Resolution:
    """Resolve ``(name, type)`` mentions to entities of ``graph``, creating what is new.

    Queries: the name index catching up (1, unless a batch's ``names`` is given), normalized names
    and aliases of the names not looked up yet (0–2), creating new entities (1), plus suggestions
    and automatic merges when fuzzy matches occur."""
    if names is None:
        names = NameCache(graph, name_index(graph))
    keyed = {(name, entity_type): normalize_name(name) for name, entity_type in mentions}
    names.look_up(set(keyed.values()))
    found: dict[str, Entity] = {
        key: entity for key in keyed.values() if (entity := names.entities.get(key)) is not None
    }
    result = Resolution(entities={}, created=[], suggestions=[], automatic_merges=[])
    to_create: dict[str, Entity] = {}
    fuzzy: dict[str, list[Candidate]] = {}
    for (name, entity_type), key in keyed.items():
        if not key or key in found or key in to_create:
            continue
        candidates = names.index.candidates(key, entity_type)
        best = candidates[0] if candidates else None
        if best and best.automatic and best.type == entity_type:
            fuzzy[key] = [best]
        else:
            fuzzy[key] = candidates
        to_create[key] = Entity(
            graph=graph, name=name.strip(), normalized_name=key, type=entity_type, created_at=now
        )
    if to_create:
        created = Entity.objects.bulk_create(list(to_create.values()))
        result.created.extend(created)
        _apply_fuzzy_matches(graph, created, fuzzy, found, result, now)
        # An automatic merge forgets the process's index; the batch reads it again.
        names.refresh_index()
        for entity in created:
            kept = found.setdefault(entity.normalized_name, entity)
            if kept is entity:
                # Added before the commit: whoever rolls the transaction back forgets the index.
                names.learn(entity)
            else:
                names.entities[entity.normalized_name] = kept
    for (name, entity_type), key in keyed.items():
        if key:
            result.entities[(name, entity_type)] = found[key]
    return result


def _apply_fuzzy_matches(
    graph: Graph,
    created: list[Entity],
    fuzzy: dict[str, list[Candidate]],
    found: dict[str, Entity],
    result: Resolution,
    now: datetime,
) -> None:
    from memory.merges import merge_entities

    wanted = {c.pk for cands in fuzzy.values() for c in cands}
    if not wanted:
        return
    # The index is a hint (another process may have merged since); the database decides.
    existing = {e.pk: _canonical(e) for e in Entity.objects.filter(pk__in=wanted, graph=graph)}
    # The entities were created just now, so none has a suggestion yet: they are all created in
    # one insert (two candidates may share a canonical entity: the first, best one counts).
    suggestions: dict[tuple[int, int], MergeSuggestion] = {}
    for entity in created:
        candidates = [c for c in fuzzy.get(entity.normalized_name, []) if c.pk in existing]
        if not candidates:
            continue
        best = candidates[0]
        into = existing[best.pk]
        if best.automatic and best.type == entity.type and into.pk != entity.pk:
            record = merge_entities(into, entity, automatic=True, score=best.score, now=now)
            result.automatic_merges.append(record)
            found[entity.normalized_name] = into
            continue
        for pk, score, *_ in candidates:
            into = existing[pk]
            if into.pk == entity.pk or (entity.pk, into.pk) in suggestions:
                continue
            suggestions[(entity.pk, into.pk)] = MergeSuggestion(
                graph=graph, entity=entity, into=into, score=score, created_at=now
            )
    if suggestions:
        result.suggestions.extend(MergeSuggestion.objects.bulk_create(list(suggestions.values())))


def _canonical(entity: Entity) -> Entity:
    seen = 0
    while entity.merged_into_id is not None and seen < 10:
        entity = Entity.objects.get(pk=entity.merged_into_id)
        seen += 1
    return entity
