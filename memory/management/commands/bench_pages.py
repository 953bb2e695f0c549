"""``manage.py bench_pages --graph SLUG``: board and observation page server time on a graph that
is already loaded (e.g. one ``manage.py bench --keep`` left behind), optionally with only its
``--active N`` observations of most evidence left active.

Narrowing to N active marks the others retired inside a transaction that is rolled back at the
end: nothing is changed. Requests go through Django's test client as a viewer of the graph, one
warm-up request per page, the heap frozen as a web worker's is (``dashboard/wsgi.py``).
"""

from __future__ import annotations

import gc
from typing import Any

from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand, CommandError, CommandParser
from django.db import transaction
from django.test import Client
from django.urls import reverse

from memory.bench.runner import Case
from memory.models import Graph, Membership, Observation


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
            biggest = active.order_by("-episode_count", "-fact_count").first()
            if biggest is None:
                raise CommandError("the graph has no active observation")
            self.stdout.write(f"{graph.slug}: {active.count():,} active observations, "
                              f"{graph.episodes.count():,} episodes")
            client = Client()
            client.force_login(viewer_of(graph))
            pages = {"board": reverse("board", args=[graph.slug]),
                     "observation": reverse("observation", args=[graph.slug, biggest.uuid])}
            gc.collect()
            gc.freeze()
            try:
                for name, url in pages.items():
                    client.get(url)  # warm-up: templates load and compile, not measured
                    times = Case._time_page(client, url, options["requests"])
                    self.stdout.write(f"{name}: p50 {times['p50']:.1f} ms, "
                                      f"p95 {times['p95']:.1f} ms over {options['requests']}")
            finally:
                gc.unfreeze()
                transaction.set_rollback(True)


def viewer_of(graph: Graph) -> Any:
    user, _ = get_user_model().objects.get_or_create(username="bench-viewer")
    Membership.objects.get_or_create(graph=graph, user=user,
                                     defaults={"role": Membership.Role.VIEWER})
    return user
