"""Reading an episode: which extractor reads it (supplied facts, the model, the rules) and what it
is told about the graph's known names, so a batch can tell when an earlier episode changed what a
later one would read."""

from __future__ import annotations

import logging
import re
from collections.abc import Iterator, Mapping, Sequence
from typing import Any

from django.conf import settings

from memory.extraction import Extraction
from memory.extraction.rules import RULES_EXTRACTOR, extract_with_rules
from memory.extraction.structured import STRUCTURED_EXTRACTOR, extract_supplied
from memory.extraction.support_products import product_words
from memory.language.threads import thread_of_address
from memory.models import Episode
from memory.names import normalize_name
from memory.ontology import Ontology
from memory.support import brand_of, scope_to_brand, thread_of, titles_only, with_thread

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


def author_type_for(episode: Episode, known: Mapping[str, str]) -> str:
    declared = {
        e["name"]: e.get("type") for e in (episode.supplied or {}).get("entities", [])
    }
    if declared.get(episode.author):
        return declared[episode.author]
    if episode.author_role == Episode.AuthorRole.AGENT:
        return "Person"  # the vendor's staff: never a customer, whatever the source
    if episode.author_role == Episode.AuthorRole.CUSTOMER:
        return "Customer"
    known_type = known.get(normalize_name(episode.author))
    if known_type in {"Person", "Customer", "Team"}:
        return known_type
    if _ORGANISATION.search(episode.author.strip()):
        return "Customer"
    if any(word in episode.source.lower() for word in _SUPPORT_SOURCES):
        return "Customer"
    return "Person"


def extract_episode(
    episode: Episode, ontology: Ontology, known: Mapping[str, str], *, model: bool = True
) -> Extraction:
    """One episode's extraction: supplied facts (and, when the importer asks, what its words
    say), the model's reading when one is configured and ``model``, else the rules'."""
    return extract_episodes([episode], ontology, [known], model=model)[0]


def reads_words(episode: Episode) -> bool:
    """Whether an extractor reads the episode's words (not only the facts given with it)."""
    supplied = episode.supplied or {}
    return not supplied.get("facts") or bool(supplied.get("read_text"))


def extract_episodes(
    episodes: Sequence[Episode], ontology: Ontology, knowns: Sequence[Mapping[str, str]],
    *, model: bool = True,
) -> list[Extraction]:
    """The extractions of a batch, in order. The words the model should read are read in calls
    of up to ``LLM_EXTRACTION_BATCH_SIZE`` episodes (``memory.extraction.llm``); whatever it
    could not read (the call failed, nothing usable) is read by the rules, the reason kept on
    the extraction. ``knowns``: each episode's view of the known names (its ``NamesRead``)."""
    readings: dict[int, tuple[Extraction | None, str]] = {}
    wanted = [i for i, e in enumerate(episodes)
              if model and settings.LLM_EXTRACTION and reads_words(e)]
    if wanted:
        from memory.extraction.llm import batch_size, extract_batch
        from memory.llm import worker_breaker
        from memory.models import LLMCall
        from memory.spend import Budget

        graph = episodes[wanted[0]].graph
        breaker = worker_breaker(LLMCall.Purpose.EXTRACTION)
        budget = Budget.for_graph(graph)
        size = batch_size()
        for start in range(0, len(wanted), size):
            chunk = wanted[start:start + size]
            # One view of the known names for the call: the first episode's (the same mapping
            # until the batch is applied).
            outcomes = extract_batch(
                [episodes[i] for i in chunk], ontology=ontology, known_entities=knowns[chunk[0]],
                author_types={episodes[i].pk: author_type_for(episodes[i], knowns[i])
                              for i in chunk},
                breaker=breaker, budget=budget,
            )
            for i in chunk:
                outcome = outcomes[episodes[i].pk]
                readings[i] = (outcome.extraction, outcome.failure)
    return [
        assemble(episode, ontology, known, *readings.get(i, (None, "")))
        for i, (episode, known) in enumerate(zip(episodes, knowns, strict=True))
    ]


def assemble(episode: Episode, ontology: Ontology, known: Mapping[str, str],
             model_reading: Extraction | None, model_failure: str) -> Extraction:
    """The facts given with the episode and (or only) what its words say."""
    author_type = author_type_for(episode, known)
    supplied = episode.supplied or {}
    if supplied.get("facts"):
        given = extract_supplied(
            supplied, author=episode.author, author_type=author_type, ontology=ontology,
            known_entities=known,
        )
        if not supplied.get("read_text"):
            return given
        return with_text(given, read_text(episode, ontology, known, author_type,
                                          model_reading, model_failure))
    return read_text(episode, ontology, known, author_type, model_reading, model_failure)


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
        model_failure=text.model_failure,
    )


def read_text(
    episode: Episode, ontology: Ontology, known: Mapping[str, str], author_type: str,
    model_reading: Extraction | None = None, model_failure: str = "",
) -> Extraction:
    """The words of the episode as the model read them (``model_reading``, from a batch), else
    read by the rules — saying why when the model should have read them (``model_failure``).
    A customer's message names the problems and products of its brand (``memory.support``); so
    does an agent's (the vendor's staff), whose words state the thread as the vendor's side and
    never make the agent its reporter."""
    customer = author_type == "Customer"
    agent = episode.author_role == Episode.AuthorRole.AGENT
    brand = brand_of(episode.source) if customer or agent else None
    supplied = episode.supplied or {}
    # An importer's records state their thread themselves (with facts, or none once the ticket
    # is over); a customer's message given as JSON Lines with a url states it here.
    # (a title the message's first line gave its thread is no such statement: ``titles_only``)
    thread = episode.url if (customer or agent) and titles_only(episode.supplied) else ""
    if model_reading is not None:
        return with_thread(scope_to_brand(model_reading, brand), episode.author, thread,
                           episode_text(episode), reporter=not agent)
    text = episode_text(episode)
    extraction = extract_with_rules(
        text,
        author=episode.author,
        reference_time=episode.reference_time,
        ontology=ontology,
        known_entities=known,
        author_type=author_type,
        # the thread it belongs to, as its address names it: "/close", "Fixes #12" are about it
        # (a customer's message is their report in that thread: ``with_thread``)
        # (so is an agent's: what it states of its thread is read below, ``read_thread_statements``)
        thread=None if customer or agent else thread_of_address(episode.url),
        # the product of the tracker a customer wrote in ("docker/for-mac#370": Docker)
        product=(product_words(thread_of(episode.url) or "") if customer or agent
                 else frozenset()),
    )
    extraction.model_failure = model_failure
    for entity in supplied.get("entities", []):
        if entity.get("type"):
            from memory.extraction import ExtractedEntity

            extraction.entities.append(ExtractedEntity(entity["name"], entity["type"]))
    return with_thread(scope_to_brand(extraction, brand), episode.author, thread, text,
                       reporter=not agent)


def rereadable(extraction: Extraction, *, model: bool = True) -> bool:
    """Whether extracting again inside the graph's lock is cheap and calls no model: never with
    a model configured and asked (even when the rules stood in for it this time)."""
    return (not (model and settings.LLM_EXTRACTION)
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

    def get(self, key: str, default: Any = None) -> Any:
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
