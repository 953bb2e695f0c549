"""Extractors turn an episode into entities, facts and closures, all in the same shape.

* ``structured`` — the episode carries its entities and facts (a tracker export, an importer);
* ``rules``      — a deterministic extractor for English status updates and support tickets;
* ``llm``        — an OpenAI-compatible model constrained to the graph's ontology.

Extractors are pure: text and context in, an ``Extraction`` out. Resolving names to entities and
applying the time rules happens afterwards (``memory.processing``).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime


@dataclass(frozen=True)
class ExtractedEntity:
    name: str
    type: str


@dataclass(frozen=True)
class ExtractedFact:
    """``source —relation→ target`` with the relation already canonical (ontology name) and the
    direction normalized (``X blocks Y`` arrives as ``Y DEPENDS_ON X``)."""

    source: str
    source_type: str
    relation: str
    target: str
    target_type: str
    sentence: str
    valid_at: datetime | None = None
    """An explicit start in the text ("upgraded on 2026-04-28"); else the episode's time."""
    invalid_at: datetime | None = None
    reading: str = field(default="", compare=False, repr=False)
    """Which reading of the rules extractor produced it (``memory.extraction.readings``):
    provenance for the extraction bench, never stored with the fact."""


@dataclass(frozen=True)
class ExtractedClosure:
    """The episode says explicitly that facts ended ("no longer waiting on the auth refactor"):
    close the open facts ``source —relation→ target`` (any target when ``target`` is None)."""

    source: str
    source_type: str
    relation: str
    target: str | None
    target_type: str | None
    sentence: str
    at: datetime | None = None


@dataclass
class Extraction:
    extractor: str
    """Name and version, e.g. ``"rules@1"``; recorded on every fact it produced."""
    entities: list[ExtractedEntity] = field(default_factory=list)
    facts: list[ExtractedFact] = field(default_factory=list)
    closures: list[ExtractedClosure] = field(default_factory=list)
    author: ExtractedEntity | None = None
    """Who "I" / "we" is, when the episode has an author."""
    dropped: list[str] = field(default_factory=list)
    """What the extractor saw but would not turn into facts (unknown relation, self-loop...)."""
    model_failure: str = ""
    """Why the rules read an episode the model should have read ("model failed: timeout")."""
    unread: str | None = None
    """Why the extractor found nothing at all, when it did not ("not understood by the rules
    extractor", "language not supported"); shown on the episode's page."""

    def all_entities(self) -> list[ExtractedEntity]:
        """Every entity mentioned, deduplicated in first-mention order."""
        seen: dict[tuple[str, str], ExtractedEntity] = {}
        candidates = list(self.entities)
        if self.author:
            candidates.insert(0, self.author)
        for fact in self.facts:
            candidates.append(ExtractedEntity(fact.source, fact.source_type))
            candidates.append(ExtractedEntity(fact.target, fact.target_type))
        for closure in self.closures:
            candidates.append(ExtractedEntity(closure.source, closure.source_type))
            if closure.target and closure.target_type:
                candidates.append(ExtractedEntity(closure.target, closure.target_type))
        for entity in candidates:
            seen.setdefault((entity.name, entity.type), entity)
        return list(seen.values())
