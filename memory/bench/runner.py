"""Runs one bench case through the real product path and scores it against the ground truth.

A case is (scenario, size, form). In a throwaway graph:

1. batch 1 (episodes said before the checkpoint, not backfilled) is read and stored by the code of
   ``manage.py ingest`` (``read_records`` + ``ingest_records``), then processed in batches by
   ``memory.processing.process_episodes`` (what its tasks run) — ingest and extraction rates;
2. run 1 (``run_pipeline``): clusters, root blockers and reach are scored at the checkpoint, and
   the alternatives run on the same rows (networkx, co-mention, the floor);
3. batch 2 (later updates, resolutions, backfilled episodes), run 2: retirement correctness;
4. one new episode, run 3: the incremental run;
5. citation validity over every claim, extraction recall (free text), board and observation
   page server time, peak memory.

With the fake OpenAI server on, every run summarizes with the "model" and the naive pipeline
(re-cluster and re-summarize everything) runs after each of the three runs; calls are counted
on the server.
"""

from __future__ import annotations

import gc
import json
import resource
import secrets
import statistics
import time
import tracemalloc
from collections import defaultdict
from collections.abc import Callable, Iterable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any, cast

from django.contrib.auth import get_user_model
from django.db import connection
from django.test import Client, override_settings
from django.urls import reverse
from django.utils import timezone

from memory import processing
from memory.bench import alternatives, metrics
from memory.bench.fake_openai import FAKE_MODEL, FakeOpenAI
from memory.bench.scenarios import Scenario, generate, norm
from memory.engine.clustering import ClusteringSettings, cluster_episodes
from memory.engine.structure import analyse_cluster
from memory.engine.types import ANY_SOURCE, Row, SignatureKey
from memory.graph_settings import graph_settings, ontology_for
from memory.ingestion import ingest_records, read_records
from memory.models import (
    Claim,
    Entity,
    Episode,
    FactEvidence,
    Graph,
    Membership,
    Observation,
    PipelineRun,
)
from memory.pipeline import run_pipeline
from memory.snapshot import load_details, load_rows, load_snapshot
from memory.summarize import ClusterEvidence, summarize_clusters


@dataclass(frozen=True)
class CaseOptions:
    seed: int = 7
    requests: int = 20
    """Requests per page for the board / observation server time."""
    repeats: int = 3
    """Timings of the pure clusterings are the best of this many."""
    data_dir: Path | None = None
    """Where the scenario's JSONL and ground truth are written (None: not written)."""
    keep: bool = False


def llm_settings(server: FakeOpenAI) -> override_settings:
    return override_settings(
        OPENAI_API_KEY="sk-bench", OPENAI_BASE_URL=server.base_url, LLM_MODEL=FAKE_MODEL,
        LLM_ENABLED=True, LLM_EXTRACTION=False, LLM_TIMEOUT_SECONDS=10.0, LLM_MAX_RETRIES=0,
    )


def best_of(repeats: int, work: Callable[[], Any]) -> tuple[float, Any]:
    """(the fastest of ``repeats`` timed calls, the last result)."""
    best, result = float("inf"), None
    for _ in range(max(1, repeats)):
        gc.collect()
        started = time.perf_counter()
        result = work()
        best = min(best, time.perf_counter() - started)
    return best, result


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * (len(ordered) - 1) + 0.5))]


class Case:
    def __init__(self, name: str, size: int, form: str, options: CaseOptions,
                 server: FakeOpenAI | None) -> None:
        self.options = options
        self.server = server
        self.scenario: Scenario = generate(name, size, seed=options.seed, form=form)
        self.truth = self.scenario.truth()
        self.result: dict[str, Any] = {
            "scenario": name, "size": len(self.scenario.episodes), "form": form,
            "database": connection.vendor, "quality": {}, "performance": {},
            "alternatives": {}, "llm": {},
        }
        self.graph: Graph  # created by run(), which every method below runs under
        self.ext_of: dict[int, str] = {}
        self.linking: dict[str, str] = {}

    # --- the whole case ---------------------------------------------------------------------

    def run(self) -> dict[str, Any]:
        if self.options.data_dir:
            data, truth = self.scenario.write(self.options.data_dir)
            self.result["files"] = {"episodes": str(data), "truth": str(truth)}
        tag = secrets.token_hex(3)
        s = self.scenario
        self.graph = Graph.objects.create(slug=f"bench-{s.name}-{s.form}-{s.size}-{tag}",
                                          name=f"bench {s.name} {s.form} {s.size}")
        self.linking = ontology_for(self.graph).linking()
        try:
            with self._model():
                self._batch(1)
                self._pipeline("run1")
                self._score_checkpoint()
                self._score_brands("checkpoint")
                self._batch(2)
                self._pipeline("run2")
                self._score_retirements()
                self._score_brands("final")
                self._score_resolutions()
                self._incremental()
            self._score_citations()
            self._score_extraction()
            self._page_times()
            self._memory()
        finally:
            if not self.options.keep:
                from memory.api.services import delete_graph

                delete_graph(self.graph)
        return self.result

    @contextmanager
    def _model(self) -> Iterator[None]:
        if self.server is None:
            yield
            return
        with llm_settings(self.server):
            yield

    def _calls(self) -> int:
        return len(self.server.completions()) if self.server else 0

    # --- ingest, extract, run ---------------------------------------------------------------

    def _ingest(self, records: list[dict[str, Any]]) -> tuple[float, float, list[int]]:
        payload = "\n".join(json.dumps(r) for r in records).encode()
        started = time.perf_counter()
        report = ingest_records(self.graph, read_records(payload), process=False)
        ingest = time.perf_counter() - started
        if report.rejected:
            raise RuntimeError(f"the generator wrote {report.rejected} rejected records")
        started = time.perf_counter()
        processing.process_episodes(report.stored_ids)  # what the ingest command's tasks run
        extract = time.perf_counter() - started
        # The column is nullable, but every record the scenario writes has an external_id
        # (Scenario.record), so every episode it stored has one.
        self.ext_of.update(cast("Iterable[tuple[int, str]]",
                                Episode.objects.filter(pk__in=report.stored_ids)
                                .values_list("pk", "external_id")))
        return ingest, extract, report.stored_ids

    def _batch(self, batch: int) -> None:
        records = self.scenario.records(batch)
        ingest, extract, _ = self._ingest(records)
        perf = self.result["performance"]
        perf.setdefault("ingest_seconds", 0.0)
        perf.setdefault("extract_seconds", 0.0)
        perf["ingest_seconds"] += ingest
        perf["extract_seconds"] += extract
        perf.setdefault("episodes_ingested", 0)
        perf["episodes_ingested"] += len(records)
        n = perf["episodes_ingested"]
        perf["ingest_rate"] = n / perf["ingest_seconds"] if perf["ingest_seconds"] else 0.0
        perf["extract_rate"] = n / perf["extract_seconds"] if perf["extract_seconds"] else 0.0

    def _pipeline(self, name: str) -> PipelineRun:
        calls = self._calls()
        started = time.perf_counter()
        run = run_pipeline(self.graph, trigger=PipelineRun.Trigger.COMMAND)
        wall = time.perf_counter() - started
        if run is None or run.status != PipelineRun.Status.SUCCEEDED:
            raise RuntimeError(f"bench run {name} did not succeed: {run and run.error}")
        c = run.counts
        self.result["performance"][name] = {
            "seconds": wall, "stages": run.timings, "episodes": c["episodes"],
            "clusters": c["clusters"], "created": c["created"], "updated": c["updated"],
            "untouched": c["untouched"], "retired": c["retired"],
        }
        if self.server:
            ours = self._calls() - calls
            naive_calls, naive_seconds = self._naive(name)
            self.result["llm"][name] = {
                "calls": ours, "cached": c["llm"]["cached"], "seconds": wall,
                "naive_calls": naive_calls, "naive_seconds": naive_seconds,
                "avoided": naive_calls - ours,
            }
        return run

    def _naive(self, name: str) -> tuple[int, float]:
        """Re-cluster and re-summarize every cluster with the model, caching nothing: what a
        pipeline without reconciliation and without the summary cache does on every run."""
        calls = self._calls()
        started = time.perf_counter()
        snapshot = load_snapshot(self.graph, as_of=timezone.now(), window_days=None,
                                 is_now=True)
        result = cluster_episodes(snapshot.rows, self.linking, snapshot.episode_authors,
                                  ClusteringSettings.from_mapping(graph_settings(self.graph)))
        clusters = result.clusters
        details = load_details(snapshot.rows, {f for c in clusters for f in c.fact_ids},
                               {e for c in clusters for e in c.episode_ids})
        items = [
            ClusterEvidence(cluster, analyse_cluster(cluster, details.facts, details.entities,
                                                     details.episodes),
                            details.facts, details.entities, details.episodes)
            for cluster in clusters
        ]
        # One call per cluster, no cache: what a pipeline without either does.
        summarize_clusters(items, graph=self.graph, use_cache=False, size=1)
        return self._calls() - calls, time.perf_counter() - started

    def _incremental(self) -> None:
        """One new update of the first chain's first item (or family's customer)."""
        first = next(e for e in self.scenario.episodes if e.group)
        record = self.scenario.record(first)
        record["external_id"] = f"{first.external_id}-incremental"
        record["reference_time"] = timezone.now().isoformat()
        self._ingest([record])
        run = self._pipeline("incremental")
        self.result["performance"]["incremental"]["stages"] = run.timings

    # --- quality ----------------------------------------------------------------------------

    def _labels(self, clusters: list[list[str]], items: list[str]) -> dict[Any, Any]:
        return metrics.labels_from_clusters(items, clusters)

    def _truth_labels(self, items: list[str]) -> dict[Any, Any]:
        return metrics.labels_from_clusters(items, self.truth["clusters"].values())

    def _quality(self, clusters: list[list[str]], items: list[str]) -> dict[str, float]:
        truth, found = self._truth_labels(items), self._labels(clusters, items)
        pairs = metrics.pairwise_scores(truth, found)
        return {"ari": metrics.adjusted_rand_index(truth, found),
                "precision": pairs.precision, "recall": pairs.recall}

    def _active_observations(self) -> list[Observation]:
        observations = list(Observation.objects.filter(
            graph=self.graph, status=Observation.Status.ACTIVE).prefetch_related("episodes"))
        return observations

    def _score_checkpoint(self) -> None:
        items = [e.external_id for e in self.scenario.episodes if e.batch == 1]
        observations = self._active_observations()
        episodes_of = {o.pk: [self.ext_of[e.pk] for e in o.episodes.all()] for o in observations}
        quality = self.result["quality"]
        quality.update(self._quality(list(episodes_of.values()), items))
        quality["clusters_expected"] = len(self.truth["clusters"])
        quality["clusters_found"] = len(observations)
        self._score_blockers(observations, episodes_of)
        self._alternatives(items)

    def _score_blockers(self, observations: list[Observation],
                        episodes_of: Mapping[int, list[str]]) -> None:
        self.checkpoint_obs: dict[str, Observation | None] = {}
        chains = self.truth["chains"]
        if not chains:
            return
        hits, reach_pairs = 0, []
        for chain in chains:
            wanted = set(self.truth["clusters"].get(chain["id"], ()))
            best = max(observations, key=lambda o: len(wanted & set(episodes_of[o.pk])),
                       default=None)
            if best is not None and not wanted & set(episodes_of[best.pk]):
                best = None
            self.checkpoint_obs[chain["id"]] = best
            truth_reach = (chain["reach"]["work_items"], chain["reach"]["people"])
            top = top_blocker(best) if best else None
            if top and norm(top["name"]) == norm(chain["root"]):
                hits += 1
                reach_pairs.append((truth_reach, (top["work_items"], top["people"])))
            else:
                reach_pairs.append((truth_reach, (0, 0)))
        error = metrics.reach_error(reach_pairs)
        self.result["quality"].update({
            "root_blocker_accuracy": metrics.share(hits, len(chains)),
            "reach_error_work_items": error.work_items,
            "reach_error_people": error.people,
            "reach_error_relative": error.relative,
            "chains": len(chains),
        })

    def _alternatives(self, items: list[str]) -> None:
        now = timezone.now()
        repeats = self.options.repeats
        # The floor as issue #3 states it includes loading the (episode, signature) pairs: ours
        # loads them with the authors (load_snapshot), the floor the rows alone (load_rows).
        ours_load, snapshot = best_of(repeats, lambda: load_snapshot(
            self.graph, as_of=now, window_days=None, is_now=True))
        floor_load, _ = best_of(repeats, lambda: load_rows(
            self.graph, as_of=now, window_days=None, is_now=True))
        rows: list[Row] = list(snapshot.rows)
        settings = ClusteringSettings.from_mapping(graph_settings(self.graph))
        ours_seconds, ours = best_of(repeats, lambda: cluster_episodes(
            rows, self.linking, snapshot.episode_authors, settings))
        suppressed: set[SignatureKey] = set()
        for verdict in ours.audit["hub_candidates"]:
            if verdict["suppressed"]:
                sig = verdict["signature"]
                source = ANY_SOURCE if sig["source"] is None else sig["source"]
                suppressed.add((source, sig["relation"], sig["target"]))
        names = self.ext_of
        alt = self.result["alternatives"]
        ours_clusters = [[names[e] for e in c.episode_ids] for c in ours.clusters]
        alt["ours"] = {"seconds": ours_seconds, "rows": len(rows),
                       "suppressed_signatures": len(suppressed),
                       **self._quality(ours_clusters, items)}
        try:
            nx_seconds, nx_clusters = best_of(1, lambda: alternatives.networkx_clusters(
                rows, self.linking, suppressed,
                max_cluster_episodes=settings.max_cluster_episodes,
                min_cluster_episodes=settings.min_cluster_episodes))
            nx_named = [[names[e] for e in c] for c in nx_clusters]
            agreement = metrics.adjusted_rand_index(self._labels(ours_clusters, items),
                                                    self._labels(nx_named, items))
            alt["networkx"] = {"seconds": nx_seconds, "time_ratio": nx_seconds / ours_seconds,
                               "ari_vs_ours": agreement, **self._quality(nx_named, items)}
        except RuntimeError as exc:
            alt["networkx"] = {"error": str(exc)}
        statuses = set(Entity.objects.filter(graph=self.graph, type="Status")
                       .values_list("pk", flat=True))
        co_seconds, co = best_of(repeats, lambda: alternatives.co_mention_clusters(
            rows, statuses))
        co_quality = self._quality([[names[e] for e in c] for c in co], items)
        alt["co_mention"] = {
            "seconds": co_seconds, **co_quality,
            "ari_ratio": co_quality["ari"] / alt["ours"]["ari"] if alt["ours"]["ari"] else 0.0,
        }
        floor_seconds, components = best_of(repeats, lambda: alternatives.floor_cluster_count(
            rows, self.linking))
        alt["floor"] = {"seconds": floor_seconds, "components": components,
                        "ours_over_floor": ours_seconds / floor_seconds,
                        "load_seconds": floor_load, "ours_load_seconds": ours_load,
                        "ours_over_floor_with_load":
                            (ours_load + ours_seconds) / (floor_load + floor_seconds)}

    def _score_retirements(self) -> None:
        chains = self.truth["chains"]
        if not chains:
            return
        active = self._active_observations()
        blocked_roots = {norm(b["name"]) for o in active for b in root_blockers(o)}
        top_roots = {norm(t["name"]) for o in active if (t := top_blocker(o))}
        correct = 0
        resolved = 0
        for chain in chains:
            before = self.checkpoint_obs.get(chain["id"])
            root = norm(chain["root"])
            if chain["resolved_week"] is not None:
                resolved += 1
                retired = before is not None and Observation.objects.filter(
                    pk=before.pk, status=Observation.Status.RETIRED).exists()
                correct += int(retired and root not in blocked_roots)
            else:
                correct += int(root in top_roots)
        self.result["quality"]["retirement_correctness"] = metrics.share(correct, len(chains))
        self.result["quality"]["resolved_chains"] = resolved

    def _score_brands(self, when: str) -> None:
        """Active observations whose episodes come from two brands or more that share no fact
        (issue #14: there must be none)."""
        if self.scenario.name != "brands":
            return
        from memory.support import brand_of

        brand_of_episode = {ext: brand_of(info["source"])
                            for ext, info in self.truth["episodes"].items()}
        pk_of = {ext: pk for pk, ext in self.ext_of.items()}
        mixed = 0
        for observation in self._active_observations():
            episodes = [self.ext_of[e.pk] for e in observation.episodes.all()
                        if e.pk in self.ext_of]
            brands = {brand_of_episode.get(e) for e in episodes}
            if len(brands) < 2:
                continue
            facts_by_brand: dict[Any, set[int]] = defaultdict(set)
            for fact_id, episode_id in FactEvidence.objects.filter(
                    episode_id__in=[pk_of[e] for e in episodes],
                    fact__in=observation.facts.all()).values_list("fact_id", "episode_id"):
                facts_by_brand[brand_of_episode[self.ext_of[episode_id]]].add(fact_id)
            sets = list(facts_by_brand.values())
            shared = any(a & b for i, a in enumerate(sets) for b in sets[i + 1:])
            mixed += int(not shared)
        self.result["quality"][f"mixed_brand_observations_{when}"] = mixed

    def _score_resolutions(self) -> None:
        """A customer's "resolved for us" ends that customer's report only: after the final run
        their report of the issue is closed, another customer's is current, and an active
        observation still holds the family's other customers."""
        resolutions = self.truth.get("resolutions") or []
        if not resolutions:
            return
        from memory.models import Fact

        reports: dict[tuple[str, str], list[bool]] = defaultdict(list)
        # Every fact as last known (not the rows a revision replaced: expired without an end).
        for source, target, ended in Fact.objects.filter(
                graph=self.graph, relation="REPORTED").exclude(
                expired_at__isnull=False, invalid_at__isnull=True).values_list(
                "source__name", "target__name", "invalid_at"):
            reports[(norm(source), norm(target))].append(ended is None)
        active_groups: set[str] = set()
        for observation in self._active_observations():
            for episode in observation.episodes.all():
                info = self.truth["episodes"].get(self.ext_of.get(episode.pk, ""))
                if info and info["group"]:
                    active_groups.add(info["group"])
        respected = 0
        for r in resolutions:
            customer, issue = norm(r["customer"]), norm(r["issue"])
            closed = bool(reports.get((customer, issue))) and not any(
                reports[(customer, issue)])
            others = any(current for (c, i), flags in reports.items() if i == issue
                         and c != customer for current in flags)
            respected += int(closed and others and r["group"] in active_groups)
        self.result["quality"]["per_customer_resolution"] = metrics.share(
            respected, len(resolutions))
        self.result["quality"]["resolutions"] = len(resolutions)

    def _score_citations(self) -> None:
        claims = Claim.objects.filter(observation__graph=self.graph).prefetch_related("facts")
        evidence: dict[int, set[int]] = defaultdict(set)
        through = Observation.facts.through
        for obs_id, fact_id in through.objects.filter(
                observation__graph=self.graph).values_list("observation_id", "fact_id"):
            evidence[obs_id].add(fact_id)
        graph_facts = set(FactEvidence.objects.filter(fact__graph=self.graph)
                          .values_list("fact_id", flat=True))
        valid = total = 0
        for claim in claims:
            cited = {f.pk for f in claim.facts.all()}
            total += 1
            valid += int(bool(cited) and cited <= evidence[claim.observation_id]
                         and cited <= graph_facts)
        self.result["quality"]["citation_validity"] = metrics.share(valid, total)
        self.result["quality"]["claims"] = total

    def _score_extraction(self) -> None:
        if self.scenario.form != "text":
            return
        extracted: dict[str, set[tuple[str, str, str]]] = defaultdict(set)
        for episode_id, source, relation, target in FactEvidence.objects.filter(
            fact__graph=self.graph
        ).values_list("episode_id", "fact__source__name", "fact__relation",
                      "fact__target__name"):
            if episode_id in self.ext_of:
                extracted[self.ext_of[episode_id]].add((norm(source), relation, norm(target)))
        expected_all: dict[str, set[tuple[str, str, str]]] = {}
        expected_covered: dict[str, set[tuple[str, str, str]]] = {}
        for ext, info in self.truth["episodes"].items():
            facts = {(norm(s), r, norm(t)) for s, r, t in info["facts"]}
            expected_all[ext] = facts
            if info["covered"]:
                expected_covered[ext] = facts
        hits, total, produced = metrics.recall_of(expected_all, extracted)
        covered_hits, covered_total, _ = metrics.recall_of(expected_covered, extracted)
        self.result["quality"].update({
            "extraction_recall": metrics.share(hits, total),
            "extraction_recall_covered": metrics.share(covered_hits, covered_total),
            "extraction_precision": metrics.share(hits, produced),
            "facts_expected": total,
        })

    # --- performance ------------------------------------------------------------------------

    def _page_times(self) -> None:
        if self.options.requests > 0:
            for name, times in time_pages(self.graph, self.options.requests).items():
                self.result["performance"][f"{name}_ms"] = times

    def _memory(self) -> None:
        """Peak Python allocations (tracemalloc) of loading the final graph's rows and
        clustering them, measured apart from the timed runs (tracing slows them down); and the
        process's high-water mark (ru_maxrss) so far."""
        settings = ClusteringSettings.from_mapping(graph_settings(self.graph))
        gc.collect()
        tracemalloc.start()
        try:
            snapshot = load_snapshot(self.graph, as_of=timezone.now(), window_days=None,
                                     is_now=True)
            cluster_episodes(snapshot.rows, self.linking, snapshot.episode_authors, settings)
            _, peak = tracemalloc.get_traced_memory()
        finally:
            tracemalloc.stop()
        perf = self.result["performance"]
        perf["peak_mb_load_and_cluster"] = peak / 2**20
        perf["max_rss_mb"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def root_blockers(observation: Observation) -> list[dict[str, Any]]:
    """The observation's root blockers as {name, work_items, people}, ranked as stored."""
    structure = observation.structure or {}
    dependency = structure.get("dependency") or {}
    names = structure.get("names") or {}
    found = []
    for root in dependency.get("root_blockers") or []:
        members = root.get("members") or []
        name = " / ".join(names.get(str(m), str(m)) for m in members)
        reach = root.get("reach") or {}
        found.append({"name": name, "work_items": reach.get("work_items", 0),
                      "people": reach.get("people", 0)})
    return found


def top_blocker(observation: Observation) -> dict[str, Any] | None:
    found = root_blockers(observation)
    return found[0] if found else None


def run_case(name: str, size: int, form: str, options: CaseOptions,
             server: FakeOpenAI | None) -> dict[str, Any]:
    return Case(name, size, form, options, server).run()


def time_pages(graph: Graph, requests: int) -> dict[str, dict[str, float]]:
    """Server time of the board's first page and of the detail page of the active observation
    with the most evidence (the slowest one), as a viewer through Django's test client: one
    warm-up request per page, then p50/p95 over ``requests``."""
    user, _ = get_user_model().objects.get_or_create(username="bench-viewer")
    Membership.objects.get_or_create(graph=graph, user=user,
                                     defaults={"role": Membership.Role.VIEWER})
    client = Client()
    client.force_login(user)
    pages = {"board": reverse("board", args=[graph.slug])}
    biggest = (Observation.objects.filter(graph=graph, status=Observation.Status.ACTIVE)
               .order_by("-episode_count", "-fact_count").first())
    if biggest:
        pages["observation"] = reverse("observation", args=[graph.slug, biggest.uuid])
    # A server worker freezes its start-up heap (dashboard/wsgi.py); here the heap also holds
    # the bench's own scenario and rows, which a worker would not have: freeze it too, so the
    # collector's pauses during the requests are those a worker would see.
    gc.collect()
    gc.freeze()
    try:
        return {name: time_page(client, url, requests) for name, url in pages.items()}
    finally:
        gc.unfreeze()


def time_page(client: Client, url: str, requests: int) -> dict[str, float]:
    client.get(url)  # warm-up: templates load and compile, not measured
    times = []
    for _ in range(requests):
        started = time.perf_counter()
        response = client.get(url)
        times.append((time.perf_counter() - started) * 1000)
        if response.status_code != 200:
            raise RuntimeError(f"GET {url}: {response.status_code}")
    return {"p50": statistics.median(times), "p95": percentile(times, 0.95),
            "requests": requests}
