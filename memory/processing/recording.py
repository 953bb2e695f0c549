"""Recording facts under the time rules (DESIGN §3): one extraction's facts and closures applied to
the facts a batch has read, in memory, then written together.

``FactBatch`` holds the stored facts a batch can touch (read once, by scope) and what the batch
creates or changes; ``FactRecorder`` applies one episode's extraction to it: restating a current
fact adds evidence, a backfilled restatement revises it (never rewriting what was known), a new
value of a single-valued relation closes the old one, a completion ends what the resolution rules
say, an explicit "no longer" closes what it names. The decisions themselves are the pure
functions of ``memory.time_rules``."""

from __future__ import annotations

import logging
from collections import defaultdict
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import datetime

from django.db import connection
from django.db.models import Model, Q

from memory.extraction import ExtractedClosure, ExtractedFact, Extraction
from memory.models import Entity, Episode, Fact, FactEvidence, Graph
from memory.ontology import Ontology
from memory.resolution import (
    Resolution,
)
from memory.time_rules import (
    Span,
    decide_explicit,
    decide_resolution,
    decide_single_valued,
)

logger = logging.getLogger(__name__)

REPORTED = "REPORTED"
ISSUE = "Issue"
CUSTOMER = "Customer"


@dataclass
class EpisodeOutcome:
    episode: Episode
    extraction: Extraction
    facts_created: int = 0
    facts_supported: int = 0
    facts_closed: int = 0
    notes: list[str] = field(default_factory=list)


class FactBatch:
    """The facts a batch of episodes has read and written, indexed by entity, so each episode's
    time rules see exactly the facts they can touch without asking the database again.

    Stored facts are read the first time an episode's scope reaches them (usually one query for
    the whole batch); the facts of entities created in this batch are all here already. What the
    batch creates or changes is written at the end, in a fixed number of queries."""

    def __init__(self, graph: Graph, ontology: Ontology) -> None:
        self.graph = graph
        self.ontology = ontology
        self.facts: dict[object, Fact] = {}
        self.spans: dict[object, Span] = {}
        self.by_source: dict[int, list[Span]] = defaultdict(list)
        self.by_target: dict[int, list[Span]] = defaultdict(list)
        self.covered: set[tuple[object, ...]] = set()
        self.since: datetime | None = None
        """Covered scopes hold every stored fact that had not ended before this."""
        self.fresh_entities: set[int] = set()
        """Entities created in this batch: no stored fact mentions them."""
        self.new_facts: list[Fact] = []
        self.changed: dict[object, Fact] = {}
        self.closed_by: dict[object, object] = {}
        """fact key → the key of the fact that closed it (it may have no id yet)."""
        self.evidence: list[tuple[object, int, str, str, datetime]] = []
        """(fact key, episode id, sentence, extractor, recorded at)."""
        self.revisions: list[tuple[object, object]] = []
        """(expired fact key, the revised fact's key), in the order revised."""
        self._created = 0

    # -- reading -----------------------------------------------------------------------------

    def cover(self, scopes: set[tuple[object, ...]], since: datetime) -> None:
        """Make sure every stored fact in ``scopes`` that can still matter to facts starting at
        ``since`` or later is here: one query for the scopes not covered yet that may match
        stored facts. A scope is ``("edge", source, relation, target)``, ``("from", source,
        relation)`` or ``("to", relation, target)``.

        A fact that ended before ``since`` cannot: the time rules only restate, replace or end
        facts that still hold at (or begin after) the new fact's start, so the long closed
        history of a busy work item's statuses is not read again and again."""
        if self.since is not None and since < self.since:
            # An earlier start than the batch expected (rare): read the covered scopes again
            # back to it; facts already here are kept as they are.
            scopes = scopes | self.covered
            self.covered = set()
        wanted = {scope for scope in scopes if not self._covered(scope)}
        if not wanted:
            return
        self.since = since if self.since is None else min(since, self.since)
        edges: dict[str, tuple[set[int], set[int]]] = defaultdict(lambda: (set(), set()))
        froms: dict[str, set[int]] = defaultdict(set)
        tos: dict[str, set[int]] = defaultdict(set)
        for scope in wanted:
            if scope[0] == "edge":
                _, source, relation, target = scope
                edges[relation][0].add(source)  # type: ignore[index, arg-type]
                edges[relation][1].add(target)  # type: ignore[index, arg-type]
            elif scope[0] == "from":
                froms[scope[2]].add(scope[1])  # type: ignore[index, arg-type]
            else:
                tos[scope[1]].add(scope[2])  # type: ignore[index, arg-type]
        # One clause per relation and shape, whatever the batch's size; the edges clause may read
        # a few facts no scope asked for, which only ever hold spans the rules filter out.
        query = Q()
        for relation, (sources, targets) in sorted(edges.items()):
            query |= Q(relation=relation, source_id__in=sorted(sources),
                       target_id__in=sorted(targets))
        for relation, sources in sorted(froms.items()):
            query |= Q(relation=relation, source_id__in=sorted(sources))
        for relation, targets in sorted(tos.items()):
            query |= Q(relation=relation, target_id__in=sorted(targets))
        # Closed facts count too (a backfill may land inside their interval); facts retracted
        # without an end (expired, no invalid_at) do not.
        relevant = Q(invalid_at__gte=self.since) | Q(invalid_at__isnull=True,
                                                      expired_at__isnull=True)
        for fact in Fact.objects.filter(query, relevant, graph=self.graph).select_related(
            "target"
        ):
            if fact.pk not in self.facts:
                self.track(fact.pk, fact, rank=(0, fact.pk))
        self.covered |= wanted

    def _covered(self, scope: tuple[object, ...]) -> bool:
        if scope in self.covered:
            return True
        if scope[0] == "edge":
            _, source, relation, target = scope
            return (source in self.fresh_entities or target in self.fresh_entities
                    or ("from", source, relation) in self.covered)
        entity = scope[1] if scope[0] == "from" else scope[2]
        return entity in self.fresh_entities

    def track(self, key: object, fact: Fact, *, rank: tuple[int, int]) -> Span:
        span = Span(
            key=key,
            source_id=fact.source_id,
            relation=fact.relation,
            target_id=fact.target_id,
            valid_at=fact.valid_at,
            invalid_at=fact.invalid_at,
            expired=fact.expired_at is not None and fact.invalid_at is None,
            rank=rank,
        )
        self.facts[key] = fact
        self.spans[key] = span
        self.by_source[span.source_id].append(span)
        self.by_target[span.target_id].append(span)
        return span

    def create(self, fact: Fact) -> tuple[object, Span]:
        """A new fact, written with the batch; ranked after every stored one, in creation order
        (as its id would be)."""
        self._created += 1
        key = f"new-{self._created}"
        self.new_facts.append(fact)
        return key, self.track(key, fact, rank=(1, self._created))

    def from_source(self, source_id: int, relation: str) -> list[Span]:
        return [s for s in self.by_source.get(source_id, ()) if s.relation == relation]

    # -- writing -----------------------------------------------------------------------------

    def write(self) -> None:
        """Create the new facts, then link what closed what, update the stored facts that
        changed and record the evidence: a fixed number of queries for the batch."""
        if self.new_facts:
            Fact.objects.bulk_create(self.new_facts)
        for key, closer in self.closed_by.items():
            fact = self.facts[key]
            fact.closed_by_fact_id = self.facts[closer].pk
            self.changed[fact.pk] = fact
        update_rows(list(self.changed.values()), [
            "valid_at", "invalid_at", "expired_at", "close_reason", "closed_by_fact",
            "closed_by_episode",
        ])
        evidence = self.evidence + self._carried_evidence()
        if evidence:
            FactEvidence.objects.bulk_create(
                [
                    FactEvidence(fact=self.facts[key], episode_id=episode_id, sentence=sentence,
                                 extractor=extractor, created_at=recorded_at)
                    for key, episode_id, sentence, extractor, recorded_at in evidence
                ],
                ignore_conflicts=True,
            )

    def _carried_evidence(self) -> list[tuple[object, int, str, str, datetime]]:
        """A revised fact is supported by everything that supported the fact it replaces (one
        query, only when the batch revised stored facts)."""
        if not self.revisions:
            return []
        support: dict[object, list[tuple[int, str, str, datetime]]] = defaultdict(list)
        stored = [old for old, _ in self.revisions if isinstance(old, int)]
        for fact_id, *row in FactEvidence.objects.filter(fact_id__in=stored).values_list(
            "fact_id", "episode_id", "sentence", "extractor", "created_at"
        ):
            support[fact_id].append(tuple(row))  # type: ignore[arg-type]
        for key, *row in self.evidence:
            support[key].append(tuple(row))  # type: ignore[arg-type]
        carried = []
        # In order: a fact revised twice in one batch carries both predecessors' evidence.
        for old, new in self.revisions:
            for row in support[old]:
                support[new].append(row)
                carried.append((new, *row))
        return carried  # type: ignore[return-value]


def scopes_of(
    extraction: Extraction,
    ontology: Ontology,
    entity_id: Callable[[str | None, str | None], int | None],
) -> set[tuple[object, ...]]:
    """Every stored fact an extraction's facts and closures can touch, as ``FactBatch`` scopes;
    ``entity_id`` gives the id a (name, type) resolves to, None when it is not known."""
    scopes: set[tuple[object, ...]] = set()
    for fact in extraction.facts:
        # Each scope needs only the ids it names: before a batch resolves its names, a fact
        # about a new work item still tells which stored facts of a known one it can touch.
        source = entity_id(fact.source, fact.source_type)
        target = entity_id(fact.target, fact.target_type)
        if source is not None and target is not None:
            scopes.add(("edge", source, fact.relation, target))
        relation = ontology.relation(fact.relation)
        if source is not None and relation and relation.single_valued:
            scopes.add(("from", source, fact.relation))
        if (source is not None and fact.relation == "HAS_STATUS"
                and ontology.is_final_status(fact.target)):
            for rule in ontology.resolution_rules:
                scopes.add(("to", rule.relation, source) if rule.side == "target"
                           else ("from", source, rule.relation))
        if target is not None and fact.relation == "DEPENDS_ON":
            # Is what it waits on already done? (a backfilled dependency)
            scopes.add(("from", target, "HAS_STATUS"))
    for closure in extraction.closures:
        source = entity_id(closure.source, closure.source_type)
        if source is None:
            continue
        target = entity_id(closure.target, closure.target_type)
        scopes.add(("from", source, closure.relation) if target is None
                   else ("edge", source, closure.relation, target))
        if closure.relation == REPORTED:
            # Every other report of the issue: is this the last one to end?
            scopes.add(("from", source, REPORTED))
            if target is not None:
                scopes |= issue_scopes(target, ontology)
    return scopes


def issue_scopes(issue_id: int, ontology: Ontology) -> set[tuple[object, ...]]:
    """What an issue's ending reads: its reports and what its resolution rules end."""
    scopes: set[tuple[object, ...]] = {("to", REPORTED, issue_id)}
    for rule in ontology.resolution_rules:
        scopes.add(("to", rule.relation, issue_id) if rule.side == "target"
                   else ("from", issue_id, rule.relation))
    return scopes


def earliest_start(episode: Episode, extraction: Extraction) -> datetime:
    """When the earliest of an extraction's facts begins (closures end only open facts)."""
    return min((fact.valid_at or episode.reference_time for fact in extraction.facts),
               default=episode.reference_time)


def update_rows(objects: Sequence[Model], fields: list[str]) -> None:
    """Write ``fields`` of each object back: one UPDATE statement run for every row
    (executemany). Django's ``bulk_update`` builds a CASE expression per row and field, which
    costs milliseconds a row in Python; this costs one query."""
    if not objects:
        return
    meta = type(objects[0])._meta
    columns = [meta.get_field(name) for name in fields]
    quote = connection.ops.quote_name
    assignments = ", ".join(f"{quote(column.column)} = %s" for column in columns)
    sql = (f"UPDATE {quote(meta.db_table)} SET {assignments} "
           f"WHERE {quote(meta.pk.column)} = %s")
    rows = [
        [column.get_db_prep_save(getattr(obj, column.attname), connection)
         for column in columns] + [obj.pk]
        for obj in objects
    ]
    with connection.cursor() as cursor:
        cursor.executemany(sql, rows)


class FactRecorder:
    """Applies one extraction's facts and closures to the batch under the time rules."""

    def __init__(
        self,
        batch: FactBatch,
        episode: Episode,
        resolution: Resolution,
        outcome: EpisodeOutcome,
    ) -> None:
        self.batch = batch
        self.graph = batch.graph
        self.episode = episode
        self.ontology = batch.ontology
        self.entities = resolution.entities
        self.outcome = outcome
        self.now = episode.ingested_at
        self.facts = batch.facts
        self.created_here: set[object] = set()
        """Facts this episode created: ending one of them expires nothing (never believed)."""
        self.evidence: dict[object, str] = {}
        self.customer: Entity | None = None
        """The customer who wrote the episode, when a customer did: what they say is resolved
        is resolved for them (DESIGN §5: one customer's "resolved" ends that customer's report
        only)."""

    def _entity(self, name: str | None, entity_type: str | None) -> Entity | None:
        if name is None or entity_type is None:
            return None
        return self.entities.get((name, entity_type))

    def _entity_id(self, name: str | None, entity_type: str | None) -> int | None:
        entity = self._entity(name, entity_type)
        return entity.pk if entity is not None else None

    # -- recording ---------------------------------------------------------------------------

    def record(self, extraction: Extraction) -> None:
        author = extraction.author
        if author is not None and author.type == CUSTOMER:
            self.customer = self._entity(author.name, author.type)
        self.batch.cover(scopes_of(extraction, self.ontology, self._entity_id),
                         since=earliest_start(self.episode, extraction))
        for fact in extraction.facts:
            self._add(fact)
        for closure in extraction.closures:
            self._close(closure)
        self.batch.evidence.extend(
            (key, self.episode.pk, sentence, extraction.extractor, self.now)
            for key, sentence in self.evidence.items()
        )

    def _is_completion(self, fact: ExtractedFact) -> bool:
        # Done or ended (won't fix, duplicate...): either way nothing waits on it any more.
        return fact.relation == "HAS_STATUS" and self.ontology.is_final_status(fact.target)

    def _add(self, item: ExtractedFact) -> None:
        source = self._entity(item.source, item.source_type)
        target = self._entity(item.target, item.target_type)
        if source is None or target is None:
            return
        if source.pk == target.pk:
            self.outcome.notes.append(f"dropped self-loop: {item.sentence}")
            return
        if item.invalid_at is not None and item.valid_at is None:
            self._end_given(item, source.pk, target.pk)
            return
        valid_at = item.valid_at or self.episode.reference_time
        if self._is_completion(item) and source.type == ISSUE and self.customer is not None:
            self._resolved_for_customer(self.customer, source.pk, valid_at, item.sentence)
            return
        same = [
            s for s in self.batch.from_source(source.pk, item.relation)
            if s.target_id == target.pk and not s.expired
            and (s.invalid_at is None or s.holds_at(valid_at))
        ]
        if same:
            span = min(same, key=lambda s: (s.valid_at, s.rank))
            relation = self.ontology.relation(item.relation)
            if (valid_at < span.valid_at and relation and not relation.single_valued
                    and span.key not in self.created_here):
                # A backfilled restatement: the fact held earlier than we knew.
                self._revise(span, valid_at, item.sentence)
                return
            self._support(span.key, item.sentence)
            if valid_at < span.valid_at and relation and not relation.single_valued:
                # Said twice by this episode, the earlier start first: nobody believed the
                # later one yet.
                span.valid_at = valid_at
                self.facts[span.key].valid_at = valid_at
            return
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
        key, span = self.batch.create(fact)
        self.created_here.add(key)
        self._support(key, item.sentence)
        self.outcome.facts_created += 1
        relation = self.ontology.relation(item.relation)
        if relation and relation.single_valued:
            self._apply_single_valued(key, span)
        if self._is_completion(item):
            ended = self._ended_by_completion_of(source.pk)
            for closing in decide_resolution(valid_at, ended):
                self._end(closing.span.key, closing.at, Fact.CloseReason.RESOLUTION, by_fact=key)
        if item.relation == "DEPENDS_ON" and fact.invalid_at is None:
            self._end_if_already_done(key, span)

    def _end_given(self, item: ExtractedFact, source_id: int, target_id: int) -> None:
        """A fact given with only its end (a link removed in a tracker at a time) ends the
        matching open fact then — it is no support for it (DESIGN §5: a link removed in a
        tracker closes that link at that time). Only that edge: the same source, relation and
        target. Nothing open to end (its start was never told) records nothing."""
        assert item.invalid_at is not None
        matching = [s for s in self.batch.from_source(source_id, item.relation)
                    if s.target_id == target_id]
        closings = decide_explicit(item.invalid_at, matching)
        if not closings:
            self.outcome.notes.append(f"nothing open to end: {item.sentence}")
            return
        for closing in closings:
            # The episode is what ended it (``closed_by_episode``), not evidence that it holds.
            self._end(closing.span.key, closing.at, Fact.CloseReason.GIVEN, by_fact=None)

    def _revise(self, span: Span, valid_at: datetime, sentence: str) -> None:
        """What was recorded is never rewritten (DESIGN §3): the fact believed to begin later is
        expired, and a revised fact with the earlier start replaces it, carrying its evidence and
        this episode's. What was known before this episode stays as it was known."""
        old = self.facts[span.key]
        revised = Fact(
            graph=self.graph,
            source_id=old.source_id,
            relation=old.relation,
            target=old.target,
            sentence=old.sentence,
            valid_at=valid_at,
            created_at=self.now,
            extractor=old.extractor,
        )
        key, _ = self.batch.create(revised)
        self.created_here.add(key)
        old.expired_at = self.now
        old.close_reason = Fact.CloseReason.REVISED
        old.closed_by_episode = self.episode
        self.batch.closed_by[span.key] = key
        span.expired = True
        self._changed(span.key)
        self.batch.revisions.append((span.key, key))
        self._support(key, sentence)
        self.outcome.facts_supported += 1

    def _ended_by_completion_of(self, entity_id: int) -> list[Span]:
        """The facts a completion of the entity ends, by the ontology's resolution rules
        (dependencies on it; for an issue, its reports and what it affected or followed)."""
        ended: dict[object, Span] = {}
        for rule in self.ontology.resolution_rules:
            side = self.batch.by_target if rule.side == "target" else self.batch.by_source
            for span in side.get(entity_id, ()):
                if span.relation == rule.relation:
                    ended.setdefault(span.key, span)
        return list(ended.values())

    def _resolved_for_customer(self, customer: Entity, issue_id: int, at: datetime,
                               sentence: str) -> None:
        """A customer saying an issue is resolved speaks for themselves: their report of it
        ends, nobody else's (the issue's status is the vendor's to give). When that was the last
        open report, the issue has ended for everyone who reported it."""
        reports = [s for s in self.batch.from_source(customer.pk, REPORTED)
                   if s.target_id == issue_id]
        closings = decide_explicit(at, reports)
        if not closings:
            self.outcome.notes.append(f"resolved for a customer with no open report: {sentence}")
            return
        for closing in closings:
            self._end(closing.span.key, closing.at, Fact.CloseReason.EXPLICIT, by_fact=None)
        self._end_issue_if_unreported(issue_id, at)

    def _end_issue_if_unreported(self, issue_id: int, at: datetime) -> None:
        """Every reporter's report of the issue has ended: the issue ends, as it would have when
        the vendor said it was fixed (its resolution rules: what it affected and followed)."""
        self.batch.cover(issue_scopes(issue_id, self.ontology), since=at)
        still = [s for s in self.batch.by_target.get(issue_id, ())
                 if s.relation == REPORTED and not s.expired
                 and (s.invalid_at is None or s.invalid_at > at)]
        if still:
            return
        ended = [s for s in self._ended_by_completion_of(issue_id) if s.relation != REPORTED]
        for closing in decide_resolution(at, ended):
            self._end(closing.span.key, closing.at, Fact.CloseReason.RESOLUTION, by_fact=None)

    def _end_if_already_done(self, key: object, span: Span) -> None:
        """A dependency learned late (a backfill) on work that was finished after it began ends
        when that work was done — it never waits forever on something shipped."""
        completions = [
            s for s in self.batch.from_source(span.target_id, "HAS_STATUS")
            if not s.expired and s.valid_at >= span.valid_at
            and self.ontology.is_final_status(self.facts[s.key].target.name)
        ]
        if completions:
            done = min(completions, key=lambda s: (s.valid_at, s.rank))
            self._end(key, done.valid_at, Fact.CloseReason.RESOLUTION, by_fact=done.key)

    def _apply_single_valued(self, key: object, span: Span) -> None:
        scope = [s for s in self.batch.from_source(span.source_id, span.relation) if s.key != key]
        decision = decide_single_valued(span, scope)
        for closing in decision.closings:
            self._end(closing.span.key, closing.at, Fact.CloseReason.SINGLE_VALUED, by_fact=key)
        if decision.new_ends_at is not None and decision.new_ended_by is not None:
            # A newer value is already known: this (backfilled) one ended when that one began.
            # It was never believed current, so it is not expired.
            fact = self.facts[key]
            fact.invalid_at = decision.new_ends_at
            fact.close_reason = Fact.CloseReason.SINGLE_VALUED
            self.batch.closed_by[key] = decision.new_ended_by.key
            span.invalid_at = decision.new_ends_at

    def _close(self, closure: ExtractedClosure) -> None:
        source = self._entity(closure.source, closure.source_type)
        if source is None:
            return
        target = self._entity(closure.target, closure.target_type)
        matching = [
            s for s in self.batch.from_source(source.pk, closure.relation)
            if target is None or s.target_id == target.pk
        ]
        at = closure.at or self.episode.reference_time
        closings = decide_explicit(at, matching)
        if closure.relation == REPORTED and target is None and len(closings) > 1:
            # "Fixed for us" without saying what: ending every report of the customer would be
            # collateral; only an unambiguous one ends.
            self.outcome.notes.append(f"not closed, several open reports: {closure.sentence}")
            return
        for closing in closings:
            self._end(closing.span.key, closing.at, Fact.CloseReason.EXPLICIT, by_fact=None)
        if closure.relation == REPORTED:
            for issue_id in sorted({c.span.target_id for c in closings}):
                self._end_issue_if_unreported(issue_id, at)

    def _end(self, key: object, at: datetime, reason: str, *, by_fact: object | None) -> None:
        fact = self.facts[key]
        span = self.batch.spans[key]
        at = max(at, fact.valid_at)
        fact.invalid_at = at
        span.invalid_at = at
        # Only a fact believed open until now expires; one learned already ended never was.
        if fact.expired_at is None and key not in self.created_here:
            fact.expired_at = self.now
        fact.close_reason = reason
        fact.closed_by_episode = self.episode
        if by_fact is None:
            fact.closed_by_fact = None
            self.batch.closed_by.pop(key, None)
        else:
            self.batch.closed_by[key] = by_fact
        self._changed(key)
        self.outcome.facts_closed += 1

    def _changed(self, key: object) -> None:
        # A fact made in this batch is written as it ends up; a stored one is updated.
        fact = self.facts[key]
        if fact.pk is not None:
            self.batch.changed[fact.pk] = fact

    def _support(self, key: object, sentence: str) -> None:
        self.evidence.setdefault(key, sentence)
        if key not in self.created_here:
            self.outcome.facts_supported += 1
