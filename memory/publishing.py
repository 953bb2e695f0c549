"""The database writes of a pipeline run, all in one place.

``publish_run`` applies a run's decisions in ONE transaction: new observation versions with their
evidence, claims and predecessors; retirements; the run's counts. Readers therefore see the old set
of observations or the new one, never half of each. Observation rows are written nowhere else;
a retired row is only ever moved from active to retired, never edited again or deleted.
"""

from __future__ import annotations

import uuid
import zlib
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from operator import attrgetter
from typing import Any
from uuid import UUID

from django.db import connection, transaction
from django.db.models import Field, Model
from django.utils import timezone

from memory.engine.lifecycle import Restated, Retired
from memory.engine.stalled_memo import StallMemo, memo_as_bytes
from memory.engine.structure import Structure
from memory.engine.types import Cluster
from memory.models import Claim, Episode, Observation, PipelineRun, StalledItemsMemo
from memory.summarize import SummaryOutcome

BATCH = 2_000


@dataclass(frozen=True)
class ObservationDraft:
    cluster: Cluster
    structure: Structure
    outcome: SummaryOutcome
    lineage: UUID | None
    """The lineage it continues; ``None`` starts a new one."""
    version: int
    predecessor_ids: tuple[int, ...]


def structure_json(structure: Structure, names: Mapping[int, str]) -> dict[str, Any]:
    """What ``Observation.structure`` stores: the analysis, plus the names of the entities it
    mentions (so exports and cards need no extra look-ups)."""
    data = structure.as_dict()
    data["names"] = {str(pk): names[pk] for pk in structure.entity_ids if pk in names}
    return data


def publish_run(
    run: PipelineRun,
    *,
    drafts: Sequence[ObservationDraft],
    retired: Sequence[Retired],
    names: Mapping[int, str],
    now: datetime,
    counts: dict[str, Any],
    restated: Sequence[tuple[Restated, Cluster]] = (),
    stalled_memo: StallMemo | None = None,
) -> dict[int, Observation]:
    """Write the run's observations, restatements and retirements atomically; returns the
    created observations by cluster key. ``stalled_memo``: what the run found of its items'
    states, kept for the next run in the same transaction (so it always describes a published
    run)."""
    with transaction.atomic():
        created = _create_observations(run, drafts, names, now)
        _restate(run, restated, now)
        _retire(run, retired, created, now)
        if stalled_memo is not None:
            keep_stalled_items_memo(run, stalled_memo)
        PipelineRun.objects.filter(pk=run.pk).update(
            status=PipelineRun.Status.SUCCEEDED,
            published_at=now,
            finished_at=now,
            heartbeat_at=now,
            counts=counts,
        )
    return created


def keep_stalled_items_memo(run: PipelineRun, memo: StallMemo) -> None:
    """The graph's one memo, replaced (compressed at level 1: the run waits on it)."""
    data = zlib.compress(memo_as_bytes(memo), 1)
    StalledItemsMemo.objects.update_or_create(
        graph_id=run.graph_id,
        defaults={"run": run, "as_of": memo.as_of, "after_weeks": memo.after_weeks,
                  "data": data, "updated_at": timezone.now()},
    )


def _create_observations(
    run: PipelineRun,
    drafts: Sequence[ObservationDraft],
    names: Mapping[int, str],
    now: datetime,
) -> dict[int, Observation]:
    rows = []
    for draft in drafts:
        structure, outcome = draft.structure, draft.outcome
        rows.append(
            Observation(
                graph_id=run.graph_id,
                lineage=draft.lineage or uuid.uuid4(),
                version=draft.version,
                status=Observation.Status.ACTIVE,
                kind=structure.kind,
                name=outcome.summary.name,
                summary=outcome.summary.summary,
                structure=structure_json(structure, names),
                window_start=structure.window_start,
                window_end=structure.window_end,
                evidence_fingerprint=draft.cluster.fingerprint,
                facts_fingerprint=draft.cluster.facts_fingerprint,
                episode_count=len(structure.episode_ids),
                fact_count=len(structure.fact_ids),
                people_count=len(structure.people),
                reach_people=structure.reach_people,
                reach_work_items=structure.reach_work_items,
                generator=outcome.generator,
                summary_fallback=outcome.fallback_reason[:200],
                summary_pending=outcome.pending,
                prompt_version=outcome.prompt_version,
                llm_call_id=outcome.llm_call_id,
                tokens=outcome.tokens_in + outcome.tokens_out,
                created_by_run=run,
                created_at=now,
            )
        )
    insert_models(rows)
    by_key = {d.cluster.key: o for d, o in zip(drafts, rows, strict=True)}
    pairs = list(zip(drafts, rows, strict=True))
    insert_links(Observation.episodes.through, ("observation_id", "episode_id"),
                 ((o.pk, e) for d, o in pairs for e in d.cluster.episode_ids))
    insert_links(Observation.facts.through, ("observation_id", "fact_id"),
                 ((o.pk, f) for d, o in pairs for f in d.cluster.fact_ids))
    insert_links(Observation.entities.through, ("observation_id", "entity_id"),
                 ((o.pk, e) for d, o in pairs for e in d.structure.entity_ids))
    insert_links(Observation.predecessors.through, ("from_observation_id", "to_observation_id"),
                 ((o.pk, p) for d, o in pairs for p in d.predecessor_ids))
    # Claims as plain values, not model instances: ~30,000 of them in a full run at 100,000
    # episodes, and building a model instance each cost more than writing them.
    claim_ids = insert_values(Claim, ("observation_id", "position", "text"), [
        (o.pk, position, claim.text)
        for d, o in pairs
        for position, claim in enumerate(d.outcome.summary.claims)
    ])
    cited = [claim.fact_ids for d in drafts for claim in d.outcome.summary.claims]
    insert_links(Claim.facts.through, ("claim_id", "fact_id"),
                 ((c, f) for c, ids in zip(claim_ids, cited, strict=True)
                  for f in sorted(set(ids))))
    return by_key


# --- Bulk inserts --------------------------------------------------------------------------
# A full run at 100,000 episodes writes ~750,000 rows (observations, their evidence links,
# claims). ``bulk_create`` builds a model instance and converts every value in Python for each of
# them, and sends them as parameters; on PostgreSQL ``COPY`` streams the same rows for a fraction
# of the cost. Other databases (the embedded SQLite) keep ``bulk_create``: both paths write the
# same rows (tests/memory/test_publishing.py compares them).


def uses_copy() -> bool:
    return connection.vendor == "postgresql"


def insert_models(objects: Sequence[Model], *, copy: bool | None = None) -> None:
    """Insert new model instances of one model and set their primary keys, in order. ``copy``
    forces a path (``None``: COPY on PostgreSQL)."""
    if not objects:
        return
    model = type(objects[0])
    if not (uses_copy() if copy is None else copy):
        model._default_manager.bulk_create(objects, batch_size=BATCH)
        return
    fields = [f for f in model._meta.concrete_fields if not f.primary_key]
    table = model._meta.db_table
    for obj, pk in zip(objects, new_ids(table, len(objects)), strict=True):
        obj.pk = pk
    values = [_column_value(f) for f in fields]
    # django-stubs types Field.column as ``str | None``; a concrete field's is never None (Django
    # calls a field concrete when it has a column). Not narrowed at run time: a check here would
    # add mutants that no test can kill (mutation/run.py), for a case that cannot happen.
    _copy(table, ["id", *(f.column for f in fields)], (  # type: ignore[list-item]
        (obj.pk, *(value(obj) for value in values)) for obj in objects
    ))
    for obj in objects:
        obj._state.adding = False
        obj._state.db = connection.alias


PASSED_AS_IS = frozenset({
    "BigIntegerField", "BooleanField", "CharField", "ForeignKey", "IntegerField",
    "PositiveIntegerField", "PositiveSmallIntegerField", "SmallIntegerField", "TextField",
    "UUIDField",
})
"""Field types whose Python values psycopg adapts exactly as ``get_db_prep_save`` would hand
them over (ints, strings, booleans, UUIDs, ``None``). Converting them field by field, a chain of
Python calls per value, was a third of publishing at 100,000 episodes; JSON, dates and anything
else still go through their field."""


def _column_value(field: Field) -> Callable[[Model], object]:
    if field.get_internal_type() in PASSED_AS_IS:
        return attrgetter(field.attname)
    attname, prepare = field.attname, field.get_db_prep_save
    return lambda obj: prepare(getattr(obj, attname), connection)


def insert_links(through: type[Model], columns: tuple[str, str],
                 pairs: Iterable[tuple[int, int]], *, copy: bool | None = None) -> None:
    """Insert rows of a many-to-many table, given as (id, id) pairs in ``columns`` order."""
    if not (uses_copy() if copy is None else copy):
        through._default_manager.bulk_create(
            (through(**dict(zip(columns, pair, strict=True))) for pair in pairs),
            batch_size=BATCH,
        )
        return
    _copy(through._meta.db_table, list(columns), pairs)


def insert_values(model: type[Model], columns: Sequence[str], rows: Sequence[Sequence[object]],
                  *, ids: bool = True, copy: bool | None = None) -> list[int]:
    """Insert rows given as plain values of ``columns`` (attribute names such as ``graph_id``;
    ids, strings, aware datetimes, UUIDs; every column without a default must be given) and
    return their new ids in order (``[]`` when ``ids`` is false). For bulk loads of plain data
    (``manage.py bench_pipeline`` writes ~1.1 million rows): on PostgreSQL no model instance is
    built, which at that size would cost more memory than the rows themselves."""
    if not rows:
        return []
    if not (uses_copy() if copy is None else copy):
        objects = [model(**dict(zip(columns, row, strict=True))) for row in rows]
        model._default_manager.bulk_create(objects, batch_size=BATCH)
        return [obj.pk for obj in objects] if ids else []
    table = model._meta.db_table
    # get_field() may also give a reverse relation (no column); ``columns`` name the model's own
    # concrete fields, whose column is a str. Not checked at run time, as in insert_models.
    names: list[str] = [
        model._meta.get_field(name).column for name in columns]  # type: ignore[union-attr, misc]
    if not ids:
        _copy(table, names, rows)
        return []
    pks = new_ids(table, len(rows))
    _copy(table, ["id", *names], ((pk, *row) for pk, row in zip(pks, rows, strict=True)))
    return pks


def new_ids(table: str, count: int) -> list[int]:
    """``count`` ids from the PostgreSQL table's own sequence, ascending, as ``bulk_create`` would
    hand them out (one query)."""
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT nextval(pg_get_serial_sequence(%s, 'id')) FROM generate_series(1, %s)",
            [table, count],
        )
        return sorted(pk for (pk,) in cursor.fetchall())


def _copy(table: str, columns: Sequence[str], rows: Iterable[Sequence[object]]) -> None:
    quote = connection.ops.quote_name
    statement = f"COPY {quote(table)} ({', '.join(quote(c) for c in columns)}) FROM STDIN"
    with connection.cursor() as cursor, cursor.cursor.copy(statement) as copy:
        for row in rows:
            copy.write_row(row)


def _restate(
    run: PipelineRun, restated: Sequence[tuple[Restated, Cluster]], now: datetime
) -> None:
    """Bring restated observations' evidence up to date in place: the updates that restated
    them join their evidence, their counts and window follow, and their history records it.
    Nothing else changes: the same facts, the same version, the same summary."""
    if not restated:
        return
    added = {e for item, _ in restated for e in item.added_episode_ids}
    times = dict(Episode.objects.filter(pk__in=added).values_list("pk", "reference_time"))
    rows = Observation.objects.in_bulk([item.observation_id for item, _ in restated])
    insert_links(Observation.episodes.through, ("observation_id", "episode_id"), (
        (item.observation_id, e) for item, _ in restated for e in item.added_episode_ids))
    changed = []
    for item, cluster in restated:
        observation = rows.get(item.observation_id)
        if observation is None or observation.status != Observation.Status.ACTIVE:
            continue
        moments = [times[e] for e in item.added_episode_ids if e in times]
        if moments:
            observation.window_start = min(observation.window_start, *moments)
            observation.window_end = max(observation.window_end, *moments)
        observation.episode_count = len(cluster.episode_ids)
        observation.evidence_fingerprint = cluster.fingerprint
        observation.restatements = [*observation.restatements, {
            "at": now.isoformat(), "run": str(run.uuid),
            "episodes": len(item.added_episode_ids)}]
        structure = dict(observation.structure or {})
        structure["episodes"] = list(cluster.episode_ids)
        structure["window"] = {"start": observation.window_start.isoformat(),
                               "end": observation.window_end.isoformat()}
        observation.structure = structure
        changed.append(observation)
    Observation.objects.bulk_update(changed, ["window_start", "window_end", "episode_count",
                                              "evidence_fingerprint", "restatements",
                                              "structure"])


def _retire(
    run: PipelineRun,
    retired: Sequence[Retired],
    created: Mapping[int, Observation],
    now: datetime,
) -> None:
    for item in retired:
        retirement = item.as_dict()
        retirement["successors"] = [str(created[key].uuid) for key in item.successor_keys
                                    if key in created]
        # Only an active row moves to retired; a retired row is never touched again.
        Observation.objects.filter(
            pk=item.observation_id, status=Observation.Status.ACTIVE
        ).update(
            status=Observation.Status.RETIRED,
            retired_at=now,
            retired_by_run=run,
            retired_reason=item.reason,
            retirement=retirement,
        )
