import sys
from pathlib import Path
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from memory.ingestion import ingest_records, read_records
from memory.models import Graph


class Command(BaseCommand):
    help = (
        "Ingest episodes from a JSON Lines file (or one JSON array), '-' for stdin. Prints "
        "'stored N, duplicates M, rejected K' and exits non-zero when any line was rejected."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("path", help="a .jsonl / .json file, or - for standard input")
        parser.add_argument("--graph", required=True, help="the graph's slug")
        parser.add_argument("--create", action="store_true", help="create the graph if missing")
        parser.add_argument("--name", help="the graph's name when it is created")
        parser.add_argument(
            "--no-process", action="store_true", help="store only; leave extraction to workers"
        )

    def handle(self, *args: Any, **options: Any) -> None:
        slug = options["graph"]
        graph = Graph.objects.filter(slug=slug).first()
        if graph is None:
            if not options["create"]:
                raise CommandError(f"unknown graph {slug!r}; pass --create to create it")
            graph = Graph.objects.create(slug=slug, name=options["name"] or slug)
        payload = self._read(options["path"])
        report = ingest_records(graph, read_records(payload), process=not options["no_process"])
        for result in report.results:
            if result.status == "rejected":
                self.stderr.write(f"line {result.line}: {result.field}: {result.reason}")
        self.stdout.write(report.summary())
        if report.rejected:
            sys.exit(1)

    def _read(self, path: str) -> bytes:
        if path == "-":
            return sys.stdin.buffer.read()
        try:
            return Path(path).read_bytes()
        except OSError as exc:
            raise CommandError(f"cannot read {path}: {exc.strerror}") from None
