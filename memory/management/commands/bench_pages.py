"""``manage.py bench_pages --graph SLUG``: board and observation page server time on a graph that
is already loaded (e.g. one ``manage.py bench --keep`` left behind), optionally with only its
``--active N`` observations of most evidence left active.

Narrowing to N active marks the others retired inside a transaction that is rolled back at the
end: nothing is changed. Requests go through Django's test client as a viewer of the graph, one
warm-up request per page, the heap frozen as a web worker's is (``dashboard/wsgi.py``).
"""

from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser
from django.db import transaction

from memory.bench.runner import time_pages
from memory.models import Graph, Observation


class Command(BaseCommand):
    help = "Time the board and observation pages of a loaded graph (p50/p95)."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--graph", required=True, help="the graph's slug")
        parser.add_argument("--active", type=int,
                            help="leave only this many active observations (rolled back)")
        parser.add_argument("--requests", type=int, default=100, help="requests per page")

    def handle(self, *args: Any, **options: Any) -> None:
        graph = Graph.objects.filter(slug=options["graph"]).first()
        if graph is None:
            raise CommandError(f"no graph {options['graph']!r}")
        with transaction.atomic():
            active = Observation.objects.filter(graph=graph, status=Observation.Status.ACTIVE)
            if options["active"] is not None:
                keep = active.order_by("-episode_count", "-fact_count", "id").values_list(
                    "id", flat=True)[: options["active"]]
                active.exclude(id__in=list(keep)).update(status=Observation.Status.RETIRED)
            if not active.exists():
                raise CommandError("the graph has no active observation")
            self.stdout.write(f"{graph.slug}: {active.count():,} active observations, "
                              f"{graph.episodes.count():,} episodes")
            try:
                for name, times in time_pages(graph, options["requests"]).items():
                    self.stdout.write(f"{name}: p50 {times['p50']:.1f} ms, "
                                      f"p95 {times['p95']:.1f} ms over {options['requests']}")
            finally:
                transaction.set_rollback(True)
