import json
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from memory.ingestion import InvalidEpisode, parse_timestamp
from memory.models import Graph
from memory.selectors import (
    current_facts,
    fact_as_dict,
    facts_known_at,
    facts_valid_at,
    with_evidence,
)


class Command(BaseCommand):
    help = "Print a graph's facts as JSON: current by default, or valid at --as-of / --known-at."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--graph", required=True)
        parser.add_argument("--as-of", help="world time (ISO 8601 with offset)")
        parser.add_argument("--known-at", help="system time (ISO 8601 with offset)")

    def handle(self, *args: Any, **options: Any) -> None:
        graph = Graph.objects.filter(slug=options["graph"]).first()
        if graph is None:
            raise CommandError(f"unknown graph {options['graph']!r}")
        try:
            as_of = parse_timestamp(options["as_of"], "--as-of") if options["as_of"] else None
            known_at = (
                parse_timestamp(options["known_at"], "--known-at") if options["known_at"]
                else None
            )
        except InvalidEpisode as exc:
            raise CommandError(str(exc)) from None
        if known_at:
            facts = facts_known_at(graph, known_at, valid_at=as_of)
        elif as_of:
            facts = facts_valid_at(graph, as_of)
        else:
            facts = current_facts(graph)
        rows = [fact_as_dict(f) for f in with_evidence(facts)]
        self.stdout.write(json.dumps(rows, indent=2, ensure_ascii=False))
