"""Import figures for ``manage.py bench``: how fast exports are parsed and mapped, and what the two
real samples (``tests/memory/importers/fixtures``: Mozilla Bugzilla bugs, webcompat GitHub
issues) become end to end — import, extraction, one pipeline run — measured as issue #12 asks:

* active observations whose root blocker is done or ended (resolved, verified…);
* dependency cycles that history removed: cycles among every ``DEPENDS_ON`` fact ever recorded,
  and those still among the current ones;
* open dependency trees (weakly connected parts of the current ``DEPENDS_ON`` graph) whose facts
  are split across more than one active observation;
* tracking items (sources of current ``TRACKS`` facts): how many, and how many are shown as a
  root blocker (structure analysis shows them as trackers on its own branch of work).
"""

from __future__ import annotations

import time
from collections import defaultdict
from pathlib import Path
from typing import Any

import igraph
from django.db import transaction

from memory.api.services import delete_graph
from memory.graph_settings import ontology_for
from memory.importers import read_export
from memory.importers.mapping import map_items
from memory.importers.runs import import_export
from memory.models import Fact, Graph, Observation
from memory.pipeline import run_pipeline

SAMPLES_DIR = Path(__file__).resolve().parents[2] / "tests" / "memory" / "importers" / "fixtures"
SAMPLES = {"bugzilla": "bugzilla-bugs.jsonl", "github": "github-webcompat-issues.jsonl"}
THROUGHPUT_FLOOR = 2_000
"""Items per second the issue asks of parsing and mapping."""


def parse_and_map(fmt: str, payload: bytes, *, repeats: int = 20) -> dict[str, Any]:
    """Items/s and changes/s of reading and mapping one export (best of ``repeats``); no
    database."""
    best = float("inf")
    items = episodes = 0
    for _ in range(repeats):
        started = time.perf_counter()
        result = read_export(fmt, payload)
        mapped = map_items(result.items)
        best = min(best, time.perf_counter() - started)
        items, episodes = len(result.items), len(mapped)
    return {"format": fmt, "bytes": len(payload), "items": items, "episodes": episodes,
            "seconds": best, "items_per_second": items / best if best else 0.0,
            "episodes_per_second": episodes / best if best else 0.0}


def end_to_end(fmt: str, payload: bytes, *, slug: str, keep: bool = False) -> dict[str, Any]:
    """Import into a new graph (extraction in-process, as in the embedded default), run the
    pipeline once, and measure."""
    for old in Graph.objects.filter(slug=slug):
        delete_graph(old)
    graph = Graph.objects.create(slug=slug, name=f"Import bench ({fmt})")
    try:
        started = time.perf_counter()
        with transaction.atomic():
            # Extraction runs when the import's transaction commits (on_commit), in-process here.
            report = import_export(graph, fmt, payload)
        imported = time.perf_counter() - started
        started = time.perf_counter()
        run = run_pipeline(graph)
        ran = time.perf_counter() - started
        if run is None:  # None only when another run holds the graph: not this new one's
            raise RuntimeError(f"the import bench's graph {slug} was held by another run")
        figures = tracker_measures(graph)
        return {"format": fmt, "items": report.items, "stored": report.stored,
                "rejected": report.rejected, "import_and_extract_seconds": imported,
                "run_seconds": ran, "run_status": run.status, **figures}
    finally:
        if not keep:
            delete_graph(graph)


def tracker_measures(graph: Graph) -> dict[str, Any]:
    ontology = ontology_for(graph)
    facts = list(Fact.objects.filter(graph=graph, relation__in=["DEPENDS_ON", "TRACKS",
                                                                 "HAS_STATUS"])
                 .exclude(expired_at__isnull=False, invalid_at__isnull=True)
                 .values_list("id", "source_id", "relation", "target_id", "target__name",
                              "invalid_at"))
    status = {source: name for _, source, relation, _, name, ended in facts
              if relation == "HAS_STATUS" and ended is None}
    every = [(f[0], f[1], f[3]) for f in facts if f[2] == "DEPENDS_ON"]
    current = [(f[0], f[1], f[3]) for f in facts if f[2] == "DEPENDS_ON" and f[5] is None]
    trackers = {f[1] for f in facts if f[2] == "TRACKS" and f[5] is None}

    active = list(Observation.objects.filter(graph=graph, status=Observation.Status.ACTIVE)
                  .prefetch_related("facts"))
    final_roots = 0
    tracker_roots = 0
    observations_of_fact: dict[int, set[int]] = defaultdict(set)
    for observation in active:
        dependency = (observation.structure or {}).get("dependency") or {}
        members = {m for blocker in dependency.get("root_blockers", [])
                   for m in blocker.get("members", [])}
        if any(ontology.is_final_status(status.get(m, "")) for m in members):
            final_roots += 1
        tracker_roots += len(members & trackers)
        for fact in observation.facts.all():
            observations_of_fact[fact.pk].add(observation.pk)

    trees = _weak_components(current)
    split = sum(1 for tree in trees
                if len({o for fact in tree for o in observations_of_fact.get(fact, ())}) > 1)
    return {
        "active_observations": len(active),
        "observations_with_final_root_blocker": final_roots,
        "dependency_cycles_ever": len(_cycles(every)),
        "dependency_cycles_current": len(_cycles(current)),
        "open_dependency_trees": len(trees),
        "open_trees_split_across_observations": split,
        "tracking_items": len(trackers),
        "tracking_items_shown_as_root_blockers": tracker_roots,
        # What a project manager reads on the board (issue #13, "prose that reads").
        "observations": sorted(o.name for o in active),
    }


def _graph(edges: list[tuple[int, int, int]], directed: bool) -> tuple[igraph.Graph, list[int]]:
    nodes = sorted({n for _, a, b in edges for n in (a, b)})
    index = {n: i for i, n in enumerate(nodes)}
    graph = igraph.Graph(n=len(nodes), edges=[(index[a], index[b]) for _, a, b in edges],
                         directed=directed)
    return graph, nodes


def _cycles(edges: list[tuple[int, int, int]]) -> list[list[int]]:
    graph, nodes = _graph(edges, directed=True)
    return [[nodes[v] for v in part] for part in graph.connected_components("strong")
            if len(part) > 1]


def _weak_components(edges: list[tuple[int, int, int]]) -> list[list[int]]:
    """Each weakly connected part of the dependency graph, as the ids of its facts."""
    graph, nodes = _graph(edges, directed=False)
    membership = graph.connected_components().membership if nodes else []
    index = {n: i for i, n in enumerate(nodes)}
    parts: dict[int, list[int]] = defaultdict(list)
    for fact_id, source, _ in edges:
        parts[membership[index[source]]].append(fact_id)
    return list(parts.values())


def run_import_bench(*, repeats: int = 20, keep: bool = False) -> dict[str, Any]:
    payloads = {fmt: (SAMPLES_DIR / name).read_bytes() for fmt, name in SAMPLES.items()}
    throughput = [parse_and_map(fmt, payload, repeats=repeats)
                  for fmt, payload in payloads.items()]
    samples = [end_to_end(fmt, payload, slug=f"bench-import-{fmt}", keep=keep)
               for fmt, payload in payloads.items()]
    return {"throughput": throughput, "samples": samples}


def render(result: dict[str, Any]) -> str:
    lines = ["Import: parsing and mapping (best of 20, no database)",
             f"{'format':<10}{'items':>7}{'changes':>9}{'items/s':>10}{'changes/s':>11}"]
    for row in result["throughput"]:
        lines.append(f"{row['format']:<10}{row['items']:>7}{row['episodes']:>9}"
                     f"{row['items_per_second']:>10,.0f}{row['episodes_per_second']:>11,.0f}")
    lines += ["", "Import end to end: the real samples, import + extraction, then one run"]
    keys = [("items", "items"), ("stored", "episodes"),
            ("import_and_extract_seconds", "import+extract s"), ("run_seconds", "run s"),
            ("active_observations", "active observations"),
            ("observations_with_final_root_blocker", "root blocker done/ended"),
            ("dependency_cycles_ever", "dependency cycles ever"),
            ("dependency_cycles_current", "cycles now"),
            ("open_dependency_trees", "open dependency trees"),
            ("open_trees_split_across_observations", "trees split across observations"),
            ("tracking_items", "tracking items"),
            ("tracking_items_shown_as_root_blockers", "trackers shown as root blockers")]
    formats = [row["format"] for row in result["samples"]]
    lines.append(f"{'':<34}" + "".join(f"{f:>10}" for f in formats))
    for key, label in keys:
        cells = []
        for row in result["samples"]:
            value = row[key]
            cells.append(f"{value:>10.2f}" if isinstance(value, float) else f"{value:>10}")
        lines.append(f"{label:<34}" + "".join(cells))
    for row in result["samples"]:
        lines += ["", f"Observations of the {row['format']} sample, as the board names them"]
        lines += [f"  {name}" for name in row.get("observations", [])] or ["  (none)"]
    return "\n".join(lines)
