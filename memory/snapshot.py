"""Loading what a pipeline run reads, in as few and as cheap queries as possible.

The clustering stage must stay within 2× of its floor (loading the (episode, signature) pairs and
running igraph's connected components), so the evidence rows come straight from a raw cursor as
plain tuples; the details a summary needs (sentences, texts, names, times) are loaded afterwards,
only for the clusters that changed.
"""

from __future__ import annotations

import zlib
from collections import Counter, defaultdict
from collections.abc import Collection, Iterable, Iterator, Mapping, Sequence, Set
from dataclasses import dataclass, replace
from datetime import datetime, timedelta

from django.db import connection
from django.db.models import Field, JSONField, Model, QuerySet

from memory.engine.context import EndedReport
from memory.engine.lifecycle import ActiveObservation
from memory.engine.stalled import WORK_ITEM
from memory.engine.stalled_memo import StallMemo, detect_stalls, memo_from_bytes
from memory.engine.template_summary import looks_like_key
from memory.engine.types import EntityInfo, EpisodeInfo, FactInfo, Row
from memory.models import (
    Entity,
    Episode,
    Fact,
    FactEvidence,
    Graph,
    Observation,
    StalledItemsMemo,
)
from memory.names import normalize_name
from memory.ontology import Ontology

CHUNK = 5_000


@dataclass
class Snapshot:
    """The current evidence of a graph, as the engine reads it: the rows, and the graph's
    episodes to ask about (authors, the window) only where a step needs them."""

    rows: list[Row]
    current_fact_ids: set[int]
    episodes: QuerySet[Episode]
    """The graph's episodes inside the clustering window (not read unless asked)."""

    def episode_authors(self, episode_ids: Collection[int]) -> dict[int, int | None]:
        """Episode id → its author's entity id, for these episodes: what hub suppression reads
        (``cluster_episodes`` asks for its hub candidates' episodes only)."""
        return dict(_select_by_ids(Episode, ("id", "author_entity"), episode_ids))

    def in_window(self, episode_ids: Collection[int]) -> set[int]:
        """Those of these episodes inside the window: what naming a retirement's causes reads."""
        inside: set[int] = set()
        for chunk in _chunks(episode_ids):
            inside.update(self.episodes.filter(pk__in=chunk).values_list("pk", flat=True))
        return inside

    def episode_count(self) -> int:
        return self.episodes.count()


def load_snapshot(
    graph: Graph, *, as_of: datetime, window_days: int | None, is_now: bool
) -> Snapshot:
    """The (episode, current fact) rows of the graph at ``as_of`` (one query). The episodes'
    authors and the window's episodes are read later, for the few that a step asks about: read
    for the whole graph up front, they were a tenth of the clustering stage at 100,000
    episodes."""
    rows = load_rows(graph, as_of=as_of, window_days=window_days, is_now=is_now)
    window_start = as_of - timedelta(days=window_days) if window_days else None
    episodes = Episode.objects.filter(graph=graph, reference_time__lte=as_of)
    if window_start:
        episodes = episodes.filter(reference_time__gt=window_start)
    return Snapshot(rows=rows, current_fact_ids={row[1] for row in rows}, episodes=episodes)


def load_rows(
    graph: Graph, *, as_of: datetime, window_days: int | None, is_now: bool
) -> list[Row]:
    """The (episode, current fact) rows alone, in one query: what any clustering by signatures
    must read (the bench's floor loads exactly this).

    *Current*: valid at ``as_of`` and, for a run about now, not expired; a run about the past
    reads today's knowledge of that time (closed facts count for the time they held)."""
    fact = Fact._meta.db_table
    evidence = FactEvidence._meta.db_table
    episode = Episode._meta.db_table
    believed = "f.expired_at IS NULL" if is_now else (
        "(f.expired_at IS NULL OR f.invalid_at IS NOT NULL)"
    )
    params: list[int | datetime] = [graph.pk, as_of, as_of]
    episode_filter = ""
    window_start = as_of - timedelta(days=window_days) if window_days else None
    if not is_now or window_start:
        episode_filter = " AND e.reference_time <= %s"
        params.append(as_of)
        if window_start:
            episode_filter += " AND e.reference_time > %s"
            params.append(window_start)
    join = f" JOIN {episode} e ON e.id = fe.episode_id" if episode_filter else ""
    sql = (
        f"SELECT fe.episode_id, f.id, f.source_id, f.relation, f.target_id "
        f"FROM {evidence} fe JOIN {fact} f ON f.id = fe.fact_id{join} "
        f"WHERE f.graph_id = %s AND f.valid_at <= %s "
        f"AND (f.invalid_at IS NULL OR f.invalid_at > %s) AND {believed}{episode_filter}"
    )
    with connection.cursor() as cursor:
        cursor.execute(sql, params)
        return cursor.fetchall()


def completion_status_ids(graph: Graph, ontology: Ontology) -> set[int]:
    """The graph's status entities that mean "finished" (one query over its statuses)."""
    return {
        pk for pk, name in Entity.objects.filter(graph=graph, type="Status")
        .values_list("pk", "name") if ontology.is_completion_status(name)
    }


def ended_status_ids(graph: Graph, ontology: Ontology) -> set[int]:
    """The graph's status entities that mean "ended without being done" (won't fix,
    duplicate...): a tracker counts them apart from its open and done items."""
    return {
        pk for pk, name in Entity.objects.filter(graph=graph, type="Status")
        .values_list("pk", "name")
        if ontology.is_final_status(name) and not ontology.is_completion_status(name)
    }


def load_ended_reports(graph: Graph, *, as_of: datetime, is_now: bool) -> list[EndedReport]:
    """The reports their customers ended ("resolved for us") of issues that others still report
    at ``as_of``: what a recurring issue says besides who reports it (two queries, none when no
    customer ever ended a report)."""
    believed = {"expired_at__isnull": True} if is_now else {}
    still = Fact.objects.filter(graph=graph, relation="REPORTED", valid_at__lte=as_of,
                                invalid_at__isnull=True, **believed).values("target_id")
    # Ended by the customer's words ("resolved for us"), or given with its end by the update
    # that ended it (a help desk's solved ticket: DESIGN §9, resolution is per customer).
    rows = list(
        Fact.objects.filter(graph=graph, relation="REPORTED",
                            close_reason__in=[Fact.CloseReason.EXPLICIT, Fact.CloseReason.GIVEN],
                            closed_by_episode__isnull=False, invalid_at__lte=as_of,
                            target_id__in=still)
        .values_list("pk", "source_id", "target_id", "valid_at", "invalid_at",
                     "closed_by_episode_id")
    )
    if not rows:
        return []
    episodes: dict[int, list[int]] = defaultdict(list)
    for fact_id, episode_id in FactEvidence.objects.filter(
        fact_id__in=[row[0] for row in rows]
    ).values_list("fact_id", "episode_id"):
        episodes[fact_id].append(episode_id)
    return [
        EndedReport(fact_id=pk, reporter_id=source, issue_id=target,
                    episode_ids=tuple(sorted(episodes.get(pk, ()))), first_reported=valid_at,
                    ended_at=invalid_at, ended_by_episode=closer)
        for pk, source, target, valid_at, invalid_at, closer in rows
        if invalid_at is not None  # always: the query asks for invalid_at <= as_of
    ]


def load_active_observations(
    graph: Graph, *, matched_fingerprints: Set[str] | None = None
) -> list[ActiveObservation]:
    """The graph's active observations with their evidence (one query, plus two for evidence).

    ``matched_fingerprints``: this run's cluster fingerprints. Reconciliation keeps an observation
    whose fingerprint one of them has untouched and never reads its evidence, so that evidence
    is not loaded (its ``episode_ids`` and ``fact_ids`` are empty): after one new update of a
    100,000-episode graph, nearly every observation is untouched and ~300,000 (observation,
    episode or fact) pairs need not be read. An observation sharing its fingerprint with another
    active one keeps its evidence, since only one of them can be matched."""
    heads = list(
        Observation.objects.filter(graph=graph, status=Observation.Status.ACTIVE).values_list(
            "pk", "lineage", "version", "evidence_fingerprint", "facts_fingerprint", "kind"
        )
    )
    if not heads:
        return []
    wanted: set[int] | None = None
    if matched_fingerprints is not None:
        seen = Counter(head[3] for head in heads)
        wanted = {
            pk for pk, _, _, fingerprint, _, _ in heads
            if fingerprint not in matched_fingerprints or seen[fingerprint] > 1
        }
    episodes = _ids_by_observation(graph, Observation.episodes.through, "episode_id", wanted)
    facts = _ids_by_observation(graph, Observation.facts.through, "fact_id", wanted)
    return [
        ActiveObservation(
            id=pk, lineage=lineage, version=version,
            episode_ids=tuple(sorted(episodes.get(pk, ()))),
            fact_ids=tuple(sorted(facts.get(pk, ()))),
            fingerprint=fingerprint, facts_fingerprint=facts_key, kind=kind,
        )
        for pk, lineage, version, fingerprint, facts_key, kind in heads
    ]


def with_chain_dependencies(
    active: Sequence[ActiveObservation],
) -> tuple[list[ActiveObservation], dict[int, int]]:
    """The active observations, each dependency chain whose evidence was read with its
    ``DEPENDS_ON`` facts (``dependency_fact_ids``); and of those facts, the ones a completion
    ended (a resolution rule closed them when what they wait on was done) → the completing
    status fact, so a retirement cites the work that was done (one query, none when no chain's
    evidence was read)."""
    chains = [old for old in active if old.kind == Observation.Kind.DEPENDENCY_CHAIN
              and old.fact_ids]
    if not chains:
        return list(active), {}
    rows = Fact.objects.filter(
        pk__in={f for old in chains for f in old.fact_ids}, relation="DEPENDS_ON"
    ).values_list("pk", "close_reason", "closed_by_fact_id")
    dependencies: set[int] = set()
    completed: dict[int, int] = {}
    for pk, reason, closer in rows:
        dependencies.add(pk)
        if reason == Fact.CloseReason.RESOLUTION and closer is not None:
            completed[pk] = closer
    chain_ids = {old.id for old in chains}
    found = []
    for old in active:
        mine = tuple(f for f in old.fact_ids if f in dependencies) if old.id in chain_ids else ()
        found.append(replace(old, dependency_fact_ids=mine) if mine else old)
    return found, completed


def _ids_by_observation(
    graph: Graph, through: type[Model], column: str, observation_ids: set[int] | None
) -> dict[int, list[int]]:
    """Active observation id → the ids it links in a many-to-many table, for all the graph's
    active observations or only ``observation_ids``. Plain ints from a raw cursor: a run at
    100,000 episodes may read ~300,000 of these pairs, and the ORM's join and row handling cost
    more than the reading."""
    ids: dict[int, list[int]] = defaultdict(list)
    if observation_ids is not None and not observation_ids:
        return ids
    quote = connection.ops.quote_name
    table, linked = quote(through._meta.db_table), quote(column)
    statements: list[tuple[str, list[int | str]]]
    if observation_ids is None:
        statements = [(
            f"SELECT t.observation_id, t.{linked} FROM {table} t "
            f"JOIN {quote(Observation._meta.db_table)} o ON o.id = t.observation_id "
            f"WHERE o.graph_id = %s AND o.status = %s",
            [graph.pk, Observation.Status.ACTIVE.value],
        )]
    elif connection.vendor == "postgresql":
        literal = "{" + ",".join(map(str, observation_ids)) + "}"
        statements = [(
            f"SELECT observation_id, {linked} FROM {table} "
            f"WHERE observation_id = ANY(%s::bigint[])",
            [literal],
        )]
    else:
        statements = [(
            f"SELECT observation_id, {linked} FROM {table} "
            f"WHERE observation_id IN ({', '.join(['%s'] * len(chunk))})",
            list(chunk),
        ) for chunk in _chunks(observation_ids)]
    with connection.cursor() as cursor:
        for sql, params in statements:
            cursor.execute(sql, params)
            for observation, linked_id in cursor.fetchall():
                ids[observation].append(linked_id)
    return ids


@dataclass
class Details:
    """What structure analysis and the summaries read about the changed clusters."""

    facts: dict[int, FactInfo]
    entities: dict[int, EntityInfo]
    episodes: dict[int, EpisodeInfo]
    episode_texts: dict[int, str]
    fact_sentences: dict[int, str]


def load_details(
    rows: Sequence[Row], fact_ids: set[int], episode_ids: set[int], *, texts: bool = True,
    extra_facts: Mapping[int, FactInfo] | None = None,
) -> Details:
    """Facts, entities and episodes of the changed clusters: the facts from the rows, the
    entities and episodes (and, with texts, the facts' sentences) in one query each on
    PostgreSQL, in chunks of 5,000 ids elsewhere.

    ``texts=False`` leaves out the episodes' texts and the facts' sentences (``episode_texts`` and
    ``fact_sentences`` are empty): only a model's prompt reads them, and a template run at
    100,000 episodes would otherwise read and decode every episode's content and JSON.

    ``extra_facts``: facts that are not among the rows (the ended reports a recurring issue
    cites), used for those of ``fact_ids`` the rows do not have."""
    # The facts come from the rows (which carry source, relation and target): reading ~300,000
    # facts again by id cost a second at 100,000 episodes. Only their sentences need a query.
    episodes_of: dict[int, list[int]] = defaultdict(list)
    first_row: dict[int, Row] = {}
    for row in rows:  # indexing, not ``a, b, *_ = row``: unpacking builds a list per row
        fact_id = row[1]
        if fact_id in fact_ids:
            episodes_of[fact_id].append(row[0])
            first_row.setdefault(fact_id, row)
    facts: dict[int, FactInfo] = {}
    entity_ids: set[int] = set()
    for fact_id, (_, _, source, relation, target) in first_row.items():
        facts[fact_id] = FactInfo(fact_id, source, relation, target,
                                  tuple(sorted(episodes_of[fact_id])))
        entity_ids.add(source)
        entity_ids.add(target)
    for fact_id, info in (extra_facts or {}).items():
        if fact_id in fact_ids and fact_id not in facts:
            facts[fact_id] = info
            entity_ids.add(info.source_id)
            entity_ids.add(info.target_id)
    sentences: dict[int, str] = (
        dict(_select_by_ids(Fact, ("id", "sentence"), fact_ids)) if texts else {}
    )
    entities = {
        pk: EntityInfo(pk, name, entity_type)
        for pk, name, entity_type in _select_by_ids(Entity, ("id", "name", "type"), entity_ids)
    }
    episodes: dict[int, EpisodeInfo] = {}
    episode_texts: dict[int, str] = {}
    episode_fields = ("id", "reference_time", "author", "author_entity",
                      *(("type", "content", "data") if texts else ()))
    for pk, reference_time, author, author_entity, *text in _select_by_ids(
        Episode, episode_fields, episode_ids
    ):
        episodes[pk] = EpisodeInfo(pk, reference_time, author, author_entity)
        if texts:
            kind, content, data = text
            episode_texts[pk] = content if kind != Episode.Type.JSON else _json_text(data)
    return Details(facts, entities, episodes, episode_texts, sentences)


TITLE_CANDIDATES = 20
"""Updates read per item for its title: the latest (by reference time) of those stating its
facts."""


def load_titles(entities: Mapping[int, EntityInfo], rows: Sequence[Row]) -> dict[int, EntityInfo]:
    """The entities named by a tracker's key (``Bug 446261``, ``ATL-12``) with the title their
    importer gave them: the title named by the latest update (by reference time, then id)
    stating a current fact about the item anywhere in the graph — a renamed item reads by its
    new title, whatever order the updates were ingested in. Only keys are looked up (a graph of
    written updates reads no episode here), and of each item's updates only the reference times
    and then the ``TITLE_CANDIDATES`` latest updates' entities are read."""
    keyed = {e.id: e for e in entities.values() if looks_like_key(e.name)}
    if not keyed:
        return {}
    updates: dict[int, set[int]] = defaultdict(set)
    for row in rows:  # indexing, not unpacking: this runs over every row of the graph
        if row[2] in keyed:
            updates[row[2]].add(row[0])
        if row[4] in keyed:
            updates[row[4]].add(row[0])
    when = dict(_select_by_ids(Episode, ("id", "reference_time"),
                               {e for found in updates.values() for e in found}))
    wanted = {e for found in updates.values()
              for e in sorted(found, key=lambda e: (when.get(e), e))[-TITLE_CANDIDATES:]}
    by_name = {normalize_name(e.name): e.id for e in keyed.values()}
    # Per item: the latest title's (reference time, episode, title, labels, priority).
    latest: dict[int, tuple[datetime, int, str, tuple[str, ...], str]] = {}
    for pk, reference_time, supplied in _select_by_ids(
        Episode, ("id", "reference_time", "supplied"), wanted
    ):
        for named in (supplied or {}).get("entities", ()):
            title = named.get("title")
            entity_id = by_name.get(normalize_name(named.get("name", ""))) if title else None
            if entity_id is None:
                continue
            if entity_id not in latest or (reference_time, pk) > latest[entity_id][:2]:
                latest[entity_id] = (reference_time, pk, title,
                                     tuple(named.get("labels") or ()),
                                     str(named.get("priority") or ""))
    # The labels and priority the same update gave (metadata: what tells one item from another).
    return {entity_id: keyed[entity_id]._replace(title=title, labels=labels, priority=priority)
            for entity_id, (_, _, title, labels, priority) in latest.items()}


def _columns(model: type[Model], names: Sequence[str]) -> list[tuple[Field, str]]:
    """The model's fields of these names, each with its column."""
    found = []
    for name in names:
        field = model._meta.get_field(name)
        if not isinstance(field, Field) or field.column is None:
            raise TypeError(f"{model.__name__}.{name} has no column")
        found.append((field, field.column))
    return found


def _select_by_ids(
    model: type[Model], fields: Sequence[str], ids: Collection[int]
) -> Iterator[tuple]:
    """The ``fields`` of the model's rows whose id is in ``ids``, as plain tuples.

    A full run reads ~250,000 facts. On PostgreSQL they come from a raw cursor with the ids as ONE
    array parameter sent as its text literal: a 5,000-item ``IN`` list costs more to build, send
    and plan than to run, psycopg dumps a Python list element by element, and the ORM's per-value
    converters would cost more than the query (psycopg already returns aware datetimes; the JSON
    column comes back as text and goes through the field's own ``from_db_value``). Other
    databases get the ORM in chunks of 5,000 ids."""
    if not ids:
        return
    if connection.vendor != "postgresql":
        for chunk in _chunks(ids):
            yield from model._default_manager.filter(pk__in=chunk).values_list(*fields)
        return
    model_fields = _columns(model, fields)
    columns = ", ".join(connection.ops.quote_name(column) for _, column in model_fields)
    json_at = {i: f for i, (f, _) in enumerate(model_fields) if isinstance(f, JSONField)}
    literal = "{" + ",".join(map(str, ids)) + "}"
    with connection.cursor() as cursor:
        cursor.execute(
            f"SELECT {columns} FROM {model._meta.db_table} WHERE id = ANY(%s::bigint[])", [literal]
        )
        rows = cursor.fetchall()
    if not json_at:
        yield from rows
        return
    for row in rows:
        values = list(row)
        for i, json_field in json_at.items():
            # No expression: a plain column (Django's own call passes the one it read).
            values[i] = json_field.from_db_value(
                values[i], None, connection)  # type: ignore[arg-type]
        yield tuple(values)


def _json_text(data: object) -> str:
    import json

    return json.dumps(data, ensure_ascii=False)[:2000]


def _chunks(ids: Iterable[int]) -> Iterator[list[int]]:
    ordered = sorted(ids)
    for start in range(0, len(ordered), CHUNK):
        yield ordered[start : start + CHUNK]


STALL_TYPES = ("WorkItem", "Issue")
"""The entities that can be stalled: work and the issues customers report."""


def find_stalled_items(
    graph: Graph, rows: Sequence[Row], *, after_weeks: int, as_of: datetime,
    boilerplate: Set[int] = frozenset(), shown: Set[int] = frozenset(),
    unstuck_status_ids: Set[int] = frozenset(), memo: StallMemo | None = None,
    kinds: Set[int] | None = None, touched: Set[int] | None = None,
) -> tuple[StallMemo, int]:
    """The graph's stalled work items and issues at ``as_of`` as this run's memo
    (``memory.engine.stalled_memo.detect_stalls``), and how many items were examined: with the
    last run's ``memo``, only the items whose inputs changed since or whose moment came; the
    database is asked when their states began (one query over those facts) and, for the items
    that may be "on the agenda", when the updates mentioning them were written.

    ``boilerplate``: the facts clustering suppressed as hubs (a template's standing lines) are
    left out: a weekly template's "blocked on the security review" does not make anything
    stalled, nor "on the agenda" (issue #13 item 4: boilerplate is never an observation).

    ``kinds``: the items of a kind that stalls (``stall_kind_ids``; read here when not given);
    ``touched``: the items whose inputs may have changed since ``memo``'s run, when the caller
    knows (``memory.pipeline.incremental``): only those are scanned again."""
    if boilerplate:
        rows = [row for row in rows if row[1] not in boilerplate]
    if kinds is None:
        kinds = stall_kind_ids(graph)
    return detect_stalls(
        rows, kinds, as_of=as_of, after_weeks=after_weeks, touched=touched,
        unstuck_status_ids=unstuck_status_ids, shown=shown, memo=memo,
        load_valid_at=lambda facts: dict(_select_by_ids(Fact, ("id", "valid_at"), facts)),
        load_reference_times=lambda episodes: dict(
            _select_by_ids(Episode, ("id", "reference_time"), episodes)),
    )


def stall_kind_ids(graph: Graph) -> set[int]:
    """The graph's entities of a kind that stalls (``STALL_TYPES``; one query)."""
    return set(Entity.objects.filter(graph=graph, type__in=STALL_TYPES)
               .values_list("pk", flat=True))


def load_work_item_ids(graph: Graph, ids: Collection[int]) -> set[int]:
    """Which of the stalled items ``ids`` are work items (tickets, bugs, issues of a tracker:
    they have an address), not problems read from messages."""
    return {pk for chunk in _chunks(sorted(ids)) for pk in Entity.objects.filter(
        graph=graph, type=WORK_ITEM, pk__in=chunk).values_list("pk", flat=True)}


def load_stalled_items_memo(graph: Graph) -> StallMemo | None:
    """The memo the graph's last run left (``None``: none, or of an older format)."""
    row = StalledItemsMemo.objects.filter(graph=graph).values_list("data", flat=True).first()
    if row is None:
        return None
    return memo_from_bytes(zlib.decompress(bytes(row)))


def load_stall_anchors(graph: Graph) -> dict[int, int]:
    """Active stalled observation id → its item (one query, over stalled observations only)."""
    rows = Observation.objects.filter(
        graph=graph, status=Observation.Status.ACTIVE, kind=Observation.Kind.STALLED
    ).values_list("pk", "structure")
    return {pk: int(structure["stalled"]["item"]) for pk, structure in rows
            if (structure or {}).get("stalled")}


ON_TRACK_STATUSES = frozenset({"on track"})
"""Statuses that say the work moves: an item in one is not stuck, however long it stays."""


def on_track_status_ids(graph: Graph) -> set[int]:
    """The graph's statuses in ``ON_TRACK_STATUSES`` (one query over its statuses)."""
    return {pk for pk, name in Entity.objects.filter(graph=graph, type="Status")
            .values_list("pk", "name") if name.casefold() in ON_TRACK_STATUSES}
