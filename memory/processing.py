"""Processing one episode: extract → resolve entities → apply the time rules → record facts.

All of it happens in one transaction that first locks the graph row, so episodes of one graph are
applied one at a time (the time rules read what earlier episodes wrote) while different graphs
proceed in parallel. The number of queries per episode is fixed, whatever the graph's size:

  lock graph · name index catch-up · resolve names · resolve aliases · create entities ·
  load the facts the new ones can touch · create facts · create evidence · update closed facts ·
  mark the episode processed · bump the graph's data version
"""

from __future__ import annotations

import logging
import re
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any

from django.conf import settings
from django.db import OperationalError, transaction
from django.db.models import F, Q
from django.utils import timezone

from memory.extraction import ExtractedClosure, ExtractedFact, Extraction
from memory.extraction.rules import extract_with_rules
from memory.extraction.structured import extract_supplied
from memory.graph_settings import ontology_for
from memory.models import Entity, Episode, Fact, FactEvidence, Graph
from memory.ontology import Ontology
from memory.resolution import Resolution, name_index, resolve_entities
from memory.time_rules import (
    Span,
    decide_explicit,
    decide_resolution,
    decide_single_valued,
)

logger = logging.getLogger(__name__)

_TEXT_KEYS = ("title", "summary", "text", "content", "body", "description", "message", "comment")
_ORGANISATION = re.compile(
    r"\b(inc|corp|corporation|ltd|llc|gmbh|co|labs|plc|ag|sa|group|holdings)\.?$", re.I
)
_SUPPORT_SOURCES = ("ticket", "support", "zendesk", "intercom", "helpdesk", "freshdesk", "email")


@dataclass
class EpisodeOutcome:
    episode: Episode
    extraction: Extraction
    facts_created: int = 0
    facts_supported: int = 0
    facts_closed: int = 0
    notes: list[str] = field(default_factory=list)


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
    from memory.names import normalize_name

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


def extract_episode(episode: Episode, ontology: Ontology, known: dict[str, str]) -> Extraction:
    author_type = author_type_for(episode, known)
    supplied = episode.supplied or {}
    if supplied.get("facts"):
        return extract_supplied(
            supplied, author=episode.author, author_type=author_type, ontology=ontology,
            known_entities=known,
        )
    if settings.LLM_EXTRACTION:
        from memory.extraction.llm import extract_with_model

        extraction = extract_with_model(episode, ontology=ontology, known_entities=known,
                                        author_type=author_type)
        if extraction is not None:
            return extraction
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
    return extraction


def apply_episode(episode: Episode) -> EpisodeOutcome:
    """Extract and record one episode's facts; the caller has claimed it (status processing)."""
    graph = episode.graph
    ontology = ontology_for(graph)
    # Extract before taking the graph's lock: a model call may take seconds, and its audit rows
    # must survive even if the transaction below rolls back.
    extraction = extract_episode(episode, ontology, name_index(graph).types)
    with transaction.atomic():
        graph = Graph.objects.select_for_update().get(pk=episode.graph_id)
        mentions = [(e.name, e.type) for e in extraction.all_entities()]
        resolution = resolve_entities(graph, mentions, now=episode.ingested_at)
        outcome = EpisodeOutcome(episode=episode, extraction=extraction)
        FactRecorder(graph, episode, ontology, resolution, outcome).record(extraction)
        if extraction.author is not None:
            author = resolution.entities.get((extraction.author.name, extraction.author.type))
            episode.author_entity = author
        episode.status = Episode.Status.PROCESSED
        episode.extractor = extraction.extractor
        episode.error = ""
        episode.processed_at = timezone.now()
        episode.save(update_fields=["status", "extractor", "error", "processed_at",
                                    "author_entity"])
        Graph.objects.filter(pk=graph.pk).update(data_version=F("data_version") + 1)
    return outcome


class FactRecorder:
    """Applies an extraction's facts and closures to the graph under the time rules."""

    def __init__(
        self,
        graph: Graph,
        episode: Episode,
        ontology: Ontology,
        resolution: Resolution,
        outcome: EpisodeOutcome,
    ) -> None:
        self.graph = graph
        self.episode = episode
        self.ontology = ontology
        self.entities = resolution.entities
        self.outcome = outcome
        self.now = episode.ingested_at
        self.facts: dict[object, Fact] = {}
        self.spans: list[Span] = []
        self.new_facts: list[Fact] = []
        self.changed: dict[object, Fact] = {}
        self.evidence: dict[object, str] = {}
        self._temp = 0

    # -- loading ---------------------------------------------------------------------------

    def _entity(self, name: str | None, entity_type: str | None) -> Entity | None:
        if name is None or entity_type is None:
            return None
        return self.entities.get((name, entity_type))

    def _load(self, extraction: Extraction) -> None:
        """One query for every stored fact the new facts and closures can touch."""
        scope = Q()
        for fact in extraction.facts:
            source = self._entity(fact.source, fact.source_type)
            target = self._entity(fact.target, fact.target_type)
            if source is None or target is None:
                continue
            scope |= Q(source=source, relation=fact.relation, target=target)
            relation = self.ontology.relation(fact.relation)
            if relation and relation.single_valued:
                scope |= Q(source=source, relation=fact.relation)
            if self._is_completion(fact):
                scope |= self._ended_by_completion(source)
            if fact.relation == "DEPENDS_ON":
                # Is what it waits on already done? (a backfilled dependency)
                scope |= Q(source=target, relation="HAS_STATUS")
        for closure in extraction.closures:
            source = self._entity(closure.source, closure.source_type)
            if source is None:
                continue
            target = self._entity(closure.target, closure.target_type)
            scope |= Q(source=source, relation=closure.relation, **(
                {"target": target} if target is not None else {}))
        if not scope:
            return
        # Closed facts count too (a backfill may land inside their interval); facts retracted
        # without an end (expired, no invalid_at) do not.
        believed = Q(expired_at__isnull=True) | Q(invalid_at__isnull=False)
        for fact in Fact.objects.filter(scope, believed, graph=self.graph).select_related(
            "target"
        ):
            self._track(fact.pk, fact)

    def _track(self, key: object, fact: Fact) -> Span:
        span = Span(
            key=key,
            source_id=fact.source_id,
            relation=fact.relation,
            target_id=fact.target_id,
            valid_at=fact.valid_at,
            invalid_at=fact.invalid_at,
            expired=fact.expired_at is not None and fact.invalid_at is None,
        )
        self.facts[key] = fact
        self.spans.append(span)
        return span

    # -- recording ---------------------------------------------------------------------------

    def record(self, extraction: Extraction) -> None:
        self._load(extraction)
        for fact in extraction.facts:
            self._add(fact)
        for closure in extraction.closures:
            self._close(closure)
        self._flush()

    def _is_completion(self, fact: ExtractedFact) -> bool:
        return fact.relation == "HAS_STATUS" and self.ontology.is_completion_status(fact.target)

    def _add(self, item: ExtractedFact) -> None:
        source = self._entity(item.source, item.source_type)
        target = self._entity(item.target, item.target_type)
        if source is None or target is None:
            return
        if source.pk == target.pk:
            self.outcome.notes.append(f"dropped self-loop: {item.sentence}")
            return
        valid_at = item.valid_at or self.episode.reference_time
        same = [
            s for s in self.spans
            if s.source_id == source.pk and s.relation == item.relation
            and s.target_id == target.pk and not s.expired
            and (s.invalid_at is None or s.holds_at(valid_at))
        ]
        if same:
            span = min(same, key=lambda s: (s.valid_at, str(s.key)))
            self._support(span.key, item.sentence)
            relation = self.ontology.relation(item.relation)
            if valid_at < span.valid_at and relation and not relation.single_valued:
                # A backfilled restatement: the fact held earlier than we knew.
                span.valid_at = valid_at
                self.facts[span.key].valid_at = valid_at
                self.changed[span.key] = self.facts[span.key]
            return
        self._temp += 1
        key = f"new-{self._temp}"
        fact = Fact(
            graph=self.graph,
            source=source,
            relation=item.relation,
            target=target,
            sentence=item.sentence,
            valid_at=valid_at,
            created_at=self.now,
            extractor=self.outcome.extraction.extractor,
        )
        if item.invalid_at is not None and item.invalid_at >= valid_at:
            fact.invalid_at = item.invalid_at
            fact.close_reason = Fact.CloseReason.GIVEN
            fact.closed_by_episode = self.episode
        span = self._track(key, fact)
        self.new_facts.append(fact)
        self._support(key, item.sentence)
        self.outcome.facts_created += 1
        relation = self.ontology.relation(item.relation)
        if relation and relation.single_valued:
            self._apply_single_valued(key, span)
        if self._is_completion(item):
            ended = [s for s in self.spans if self._ends_with_completion_of(s, source.pk)]
            for closing in decide_resolution(valid_at, ended):
                self._end(closing.span.key, closing.at, Fact.CloseReason.RESOLUTION, by_fact=key)
        if item.relation == "DEPENDS_ON" and fact.invalid_at is None:
            self._end_if_already_done(key, span)

    def _ended_by_completion(self, entity: Entity) -> Q:
        """The facts a completion of ``entity`` ends, by the ontology's resolution rules
        (dependencies on it; for an issue, its reports and what it affected or followed)."""
        scope = Q()
        for rule in self.ontology.resolution_rules:
            scope |= Q(relation=rule.relation, **{rule.side: entity})
        return scope

    def _ends_with_completion_of(self, span: Span, entity_id: int) -> bool:
        return any(
            span.relation == rule.relation
            and (span.target_id if rule.side == "target" else span.source_id) == entity_id
            for rule in self.ontology.resolution_rules
        )

    def _end_if_already_done(self, key: object, span: Span) -> None:
        """A dependency learned late (a backfill) on work that was finished after it began ends
        when that work was done — it never waits forever on something shipped."""
        completions = [
            s for s in self.spans
            if s.relation == "HAS_STATUS" and s.source_id == span.target_id
            and not s.expired and s.valid_at >= span.valid_at
            and self.ontology.is_completion_status(self.facts[s.key].target.name)
        ]
        if completions:
            done = min(completions, key=lambda s: (s.valid_at, str(s.key)))
            self._end(key, done.valid_at, Fact.CloseReason.RESOLUTION, by_fact=done.key)

    def _apply_single_valued(self, key: object, span: Span) -> None:
        scope = [s for s in self.spans if s.key != key and s.source_id == span.source_id
                 and s.relation == span.relation]
        decision = decide_single_valued(span, scope)
        for closing in decision.closings:
            self._end(closing.span.key, closing.at, Fact.CloseReason.SINGLE_VALUED, by_fact=key)
        if decision.new_ends_at is not None and decision.new_ended_by is not None:
            # A newer value is already known: this (backfilled) one ended when that one began.
            # It was never believed current, so it is not expired.
            fact = self.facts[key]
            fact.invalid_at = decision.new_ends_at
            fact.close_reason = Fact.CloseReason.SINGLE_VALUED
            fact._closed_by_key = decision.new_ended_by.key  # type: ignore[attr-defined]
            span.invalid_at = decision.new_ends_at

    def _close(self, closure: ExtractedClosure) -> None:
        source = self._entity(closure.source, closure.source_type)
        if source is None:
            return
        target = self._entity(closure.target, closure.target_type)
        matching = [
            s for s in self.spans
            if s.source_id == source.pk and s.relation == closure.relation
            and (target is None or s.target_id == target.pk)
        ]
        at = closure.at or self.episode.reference_time
        for closing in decide_explicit(at, matching):
            self._end(closing.span.key, closing.at, Fact.CloseReason.EXPLICIT, by_fact=None)

    def _end(self, key: object, at: datetime, reason: str, *, by_fact: object | None) -> None:
        fact = self.facts[key]
        span = next(s for s in self.spans if s.key == key)
        at = max(at, fact.valid_at)
        fact.invalid_at = at
        span.invalid_at = at
        # Only a fact believed open until now expires; one learned already ended never was.
        if fact.expired_at is None and fact.pk is not None:
            fact.expired_at = self.now
        fact.close_reason = reason
        if by_fact is None:
            fact.closed_by_episode = self.episode
            fact.closed_by_fact = None
        else:
            fact._closed_by_key = by_fact  # type: ignore[attr-defined]
            fact.closed_by_episode = self.episode
        if fact.pk is not None:
            self.changed[key] = fact
        self.outcome.facts_closed += 1

    def _support(self, key: object, sentence: str) -> None:
        self.evidence.setdefault(key, sentence)
        if not str(key).startswith("new-"):
            self.outcome.facts_supported += 1

    def _flush(self) -> None:
        if self.new_facts:
            Fact.objects.bulk_create(self.new_facts)
        # Closing links may point at facts created just now; resolve them to ids.
        pending_links = [
            f for f in self.facts.values() if getattr(f, "_closed_by_key", None) is not None
        ]
        for fact in pending_links:
            closer = self.facts[fact._closed_by_key]  # type: ignore[attr-defined]
            fact.closed_by_fact_id = closer.pk
            self.changed[fact.pk] = fact
        created_ids = {f.pk for f in self.new_facts}
        to_update = [f for f in self.changed.values() if f.pk is not None]
        new_updates = [f for f in to_update if f.pk in created_ids]
        old_updates = [f for f in to_update if f.pk not in created_ids]
        fields = ["valid_at", "invalid_at", "expired_at", "close_reason", "closed_by_fact",
                  "closed_by_episode"]
        if old_updates or new_updates:
            Fact.objects.bulk_update(old_updates + new_updates, fields)
        FactEvidence.objects.bulk_create(
            [
                FactEvidence(
                    fact=self.facts[key],
                    episode=self.episode,
                    sentence=sentence,
                    extractor=self.outcome.extraction.extractor,
                    created_at=self.now,
                )
                for key, sentence in self.evidence.items()
            ],
            ignore_conflicts=True,
        )


MAX_ATTEMPTS = 3


def stale_processing_seconds() -> int:
    """An episode "processing" for longer than this lost its worker; the sweep requeues it."""
    return int(getattr(settings, "EPISODE_STALE_SECONDS", 900))


def claim_episode(episode_id: int, *, now: datetime | None = None) -> Episode | None:
    """Move an episode to ``processing`` and count the attempt — only if it is pending, or stuck
    in processing long enough that its worker must be gone. ``None`` when someone else has it or
    it is already done, which makes a duplicate delivery harmless."""
    now = now or timezone.now()
    stale = now - timedelta(seconds=stale_processing_seconds())
    claimable = Q(status=Episode.Status.PENDING) | Q(
        status=Episode.Status.PROCESSING, processing_started_at__lt=stale
    )
    claimed = Episode.objects.filter(claimable, pk=episode_id).update(
        status=Episode.Status.PROCESSING, attempts=F("attempts") + 1, processing_started_at=now
    )
    if not claimed:
        return None
    return Episode.objects.select_related("graph").get(pk=episode_id)


def process_episode(episode_id: int) -> str:
    """Claim and process one episode; returns what happened (for logs and tests)."""
    episode = claim_episode(episode_id)
    if episode is None:
        return "skipped"
    if episode.attempts > MAX_ATTEMPTS:
        mark_failed(episode, f"gave up after {MAX_ATTEMPTS} attempts (the worker was lost)")
        return "failed"
    try:
        apply_episode(episode)
    except OperationalError:
        # The database was unreachable or busy: give the episode back and let the task retry.
        Episode.objects.filter(pk=episode.pk).update(status=Episode.Status.PENDING)
        raise
    except Exception as exc:
        logger.exception("episode %s failed", episode.uuid)
        mark_failed(episode, f"{type(exc).__name__}: {exc}")
        return "failed"
    return "processed"


def mark_failed(episode: Episode, error: str) -> None:
    Episode.objects.filter(pk=episode.pk).update(
        status=Episode.Status.FAILED, error=error[:4000], processed_at=timezone.now()
    )


def retry_episode(episode: Episode) -> bool:
    """Put a failed episode back in the queue (the retry button); True if it was failed."""
    return bool(
        Episode.objects.filter(pk=episode.pk, status=Episode.Status.FAILED).update(
            status=Episode.Status.PENDING, attempts=0, error=""
        )
    )


def describe(outcome: EpisodeOutcome) -> dict[str, Any]:
    return {
        "episode": str(outcome.episode.uuid),
        "extractor": outcome.extraction.extractor,
        "facts_created": outcome.facts_created,
        "facts_supported": outcome.facts_supported,
        "facts_closed": outcome.facts_closed,
    }
