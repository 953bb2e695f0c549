import json
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from memory.exports import observation_as_dict, observations_for_export
from memory.models import Graph


class Command(BaseCommand):
    help = "Print a graph's observations as a JSON array."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--graph", required=True)
        parser.add_argument("--status", choices=["active", "retired", "all"], default="active")

    def handle(self, *args: Any, **options: Any) -> None:
        graph = Graph.objects.filter(slug=options["graph"]).first()
        if graph is None:
            raise CommandError(f"unknown graph {options['graph']!r}")
        rows = [observation_as_dict(o)
                for o in observations_for_export(graph, options["status"])]
        self.stdout.write(json.dumps(rows, indent=2, ensure_ascii=False))
