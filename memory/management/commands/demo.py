"""``python manage.py demo``: load the bundled demo graphs and a login to look at them.

Creates the ``seed``, ``atlas`` and ``support`` graphs (see ``memory.demo``), ingests their updates
as if they had arrived over the past four weeks, replays the pipeline at the end of every day so
the observations have a history, and creates the ``demo`` user (staff and superuser, owner of the
three graphs) with a fresh random password, printed at the end. Safe to run again: nothing is
duplicated, only the password changes.
"""

from __future__ import annotations

import secrets
import time
from typing import Any

from django.contrib.auth import get_user_model
from django.contrib.auth.models import AbstractUser
from django.core.management.base import BaseCommand, CommandError, CommandParser
from django.db import transaction
from django.utils import timezone

from memory.demo import DemoLoadError, GraphReport, demo_graphs, graph_report, load_demo_graph
from memory.models import Graph, Membership

DEMO_USERNAME = "demo"
LOGIN_URL = "http://127.0.0.1:8000/"


class Command(BaseCommand):
    help = (
        "Load the demo graphs (seed, atlas, support) with a month of history, and create the "
        "'demo' login (a new random password each run). Idempotent."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument(
            "--no-replay",
            action="store_true",
            help="skip the day-by-day replay of the past month; run the pipeline once, now",
        )
        parser.add_argument(
            "--quiet", action="store_true", help="print only where and how to log in"
        )
        parser.add_argument(
            "--url", default=LOGIN_URL, help="where the site will be served (for the message)"
        )

    def handle(self, *args: Any, **options: Any) -> None:
        quiet: bool = options["quiet"]
        started = time.perf_counter()
        now = timezone.now()
        graphs: list[Graph] = []
        for demo in demo_graphs():
            step = time.perf_counter()
            try:
                result = load_demo_graph(
                    demo, now=now, replay=not options["no_replay"],
                    progress=self.stdout.write if options["verbosity"] >= 2 else None,
                )
            except DemoLoadError as exc:
                raise CommandError(f"could not load the {demo.slug} demo: {exc}") from exc
            graphs.append(result.graph)
            if result.failed:
                # Failed episodes stay visible with their error (and retryable) in the admin.
                self.stderr.write(
                    f"{demo.slug}: {len(result.failed)} episodes failed to process: "
                    + ", ".join(result.failed)
                )
            if quiet:
                continue
            what = (
                f"stored {result.stored} updates, {result.replays} daily replays"
                if result.stored else "already loaded, nothing new"
            )
            self.stdout.write(self.describe(graph_report(result.graph)))
            self.stdout.write(f"    ({what}; {time.perf_counter() - step:.1f}s)\n")
        password = self.demo_login(graphs)
        if not quiet:
            self.stdout.write(f"Loaded in {time.perf_counter() - started:.1f}s.\n")
        self.stdout.write(
            f"Log in at {options['url']}\n"
            f"  username: {DEMO_USERNAME}\n"
            f"  password: {password}"
        )

    def describe(self, report: GraphReport) -> str:
        lines = [
            self.style.MIGRATE_HEADING(f"{report.name} ({report.slug})"),
            f"  {report.episodes} episodes · {report.facts} facts ({report.facts_current} "
            f"current, {report.facts_ended} ended) · {report.entities} entities · "
            f"{report.runs} pipeline runs",
            f"  observations: {len(report.active)} active, {report.retired} retired",
        ]
        for observation in report.active:
            kind = observation.get_kind_display().lower()
            lines.append(f"    • {observation.name}  [{kind}]")
        return "\n".join(lines)

    @transaction.atomic
    def demo_login(self, graphs: list[Graph]) -> str:
        """The demo user: staff and superuser (the admin audit is part of the tour), owner of
        every demo graph, with a new random password each time — printed, never stored in
        clear."""
        user_model = get_user_model()
        user, _ = user_model.objects.get_or_create(
            username=DEMO_USERNAME, defaults={"email": "demo@example.com"}
        )
        assert isinstance(user, AbstractUser)
        password = secrets.token_urlsafe(12)
        user.is_active = user.is_staff = user.is_superuser = True
        user.set_password(password)
        user.save()
        for graph in graphs:
            Membership.objects.update_or_create(
                graph=graph, user=user, defaults={"role": Membership.Role.OWNER}
            )
        return password
