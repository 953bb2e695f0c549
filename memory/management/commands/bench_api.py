"""Benchmark the APIs over real HTTP (an in-process threaded server and an httpx client):

* bulk ingestion of structured episodes (episodes/s), saying where extraction ran;
* the queries of the list endpoints at two page sizes (they must be equal);
* observation search latency (p50/p95) at ``--observations`` observations.

It works in throwaway graphs of a ``bench-api`` user and deletes them afterwards (``--keep`` to
keep them). Run it on PostgreSQL for the README's figures."""

from __future__ import annotations

import random
import secrets
import statistics
import threading
import time
import uuid
from datetime import UTC, datetime, timedelta
from typing import Any

import httpx
from django.conf import settings
from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand, CommandParser
from django.core.servers.basehttp import (
    ThreadedWSGIServer,
    WSGIRequestHandler,
    get_internal_wsgi_application,
)
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext

from memory.api import services
from memory.api.keys import create_api_key
from memory.models import ApiKey, Graph, Membership, Observation, PipelineRun

WORDS = ["migration", "payments", "checkout", "onboarding", "billing", "search", "mobile",
         "analytics", "auth", "refactor", "gateway", "invoices", "reporting", "export", "import",
         "sync", "dashboard", "alerts", "pricing", "trial"]
START = datetime(2026, 1, 5, 9, 0, tzinfo=UTC)


class _Quiet(WSGIRequestHandler):
    def log_message(self, *args: Any) -> None:
        pass


class Command(BaseCommand):
    help = "Benchmark API ingestion, list query counts and observation search over HTTP."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--episodes", type=int, default=10_000)
        parser.add_argument("--batch", type=int, default=500)
        parser.add_argument("--observations", type=int, default=10_000)
        parser.add_argument("--searches", type=int, default=200)
        parser.add_argument("--inline", action="store_true",
                            help="extract inline in the request (the embedded default)")
        parser.add_argument("--keep", action="store_true", help="keep the bench graphs")

    def handle(self, *args: Any, **options: Any) -> None:
        from dashboard.celery import app

        user, _ = get_user_model().objects.get_or_create(username="bench-api")
        key, raw = create_api_key(user, "bench")
        tag = secrets.token_hex(3)
        queue = f"bench-api-{tag}"
        saved = app.conf.task_default_queue, app.conf.task_always_eager
        if options["inline"]:
            app.conf.task_always_eager = True
        app.conf.task_default_queue = queue
        server = ThreadedWSGIServer(("127.0.0.1", 0), _Quiet)
        server.set_app(get_internal_wsgi_application())
        threading.Thread(target=server.serve_forever, daemon=True).start()
        base = f"http://127.0.0.1:{server.server_address[1]}"
        graphs: list[Graph] = []
        try:
            db = connection.vendor
            self.stdout.write(f"database: {db} · server: threaded WSGI on {base}")
            graphs.append(self._ingest(base, raw, user, tag, options, app))
            self._query_counts(user, graphs[0])
            graphs.append(self._search(base, raw, user, tag, options))
        finally:
            server.shutdown()
            app.conf.task_default_queue, app.conf.task_always_eager = saved
            if not options["keep"]:
                for graph in graphs:
                    services.delete_graph(graph)
            ApiKey.objects.filter(pk=key.pk).delete()
            _purge_queue(queue)

    # --- Ingestion -------------------------------------------------------------------------

    def _ingest(self, base: str, raw: str, user: Any, tag: str, options: dict[str, Any],
                app: Any) -> Graph:
        graph = services.create_graph(user, name=f"bench api ingest {tag}")
        total, size = options["episodes"], options["batch"]
        where = ("inline, in the request (embedded default)" if app.conf.task_always_eager
                 else f"enqueued to Celery workers on {settings.REDIS_URL or 'the broker'} "
                      "(not waited for)")
        records = [_structured(n) for n in range(total)]
        with httpx.Client(base_url=base, headers={"Authorization": f"Api-Key {raw}"},
                          timeout=600) as client:
            started = time.perf_counter()
            for i in range(0, total, size):
                response = client.post(
                    f"/api/v1/graphs/{graph.slug}/episodes/bulk",
                    json={"episodes": records[i : i + size]},
                    headers={"Idempotency-Key": f"{tag}-{i}"},
                )
                response.raise_for_status()
            elapsed = time.perf_counter() - started
        self.stdout.write(
            f"ingest: {total:,} structured episodes in batches of {size} over HTTP: "
            f"{elapsed:.2f} s = {total / elapsed:,.0f} episodes/s; extraction {where}"
        )
        return graph

    # --- Query counts ----------------------------------------------------------------------

    def _query_counts(self, user: Any, graph: Graph) -> None:
        client = Client()
        _, raw = create_api_key(user, "bench counts")
        headers = {"Authorization": f"Api-Key {raw}"}
        for path in ("episodes", "facts", "entities", "observations", "runs"):
            counts = []
            for size in (10, 100):
                with CaptureQueriesContext(connection) as queries:
                    response = client.get(f"/api/v1/graphs/{graph.slug}/{path}",
                                          {"page_size": size}, headers=headers)
                assert response.status_code == 200, response.content[:200]
                counts.append(len(queries))
            self.stdout.write(f"queries: GET {path}: {counts[0]} at page_size=10, "
                              f"{counts[1]} at page_size=100")

    # --- Search ----------------------------------------------------------------------------

    def _search(self, base: str, raw: str, user: Any, tag: str,
                options: dict[str, Any]) -> Graph:
        graph = services.create_graph(user, name=f"bench api search {tag}")
        count = options["observations"]
        run = PipelineRun.objects.create(graph=graph, status=PipelineRun.Status.SUCCEEDED)
        rng = random.Random(7)
        rows = []
        for n in range(count):
            a, b, c = rng.sample(WORDS, 3)
            blocked = n % 100 == 0
            name = (f"{a.title()} {b} blocking {rng.randint(2, 9)} workstreams" if blocked
                    else f"{a.title()} {b} and {c}")
            summary = (f"The {a} {b} is the root blocker of a dependency chain across several "
                       f"workstreams; the {c} work is blocked downstream." if blocked else
                       f"Updates about the {a} {b} and the {c} recur in weekly notes; the "
                       f"{c} team reported progress on {rng.choice(WORDS)}.")
            rows.append(Observation(
                graph=graph, lineage=uuid.uuid4(), kind="dependency_chain", name=name,
                summary=summary, window_start=START, window_end=START + timedelta(days=n % 90),
                evidence_fingerprint=f"{n}", generator="template", created_by_run=run,
            ))
        Observation.objects.bulk_create(rows, batch_size=1000)
        if connection.vendor == "postgresql":
            # What autovacuum does soon after a bulk load: without statistics the planner
            # expects one row per graph and filters 10,000 summaries instead of using the index.
            with connection.cursor() as cursor:
                cursor.execute(f"ANALYZE {Observation._meta.db_table}")
        Membership.objects.get_or_create(graph=graph, user=user,
                                         defaults={"role": Membership.Role.OWNER})
        queries = ["blocked workstreams", "payments", "checkout blocked", "root blocker auth",
                   "weekly progress", "nothing matches this zebra"]
        latencies = []
        with httpx.Client(base_url=base, headers={"Authorization": f"Api-Key {raw}"},
                          timeout=60) as client:
            for i in range(options["searches"]):
                started = time.perf_counter()
                response = client.get(f"/api/v1/graphs/{graph.slug}/search",
                                      params={"q": queries[i % len(queries)],
                                              "types": "observation", "page_size": 20})
                latencies.append((time.perf_counter() - started) * 1000)
                response.raise_for_status()
        latencies.sort()
        p95 = latencies[int(0.95 * (len(latencies) - 1))]
        self.stdout.write(
            f"search: {len(latencies)} observation searches over HTTP at {count:,} observations "
            f"({connection.vendor}): p50 {statistics.median(latencies):.1f} ms, "
            f"p95 {p95:.1f} ms, max {latencies[-1]:.1f} ms"
        )
        return graph


def _structured(n: int) -> dict[str, Any]:
    """A tracker-style episode whose facts come with it (the structured extractor)."""
    item, blocker = f"Work item {n % 400}", f"Service {n % 37}"
    return {
        "external_id": f"bench-{n}",
        "author": f"Person {n % 50}",
        "reference_time": (START + timedelta(minutes=n)).isoformat(),
        "source": "tracker",
        "content": f"{item} depends on {blocker}.",
        "facts": [{"source": item, "relation": "DEPENDS_ON", "target": blocker,
                   "fact": f"{item} depends on {blocker}.", "source_type": "WorkItem",
                   "target_type": "Service"}],
    }


def _purge_queue(queue: str) -> None:
    if not settings.REDIS_URL:
        return
    import redis

    redis.Redis.from_url(settings.REDIS_URL).delete(queue)
