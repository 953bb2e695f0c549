"""Zep's graph context: a block of text for a model's prompt, assembled from the observations,
facts and entities most relevant to a query, within ``max_characters``."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from memory import search
from memory.models import Entity, Fact, Graph, Observation

DEFAULT_MAX_CHARACTERS = 2000
LIMITS = {"observation": 5, "fact": 10, "entity": 5}


@dataclass
class Context:
    text: str
    truncated: bool
    observations: list[Observation] = field(default_factory=list)
    facts: list[Fact] = field(default_factory=list)
    entities: list[Entity] = field(default_factory=list)
    scores: dict[Any, float] = field(default_factory=dict)


def _period(fact: Fact) -> str:
    end = fact.invalid_at.date().isoformat() if fact.invalid_at else "present"
    return f"{fact.valid_at.date().isoformat()} - {end}"


def build_context(graph: Graph, query: str, max_characters: int) -> Context:
    found: dict[str, list[search.Hit]] = {}
    for kind, limit in LIMITS.items():
        found[kind], _ = search.search(graph, query, kinds=[kind], limit=limit,
                                       any_word=True)
    sections = [
        ("# OBSERVATIONS (patterns across updates, each backed by facts)",
         [(h, f"- {h.item.name}: {h.item.summary}") for h in found["observation"]]),
        ("# FACTS (date range: from - to)",
         [(h, f"- {h.item.sentence} ({_period(h.item)})") for h in found["fact"]]),
        ("# ENTITIES",
         [(h, f"- {h.item.name} ({h.item.type})" + (f": {h.item.summary}"
                                                      if h.item.summary else ""))
          for h in found["entity"]]),
    ]
    lines: list[str] = []
    used: list[search.Hit] = []
    truncated = False
    for heading, entries in sections:
        if not entries:
            continue
        block = [heading]
        for hit, line in entries:
            candidate = "\n".join([*lines, *block, line])
            if len(candidate) > max_characters:
                truncated = True
                break
            block.append(line)
            used.append(hit)
        if len(block) > 1:
            lines += block
        if truncated:
            break
    context = Context(text="\n".join(lines), truncated=truncated)
    for hit in used:
        context.scores[hit.item.uuid] = hit.score
        if hit.kind == "observation":
            context.observations.append(hit.item)
        elif hit.kind == "fact":
            context.facts.append(hit.item)
        elif hit.kind == "entity":
            context.entities.append(hit.item)
    return context
