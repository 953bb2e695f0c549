from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from memory.ingestion import InvalidEpisode, parse_timestamp
from memory.models import Graph, PipelineRun
from memory.pipeline import run_pipeline


class Command(BaseCommand):
    help = (
        "Run a graph's pipeline now, in this process, and print the run's counts. --as-of replays "
        "it as of a past moment (today's knowledge of that time; the run's writes are dated then)."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--graph", required=True)
        parser.add_argument("--as-of", help="ISO 8601 with offset")

    def handle(self, *args: Any, **options: Any) -> None:
        graph = Graph.objects.filter(slug=options["graph"]).first()
        if graph is None:
            raise CommandError(f"unknown graph {options['graph']!r}")
        try:
            as_of = parse_timestamp(options["as_of"], "--as-of") if options["as_of"] else None
        except InvalidEpisode as exc:
            raise CommandError(str(exc)) from None
        run = run_pipeline(graph, trigger=PipelineRun.Trigger.COMMAND, as_of=as_of)
        if run is None:
            raise CommandError(f"another run of {graph.slug} is running; try again when it ends")
        if run.status != PipelineRun.Status.SUCCEEDED:
            raise CommandError(f"run {run.uuid} {run.status}: {run.error.splitlines()[0]}")
        self.stdout.write(format_counts(run))


def format_counts(run: PipelineRun) -> str:
    c = run.counts
    llm = c.get("llm", {})
    seconds = sum(run.timings.values())
    return (
        f"run {run.uuid} on {run.graph.slug}: {c['episodes']} episodes, {c['facts']} facts, "
        f"{c['clusters']} clusters → {c['created']} created, {c['updated']} updated, "
        f"{c['untouched']} untouched, {c['retired']} retired; "
        f"LLM calls {llm.get('calls', 0)} (cached {llm.get('cached', 0)}); {seconds:.2f}s"
    )
