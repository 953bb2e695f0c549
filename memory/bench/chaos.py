"""``manage.py chaos``: the faults production brings, on the production stack run as local
processes (``memory.bench.services``: its own Redis, gunicorn, a Celery worker and beat, on the
configured PostgreSQL), measured against an uninterrupted run of the same data.

The data is the bench's *projects* scenario as free text (``memory.bench.scenarios``: chains of
dependencies, status changes, shipped work that ends them, backfilled updates — updates whose
order the time rules depend on), posted to the bulk API in batches by a client that behaves as
the API asks: on a connection error or a 5xx it retries the batch with the same
``Idempotency-Key``.

1. **Clean run**: every batch posted to its own graph, no fault; wait until every episode is
   processed and a pipeline run has published the graph's last data.
2. **Faulty run**, the same batches to a second graph, with three faults on the way, none of
   them repaired by hand:
   * *worker killed mid-batch* (SIGKILL while it holds episodes; restarted at once, as the
     container's restart policy does): the sweep requeues what it held once stale;
   * *Redis stopped during ingestion* (broker and cache; started again after ``outage``
     seconds): the API keeps accepting batches, the sweep enqueues them when Redis is back;
   * *web process killed mid-request* (SIGKILL to gunicorn while a batch is in flight;
     restarted): the client retries the batch with its key.
3. **Compare**: accepted, stored, processed, duplicated, stuck; runs published; the facts that
   held at every day of the scenario (``as_of``) and that were believed after each batch
   (``known_at``), the active observations, and the errors the client saw during each fault.

Targets (issue #15): 0 lost, 0 duplicated, 0 stuck, 0 ``as_of``/``known_at`` differences, 0 5xx
while Redis is down.
"""

from __future__ import annotations

import os
import secrets
import socket
import time
import uuid
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

import httpx
from django.contrib.auth import get_user_model
from django.db.models import Count, Max

from memory import selectors
from memory.api import services as api_services
from memory.api.keys import create_api_key
from memory.bench import scenarios
from memory.bench.services import (
    BeatService,
    RedisService,
    WebService,
    WorkerService,
    free_port,
)
from memory.models import Episode, FactEvidence, Graph, Membership, Observation, PipelineRun

Row = tuple[str, str, str, datetime, datetime | None]


@dataclass
class Options:
    episodes: int = 3200
    batch: int = 100
    seed: int = 7
    database_url: str = ""
    log_dir: Path = Path("var/chaos")
    redis_port: int | None = None
    web_port: int | None = None
    stale_seconds: int = 8
    """EPISODE_STALE_SECONDS: how soon a lost worker's episodes are requeued."""
    outage_seconds: float = 10.0
    settle_timeout: float = 600.0
    keep: bool = False


@dataclass
class Window:
    """The client's requests while one fault lasted (``none``: outside any fault)."""

    fault: str
    requests: int = 0
    ok: int = 0
    server_errors: int = 0
    connection_errors: int = 0
    refused: int = 0
    """4xx answers (409 while a retried batch's first attempt was still in flight, ...)."""
    notes: list[str] = field(default_factory=list)


@dataclass
class Outcome:
    """One graph's end state."""

    label: str
    records: int
    accepted: int
    stored: int
    processed: int
    failed: int
    duplicated: int
    stuck: int
    runs_published: int
    evidence_rows: int
    seconds: float
    as_of: dict[datetime, frozenset[Row]]
    known_at: list[frozenset[Row]]
    observations: frozenset[frozenset[str | None]]
    """Each active observation's episodes, by external id (a nullable column)."""


@dataclass
class Report:
    options: Options
    clean: Outcome
    faulty: Outcome
    windows: list[Window]

    @property
    def as_of_differences(self) -> list[int]:
        """For each day, how many facts the two runs disagree about."""
        return [len(self.clean.as_of[day] ^ self.faulty.as_of.get(day, frozenset()))
                for day in self.clean.as_of]

    @property
    def known_at_differences(self) -> list[int]:
        return [len(a ^ b) for a, b in zip(self.clean.known_at, self.faulty.known_at,
                                           strict=False)]

    @property
    def observation_differences(self) -> int:
        return len(self.clean.observations ^ self.faulty.observations)

    @property
    def met(self) -> bool:
        lost = self.faulty.records - self.faulty.processed
        return (lost == 0 and self.faulty.duplicated == 0 and self.faulty.stuck == 0
                and self.faulty.runs_published > 0 and not any(self.as_of_differences)
                and not any(self.known_at_differences) and self.observation_differences == 0
                and not any(w.server_errors for w in self.windows))

    def table(self) -> str:
        lines = [
            "| run | records | accepted | stored | processed | failed | duplicated | stuck | "
            "runs published | evidence rows | s |",
            "|---|---|---|---|---|---|---|---|---|---|---|",
        ]
        for o in (self.clean, self.faulty):
            lines.append(
                f"| {o.label} | {o.records} | {o.accepted} | {o.stored} | {o.processed} | "
                f"{o.failed} | {o.duplicated} | {o.stuck} | {o.runs_published} | "
                f"{o.evidence_rows} | {o.seconds:.0f} |")
        as_of, known = self.as_of_differences, self.known_at_differences
        facts = max((len(a) for a in self.clean.as_of.values()), default=0)
        lines += [
            "",
            "| against the clean run | differing | compared |",
            "|---|---|---|",
            f"| `as_of` answers (each day of the scenario) | {sum(1 for d in as_of if d)} days, "
            f"at most {max(as_of, default=0)} facts | {len(as_of)} days, up to {facts} facts |",
            f"| `known_at` answers (after each batch) | {sum(1 for d in known if d)} batches, "
            f"at most {max(known, default=0)} facts | {len(known)} batches |",
            f"| active observations (by their episodes) | {self.observation_differences} | "
            f"{len(self.clean.observations)} |",
            "",
            "| fault | requests | 2xx | 5xx | connection errors | 4xx | what happened |",
            "|---|---|---|---|---|---|---|",
        ]
        for w in self.windows:
            lines.append(f"| {w.fault} | {w.requests} | {w.ok} | {w.server_errors} | "
                         f"{w.connection_errors} | {w.refused} | {'; '.join(w.notes)} |")
        return "\n".join(lines)


# --- The stack -------------------------------------------------------------------------------


class Stack:
    """Redis, gunicorn, a worker and beat, with short recovery timeouts."""

    def __init__(self, options: Options) -> None:
        log_dir = options.log_dir
        self.redis = RedisService(port=options.redis_port or free_port(), log_dir=log_dir)
        self.queue = f"chaos-{uuid.uuid4().hex[:8]}"
        env = {k: v for k, v in os.environ.items() if not k.startswith(("OPENAI_", "LLM_"))}
        env.update(
            DJANGO_SETTINGS_MODULE="dashboard.settings", DATABASE_URL=options.database_url,
            REDIS_URL=self.redis.url(0), CACHE_URL=self.redis.url(1),
            CACHE_PREFIX=self.queue, CELERY_QUEUE=self.queue, LOG_LEVEL="INFO",
            EPISODE_STALE_SECONDS=str(options.stale_seconds), SWEEP_INTERVAL_SECONDS="1",
            EPISODE_PENDING_GRACE_SECONDS="2", PIPELINE_RUN_STALE_SECONDS="30",
            API_THROTTLE_RATE="100000/min", API_INGEST_THROTTLE_RATE="100000/min",
            ALLOWED_HOSTS="127.0.0.1,localhost",
        )
        self.web = WebService(port=options.web_port or free_port(), env=env, log_dir=log_dir)
        self.worker = WorkerService(name=self.queue, queue=self.queue, env=env, log_dir=log_dir)
        self.beat = BeatService(name=self.queue, env=env, log_dir=log_dir)

    def start(self) -> Stack:
        for service in (self.redis, self.web, self.worker, self.beat):
            service.start()
        return self

    def close(self) -> None:
        for service in (self.beat, self.worker, self.web):
            service.stop()
        self.redis.close()


# --- The client ------------------------------------------------------------------------------


class Client:
    """Posts batches to the bulk API until each is accepted, retrying with its key as the API
    asks; counts what it saw in the current fault's window."""

    def __init__(self, base_url: str, key: str) -> None:
        self.base_url = base_url
        self.headers = {"Authorization": f"Api-Key {key}"}
        self.outside = Window("none")
        self.window = self.outside
        self.windows = [self.outside]

    @contextmanager
    def fault(self, name: str) -> Iterator[Window]:
        """Count the requests made until the block ends as this fault's."""
        self.window = Window(name)
        self.windows.append(self.window)
        try:
            yield self.window
        finally:
            self.window = self.outside

    def request(self, graph: str, index: int, records: list[dict[str, Any]]) -> httpx.Request:
        return httpx.Request(
            "POST", f"{self.base_url}/api/v1/graphs/{graph}/episodes/bulk",
            json={"episodes": records},
            headers={**self.headers, "Idempotency-Key": f"{graph}-{index}"})

    def send_unanswered(self, graph: str, index: int, records: list[dict[str, Any]], *,
                        lose: Callable[[], None]) -> None:
        """Send a batch whole, then ``lose()`` the server before reading its answer: from the
        client's side, a request that died in flight (a connection error, to be retried)."""
        request = self.request(graph, index, records)
        url = request.url
        head = [f"POST {url.raw_path.decode()} HTTP/1.1", f"Host: {url.netloc.decode()}",
                "Connection: close"]
        head += [f"{name}: {value}" for name, value in request.headers.items()
                 if name.lower() not in {"host", "connection"}]
        body = request.read()
        self.window.requests += 1
        with socket.create_connection((url.host, url.port), timeout=30) as sock:
            sock.sendall(("\r\n".join(head) + "\r\n\r\n").encode() + body)
            time.sleep(0.005)  # it has the request: now it is working on it
            lose()
            try:
                answered = bool(sock.recv(1))
            except OSError:
                answered = False
        if answered:
            self.window.ok += 1
        else:
            self.window.connection_errors += 1

    def post(self, graph: str, index: int, records: list[dict[str, Any]],
             *, give_up_after: float = 300.0) -> dict[str, Any]:
        deadline = time.monotonic() + give_up_after
        while True:
            window = self.window
            window.requests += 1
            try:
                with httpx.Client(timeout=120) as http:
                    response = http.send(self.request(graph, index, records))
            except httpx.TransportError:
                window.connection_errors += 1
            else:
                if response.status_code == 200:
                    window.ok += 1
                    return response.json()
                if response.status_code >= 500:
                    window.server_errors += 1
                else:
                    window.refused += 1
            if time.monotonic() > deadline:
                raise RuntimeError(f"batch {index} of {graph} was never accepted")
            time.sleep(0.3)


# --- Running -----------------------------------------------------------------------------------


def run(options: Options, *, say: Callable[[str], None] = print) -> Report:
    scenario = scenarios.generate("projects", options.episodes, seed=options.seed, form="text")
    records = scenario.records()
    batches = [records[i:i + options.batch] for i in range(0, len(records), options.batch)]
    token = secrets.token_hex(4)
    user = get_user_model().objects.create_user(f"chaos-{token}")
    _, key = create_api_key(user, "chaos")
    graphs = []
    for label in ("clean", "faulty"):
        graph = Graph.objects.create(slug=f"chaos-{label}-{token}", name=f"Chaos {label}",
                                     settings={"debounce_seconds": 2})
        Membership.objects.create(graph=graph, user=user, role=Membership.Role.OWNER)
        graphs.append(graph)
    stack = Stack(options).start()
    say(f"stack up: redis :{stack.redis.port}, gunicorn :{stack.web.port}, worker and beat on "
        f"queue {stack.queue}; {len(records)} episodes in {len(batches)} batches")
    try:
        client = Client(stack.web.url, key)
        started = time.monotonic()
        for index, batch in enumerate(batches):
            client.post(graphs[0].slug, index, batch)
        _settle(graphs[0], options.settle_timeout)
        clean = _outcome("clean", graphs[0], batches, client_accepted=len(records),
                         seconds=time.monotonic() - started)
        say(f"clean run: {clean.processed} processed in {clean.seconds:.0f} s")

        faulty_client = Client(stack.web.url, key)
        started = time.monotonic()
        accepted = _faulty_run(stack, faulty_client, graphs[1], batches, options, say)
        _settle(graphs[1], options.settle_timeout)
        faulty = _outcome("faulty", graphs[1], batches, client_accepted=accepted,
                          seconds=time.monotonic() - started)
        say(f"faulty run: {faulty.processed} processed in {faulty.seconds:.0f} s")
        return Report(options, clean, faulty, faulty_client.windows)
    finally:
        stack.close()
        if not options.keep:
            for graph in graphs:
                api_services.delete_graph(graph)
            user.delete()


def _faulty_run(stack: Stack, client: Client, graph: Graph, batches: list[list[dict[str, Any]]],
                options: Options, say: Callable[[str], None]) -> int:
    count = len(batches)
    kill_worker_at, redis_down_at, kill_web_at = count // 4, count // 2, (3 * count) // 4
    accepted = 0

    def post(index: int) -> None:
        nonlocal accepted
        body = client.post(graph.slug, index, batches[index])
        accepted += body["stored"] + body["duplicates"]

    index = 0
    while index < count:
        if index == kill_worker_at:
            with client.fault("worker killed mid-batch") as window:
                post(index)
                held = _wait_for(lambda: Episode.objects.filter(
                    graph=graph, status=Episode.Status.PROCESSING).count(), 60)
                stack.worker.kill()
                window.notes.append(f"killed holding {held} episodes; restarted")
                stack.worker.start()
            index += 1
        elif index == redis_down_at:
            with client.fault("Redis stopped during ingestion") as window:
                stack.redis.stop()
                down_at = time.monotonic()
                during = 0
                while index < count and index < kill_web_at and (
                        time.monotonic() - down_at < options.outage_seconds or during == 0):
                    post(index)
                    index += 1
                    during += 1
                time.sleep(max(0.0, options.outage_seconds - (time.monotonic() - down_at)))
                stack.redis.start()
                window.notes.append(f"{during} batches posted during {options.outage_seconds:.0f}"
                                    " s without Redis; restarted")
        elif index == kill_web_at:
            with client.fault("web process killed mid-request") as window:
                before = Episode.objects.filter(graph=graph).count()
                # The batch's bytes reach the server, which is killed before it can answer.
                client.send_unanswered(graph.slug, index, batches[index],
                                       lose=stack.web.kill)
                partly = Episode.objects.filter(graph=graph).count() - before
                window.notes.append(f"killed with a batch in flight ({partly} of "
                                    f"{len(batches[index])} stored); restarted, the client "
                                    "retried it")
                stack.web.start()
                post(index)
            index += 1
        else:
            post(index)
            index += 1
    say(f"faulty run: every batch accepted ({accepted} episodes)")
    return accepted


def _wait_for(value: Callable[[], int], seconds: float) -> int:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        found = value()
        if found:
            return found
        time.sleep(0.01)
    raise RuntimeError("timed out waiting for the worker to hold episodes")


def _settle(graph: Graph, timeout: float) -> None:
    """Until nothing waits and a run has published the graph's last data — nobody acts."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        unfinished = Episode.objects.filter(
            graph=graph, status__in=[Episode.Status.PENDING, Episode.Status.PROCESSING]).exists()
        version = Graph.objects.values_list("data_version", flat=True).get(pk=graph.pk)
        published = PipelineRun.objects.filter(
            graph=graph, status=PipelineRun.Status.SUCCEEDED, as_of__isnull=True,
        ).aggregate(v=Max("data_version"))["v"]
        if not unfinished and published is not None and published >= version:
            return
        time.sleep(0.5)
    episodes = dict(Episode.objects.filter(graph=graph).values_list("status").annotate(
        n=Count("pk")).order_by())
    runs = dict(PipelineRun.objects.filter(graph=graph).values_list("status").annotate(
        n=Count("pk")).order_by())
    raise RuntimeError(
        f"{graph.slug} did not settle within {timeout:.0f} s: episodes {episodes}, runs {runs}, "
        f"data version {version}, last published {published}")


def _outcome(label: str, graph: Graph, batches: list[list[dict[str, Any]]], *,
             client_accepted: int, seconds: float) -> Outcome:
    episodes = Episode.objects.filter(graph=graph)
    statuses = dict(episodes.values_list("status").annotate(n=Count("id")).order_by())
    ids = list(episodes.values_list("external_id", flat=True))
    first = min(r["reference_time"] for batch in batches for r in batch)
    last = max(r["reference_time"] for batch in batches for r in batch)
    day = datetime.fromisoformat(first).replace(hour=12, minute=0, second=0, microsecond=0)
    days = []
    while day <= datetime.fromisoformat(last) + timedelta(days=1):
        days.append(day)
        day += timedelta(days=1)
    arrived = dict(episodes.values_list("external_id", "ingested_at"))
    return Outcome(
        label=label,
        records=sum(len(b) for b in batches),
        accepted=client_accepted,
        stored=len(ids),
        processed=statuses.get("processed", 0),
        failed=statuses.get("failed", 0),
        duplicated=len(ids) - len(set(ids)),
        stuck=statuses.get("pending", 0) + statuses.get("processing", 0),
        runs_published=PipelineRun.objects.filter(
            graph=graph, status=PipelineRun.Status.SUCCEEDED).count(),
        evidence_rows=FactEvidence.objects.filter(fact__graph=graph).count(),
        seconds=seconds,
        as_of={d: _rows(selectors.facts_valid_at(graph, d)) for d in days},
        known_at=[
            _rows(selectors.facts_known_at(graph, max(arrived[r["external_id"]] for r in batch)))
            for batch in batches
        ],
        observations=frozenset(
            frozenset(o.episodes.values_list("external_id", flat=True))
            for o in Observation.objects.filter(graph=graph, status=Observation.Status.ACTIVE)
        ),
    )


def _rows(facts: Any) -> frozenset[Row]:
    return frozenset(
        (f.source.name, f.relation, f.target.name, f.valid_at, f.invalid_at)
        for f in facts.select_related("source", "target")
    )
