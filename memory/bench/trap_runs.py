"""Plays each trap of ``memory.bench.traps`` through the product and checks its ground truth.

In a throwaway graph per trap: each phase's episodes are stored by the code of ``manage.py
ingest`` and processed as its tasks do, then a pipeline run; the observations are then checked
against each instance's truth. Per trap: **found** (instances where the product published the
observation the story is about) and **right** (instances where it is what the truth says), with
what was wrong for the others.
"""

from __future__ import annotations

import json
import secrets
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from django.db.models import Count
from django.utils import timezone

from memory import processing
from memory.bench.fake_openai import FakeOpenAI
from memory.bench.scenarios import norm
from memory.bench.traps import INSTANCES, TRAPS, Trap, generate_trap
from memory.ingestion import ingest_records, read_records
from memory.models import Episode, Fact, Graph, Observation, PipelineRun
from memory.pipeline import run_pipeline


@dataclass
class Played:
    """A trap after its phases: the graph and what each run left."""

    trap: Trap
    graph: Graph
    ids: dict[str | None, int] = field(default_factory=dict)
    """External id (a nullable column, though every trap record has one) → episode id."""
    runs: list[PipelineRun] = field(default_factory=list)
    calls: list[int] = field(default_factory=list)
    """Model calls of each run (0 without a model)."""
    after_first: dict[int, tuple[Any, int]] = field(default_factory=dict)
    """Observation id → (lineage, version) of those active after the first run."""

    def active(self) -> list[Observation]:
        return list(Observation.objects.filter(graph=self.graph,
                                               status=Observation.Status.ACTIVE)
                    .prefetch_related("episodes").order_by("pk"))

    def holding(self, external_id: str) -> list[Observation]:
        pk = self.ids[external_id]
        return [o for o in self.active() if any(e.pk == pk for e in o.episodes.all())]


def names(observation: Observation) -> dict[str, str]:
    return (observation.structure or {}).get("names") or {}


def roots(observation: Observation) -> list[dict[str, Any]]:
    """Root blockers as {name, owners, work_items}, ranked as stored."""
    structure = observation.structure or {}
    named = names(observation)
    found = []
    for root in (structure.get("dependency") or {}).get("root_blockers") or []:
        found.append({
            "name": " / ".join(named.get(str(m), str(m)) for m in root.get("members") or []),
            "owners": [named.get(str(o["entity"]), str(o["entity"]))
                       for o in root.get("owners") or []],
            "work_items": (root.get("reach") or {}).get("work_items", 0),
        })
    return found


def mentions(observation: Observation, name: str) -> bool:
    wanted = norm(name)
    return (any(norm(n) == wanted for n in names(observation).values())
            or wanted in norm(observation.name))


# --- the checks: (found, right, what was wrong) per instance ----------------------------------

Check = tuple[bool, bool, str]


def check_upstream_extension(played: Played, truth: dict[str, Any]) -> Check:
    holding = played.holding(truth["episode"])
    if not holding:
        return False, False, "the upstream update joined no observation"
    (chain, *_) = holding
    top = (roots(chain) or [{}])[0]
    before = [v for pk, (lineage, v) in played.after_first.items() if lineage == chain.lineage]
    problems = []
    if norm(top.get("name", "")) != norm(truth["new_root"]):
        problems.append(f"root blocker {top.get('name')!r}, not {truth['new_root']!r}")
    if [norm(o) for o in top.get("owners", [])] != [norm(truth["new_owner"])]:
        problems.append(f"owners {top.get('owners')}")
    if top.get("work_items") != truth["reach_work_items"]:
        problems.append(f"reach {top.get('work_items')} work items")
    if not before or chain.version <= max(before):
        problems.append("not a new version of the chain's lineage")
    return True, not problems, "; ".join(problems)


def check_per_customer_resolution(played: Played, truth: dict[str, Any]) -> Check:
    issue = norm(truth["issue"])
    about = [o for o in played.active() if o.kind == Observation.Kind.RECURRING_ISSUE
             and mentions(o, truth["issue"])]
    if not about:
        return False, False, "no active recurring issue about it"
    observation = about[0]
    open_by: dict[str, bool] = {}
    for source, target, ended in Fact.objects.filter(
            graph=played.graph, relation="REPORTED").exclude(
            expired_at__isnull=False, invalid_at__isnull=True).values_list(
            "source__name", "target__name", "invalid_at"):
        if norm(target) == issue:
            open_by[norm(source)] = open_by.get(norm(source), False) or ended is None
    problems = []
    if open_by.get(norm(truth["resolved"]), True):
        problems.append("the resolved customer's report is still open")
    still = [c for c in truth["customers"] if c != truth["resolved"]]
    if not all(open_by.get(norm(c)) for c in still):
        problems.append("another customer's report was closed")
    issues = ((observation.structure or {}).get("recurring") or {}).get("issues") or []
    counted = [(i.get("reporters"), i.get("resolved_reporters")) for i in issues
               if norm(names(observation).get(str(i.get("issue")), "")) == issue]
    if counted != [(len(truth["customers"]), 1)]:
        problems.append(f"reporters / resolved {counted}")
    if observation.lineage not in {lineage for lineage, _ in played.after_first.values()}:
        problems.append("a new lineage, not the issue's")
    return True, not problems, "; ".join(problems)


def check_resolved_roots(played: Played, truth: dict[str, Any]) -> Check:
    # The chain's observation (a root may also be a stalled item of its own).
    first = [pk for pk in played.after_first
             if any(mentions(o, truth["roots"][0]) for o in
                    Observation.objects.filter(pk=pk).exclude(kind=Observation.Kind.STALLED))]
    if not first:
        return False, False, "no observation of the chain after the first run"
    chain = Observation.objects.get(pk=first[0])
    completions = set(Fact.objects.filter(
        graph=played.graph, relation="HAS_STATUS", target__name="Done",
        source__name__in=truth["roots"]).values_list("pk", flat=True))
    problems = []
    if chain.status != Observation.Status.RETIRED:
        problems.append("the chain is still active")
    elif chain.retired_reason != Observation.RetiredReason.EVIDENCE_ENDED:
        problems.append(f"retired as {chain.retired_reason}")
    cited = set((chain.retirement or {}).get("completing_facts") or [])
    if chain.status == Observation.Status.RETIRED and cited != completions:
        problems.append(f"cites {len(cited & completions)} of {len(completions)} completions")
    named = [o.name for o in played.active() for r in roots(o)
             if norm(r["name"]) in {norm(n) for n in truth["roots"]}]
    if named:
        problems.append(f"still a root blocker in {named}")
    return True, not problems, "; ".join(problems)


def check_boilerplate_heading(played: Played, truth: dict[str, Any]) -> Check:
    every = Observation.objects.filter(graph=played.graph)
    with_heading = [o.name for o in every if mentions(o, truth["heading"])]
    backbone = [o for o in played.active()
                if (roots(o) or [{}])[0].get("name") == truth["backbone_root"]]
    problems = []
    if with_heading:
        problems.append(f"{len(with_heading)} observations hold the heading: {with_heading[:3]}")
    if len(backbone) != 1:
        problems.append(f"the backbone is {len(backbone)} observations")
    return bool(backbone) or bool(with_heading), not problems, "; ".join(problems)


def check_oversized_one_structure(played: Played, truth: dict[str, Any]) -> Check:
    naming = [o for o in played.active() if any(
        norm(r["name"]) == norm(truth["root"]) for r in roots(o))]
    if not naming:
        return False, False, "no observation names the root"
    group = {played.ids[e.external_id] for e in played.trap.episodes
             if e.group == truth["group"]}
    held = {e.pk for o in naming for e in o.episodes.all()} & group
    problems = []
    if len(naming) != 1:
        problems.append(f"{len(naming)} observations name the root (look-alike copies)")
    if len(held) < len(group):
        problems.append(f"holds {len(held)} of {len(group)} updates")
    return True, not problems, "; ".join(problems)


def check_restatement_trickle(played: Played, truth: dict[str, Any]) -> Check:
    holding = played.holding(truth["restated"][-1])
    if not holding:
        return False, False, "the restating updates joined no observation"
    (chain, *_) = holding
    before = [v for lineage, v in played.after_first.values() if lineage == chain.lineage]
    versions = Observation.objects.filter(lineage=chain.lineage).count()
    restated = sum(r.get("episodes", 0) for r in chain.restatements or [])
    problems = []
    if not before or chain.version != max(before) or versions != 1:
        problems.append(f"{versions} versions")
    if restated < len(truth["restated"]):
        problems.append(f"restated by {restated} of {len(truth['restated'])} updates")
    trickle_calls = sum(played.calls[1:])
    if trickle_calls:
        problems.append(f"{trickle_calls} model calls in the trickle")
    return True, not problems, "; ".join(problems)


def check_stalled(played: Played, truth: dict[str, Any]) -> Check:
    stalled = [o for o in played.active() if o.kind == Observation.Kind.STALLED]
    naming = [o for o in stalled if mentions(o, truth["stalled"])]
    wrong = [o.name for o in stalled for n in truth["not_stalled"] if mentions(o, n)]
    problems = []
    if len(naming) != 1:
        problems.append(f"{len(naming)} stalled observations name it")
    if wrong:
        problems.append(f"stalled but not so: {wrong}")
    return bool(naming), not problems, "; ".join(problems)


CHECKS: dict[str, Callable[[Played, dict[str, Any]], Check]] = {
    "upstream_extension": check_upstream_extension,
    "per_customer_resolution": check_per_customer_resolution,
    "resolved_roots": check_resolved_roots,
    "boilerplate_heading": check_boilerplate_heading,
    "oversized_one_structure": check_oversized_one_structure,
    "restatement_trickle": check_restatement_trickle,
    "stalled": check_stalled,
}


# --- playing ----------------------------------------------------------------------------------


def play(trap: Trap, server: FakeOpenAI | None = None) -> Played:
    graph = Graph.objects.create(slug=f"bench-trap-{trap.name.replace('_', '-')}-"
                                      f"{secrets.token_hex(3)}", name=f"bench trap {trap.name}")
    played = Played(trap, graph)
    for phase in range(len(trap.phases)):
        payload = "\n".join(json.dumps(r) for r in trap.records(phase)).encode()
        report = ingest_records(graph, read_records(payload), process=False)
        if report.rejected:
            raise RuntimeError(f"the trap {trap.name} wrote {report.rejected} rejected records")
        processing.process_episodes(report.stored_ids)
        played.ids.update(Episode.objects.filter(pk__in=report.stored_ids)
                          .values_list("external_id", "pk"))
        calls = len(server.completions()) if server else 0
        run = run_pipeline(graph, trigger=PipelineRun.Trigger.COMMAND)
        if run is None or run.status != PipelineRun.Status.SUCCEEDED:
            raise RuntimeError(f"trap {trap.name}, phase {phase}: {run and run.error}")
        played.runs.append(run)
        played.calls.append((len(server.completions()) if server else 0) - calls)
        if phase == 0:
            played.after_first = {o.pk: (o.lineage, o.version) for o in played.active()}
    return played


def run_trap(name: str, *, seed: int = 7, instances: int = INSTANCES,
             server: FakeOpenAI | None = None, keep: bool = False,
             end: datetime | None = None) -> dict[str, Any]:
    """One trap played and checked: {trap, episodes, runs, instances, found, right, wrong}."""
    # The last update an hour before now: a stall is measured up to the run.
    end = end or timezone.now().replace(minute=0, second=0, microsecond=0)
    trap = generate_trap(name, seed=seed, instances=instances, end=end)
    played = play(trap, server)
    try:
        verdicts = [CHECKS[name](played, truth) for truth in trap.truth]
        versions = (Observation.objects.filter(graph=played.graph).values("lineage")
                    .annotate(n=Count("id")))
        return {
            "trap": name, "episodes": len(trap.episodes), "runs": len(played.runs),
            "instances": len(verdicts), "found": sum(f for f, _, _ in verdicts),
            "right": sum(r for _, r, _ in verdicts),
            "wrong": [why for _, r, why in verdicts if not r],
            "model_calls": sum(played.calls),
            "observations": Observation.objects.filter(graph=played.graph).count(),
            "lineages": len(versions),
        }
    finally:
        if not keep:
            from memory.api.services import delete_graph

            delete_graph(played.graph)


def run_traps(names: tuple[str, ...] = TRAPS, **options: Any) -> list[dict[str, Any]]:
    return [run_trap(name, **options) for name in names]
