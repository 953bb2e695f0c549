"""The recorded path of the extraction bench (``manage.py bench_extraction --path recorded``):
the facts the product *records* from the labelled corpus, scored like the extraction path's.

The extraction path scores ``extract_episode`` alone. What a user sees is what processing records
after it: a customer's message settled to its thread's problem ("same issue here" reports it,
``memory.processing.support_state``), names resolved to the entities the graph knows, the time
rules. Here each source is a fresh throwaway graph on the configured database (the embedded
default: SQLite, eager tasks, the rules extractor): its selected episodes are stored in time
order (on one date, in the file's order: ``arrival``) by the code of ``manage.py ingest``
(``ingest_records``), processed by what its tasks run (``memory.processing.process_episodes``:
extraction, settlement, resolution, recording), the graph's pipeline is run (``run_pipeline``,
which records no fact but is what ingest triggers), and the graph is deleted.

An episode's recorded facts are the facts it is evidence of (``FactEvidence``), by their
entities' names — whether the fact is still open or was closed later (by a single-valued
successor, a resolution rule, an explicit end, or an end given with it): the labels say what the
text states, not what is current. A fact recorded twice for one episode (closed and recorded
again) counts once. The names are normalised as the extraction path's (``normalized_fact``, a
support brand's scope removed) and a message's membership of its thread — metadata the labels
leave out — is left out too.

One matching rule is added, for what resolution renames: a customer's issue is recorded under its
brand's canonical problem (``memory.support.by_problem``: "Autofill no longer works on Chrome" is
recorded as "Autofill Failures (Bitwarden)"), so a gold name also matches a recorded one when the
product's ``problem_of`` names the gold name's problem that way. The strict figures keep equal
names only.
"""

from __future__ import annotations

import secrets
import time
from collections import Counter, defaultdict
from collections.abc import Sequence
from dataclasses import dataclass

from memory.bench.extraction_bench import (
    BenchResult,
    CorpusEpisode,
    Fact,
    Resolve,
    normalized_fact,
    score_episode,
    unscoped,
)
from memory.models import Entity, Episode, FactEvidence, Graph
from memory.names import normalize_name
from memory.ontology import Ontology, build_ontology
from memory.support import brand_of, membership_sentence, problem_of, thread_of
from memory.support_issues import RESEMBLES


@dataclass(frozen=True)
class RecordedFact:
    """A fact the graph holds with an episode as its evidence."""

    source: str
    relation: str
    target: str
    sentence: str
    """The sentence the evidence cites for this episode."""
    closed: str = ""
    """Why the fact was closed (``Fact.CloseReason``), empty while it is open."""


def record_source(
    episodes: Sequence[CorpusEpisode],
) -> tuple[dict[str, list[RecordedFact]], Counter[str]]:
    """Ingest one source's episodes (given in ``arrival`` order) into a throwaway graph through the
    product's path; each episode's recorded facts by its ``external_id``, and how many episodes
    each extractor read (``failed: …`` for an episode whose processing failed)."""
    from memory.api.services import delete_graph
    from memory.ingestion import ingest_records
    from memory.pipeline import run_pipeline
    from memory.processing import process_episodes

    label = episodes[0].file if episodes else "empty"
    slug = f"bench-recorded-{label}-{secrets.token_hex(4)}"[:80]
    graph = Graph.objects.create(slug=slug, name=f"Extraction bench, recorded ({label})")
    try:
        report = ingest_records(
            graph, list(enumerate((e.record for e in episodes), start=1)), process=False
        )
        if report.rejected or report.duplicates:
            raise ValueError(f"{label}: {report.summary()}")
        process_episodes(report.stored_ids)  # what the ingest command's tasks run
        run_pipeline(graph)
        readers = Counter(
            (reader or "processed")
            if status == Episode.Status.PROCESSED
            else f"{status}: {reader or '-'}"
            for status, reader in Episode.objects.filter(graph=graph).values_list(
                "status", "extractor"
            )
        )
        return recorded_facts(graph), readers
    finally:
        delete_graph(graph)


def recorded_facts(graph: Graph) -> dict[str, list[RecordedFact]]:
    """Per episode ``external_id``: the facts it is evidence of, open or closed, in the order
    they were recorded."""
    canonical: dict[int, str] = {}
    entities = {e.pk: e for e in Entity.objects.filter(graph=graph)}
    for pk in entities:
        entity, seen = entities[pk], set()
        while entity.merged_into_id is not None and entity.pk not in seen:
            seen.add(entity.pk)
            entity = entities[entity.merged_into_id]
        canonical[pk] = entity.name
    found: dict[str, list[RecordedFact]] = defaultdict(list)
    rows = (
        FactEvidence.objects.filter(episode__graph=graph)
        .select_related("fact", "episode")
        .order_by("fact_id", "pk")
    )
    for evidence in rows:
        fact = evidence.fact
        closed = fact.close_reason or ("closed" if not fact.is_open else "")
        found[str(evidence.episode.external_id)].append(
            RecordedFact(
                canonical[fact.source_id],
                fact.relation,
                canonical[fact.target_id],
                evidence.sentence,
                closed,
            )
        )
    return dict(found)


def thread_membership(fact: RecordedFact, author: str, url: str) -> bool:
    """Whether the recorded fact only says that the episode's author wrote in its thread (or a
    thread its words point at): its evidence cites the membership sentence
    (``memory.support.membership_sentence``), no words of the message."""
    thread = thread_of(url) if url else None
    if thread is None or fact.relation not in ("REPORTED", "ANSWERED"):
        return False
    if normalize_name(fact.source) != normalize_name(author):
        return False
    plain = membership_sentence(author, thread)
    return fact.sentence == plain or fact.sentence.startswith(plain[:-1] + ", which points at ")


def predicted_facts(
    episode: CorpusEpisode, recorded: Sequence[RecordedFact], ontology: Ontology
) -> list[Fact]:
    """The episode's recorded facts as the extraction path normalises its predictions: brand
    scope removed, thread membership and resemblances left out, each fact once."""
    record = episode.record
    brand = brand_of(record.get("source") or "")
    predicted: list[Fact] = []
    seen: set[tuple[str, str, str]] = set()
    for item in recorded:
        if thread_membership(item, record.get("author") or "", record.get("url") or ""):
            continue
        if item.relation == RESEMBLES:
            continue  # placed by its words (memory.support_issues): a link, no reading
        fact = normalized_fact(
            unscoped(item.source, brand),
            item.relation,
            unscoped(item.target, brand),
            ontology,
            sentence=item.sentence,
            reading="recorded" + (f", closed ({item.closed})" if item.closed else ""),
        )
        if fact is None or (fact.source, fact.relation, fact.target) in seen:
            continue
        seen.add((fact.source, fact.relation, fact.target))
        predicted.append(fact)
    return predicted


def arrival(episode: CorpusEpisode) -> tuple[str, int]:
    """The order a source's episodes are ingested in: by time, and on one date (thread messages
    carry dates only) in the order of the file, which is each thread's own — not by id, which
    would put "I have the same issue" before the report it answers when both are of one day."""
    return (str(episode.record["reference_time"]), episode.line)


def problem_resolver(brand: str | None) -> Resolve:
    """A gold name as the canonical problem the product records it under, if it states one
    (``memory.support.problem_of``)."""
    return lambda name: problem_of(name, brand)


def run_recorded_bench(
    episodes: Sequence[CorpusEpisode], *, ontology: Ontology | None = None
) -> BenchResult:
    """Record every source's episodes (one throwaway graph each, in ``arrival`` order) and score
    each episode's recorded facts. ``extract_seconds`` is the whole recording: ingest, processing,
    the pipeline run and the graph's deletion."""
    ontology = ontology or build_ontology(None)
    by_source: dict[str, list[CorpusEpisode]] = defaultdict(list)
    for episode in sorted(episodes, key=arrival):
        by_source[episode.file].append(episode)
    recorded: dict[tuple[str, str], list[RecordedFact]] = {}
    result = BenchResult(path="recorded")
    for source, source_episodes in by_source.items():
        started = time.perf_counter()
        facts_by_episode, readers = record_source(source_episodes)
        result.extract_seconds += time.perf_counter() - started
        for external_id, facts in facts_by_episode.items():
            recorded[(source, external_id)] = facts
        for reader, count in readers.items():
            result.extractors[reader] = result.extractors.get(reader, 0) + count
    for episode in episodes:
        facts = recorded.get((episode.file, str(episode.record.get("external_id"))), [])
        result.scores.append(
            score_episode(
                episode,
                predicted_facts(episode, facts, ontology),
                resolve=problem_resolver(brand_of(episode.record.get("source") or "")),
            )
        )
    return result
