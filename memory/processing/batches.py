"""Applying a batch of episodes of one graph in one transaction that first locks the graph row, so
the episodes of one graph are applied one after another, in the order given (the time rules read
what earlier episodes wrote), while different graphs proceed in parallel. The number of
queries is fixed, whatever the graph's size:

  claim the episodes · name index catch-up (before the lock and inside it) · lock graph ·
  look up the names the batch mentions · their aliases · load the facts the batch can touch ·
  create entities (once per episode that names new ones) · create facts · update changed facts ·
  (the evidence of revised facts) · create evidence · mark the episodes processed · bump the
  graph's data version

plus, rarely, a fuzzy match's suggestion or merge, a declared duplicate's suggestion, or a
second look at names or facts an episode's extraction did not show before the batch began (when
an earlier episode of the batch changed what it reads).
"""

from __future__ import annotations

import logging
from typing import Any

from django.conf import settings
from django.db import transaction
from django.db.models import F
from django.utils import timezone

from memory.extraction import Extraction
from memory.graph_settings import ontology_for
from memory.merges import suggest_declared_duplicates
from memory.models import Episode, Graph
from memory.names import normalize_name
from memory.processing.reading import (
    NamesRead,
    extract_episode,
    extract_episodes,
    reads_words,
    rereadable,
)
from memory.processing.recording import (
    EpisodeOutcome,
    FactBatch,
    FactRecorder,
    earliest_start,
    scopes_of,
    update_rows,
)
from memory.processing.support_state import SupportProblems
from memory.resolution import (
    NameCache,
    Resolution,
    forget_name_index,
    name_index,
    resolve_entities,
)
from memory.support import brand_of, by_problem

logger = logging.getLogger(__name__)


def apply_episode(episode: Episode, *, model: bool = True) -> EpisodeOutcome:
    """Extract and record one episode's facts; the caller has claimed it (status processing)."""
    return apply_episodes(episode.graph, [episode], model=model)[0]


def apply_episodes(graph: Graph, episodes: list[Episode], *, model: bool = True
                   ) -> list[EpisodeOutcome]:
    """Extract and record the facts of claimed episodes of ``graph``, in the order given, in one
    transaction holding the graph's lock. The result is the same as applying them one at a time:
    each episode's extraction knows the entities the earlier ones created, and its time rules see
    the facts they wrote (kept in memory and written together at the end).

    ``model=False`` with a model configured: the rules read them now, and the episodes whose
    words the model would read await its reading (``memory.processing.revision``)."""
    ontology = ontology_for(graph)
    index = name_index(graph)
    # Extract before taking the graph's lock: a model call may take seconds, and its audit rows
    # must survive even if the transaction below rolls back. A model reads the batch in a few
    # calls rather than one per episode.
    reads = [NamesRead(index.types) for _ in episodes]
    drafts = list(zip(extract_episodes(episodes, ontology, reads, model=model), reads,
                      strict=True))
    try:
        with transaction.atomic():
            locked = Graph.objects.select_for_update().get(pk=graph.pk)
            names = NameCache(locked, name_index(locked))
            names.look_up({
                normalize_name(entity.name)
                for extraction, _ in drafts for entity in extraction.all_entities()
            })
            batch = FactBatch(locked, ontology)
            problems = SupportProblems(locked)

            def known_id(name: str | None, _type: str | None) -> int | None:
                entity = names.entities.get(normalize_name(name)) if name else None
                return entity.pk if entity is not None else None

            # The stored facts the whole batch can touch, in one query.
            batch.cover(
                set().union(*(
                    scopes_of(extraction, ontology, known_id) for extraction, _ in drafts
                )),
                since=min(earliest_start(e, extraction) for e, (extraction, _) in
                          zip(episodes, drafts, strict=True)),
            )
            outcomes = []
            for episode, (extraction, read) in zip(episodes, drafts, strict=True):
                if (rereadable(extraction, model=model)
                        and read.changed_in(names.index.types)):
                    # Names its extraction asked about are known (or typed) differently now:
                    # earlier episodes of the batch, or another process, added them. Read it as
                    # it would be read alone, knowing them.
                    extraction = extract_episode(episode, ontology, names.index.types,
                                                 model=model)
                outcomes.append(_apply(batch, names, episode, extraction, problems))
                episode.awaits_model = (not model and settings.LLM_EXTRACTION
                                        and reads_words(episode))
            batch.write()
            # A tracker's "duplicate of" is also a merge suggestion for a person to decide.
            suggest_declared_duplicates(locked.pk, [
                (fact.source_id, fact.target_id) for fact in batch.new_facts
                if fact.relation == "DUPLICATE_OF" and fact.invalid_at is None
            ])
            update_rows(episodes, ["status", "extractor", "extraction_note", "error",
                                   "processed_at", "author_entity", "awaits_model"])
            Graph.objects.filter(pk=graph.pk).update(data_version=F("data_version") + 1)
    except BaseException:
        # The index may hold entities the rollback removed.
        forget_name_index(graph.pk)
        raise
    return outcomes


def settle_customer_problems(episode: Episode, extraction: Extraction,
                             problems: SupportProblems) -> Extraction:
    """A customer's reading with its problems settled: one problem said in many ways is one
    issue of its brand (``memory.support``); one problem a message, a thread's problem its own,
    and what no rule reads joined by its words to its brand's closest issue
    (``memory.support_issues``). Anyone else's reading as it is."""
    if extraction.author is None or extraction.author.type != "Customer":
        return extraction
    given = [name for fact in (episode.supplied or {}).get("facts", [])
             for name in (fact.get("source", ""), fact.get("target", ""))]
    extraction = by_problem(extraction, brand_of(episode.source), given=given)
    return problems.settle(episode, extraction)


def resolve_mentions(batch: FactBatch, names: NameCache, episode: Episode,
                     extraction: Extraction) -> Resolution:
    """The entities the reading names, found or created in the batch's graph."""
    mentions = [(e.name, e.type) for e in extraction.all_entities()]
    resolution = resolve_entities(batch.graph, mentions, now=episode.ingested_at, names=names)
    batch.fresh_entities.update(e.pk for e in resolution.created)
    return resolution


def _apply(
    batch: FactBatch, names: NameCache, episode: Episode, extraction: Extraction,
    problems: SupportProblems,
) -> EpisodeOutcome:
    extraction = settle_customer_problems(episode, extraction, problems)
    resolution = resolve_mentions(batch, names, episode, extraction)
    outcome = EpisodeOutcome(episode=episode, extraction=extraction)
    FactRecorder(batch, episode, resolution, outcome).record(extraction)
    # Set either way: a batch that rolled back may have left an entity that no longer exists.
    episode.author_entity = (
        resolution.entities.get((extraction.author.name, extraction.author.type))
        if extraction.author is not None else None
    )
    episode.status = Episode.Status.PROCESSED
    # A rules reading that stood in for a failed model says so on the episode.
    episode.extractor = (f"{extraction.extractor} ({extraction.model_failure})"[:80]
                         if extraction.model_failure else extraction.extractor)
    episode.extraction_note = (extraction.unread or "")[:200]
    episode.error = ""
    episode.processed_at = timezone.now()
    return outcome


def describe(outcome: EpisodeOutcome) -> dict[str, Any]:
    return {
        "episode": str(outcome.episode.uuid),
        "extractor": outcome.extraction.extractor,
        "facts_created": outcome.facts_created,
        "facts_supported": outcome.facts_supported,
        "facts_closed": outcome.facts_closed,
    }
