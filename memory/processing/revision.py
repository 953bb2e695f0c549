"""The model's reading replacing the rules': when a model extracts, an update that arrives by the
web page or the API is read by the rules at once (on the board within the run, as without a
model) and marked ``awaits_model``; the model reads the waiting updates of a graph together later
(``memory.processing.model_queue`` says when), and its reading of each replaces the rules'.

Replacing, under the graph's lock, in one transaction per batch, for each update in ingestion
order:

* the update's evidence rows are taken away, and what its rules reading closed by itself (an
  explicit "no longer", an end given, a customer's "resolved") is opened again in memory;
* the model's reading is recorded like any reading, through ``FactRecorder`` and the time rules:
  a fact both readings found is the same fact, supported again (no duplicate, its evidence now
  the model's sentence); a fact only the model found is new (created now, backfilled by the time
  rules if later updates already said more); a closure the model also reads closes again, as it
  was;
* a fact the rules found and the model did not has no evidence left from this update: if no
  other update supports it, it is withdrawn (expired, no end: ``Fact.CloseReason.REREAD``), and
  what it had closed is opened again — closed by the next value of its relation when a later one
  is known (the single-valued rule), open otherwise.

If the model does not answer for an update (the call failed, the breaker, the budget) or finds
nothing usable in it, nothing changes: the rules reading stays, the update says why, and it is
not asked again (the same rules as an update the model failed to read at first)."""

from __future__ import annotations

import logging
from dataclasses import dataclass
from datetime import datetime

from django.db import transaction
from django.db.models import Count, F, Q
from django.utils import timezone

from memory.extraction import Extraction
from memory.extraction.rules import RULES_EXTRACTOR
from memory.graph_settings import ontology_for
from memory.models import Episode, Fact, FactEvidence, Graph
from memory.names import normalize_name
from memory.ontology import Ontology
from memory.processing.batches import resolve_mentions, settle_customer_problems
from memory.processing.reading import NamesRead, extract_episodes
from memory.processing.recording import (
    EpisodeOutcome,
    FactBatch,
    FactRecorder,
    earliest_start,
    scopes_of,
    update_rows,
)
from memory.processing.support_state import SupportProblems
from memory.resolution import NameCache, forget_name_index, name_index

logger = logging.getLogger(__name__)

REOPENED_BY_EPISODE = (Fact.CloseReason.EXPLICIT, Fact.CloseReason.GIVEN,
                       Fact.CloseReason.RESOLUTION)
"""Closings an update makes by itself (no closing fact): its rules reading's closures."""


@dataclass(frozen=True)
class Closed:
    """How a fact was closed before its closer was read again."""

    invalid_at: datetime | None
    expired_at: datetime | None
    close_reason: str


def revise_episodes(graph: Graph, episodes: list[Episode], *, now: datetime | None = None
                    ) -> dict[int, str]:
    """Read ``episodes`` (rules readings awaiting the model, in ingestion order) with the model
    and put its reading in place of the rules' (see the module text). Returns what happened to
    each: ``revised``, ``kept`` (the model did not answer: the rules reading stays) or
    ``skipped`` (revised already, by another worker)."""
    now = now or timezone.now()
    ontology = ontology_for(graph)
    index = name_index(graph)
    # The model is asked before the lock is taken (a call may take seconds).
    reads = [NamesRead(index.types) for _ in episodes]
    readings = extract_episodes(episodes, ontology, reads)
    outcomes: dict[int, str] = {}
    try:
        with transaction.atomic():
            locked = Graph.objects.select_for_update().get(pk=graph.pk)
            waiting = set(Episode.objects.filter(
                pk__in=[e.pk for e in episodes], awaits_model=True,
                status=Episode.Status.PROCESSED).values_list("pk", flat=True))
            for episode in episodes:
                if episode.pk not in waiting:
                    outcomes[episode.pk] = "skipped"
            pairs = [(e, x) for e, x in zip(episodes, readings, strict=True) if e.pk in waiting]
            kept = [e for e, x in pairs if not by_model(x)]
            for episode, extraction in pairs:
                if extraction.model_failure:
                    episode.extractor = f"{episode.extractor} ({extraction.model_failure})"[:80]
                if not by_model(extraction):
                    outcomes[episode.pk] = "kept"
            replaced = [(e, x) for e, x in pairs if by_model(x)]
            if replaced:
                _replace(locked, ontology, replaced, now=now)
                outcomes.update((e.pk, "revised") for e, _ in replaced)
            for episode, _ in pairs:
                episode.awaits_model = False
            update_rows([e for e, _ in pairs], ["awaits_model", "extractor", "extraction_note",
                                                "author_entity"])
            if replaced or kept:
                Graph.objects.filter(pk=graph.pk).update(data_version=F("data_version") + 1)
    except BaseException:
        forget_name_index(graph.pk)
        raise
    return outcomes


def by_model(extraction: Extraction) -> bool:
    """Whether the model read the words: not when its call failed, nor when it found nothing
    usable (then the rules read them, as they already had)."""
    return not extraction.model_failure and not extraction.extractor.endswith(RULES_EXTRACTOR)


def _replace(graph: Graph, ontology: Ontology, pairs: list[tuple[Episode, Extraction]], *,
             now: datetime) -> None:
    names = NameCache(graph, name_index(graph))
    names.look_up({normalize_name(entity.name)
                   for _, extraction in pairs for entity in extraction.all_entities()})
    batch = FactBatch(graph, ontology)

    def known_id(name: str | None, _type: str | None) -> int | None:
        entity = names.entities.get(normalize_name(name)) if name else None
        return entity.pk if entity is not None else None

    ids = [e.pk for e, _ in pairs]
    batch.cover(
        set().union(*(scopes_of(extraction, ontology, known_id) for _, extraction in pairs)),
        since=min(earliest_start(e, x) for e, x in pairs),
    )
    # What the rules reading supported and closed by itself, taken back before the model's
    # reading is recorded (it restates or closes them again if it reads them too).
    supported = dict(FactEvidence.objects.filter(episode_id__in=ids).order_by("pk")
                     .values_list("fact_id", "episode_id"))
    FactEvidence.objects.filter(episode_id__in=ids).delete()
    reopened = _reopen_closed_by(batch, ids, keep=set(supported))
    problems = SupportProblems(graph)  # after the rules reading's evidence is gone
    for episode, extraction in pairs:
        _record(batch, names, episode, extraction, problems, now=now)
    _restore_unchanged_closings(batch, reopened)
    batch.write()
    _withdraw_unsupported(graph, supported, now=now)


def _reopen_closed_by(batch: FactBatch, episode_ids: list[int], *, keep: set[int]
                      ) -> dict[int, Closed]:
    """Open again, in the batch, the facts the episodes closed by themselves; how each was
    closed, to keep it as it was when the model's reading closes it the same way. ``keep``:
    facts the episodes state themselves (one given with its end stays as given; it is withdrawn
    if the model's reading does not state it)."""
    before: dict[int, Closed] = {}
    for fact in Fact.objects.filter(
        graph=batch.graph, closed_by_episode_id__in=episode_ids, closed_by_fact__isnull=True,
        close_reason__in=REOPENED_BY_EPISODE,
    ).exclude(pk__in=keep).select_related("target"):
        if fact.pk not in batch.facts:
            batch.track(fact.pk, fact, rank=(0, fact.pk))
        fact = batch.facts[fact.pk]
        before[fact.pk] = Closed(fact.invalid_at, fact.expired_at, fact.close_reason)
        fact.invalid_at = fact.expired_at = None
        fact.close_reason = ""
        fact.closed_by_episode = None
        span = batch.spans[fact.pk]
        span.invalid_at = None
        span.expired = False
        batch.changed[fact.pk] = fact
    return before


def _restore_unchanged_closings(batch: FactBatch, before: dict[int, Closed]) -> None:
    """A fact the model's reading closed again at the same moment keeps the system time it was
    first closed at (nothing new was learned)."""
    for pk, closed in before.items():
        fact = batch.facts[pk]
        if fact.invalid_at == closed.invalid_at and fact.close_reason == closed.close_reason:
            fact.expired_at = closed.expired_at


def _record(batch: FactBatch, names: NameCache, episode: Episode, extraction: Extraction,
            problems: SupportProblems, *, now: datetime) -> None:
    # as when the rules' reading was first applied (``memory.processing.batches``)
    extraction = settle_customer_problems(episode, extraction, problems)
    resolution = resolve_mentions(batch, names, episode, extraction)
    recorder = FactRecorder(batch, episode, resolution, EpisodeOutcome(episode, extraction))
    # What the model adds was learned now, not when the update arrived.
    recorder.now = now
    recorder.record(extraction)
    episode.author_entity = (
        resolution.entities.get((extraction.author.name, extraction.author.type))
        if extraction.author is not None else None
    )
    episode.extractor = extraction.extractor[:80]
    episode.extraction_note = (extraction.unread or "")[:200]


def _withdraw_unsupported(graph: Graph, supported: dict[int, int], *, now: datetime) -> None:
    """Withdraw the facts the rules reading supported that nothing supports any more, and open
    again what they had closed (closed by the next value of a single-valued relation when one
    is known)."""
    if not supported:
        return
    orphans = list(Fact.objects.filter(pk__in=supported).annotate(n=Count("evidence"))
                   .filter(n=0))
    if not orphans:
        return
    orphan_ids = {fact.pk for fact in orphans}
    for orphan in orphans:
        orphan.invalid_at = None
        orphan.expired_at = now
        orphan.close_reason = Fact.CloseReason.REREAD
        orphan.closed_by_fact = None
        # The update whose reading no longer says it.
        orphan.closed_by_episode_id = supported[orphan.pk]
    update_rows(orphans, ["invalid_at", "expired_at", "close_reason", "closed_by_fact",
                          "closed_by_episode"])
    closed = list(Fact.objects.filter(closed_by_fact_id__in=orphan_ids)
                  .exclude(pk__in=orphan_ids))
    if not closed:
        return
    ontology = ontology_for(graph)
    for fact in closed:
        fact.invalid_at = fact.expired_at = None
        fact.close_reason = ""
        fact.closed_by_fact = fact.closed_by_episode = None
        relation = ontology.relation(fact.relation)
        if relation is None or not relation.single_valued:
            continue
        following = (Fact.objects.filter(graph=graph, source_id=fact.source_id,
                                         relation=fact.relation, valid_at__gt=fact.valid_at)
                     .exclude(Q(expired_at__isnull=False) & Q(invalid_at__isnull=True))
                     .exclude(pk__in=orphan_ids).order_by("valid_at", "pk").first())
        if following is not None:
            fact.invalid_at = following.valid_at
            fact.expired_at = now
            fact.close_reason = Fact.CloseReason.SINGLE_VALUED
            fact.closed_by_fact = following
    update_rows(closed, ["invalid_at", "expired_at", "close_reason", "closed_by_fact",
                         "closed_by_episode"])
