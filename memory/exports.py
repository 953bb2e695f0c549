"""JSON forms of observations shared by ``export_observations``, the weekly review's exports and
the APIs."""

from __future__ import annotations

from typing import Any

from django.db.models import Prefetch, QuerySet

from memory.models import Claim, Episode, Fact, Graph, Observation


def observations_for_export(graph: Graph, status: str = "active") -> QuerySet[Observation]:
    """Observations with everything the export reads prefetched (a fixed number of queries)."""
    observations = Observation.objects.filter(graph=graph)
    if status != "all":
        observations = observations.filter(status=status)
    return observations.order_by("-window_end", "pk").prefetch_related(
        Prefetch("episodes", queryset=Episode.objects.only("pk", "uuid", "external_id", "url")),
        Prefetch("entities"),
        Prefetch(
            "claims",
            queryset=Claim.objects.order_by("position").prefetch_related(
                Prefetch("facts", queryset=Fact.objects.only("pk", "uuid"))
            ),
        ),
        Prefetch("successors", queryset=Observation.objects.only("pk", "uuid")),
    )


def root_blockers(observation: Observation) -> list[dict[str, Any]]:
    structure = observation.structure or {}
    names = structure.get("names", {})
    dependency = structure.get("dependency") or {}
    result = []
    for root in dependency.get("root_blockers", []):
        result.append({
            "entity": " + ".join(names.get(str(m), str(m)) for m in root["members"]),
            "owner": ", ".join(names.get(str(o["entity"]), "") for o in root["owners"]) or None,
            "reach_people": root["reach"]["people"],
            "reach_work_items": root["reach"]["work_items"],
        })
    return result


def stalled_item(observation: Observation) -> dict[str, Any] | None:
    """A stalled observation's item, its state and since when, as machine fields: ISO dates,
    the weeks as of the run that wrote the version (``as_of``)."""
    stall = (observation.structure or {}).get("stalled")
    if not stall:
        return None
    return stall_fields(stall, (observation.structure or {}).get("names", {}))


def held_stalls(observation: Observation) -> list[dict[str, Any]]:
    """The quiet stalls a pattern holds, oldest first: ``stall_fields``, with the item's uuid,
    when an update last stated the state, and the labels of those of its updates the pattern
    cites (from the prefetched entities and episodes: no query)."""
    structure = observation.structure or {}
    stalls = structure.get("held_stalls") or []
    if not stalls:
        return []
    names = structure.get("names", {})
    uuids = {e.pk: str(e.uuid) for e in observation.entities.all()}
    labels = {e.pk: e.label for e in observation.episodes.all()}
    return [{
        **stall_fields(stall, names),
        "item_uuid": uuids.get(int(stall["item"])),
        "last_said": stall.get("last_said"),
        "episodes": sorted(labels[e] for e in stall.get("episodes", []) if e in labels),
    } for stall in stalls]


def stall_fields(stall: dict[str, Any], names: dict[str, str]) -> dict[str, Any]:
    """A stall's item, state and since when as machine fields (ISO dates)."""
    return {
        "item": names.get(str(stall["item"]), str(stall["item"])),
        "state": stall["state"],
        "status": (names.get(str(stall["others"][0])) if stall["state"] == "status"
                   and stall.get("others") else None),
        "waits_on": ([names.get(str(o), str(o)) for o in stall.get("others", [])]
                     if stall["state"] == "blocked" else []),
        "since": stall["since"],
        "as_of": stall["as_of"],
        "weeks": stall["weeks"],
        "weeks_mentioned": stall.get("weeks_mentioned") or None,
        "weeks_counted": stall.get("weeks_counted") or None,
        # What its tracker says of it (metadata its importer kept, never facts).
        "priority": stall.get("priority") or None,
        "labels": list(stall.get("labels") or []),
        # The problems a message reports with its ticket, named inside the ticket's stall.
        "reports": [names.get(str(o), str(o)) for o in stall.get("also") or []],
    }


def links(observation: Observation) -> list[str]:
    """The addresses of its evidence in the tools it came from (a bug, an issue, a ticket), once
    each: what a reader of the export opens (from the prefetched episodes: no query)."""
    return sorted({e.url for e in observation.episodes.all() if e.url})


def observation_as_dict(observation: Observation) -> dict[str, Any]:
    return {
        "uuid": str(observation.uuid),
        "lineage": str(observation.lineage),
        "version": observation.version,
        "status": observation.status,
        "retired_reason": observation.retired_reason or None,
        "retired_at": observation.retired_at.isoformat() if observation.retired_at else None,
        "kind": observation.kind,
        "name": observation.name,
        "summary": observation.summary,
        "generator": observation.generator,
        "episodes": sorted(e.label for e in observation.episodes.all()),
        "links": links(observation),
        "entities": sorted(e.name for e in observation.entities.all()),
        "root_blockers": root_blockers(observation),
        "stalled": stalled_item(observation),
        "held_stalls": held_stalls(observation),
        "claims": [
            {"text": claim.text, "facts": sorted(str(f.uuid) for f in claim.facts.all())}
            for claim in observation.claims.all()
        ],
        "window": {
            "start": observation.window_start.isoformat(),
            "end": observation.window_end.isoformat(),
        },
        "successors": sorted(str(s.uuid) for s in observation.successors.all()),
    }
