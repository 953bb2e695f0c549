"""Versions per observation per week in a one-at-a-time trickle (issue #13's target: ≤ 1.2).

The *projects* scenario's updates (structured: the facts supplied) arrive one at a time, in the
order they were said, and a pipeline run follows each — the most runs a graph can see, since a
graph that settles between updates runs once per update. Each run is about the moment its
update arrived (``as_of``), so the observations' versions are dated on the scenario's weeks.

Figures: the versions written (every observation row, first versions included), the
*observation-weeks* (each lineage counted once for every ISO week from its first version's week
to its retirement's, or to the last update's), their ratio; the same over only the weeks in
which a lineage got a version (the stricter reading of the target), also without each lineage's
first week (a pattern forming while its updates first arrive); the largest number of versions
one lineage got in one week, the restatements (runs where new updates restated an observation's
facts: each kept its version, where before issue #13 each was a new version and a summary), and
with the fake model server the summary calls.
"""

from __future__ import annotations

import json
import secrets
from collections import Counter, defaultdict
from contextlib import nullcontext
from datetime import datetime, timedelta
from typing import Any

from memory import processing
from memory.bench.fake_openai import FakeOpenAI
from memory.bench.scenarios import generate
from memory.ingestion import ingest_records, read_records
from memory.models import Graph, Observation, PipelineRun
from memory.pipeline import run_pipeline

TARGET = 1.2
ARRIVAL = timedelta(minutes=5)
"""An update arrives this long after it was said; its run follows at once."""


def week_of(moment: datetime) -> tuple[int, int]:
    year, week, _ = moment.isocalendar()
    return year, week


def run_trickle(size: int = 300, *, seed: int = 7, scenario: str = "projects",
                server: FakeOpenAI | None = None, keep: bool = False) -> dict[str, Any]:
    from memory.bench.runner import llm_settings

    generated = generate(scenario, size, seed=seed, form="structured")
    records = sorted(generated.records(), key=lambda r: (r["reference_time"], r["external_id"]))
    graph = Graph.objects.create(slug=f"bench-trickle-{scenario}-{size}-{secrets.token_hex(3)}",
                                 name=f"bench trickle {scenario} {size}")
    calls = len(server.completions()) if server else 0
    restated = runs = 0
    last = datetime.fromisoformat(records[-1]["reference_time"]) + ARRIVAL
    try:
        with llm_settings(server) if server else nullcontext():
            for record in records:
                at = datetime.fromisoformat(record["reference_time"]) + ARRIVAL
                report = ingest_records(graph, read_records(json.dumps(record).encode()),
                                        now=at, process=False)
                processing.process_episodes(report.stored_ids)
                run = run_pipeline(graph, trigger=PipelineRun.Trigger.COMMAND, as_of=at)
                if run is None or run.status != PipelineRun.Status.SUCCEEDED:
                    raise RuntimeError(f"trickle run failed: {run and run.error}")
                runs += 1
                restated += run.counts.get("restated", 0)
        result = versions_per_week(graph, until=last)
        result.update({
            "scenario": scenario, "updates": len(records), "runs": runs,
            "restatements": restated,
            "model_calls": (len(server.completions()) - calls) if server else None,
            "target": TARGET,
        })
        result["model_calls_per_update"] = (result["model_calls"] / len(records)
                                            if server else None)
        result["met"] = result["versions_per_observation_week"] <= TARGET
        result["met_in_weeks_it_changed"] = (
            result["versions_per_changed_observation_week"] <= TARGET)
        return result
    finally:
        if not keep:
            from memory.api.services import delete_graph

            delete_graph(graph)


def versions_per_week(graph: Graph, *, until: datetime) -> dict[str, Any]:
    """The figures of the module text, read from the graph's observations."""
    rows = Observation.objects.filter(graph=graph).values_list(
        "lineage", "version", "kind", "created_at", "retired_at", "status")
    lineages: dict[Any, list[tuple[int, str, datetime, datetime | None, str]]] = defaultdict(list)
    for lineage, version, kind, created, retired, status in rows:
        lineages[lineage].append((version, kind, created, retired, status))
    weeks = 0
    per_week: Counter[tuple[Any, tuple[int, int]]] = Counter()
    kinds: Counter[str] = Counter()
    for lineage, versions in lineages.items():
        versions.sort()
        first = versions[0][2]
        latest = versions[-1]
        end = latest[3] if latest[4] == Observation.Status.RETIRED and latest[3] else until
        weeks += len({week_of(first + timedelta(days=d))
                      for d in range(0, max(0, (end - first).days) + 1)} | {week_of(end)})
        for _, kind, created, _, _ in versions:
            per_week[(lineage, week_of(created))] += 1
            kinds[kind] += 1
    total = sum(len(v) for v in lineages.values())
    # A pattern forming: the versions of a lineage's first week, while its updates first arrive.
    first_weeks = {lineage: week_of(min(v[2] for v in versions))
                   for lineage, versions in lineages.items()}
    later = {key: n for key, n in per_week.items() if key[1] != first_weeks[key[0]]}
    return {
        "versions": total, "lineages": len(lineages), "observation_weeks": weeks,
        "versions_per_observation_week": total / weeks if weeks else 0.0,
        "changed_observation_weeks": len(per_week),
        "versions_per_changed_observation_week": total / len(per_week) if per_week else 0.0,
        "versions_in_first_weeks": total - sum(later.values()),
        "versions_per_changed_observation_week_after_the_first": (
            sum(later.values()) / len(later) if later else 0.0),
        "most_versions_in_a_week": max(per_week.values(), default=0),
        "versions_by_kind": dict(sorted(kinds.items())),
    }
