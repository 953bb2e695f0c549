"""The structured extractor: the episode carries its own entities and facts (a tracker export, an
importer, an agent that already knows what it means). They are used as they are; ingestion has
already validated them and normalized their relations to the ontology."""

from __future__ import annotations

from collections.abc import Mapping
from datetime import datetime
from typing import Any

from memory.extraction import ExtractedEntity, ExtractedFact, Extraction
from memory.names import normalize_name
from memory.ontology import Ontology

STRUCTURED_EXTRACTOR = "structured@1"


def extract_supplied(
    supplied: Mapping[str, Any],
    *,
    author: str,
    author_type: str,
    ontology: Ontology,
    known_entities: Mapping[str, str] | None = None,
) -> Extraction:
    # Only asked about, never changed: not copied (it holds every name of the graph).
    known = known_entities if known_entities is not None else {}
    declared = {
        normalize_name(e["name"]): e["type"] for e in supplied.get("entities", []) if e.get("type")
    }
    entities = [ExtractedEntity(e["name"], e["type"]) for e in supplied.get("entities", [])]
    facts = []
    for item in supplied.get("facts", []):
        relation = ontology.relations[item["relation"]]
        source_type = _type_of(item["source"], item.get("source_type"), declared, known,
                               relation.source_types)
        target_type = _type_of(item["target"], item.get("target_type"), declared, known,
                               relation.target_types)
        facts.append(
            ExtractedFact(
                source=item["source"],
                source_type=source_type,
                relation=relation.name,
                target=item["target"],
                target_type=target_type,
                sentence=item.get("fact") or f"{item['source']} {relation.name} {item['target']}",
                valid_at=_parse(item.get("valid_at")),
                invalid_at=_parse(item.get("invalid_at")),
            )
        )
    author_entity = ExtractedEntity(author, author_type) if author else None
    return Extraction(
        extractor=STRUCTURED_EXTRACTOR, entities=entities, facts=facts, author=author_entity
    )


def _type_of(
    name: str,
    given: str | None,
    declared: Mapping[str, str],
    known: Mapping[str, str],
    allowed: tuple[str, ...],
) -> str:
    key = normalize_name(name)
    return given or declared.get(key) or known.get(key) or allowed[0]


def _parse(value: str | None) -> datetime | None:
    return datetime.fromisoformat(value) if value else None
