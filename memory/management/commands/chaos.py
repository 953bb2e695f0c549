"""``manage.py chaos``: the fault table of issue #15 (see ``memory.bench.chaos``)."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser
from django.db import connection

from memory.bench import chaos


class Command(BaseCommand):
    help = ("Run the production stack as local processes (its own Redis, gunicorn, a Celery "
            "worker and beat) on the configured PostgreSQL, post the same episodes to two "
            "graphs — one uninterrupted, one through a killed worker, a Redis outage and a "
            "killed web process — and print what each fault cost.")

    def add_arguments(self, parser: CommandParser) -> None:
        defaults = chaos.Options()
        parser.add_argument("--episodes", type=int, default=defaults.episodes)
        parser.add_argument("--batch", type=int, default=defaults.batch,
                            help="episodes per bulk request")
        parser.add_argument("--seed", type=int, default=defaults.seed)
        parser.add_argument("--outage", type=float, default=defaults.outage_seconds,
                            help="seconds Redis stays down")
        parser.add_argument("--stale", type=int, default=defaults.stale_seconds,
                            help="EPISODE_STALE_SECONDS of the stack's worker and beat")
        parser.add_argument("--redis-port", type=int, help="default: a free port")
        parser.add_argument("--web-port", type=int, help="default: a free port")
        parser.add_argument("--logs", default="var/chaos", help="where the services log")
        parser.add_argument("--keep", action="store_true", help="keep the two graphs")

    def handle(self, *args: Any, **options: Any) -> None:
        if connection.vendor != "postgresql":
            raise CommandError("chaos needs PostgreSQL (DATABASE_URL): the worker, beat and "
                               "web processes share its database")
        if not os.environ.get("DATABASE_URL"):
            raise CommandError("set DATABASE_URL: the processes it starts read it")
        report = chaos.run(chaos.Options(
            episodes=options["episodes"], batch=options["batch"], seed=options["seed"],
            database_url=os.environ["DATABASE_URL"], log_dir=Path(options["logs"]),
            redis_port=options["redis_port"], web_port=options["web_port"],
            stale_seconds=options["stale"], outage_seconds=options["outage"],
            keep=options["keep"],
        ), say=self.stdout.write)
        self.stdout.write("")
        self.stdout.write(report.table())
        self.stdout.write("")
        self.stdout.write("targets met" if report.met else "TARGETS MISSED")
        if not report.met:
            raise SystemExit(1)
