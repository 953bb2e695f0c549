import sys
from datetime import UTC, datetime, time
from pathlib import Path
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from memory.importers import FORMATS
from memory.importers.model import WrongFormat
from memory.importers.runs import import_export
from memory.models import Graph


class Command(BaseCommand):
    help = (
        "Import a tracker, help desk or chat export (one episode per change or message, with its "
        "facts). Prints 'stored N, "
        "duplicates M, rejected K' and exits non-zero when any item or change was rejected; "
        "a file of the wrong format stores nothing."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("format", choices=sorted(FORMATS), help="the export's format")
        parser.add_argument("path", help="the export file, or - for standard input")
        parser.add_argument("--graph", required=True, help="the graph's slug")
        parser.add_argument("--create", action="store_true", help="create the graph if missing")
        parser.add_argument("--name", help="the graph's name when it is created")
        parser.add_argument("--since", help="only changes from this date or time on "
                                            "(YYYY-MM-DD, or ISO 8601 with an offset)")
        parser.add_argument("--base-url", help="the tracker's address, for links back to each "
                                               "item when the export does not say it "
                                               "(Bugzilla, a Jira CSV)")
        parser.add_argument("--timezone", help="the zone of times written without an offset "
                                               "(a Jira CSV: the exporting user's zone; "
                                               "default UTC)")
        parser.add_argument("--map", dest="mapping",
                            help="csv: which column is which field (\"external_id=Ticket ID,"
                                 "reference_time=Created,content=Description,"
                                 "customer=Organization,status=Status,...\"); zendesk: which "
                                 "fields name the issue, product and plan "
                                 "(\"issue=custom_field:27642,plan=organization_field:plan\")")
        parser.add_argument("--encoding", help="csv: the file's encoding when it is not UTF-8 "
                                               "(latin-1, cp1252...)")
        parser.add_argument(
            "--no-process", action="store_true", help="store only; leave extraction to workers"
        )

    def handle(self, *args: Any, **options: Any) -> None:
        slug = options["graph"]
        since = parse_since(options["since"]) if options["since"] else None
        payload = self._read(options["path"])
        graph = Graph.objects.filter(slug=slug).first()
        if graph is None:
            if not options["create"]:
                raise CommandError(f"unknown graph {slug!r}; pass --create to create it")
            graph = Graph.objects.create(slug=slug, name=options["name"] or slug)
        reader_options = {k: options[k] for k in ("base_url", "timezone", "mapping", "encoding")
                          if options[k]}
        try:
            report = import_export(graph, options["format"], payload, since=since,
                                   options=reader_options, process=not options["no_process"])
        except WrongFormat as exc:
            raise CommandError(f"not a {options['format']} export: {exc}") from None
        except ValueError as exc:
            raise CommandError(str(exc)) from None
        for problem in report.problems:
            item = f" ({problem.item})" if problem.item else ""
            self.stderr.write(f"{problem.position}{item}: {problem.reason}")
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


def parse_since(value: str) -> datetime:
    try:
        parsed = datetime.fromisoformat(value)
    except ValueError:
        raise CommandError(f"--since {value!r} is not a date (YYYY-MM-DD) or time") from None
    if len(value) == 10:  # a date: from its start, in UTC
        parsed = datetime.combine(parsed.date(), time.min)
    if parsed.tzinfo is None:
        parsed = parsed.replace(tzinfo=UTC)
    return parsed
