"""``manage.py bench_llm``: what the model costs per update, in calls and tokens, against the fake
OpenAI-compatible server (``memory.bench.fake_openai``) with tokens counted by a real tokenizer
(``memory.bench.tokens``: tiktoken's o200k_base).

The updates are the bench's generated scenarios as free text (``projects`` status updates and
``support`` tickets, 300 each by default), each in its own graph. The "model" answers like a
careful one: extraction answers are the rules extractor's reading of the sentences it was shown,
in the compact format (so the facts, clusters and summaries are real), summaries cite the facts
they are shown with one grounded claim per fact. Every call goes through the product's code —
batching, waiting, caching, the audit — and the figures are read back from the audit rows.

Three ways the same updates arrive:

* **one batch** — all of them in one import;
* **daily batches** — one import per day of updates (by when they were said), at 18:00 that day;
* **one at a time** — each update alone, at the time it was said (plus a few seeded minutes, so
  updates of the same hour arrive one by one).

In all three the product schedules the model's work as it does in production, on a simulated
clock: updates are read by the rules at once and by the model when
``memory.processing.model_queue`` says they are due (full batches at once, the rest once the
oldest has waited the graph's ``model_wait_seconds``), and the pipeline runs when
``memory.pipeline.settle_delay`` says the graph has settled — whichever is due first, the
scheduler's decisions on the bench's clock instead of the wall clock.

Graphiti's figure for comparison (issue #16): about 4 LLM calls and 4 embedding calls, and about
4,800 prompt tokens, per short episode.
"""

from __future__ import annotations

import hashlib
import html
import json
import re
from collections import defaultdict
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any

from django.db.models import Count, Sum
from django.test.utils import override_settings
from django.utils import timezone

from memory.bench.fake_openai import FAKE_MODEL, Behaviour, FakeOpenAI, FakeRequest
from memory.bench.fake_openai import default_responder as summary_responder
from memory.bench.scenarios import generate
from memory.bench.tokens import count, counter
from memory.extraction.rules import extract_with_rules
from memory.ingestion import ingest_records
from memory.models import Graph, LLMCall, Observation, PipelineRun
from memory.names import normalize_name
from memory.ontology import default_ontology
from memory.pipeline import run_pipeline, settle_delay
from memory.processing.model_queue import extract_due, extraction_delay

PATTERNS = ("one batch", "daily batches", "one at a time")
GRAPHITI = {"llm_calls": 4.0, "embedding_calls": 4.0, "prompt_tokens": 4800.0}
"""Per short episode, as issue #16 states Graphiti's figure."""
TARGET = {"calls": 0.25, "prompt_tokens": 400.0}

_EPISODE = re.compile(r'<ep id="(\d+)" by="(.*?) \((\w+)\)" on="([\d-]+)">\n(.*?)\n</ep>',
                      re.DOTALL)
_NUMBERED = re.compile(r"^(\d+) (.*)$", re.MULTILINE)


@dataclass(frozen=True)
class LLMBenchOptions:
    size: int = 300
    """Updates per scenario (two scenarios)."""
    seed: int = 7
    patterns: tuple[str, ...] = PATTERNS
    wait_seconds: float | None = None
    """``model_wait_seconds`` for the graphs (``None``: the product's default)."""
    jitter_minutes: int = 59


# -- the "model" -----------------------------------------------------------------------------------


def model_like_responder(request: FakeRequest) -> Behaviour:
    """Extraction: the rules' reading of each episode's shown sentences, in the compact format;
    anything else: the default responder (grounded summaries)."""
    prompt = request.prompt
    if "<ep " not in prompt:
        return summary_responder(request)
    ontology = default_ontology()
    answers = []
    for number, author, author_type, day, body in _EPISODE.findall(prompt):
        sentences = {int(n): html.unescape(text) for n, text in _NUMBERED.findall(body)}
        text = " ".join(sentences[n] for n in sorted(sentences))
        extraction = extract_with_rules(
            text, author=html.unescape(author), author_type=author_type,
            reference_time=datetime.fromisoformat(f"{day}T12:00:00+00:00"), ontology=ontology)
        entities: dict[tuple[str, str], int] = {}

        def index(name: str, kind: str, entities: dict[tuple[str, str], int] = entities) -> int:
            return entities.setdefault((name, kind), len(entities))

        facts = []
        for fact in extraction.facts:
            facts.append({"s": index(fact.source, fact.source_type), "r": fact.relation,
                          "o": index(fact.target, fact.target_type),
                          "q": sentence_number(sentences, fact.sentence),
                          "d": fact.valid_at.date().isoformat() if fact.valid_at else None,
                          "x": False})
        for closure in extraction.closures:
            target = (index(closure.target, closure.target_type or "WorkItem")
                      if closure.target else -1)
            facts.append({"s": index(closure.source, closure.source_type), "r": closure.relation,
                          "o": target, "q": sentence_number(sentences, closure.sentence),
                          "d": None, "x": True})
        answers.append({"id": int(number),
                        "entities": [{"n": n, "t": t} for (n, t) in entities],
                        "facts": facts})
    return json_reply_compact({"episodes": answers})


def json_reply_compact(content: Any) -> Behaviour:
    # A model writes compact JSON; its completion tokens are counted on what it wrote.
    return Behaviour(content=json.dumps(content, separators=(",", ":")))


def sentence_number(sentences: dict[int, str], said: str) -> int:
    wanted = normalize_name(said)
    for number, sentence in sorted(sentences.items()):
        if wanted and wanted in normalize_name(sentence):
            return number
    for number, sentence in sorted(sentences.items()):
        if normalize_name(sentence) and normalize_name(sentence) in wanted:
            return number
    return min(sentences) if sentences else 1


# -- the bench -------------------------------------------------------------------------------------


@dataclass
class PatternResult:
    pattern: str
    episodes: int = 0
    episode_tokens: int = 0
    calls: dict[str, int] = field(default_factory=dict)
    tokens_in: dict[str, int] = field(default_factory=dict)
    tokens_out: dict[str, int] = field(default_factory=dict)
    failed: int = 0
    runs: int = 0
    clusters: int = 0
    observations: int = 0
    extraction_calls_by_size: dict[int, int] = field(default_factory=dict)
    failures: dict[str, int] = field(default_factory=dict)
    """Calls whose answer was refused, by what was wrong (the fake "model" is not perfect)."""
    model_extracted: int = 0

    @property
    def total_calls(self) -> int:
        return sum(self.calls.values())

    @property
    def total_in(self) -> int:
        return sum(self.tokens_in.values())

    @property
    def total_out(self) -> int:
        return sum(self.tokens_out.values())

    def per_episode(self, value: float) -> float:
        return value / self.episodes if self.episodes else 0.0

    def as_dict(self) -> dict[str, Any]:
        n = self.episodes
        return {
            "pattern": self.pattern, "episodes": n,
            "episode_tokens_mean": self.per_episode(self.episode_tokens),
            "calls": self.calls, "tokens_in": self.tokens_in, "tokens_out": self.tokens_out,
            "calls_per_episode": self.per_episode(self.total_calls),
            "prompt_tokens_per_episode": self.per_episode(self.total_in),
            "completion_tokens_per_episode": self.per_episode(self.total_out),
            "extraction_calls_per_episode": self.per_episode(self.calls.get("extraction", 0)),
            "summary_calls_per_episode": self.per_episode(self.calls.get("summary", 0)),
            "summary_calls_per_cluster": (self.calls.get("summary", 0) / self.clusters
                                          if self.clusters else 0.0),
            "failed_calls": self.failed, "failures": self.failures, "runs": self.runs,
            "clusters": self.clusters,
            "observations_written": self.observations,
            "episodes_read_by_the_model": self.model_extracted,
            "episodes_per_extraction_call": (self.model_extracted
                                             / max(1, self.calls.get("extraction", 0))),
            "graphiti_calls_ratio": ((GRAPHITI["llm_calls"] + GRAPHITI["embedding_calls"])
                                     / max(1e-9, self.per_episode(self.total_calls))),
            "graphiti_llm_calls_ratio": GRAPHITI["llm_calls"] / max(
                1e-9, self.per_episode(self.total_calls)),
            "graphiti_prompt_tokens_ratio": GRAPHITI["prompt_tokens"] / max(
                1e-9, self.per_episode(self.total_in)),
            "meets_targets": (self.per_episode(self.total_calls) <= TARGET["calls"]
                              and self.per_episode(self.total_in) <= TARGET["prompt_tokens"]),
        }


def bench_settings(server: FakeOpenAI) -> override_settings:
    return override_settings(
        OPENAI_API_KEY="sk-bench", OPENAI_BASE_URL=server.base_url, LLM_MODEL=FAKE_MODEL,
        LLM_ENABLED=True, LLM_EXTRACTION=True, LLM_TIMEOUT_SECONDS=30.0,
        LLM_RETRY_BACKOFF_SECONDS=0.01,
    )


@contextmanager
def fake_model() -> Iterator[FakeOpenAI]:
    server = FakeOpenAI().start()
    server.responder = model_like_responder
    try:
        with bench_settings(server):
            yield server
    finally:
        server.stop()


def run_llm_bench(options: LLMBenchOptions) -> dict[str, Any]:
    from memory.llm import reset_worker_breakers

    results: dict[str, Any] = {"counter": counter(), "patterns": {}, "options": {
        "size": options.size, "seed": options.seed, "wait_seconds": options.wait_seconds,
        "jitter_minutes": options.jitter_minutes}}
    scenarios = [generate(name, options.size, seed=options.seed, form="text")
                 for name in ("projects", "support")]
    with fake_model():
        for pattern in options.patterns:
            reset_worker_breakers()
            combined = PatternResult(pattern)
            for scenario in scenarios:
                part = bench_pattern(pattern, scenario, options)
                merge(combined, part)
                results["patterns"].setdefault(pattern, {})[scenario.name] = part.as_dict()
            results["patterns"][pattern]["all"] = combined.as_dict()
    results["graphiti"] = GRAPHITI
    results["target"] = TARGET
    return results


def merge(into: PatternResult, part: PatternResult) -> None:
    into.episodes += part.episodes
    into.episode_tokens += part.episode_tokens
    for name in ("calls", "tokens_in", "tokens_out"):
        mine = getattr(into, name)
        for key, value in getattr(part, name).items():
            mine[key] = mine.get(key, 0) + value
    into.failed += part.failed
    for key, value in part.failures.items():
        into.failures[key] = into.failures.get(key, 0) + value
    into.runs += part.runs
    into.clusters += part.clusters
    into.observations += part.observations
    into.model_extracted += part.model_extracted


def bench_pattern(pattern: str, scenario: Any, options: LLMBenchOptions) -> PatternResult:
    from memory.api.services import delete_graph

    slug = f"bench-llm-{scenario.name}-{pattern.replace(' ', '-')}-{timezone.now():%H%M%S%f}"
    settings_ = {} if options.wait_seconds is None else {"model_wait_seconds":
                                                         options.wait_seconds}
    graph = Graph.objects.create(slug=slug[:80], name=slug, settings=settings_)
    records = scenario.records()
    result = PatternResult(pattern, episodes=len(records))
    result.episode_tokens = sum(count(r["content"]) for r in records)
    try:
        result.runs += simulate(graph, arrivals(pattern, records, options))
        read_back(graph, result)
    finally:
        delete_graph(graph)
    return result


def arrivals(pattern: str, records: list[dict[str, Any]], options: LLMBenchOptions
             ) -> list[tuple[datetime, list[dict[str, Any]]]]:
    """(when, the records that arrive then), in time order, for a pattern."""
    said = sorted(records, key=lambda r: (r["reference_time"], r["external_id"]))
    if pattern == "one batch":
        return [(max(datetime.fromisoformat(r["reference_time"]) for r in said), said)]
    if pattern == "daily batches":
        by_day: dict[str, list[dict[str, Any]]] = defaultdict(list)
        for record in said:
            by_day[record["reference_time"][:10]].append(record)
        return [(datetime.fromisoformat(f"{day}T18:00:00+00:00"), by_day[day])
                for day in sorted(by_day)]
    timed = sorted(((arrival(r, options.jitter_minutes), r) for r in said),
                   key=lambda pair: (pair[0], pair[1]["external_id"]))
    return [(at, [record]) for at, record in timed]


def pipeline(graph: Graph) -> int:
    run = run_pipeline(graph, trigger=PipelineRun.Trigger.COMMAND)
    if run is None or run.status != PipelineRun.Status.SUCCEEDED:
        raise RuntimeError(f"bench run failed: {run and run.error}")
    return 1


def arrival(record: dict[str, Any], jitter_minutes: int) -> datetime:
    """When an update arrives: when it was said, plus a few seeded minutes (updates said in the
    same hour by a generator arrive one by one, as people write them)."""
    said = datetime.fromisoformat(record["reference_time"])
    digest = hashlib.sha256(record["external_id"].encode()).digest()
    return said + timedelta(minutes=digest[0] % (jitter_minutes + 1), seconds=digest[1] % 60)


def simulate(graph: Graph, groups: list[tuple[datetime, list[dict[str, Any]]]]) -> int:
    """Ingest each group at its time and do what the scheduler would between arrivals (see the
    module text). Returns the pipeline runs made."""
    runs = 0
    clock = groups[0][0]

    def advance(until: datetime | None) -> None:
        """Everything the scheduler would do between the clock and ``until`` (None: the end)."""
        nonlocal clock, runs
        while True:
            # The model's work and the pipeline, whichever is due first (the model's on a tie:
            # the pipeline then runs on its reading).
            work = extraction_delay(graph, now=clock)
            settle = settle_delay(graph, now=clock)
            due = [(clock + timedelta(seconds=delay), kind)
                   for delay, kind in ((work, 0), (settle, 1)) if delay is not None]
            if not due:
                return
            at, kind = min(due)
            if until is not None and at > until:
                return
            clock = at
            if kind == 0:
                extract_due(graph, now=clock)
            else:
                runs += pipeline(graph)

    for at, records in groups:
        advance(at)
        clock = max(clock, at)
        ingest_records(graph, list(enumerate(records, start=1)), now=clock, process=False)
    advance(None)
    return runs


def read_back(graph: Graph, result: PatternResult) -> None:
    rows = (LLMCall.objects.filter(graph=graph).values("purpose")
            .annotate(calls=Count("id"), tokens_in=Sum("tokens_in"),
                      tokens_out=Sum("tokens_out")))
    for row in rows:
        result.calls[row["purpose"]] = row["calls"]
        result.tokens_in[row["purpose"]] = row["tokens_in"] or 0
        result.tokens_out[row["purpose"]] = row["tokens_out"] or 0
    failed = LLMCall.objects.filter(graph=graph).exclude(outcome=LLMCall.Outcome.OK)
    result.failed = failed.count()
    for purpose, error in failed.values_list("purpose", "error"):
        key = f"{purpose}: {error[:160]}"
        result.failures[key] = result.failures.get(key, 0) + 1
    for request in LLMCall.objects.filter(graph=graph, purpose=LLMCall.Purpose.EXTRACTION
                                          ).values_list("request", "episode_id"):
        size = len(request[0].get("episodes") or ()) or (1 if request[1] else 0)
        result.extraction_calls_by_size[size] = result.extraction_calls_by_size.get(size, 0) + 1
        result.model_extracted += size
    result.clusters = (PipelineRun.objects.filter(graph=graph).order_by("-created_at")
                       .values_list("counts", flat=True).first() or {}).get("clusters", 0)
    result.observations = Observation.objects.filter(graph=graph).count()
