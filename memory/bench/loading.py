"""Writing a synthetic graph (``memory.bench.synthetic``) straight into a real Graph.

``manage.py bench`` builds its graphs through ingestion and extraction, which at 100,000 episodes
takes minutes; the pipeline bench (``manage.py bench_pipeline``) only needs the rows a pipeline
run reads, at issue #3's density. They are written here as processing would have left them:
entities with ontology types, processed episodes with their author entity, current facts (valid
from the first episode that states them) and one evidence row per (fact, episode), then the
graph's ``data_version`` bumped. On PostgreSQL the rows are streamed with ``COPY`` (no model
instance per row); elsewhere they go through ``bulk_create``.

Ids follow the synthetic ids' order (entities, episodes and facts are inserted in that order and
take ascending ids), so the clustering of the loaded graph is the clustering of the synthetic
rows, renumbered: vertices, signature keys and Leiden's input keep their order.
"""

from __future__ import annotations

import uuid
from collections.abc import Mapping, Sequence
from datetime import datetime, timedelta

from django.db import connection, transaction
from django.db.models import F

from memory.bench.synthetic import STATUS_NAMES, SyntheticGraph
from memory.extraction.structured import STRUCTURED_EXTRACTOR
from memory.ingestion import EpisodeInput
from memory.models import Entity, Episode, Fact, FactEvidence, Graph
from memory.names import normalize_name
from memory.publishing import insert_values

SPAN = timedelta(weeks=8)
"""The episodes' reference times are spread evenly over this span after ``start``."""
SOURCE = "synthetic"
EXTERNAL_PREFIX = "synthetic-"
"""An episode's external id is this and its synthetic number: tests map clusters back with it."""

LABELS: dict[str, str] = {"WorkItem": "Item"}
"""How an entity type is shown in a generated name ("Item 123", "Person 45")."""
PHRASES: dict[str, str] = {
    "RESPONSIBLE_FOR": "works on",
    "MEMBER_OF": "is on",
    "DEPENDS_ON": "is waiting on",
    "HAS_STATUS": "is",
    "REPORTED": "reported",
    "AFFECTS": "affects",
    "PRECEDED_BY": "started after",
    "USES": "uses",
}

ENTITY_COLUMNS = ("uuid", "graph_id", "name", "normalized_name", "type", "summary",
                  "summary_fingerprint", "summary_generator", "created_at")
EPISODE_COLUMNS = ("uuid", "graph_id", "external_id", "author", "author_entity_id", "source",
                   "type", "content", "reference_time", "ingested_at", "content_hash", "status",
                   "attempts", "error", "processing_started_at", "processed_at", "extractor")
FACT_COLUMNS = ("uuid", "graph_id", "source_id", "relation", "target_id", "sentence",
                "valid_at", "created_at", "close_reason", "extractor")
EVIDENCE_COLUMNS = ("fact_id", "episode_id", "sentence", "extractor", "created_at")


def entity_names(kinds: Mapping[int, str], wanted: Sequence[int]) -> dict[int, str]:
    """Readable, unique names for the ``wanted`` entities (ascending ids): statuses by their
    names, the others numbered per type in id order ("Item 1", "Item 2", "Person 1"...)."""
    names: dict[int, str] = {}
    counters: dict[str, int] = {}
    statuses = iter(STATUS_NAMES)
    for entity in wanted:
        kind = kinds[entity]
        if kind == "Status":
            names[entity] = next(statuses, f"status {entity}")
            continue
        counters[kind] = counters.get(kind, 0) + 1
        names[entity] = f"{LABELS.get(kind, kind)} {counters[kind]}"
    return names


def sentence(source: str, relation: str, target: str) -> str:
    return f"{source} {PHRASES.get(relation, relation.lower().replace('_', ' '))} {target}"


def load_synthetic(graph: Graph, synthetic: SyntheticGraph, *, start: datetime) -> dict[str, int]:
    """Write ``synthetic`` into ``graph`` (which should be empty) in one transaction; returns the
    rows written by table. Episode ``n`` is said at ``start + SPAN * (n - 1) / episodes``."""
    rows = synthetic.rows
    authors = synthetic.authors
    used = sorted({r[2] for r in rows} | {r[4] for r in rows}
                  | {a for a in authors.values() if a is not None})
    names = entity_names(synthetic.kinds, used)
    numbers = sorted(authors)
    step = SPAN / max(1, len(numbers))
    said = {n: start + step * i for i, n in enumerate(numbers)}

    # Each episode's facts once (an update naming a fact twice gets one evidence row), in order.
    facts_of: dict[int, dict[int, str]] = {n: {} for n in numbers}
    first_said: dict[int, tuple[int, int, str, int, str]] = {}
    for episode, fact, source, relation, target in rows:
        own = facts_of[episode]
        if fact in own:
            continue
        text = sentence(names[source], relation, names[target])
        own[fact] = text
        if fact not in first_said:
            first_said[fact] = (episode, source, relation, target, text)

    with transaction.atomic():
        entity_ids = dict(zip(used, insert_values(Entity, ENTITY_COLUMNS, [
            (uuid.uuid4(), graph.pk, names[e], normalize_name(names[e]), synthetic.kinds[e],
             "", "", "", start)
            for e in used
        ]), strict=True))
        episode_rows = []
        for n in numbers:
            author = authors[n]
            author_name = names[author] if author is not None else ""
            content = ". ".join(facts_of[n].values()) + "."
            episode_rows.append(_episode_row(
                graph, n, author_name, entity_ids.get(author) if author is not None else None,
                content, said[n]))
        episode_ids = dict(zip(numbers, insert_values(Episode, EPISODE_COLUMNS, episode_rows),
                               strict=True))
        del episode_rows
        fact_numbers = sorted(first_said)
        fact_ids = dict(zip(fact_numbers, insert_values(Fact, FACT_COLUMNS, [
            (uuid.uuid4(), graph.pk, entity_ids[source], relation, entity_ids[target], text,
             said[episode], said[episode], "", STRUCTURED_EXTRACTOR)
            for fact in fact_numbers
            for episode, source, relation, target, text in [first_said[fact]]
        ]), strict=True))
        evidence = [
            (fact_ids[fact], episode_ids[n], text, STRUCTURED_EXTRACTOR, said[n])
            for n in numbers for fact, text in facts_of[n].items()
        ]
        insert_values(FactEvidence, EVIDENCE_COLUMNS, evidence, ids=False)
        # What processing does after every batch: runs and the settle check compare versions.
        Graph.objects.filter(pk=graph.pk).update(data_version=F("data_version") + 1)
    if connection.vendor == "postgresql":
        # A graph grown over weeks has had its statistics refreshed by autovacuum; right after a
        # bulk load they may still describe nearly empty tables, and the run's plans with them.
        with connection.cursor() as cursor:
            cursor.execute("ANALYZE " + ", ".join(
                connection.ops.quote_name(model._meta.db_table)
                for model in (Entity, Episode, Fact, FactEvidence)))
    return {"entities": len(entity_ids), "episodes": len(episode_ids), "facts": len(fact_ids),
            "evidence": len(evidence)}


def add_restating_episode(
    graph: Graph, restated: int, *, number: int, reference_time: datetime
) -> dict[str, int]:
    """One new episode, written the same direct way: it restates every current fact of episode
    ``restated`` (same author) and adds one new fact about a work item it mentions (the item
    ``USES`` a new service). ``number`` makes its external id (``synthetic-<number>``). Returns
    the ids written: ``episode``, ``fact``, ``entity``."""
    original = Episode.objects.get(pk=restated, graph=graph)
    stated = list(
        Fact.objects.filter(evidence__episode=original, invalid_at__isnull=True,
                            expired_at__isnull=True)
        .order_by("pk").values_list("pk", "sentence", "source_id", "relation", "target_id",
                                    "source__type", "target__type")
    )
    items = [source if source_type == "WorkItem" else target
             for _, _, source, _, target, source_type, target_type in stated
             if "WorkItem" in (source_type, target_type)]
    if not items:
        raise ValueError(f"episode {restated} mentions no work item")
    item = Entity.objects.get(pk=items[0])
    services = Entity.objects.filter(graph=graph, type="Service").count()
    service_name = f"Service {services + 1}"
    while Entity.objects.filter(graph=graph, normalized_name=normalize_name(service_name)).exists():
        services += 1
        service_name = f"Service {services + 1}"
    new_sentence = sentence(item.name, "USES", service_name)
    content = ". ".join([*(text for _, text, *_ in stated), new_sentence]) + "."
    with transaction.atomic():
        [service] = insert_values(Entity, ENTITY_COLUMNS, [
            (uuid.uuid4(), graph.pk, service_name, normalize_name(service_name), "Service",
             "", "", "", reference_time)])
        [episode] = insert_values(Episode, EPISODE_COLUMNS, [_episode_row(
            graph, number, original.author, original.author_entity_id, content,
            reference_time)])
        [fact] = insert_values(Fact, FACT_COLUMNS, [
            (uuid.uuid4(), graph.pk, item.pk, "USES", service, new_sentence, reference_time,
             reference_time, "", STRUCTURED_EXTRACTOR)])
        insert_values(FactEvidence, EVIDENCE_COLUMNS, [
            (fact_id, episode, text, STRUCTURED_EXTRACTOR, reference_time)
            for fact_id, text in [*((pk, text) for pk, text, *_ in stated), (fact, new_sentence)]
        ], ids=False)
        Graph.objects.filter(pk=graph.pk).update(data_version=F("data_version") + 1)
    return {"episode": episode, "fact": fact, "entity": service}


def _episode_row(graph: Graph, number: int, author: str, author_entity: int | None,
                 content: str, said: datetime) -> tuple[object, ...]:
    """An episode as processing leaves it: processed by the structured extractor, ingested
    when said (so the time rules and the settle check see ordinary times)."""
    external_id = f"{EXTERNAL_PREFIX}{number}"
    digest = EpisodeInput(reference_time=said, author=author, content=content, source=SOURCE,
                          external_id=external_id).content_hash
    return (uuid.uuid4(), graph.pk, external_id, author, author_entity, SOURCE,
            Episode.Type.TEXT, content, said, said, digest, Episode.Status.PROCESSED, 1, "",
            said, said, STRUCTURED_EXTRACTOR)


def synthetic_number(external_id: str | None) -> int | None:
    """The synthetic episode number of an external id this module wrote."""
    if external_id and external_id.startswith(EXTERNAL_PREFIX):
        return int(external_id.removeprefix(EXTERNAL_PREFIX))
    return None
