"""Our rows in Zep's wire format (the SDK's pydantic models, field names verbatim). Timestamps
are ISO 8601 strings; every identifier is ``uuid``."""

from __future__ import annotations

import json
from datetime import datetime
from typing import Any

from memory.api import selectors as api_selectors
from memory.exports import root_blockers
from memory.models import Entity, Episode, Fact, Graph, Observation

TASK_STATUS: dict[str, str] = {
    Episode.Status.PENDING: "pending",
    Episode.Status.PROCESSING: "processing",
    Episode.Status.PROCESSED: "succeeded",
    Episode.Status.FAILED: "failed",
}


def iso(value: datetime | None) -> str | None:
    return value.isoformat() if value else None


def _scored(data: dict[str, Any], score: float | None) -> dict[str, Any]:
    if score is not None:
        data["score"] = score
    return data


def graph(g: Graph) -> dict[str, Any]:
    return {
        "uuid": str(g.uuid),
        "graph_id": g.slug,
        "name": g.name,
        "description": g.description,
        "type": "user" if g.kind == Graph.Kind.USER else "standard",
        "created_at": iso(g.created_at),
        "updated_at": iso(g.created_at),
    }


def task(episode: Episode) -> dict[str, Any]:
    """An episode add's task: the episode's processing (extraction into facts and entities)."""
    status = TASK_STATUS[episode.status]
    terminal = status in {"succeeded", "failed"}
    data: dict[str, Any] = {
        "uuid": str(episode.uuid),
        "type": "graph.add",
        "status": status,
        "created_at": iso(episode.ingested_at),
        "started_at": iso(episode.processing_started_at),
        "completed_at": iso(episode.processed_at) if terminal else None,
        "updated_at": iso(episode.processed_at or episode.processing_started_at
                          or episode.ingested_at),
        "progress": {"stage": episode.status},
        "result": {"episode_uuid": str(episode.uuid)},
    }
    if episode.status == Episode.Status.FAILED:
        data["error"] = {"code": "processing_failed", "message": episode.error or "failed"}
    return data


def finished_task(kind: str, task_uuid: str, at: datetime) -> dict[str, Any]:
    stamp = iso(at)
    return {"uuid": task_uuid, "type": kind, "status": "succeeded", "created_at": stamp,
            "started_at": stamp, "completed_at": stamp, "updated_at": stamp}


def episode(e: Episode, graph_uuid: str, score: float | None = None) -> dict[str, Any]:
    content = e.content if e.type != Episode.Type.JSON else json.dumps(e.data, ensure_ascii=False)
    data = {
        "uuid": str(e.uuid),
        "content": content,
        "source": e.type,
        "source_description": e.source,
        "reference_time": iso(e.reference_time),
        "created_at": iso(e.ingested_at),
        "processed": e.status == Episode.Status.PROCESSED,
        "graph_uuid": graph_uuid,
        "role_name": e.author if e.type == Episode.Type.MESSAGE else None,
        # Ours, beyond Zep's model (the SDK keeps extra fields as attributes):
        "author": e.author,
        "status": e.status,
        "external_id": e.external_id,
    }
    return _scored(data, score)


def edge(f: Fact, graph_uuid: str, score: float | None = None) -> dict[str, Any]:
    evidence = f.evidence.all()
    data = {
        "uuid": str(f.uuid),
        "name": f.relation,
        "fact": f.sentence,
        "created_at": iso(f.created_at),
        "valid_at": iso(f.valid_at),
        "invalid_at": iso(f.invalid_at),
        "expired_at": iso(f.expired_at),
        "episode_uuids": [str(item.episode.uuid) for item in evidence],
        "source_node_uuid": str(f.source.uuid),
        "target_node_uuid": str(f.target.uuid),
        "source_node_name": f.source.name,
        "target_node_name": f.target.name,
        "source_node_labels": [f.source.type],
        "target_node_labels": [f.target.type],
        "attributes": {"close_reason": f.close_reason or None, "extractor": f.extractor},
        "scope": "entity",
        "graph_uuid": graph_uuid,
    }
    return _scored(data, score)


def node(
    e: Entity, graph_uuid: str, episodes: tuple[list[str], bool], score: float | None = None
) -> dict[str, Any]:
    uuids, truncated = episodes
    data = {
        "uuid": str(e.uuid),
        "name": e.name,
        "summary": e.summary,
        "labels": [e.type],
        "attributes": {"aliases": [a.name for a in e.aliases.all()]},
        "created_at": iso(e.created_at),
        "graph_uuid": graph_uuid,
        "episode_uuids": uuids,
        "episode_uuids_truncated": truncated,
    }
    return _scored(data, score)


def observation(o: Observation, graph_uuid: str, score: float | None = None) -> dict[str, Any]:
    """Needs ``api_selectors.with_claims`` prefetches (episodes, claims, facts, entities)."""
    data = {
        "uuid": str(o.uuid),
        "name": o.name,
        "summary": o.summary,
        "labels": [o.kind],
        "episode_uuids": [str(e.uuid) for e in o.episodes.all()],
        "created_at": iso(o.created_at),
        "graph_uuid": graph_uuid,
        "attributes": {
            "status": o.status,
            "kind": o.kind,
            "lineage": str(o.lineage),
            "version": o.version,
            "retired_at": iso(o.retired_at),
            "retired_reason": o.retired_reason or None,
            "generator": o.generator,
            "window": {"start": iso(o.window_start), "end": iso(o.window_end)},
            "reach": {"people": o.reach_people, "work_items": o.reach_work_items},
            "root_blockers": root_blockers(o),
            "claims": [
                {"text": c.text, "fact_uuids": [str(f.uuid) for f in c.facts.all()]}
                for c in o.claims.all()
            ],
            "structure": api_selectors.structure_with_uuids(o),
        },
    }
    return _scored(data, score)
