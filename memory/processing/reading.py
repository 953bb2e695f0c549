"""Reading an episode: which extractor reads it (supplied facts, the model, the rules) and what it
is told about the graph's known names, so a batch can tell when an earlier episode changed what a
later one would read."""

from __future__ import annotations

import logging
import re
from collections.abc import Iterator, Mapping
from typing import Any

from django.conf import settings

from memory.extraction import Extraction
from memory.extraction.rules import RULES_EXTRACTOR, extract_with_rules
from memory.extraction.structured import STRUCTURED_EXTRACTOR, extract_supplied
from memory.models import Episode
from memory.names import normalize_name
from memory.ontology import Ontology
from memory.support import brand_of, scope_to_brand, with_thread

logger = logging.getLogger(__name__)


_TEXT_KEYS = ("title", "summary", "text", "content", "body", "description", "message", "comment")
_ORGANISATION = re.compile(
    r"\b(inc|corp|corporation|ltd|llc|gmbh|co|labs|plc|ag|sa|group|holdings)\.?$", re.I
)
_SUPPORT_SOURCES = ("ticket", "support", "zendesk", "intercom", "helpdesk", "freshdesk", "email")


def episode_text(episode: Episode) -> str:
    """The words an extractor reads: a message without its "Name:" prefix, the text fields of a
    JSON payload."""
    if episode.type == Episode.Type.JSON:
        data = episode.data or {}
        parts = [str(data[k]) for k in _TEXT_KEYS if isinstance(data.get(k), str)]
        return ". ".join(p.strip().rstrip(".") for p in parts if p.strip())
    text = episode.content
    if episode.type == Episode.Type.MESSAGE and episode.author:
        prefix = f"{episode.author}:"
        if text.lstrip().startswith(prefix):
            text = text.lstrip()[len(prefix):].strip()
    return text


def author_type_for(episode: Episode, known: dict[str, str]) -> str:
    declared = {
        e["name"]: e.get("type") for e in (episode.supplied or {}).get("entities", [])
    }
    if declared.get(episode.author):
        return declared[episode.author]
    known_type = known.get(normalize_name(episode.author))
    if known_type in {"Person", "Customer", "Team"}:
        return known_type
    if _ORGANISATION.search(episode.author.strip()):
        return "Customer"
    if any(word in episode.source.lower() for word in _SUPPORT_SOURCES):
        return "Customer"
    return "Person"


def extract_episode(
    episode: Episode, ontology: Ontology, known: Mapping[str, str]
) -> Extraction:
    author_type = author_type_for(episode, known)
    supplied = episode.supplied or {}
    if supplied.get("facts"):
        given = extract_supplied(
            supplied, author=episode.author, author_type=author_type, ontology=ontology,
            known_entities=known,
        )
        if not supplied.get("read_text"):
            return given
        return with_text(given, read_text(episode, ontology, known, author_type))
    return read_text(episode, ontology, known, author_type)


def with_text(given: Extraction, text: Extraction) -> Extraction:
    """The given facts and what the words say, as one extraction (``structured@1+rules@1``):
    the given facts first, so the text's facts about the same thing come after them."""
    return Extraction(
        extractor=f"{given.extractor}+{text.extractor}"[:80],
        entities=[*given.entities, *text.entities],
        facts=[*given.facts, *text.facts],
        closures=list(text.closures),
        author=given.author or text.author,
        dropped=[*given.dropped, *text.dropped],
    )


def read_text(
    episode: Episode, ontology: Ontology, known: Mapping[str, str], author_type: str
) -> Extraction:
    """The words of the episode read by the model when one is configured, else by the rules.
    A customer's message names the problems and products of its brand (``memory.support``)."""
    customer = author_type == "Customer"
    brand = brand_of(episode.source) if customer else None
    supplied = episode.supplied or {}
    # An importer's records state their thread themselves (with facts, or none once the ticket
    # is over); a customer's message given as JSON Lines with a url states it here.
    thread = episode.url if customer and not episode.supplied else ""
    if settings.LLM_EXTRACTION:
        from memory.extraction.llm import extract_with_model

        extraction = extract_with_model(episode, ontology=ontology, known_entities=known,
                                        author_type=author_type)
        if extraction is not None:
            return with_thread(scope_to_brand(extraction, brand), episode.author, thread)
    extraction = extract_with_rules(
        episode_text(episode),
        author=episode.author,
        reference_time=episode.reference_time,
        ontology=ontology,
        known_entities=known,
        author_type=author_type,
    )
    for entity in supplied.get("entities", []):
        if entity.get("type"):
            from memory.extraction import ExtractedEntity

            extraction.entities.append(ExtractedEntity(entity["name"], entity["type"]))
    return with_thread(scope_to_brand(extraction, brand), episode.author, thread)


def rereadable(extraction: Extraction) -> bool:
    """Whether extracting again inside the graph's lock is cheap and calls no model: never with
    a model configured (even when the rules stood in for it this time)."""
    return (not settings.LLM_EXTRACTION
            and extraction.extractor in {RULES_EXTRACTOR, STRUCTURED_EXTRACTOR,
                                         f"{STRUCTURED_EXTRACTOR}+{RULES_EXTRACTOR}"})


class NamesRead(Mapping[str, str]):
    """The known names (normalized name → type) an extractor is given, remembering which names it
    asked about and what it was told. Extractors are pure functions of the episode and of those
    answers, so an extraction can only change when one of the answers does; most names an earlier
    episode of a batch adds never occur in a later one's text. Reading the whole mapping (an
    iteration, its length) remembers that everything was read: any change then counts."""

    def __init__(self, types: Mapping[str, str]) -> None:
        self.types = types
        self.answers: dict[str, str | None] = {}
        self.read_all = False

    def __getitem__(self, key: str) -> str:
        value = self.types.get(key)
        self.answers[key] = value
        if value is None:
            raise KeyError(key)
        return value

    def get(self, key: str, default: Any = None) -> Any:  # type: ignore[override]
        value = self.types.get(key)
        self.answers[key] = value
        return default if value is None else value

    def __contains__(self, key: object) -> bool:
        return isinstance(key, str) and self.get(key) is not None

    def __iter__(self) -> Iterator[str]:
        self.read_all = True
        return iter(self.types)

    def __len__(self) -> int:
        self.read_all = True
        return len(self.types)

    def changed_in(self, types: Mapping[str, str]) -> bool:
        """Whether an extraction reading ``types`` now could differ from the one that read these
        answers."""
        if self.read_all:
            return True
        return any(types.get(key) != value for key, value in self.answers.items())
