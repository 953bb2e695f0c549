"""The database writes of a pipeline run, all in one place.

``publish_run`` applies a run's decisions in ONE transaction: new observation versions with their
evidence, claims and predecessors; retirements; the run's counts. Readers therefore see the old set
of observations or the new one, never half of each. Observation rows are written nowhere else;
a retired row is only ever moved from active to retired, never edited again or deleted.
"""

from __future__ import annotations

import uuid
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any
from uuid import UUID

from django.db import transaction

from memory.engine.lifecycle import Retired
from memory.engine.structure import Structure
from memory.engine.types import Cluster
from memory.models import Claim, Observation, PipelineRun
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
) -> dict[int, Observation]:
    """Write the run's observations and retirements atomically; returns the created observations
    by cluster key."""
    with transaction.atomic():
        created = _create_observations(run, drafts, names, now)
        _retire(run, retired, created, now)
        PipelineRun.objects.filter(pk=run.pk).update(
            status=PipelineRun.Status.SUCCEEDED,
            published_at=now,
            finished_at=now,
            heartbeat_at=now,
            counts=counts,
        )
    return created


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
                episode_count=len(structure.episode_ids),
                fact_count=len(structure.fact_ids),
                people_count=len(structure.people),
                reach_people=structure.reach_people,
                reach_work_items=structure.reach_work_items,
                generator=outcome.generator,
                prompt_version=outcome.prompt_version,
                llm_call_id=outcome.llm_call_id,
                tokens=outcome.tokens_in + outcome.tokens_out,
                created_by_run=run,
                created_at=now,
            )
        )
    Observation.objects.bulk_create(rows, batch_size=BATCH)
    by_key = {d.cluster.key: o for d, o in zip(drafts, rows, strict=True)}

    episodes = Observation.episodes.through
    facts = Observation.facts.through
    entities = Observation.entities.through
    predecessors = Observation.predecessors.through
    episodes.objects.bulk_create(
        [episodes(observation_id=o.pk, episode_id=e)
         for d, o in zip(drafts, rows, strict=True) for e in d.cluster.episode_ids],
        batch_size=BATCH,
    )
    facts.objects.bulk_create(
        [facts(observation_id=o.pk, fact_id=f)
         for d, o in zip(drafts, rows, strict=True) for f in d.cluster.fact_ids],
        batch_size=BATCH,
    )
    entities.objects.bulk_create(
        [entities(observation_id=o.pk, entity_id=e)
         for d, o in zip(drafts, rows, strict=True) for e in d.structure.entity_ids],
        batch_size=BATCH,
    )
    predecessors.objects.bulk_create(
        [predecessors(from_observation_id=o.pk, to_observation_id=p)
         for d, o in zip(drafts, rows, strict=True) for p in d.predecessor_ids],
        batch_size=BATCH,
    )
    claims = [
        Claim(observation=o, position=position, text=claim.text)
        for d, o in zip(drafts, rows, strict=True)
        for position, claim in enumerate(d.outcome.summary.claims)
    ]
    Claim.objects.bulk_create(claims, batch_size=BATCH)
    cited = [
        claim.fact_ids
        for d in drafts
        for claim in d.outcome.summary.claims
    ]
    claim_facts = Claim.facts.through
    claim_facts.objects.bulk_create(
        [claim_facts(claim_id=c.pk, fact_id=f)
         for c, ids in zip(claims, cited, strict=True) for f in sorted(set(ids))],
        batch_size=BATCH,
    )
    return by_key


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
