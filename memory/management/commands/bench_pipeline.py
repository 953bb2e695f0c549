"""``manage.py bench_pipeline``: issue #3's performance target, measured on a graph of its density.

A synthetic graph (``--episodes``, ~4 facts each) is written straight into a new graph, then: the
full run (template summaries, or the fake model server with ``--llm``), clustering against its
floor on the same graph, memory, and the incremental run after one new episode. Prints a table;
JSON and Markdown go to ``--out`` (``var/bench-pipeline``). The graph is deleted afterwards
unless ``--keep``. See ``memory.bench.pipeline_bench``.
"""

from __future__ import annotations

import os
import sys
import time
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from django.core.management.base import BaseCommand, CommandParser
from django.db import connection

from memory.bench.fake_openai import FakeOpenAI
from memory.bench.pipeline_bench import PipelineBenchOptions, run_pipeline_bench
from memory.bench.report import render_pipeline_text, write_pipeline_outputs
from memory.management.commands.bench import machine


class Command(BaseCommand):
    help = "Time the full and the incremental pipeline run on a synthetic graph loaded directly."

    def add_arguments(self, parser: CommandParser) -> None:
        defaults = PipelineBenchOptions()
        parser.add_argument("--episodes", type=int, default=defaults.episodes)
        parser.add_argument("--seed", type=int, default=defaults.seed)
        parser.add_argument("--context-facts", type=float, default=defaults.context_facts,
                            help="USES facts per update, on average (1.5: ~4 facts per "
                                 "episode; 0: the clustering tests' sparser stream)")
        parser.add_argument("--repeats", type=int, default=defaults.repeats,
                            help="clustering and floor timings are the best of this many")
        parser.add_argument("--llm", action="store_true",
                            help="summarize with a fake OpenAI server and count its calls "
                                 "(the full run then calls it for every cluster)")
        parser.add_argument("--out", default="var/bench-pipeline",
                            help="directory for JSON and Markdown")
        parser.add_argument("--keep", action="store_true", help="keep the bench graph")

    def handle(self, *args: Any, **options: Any) -> None:
        bench = PipelineBenchOptions(
            episodes=options["episodes"], seed=options["seed"],
            context_facts=options["context_facts"], repeats=options["repeats"],
            keep=options["keep"],
        )
        meta: dict[str, Any] = {
            "command": "python manage.py bench_pipeline " + " ".join(sys.argv[2:]),
            "machine": machine(),
            "date": datetime.now(UTC).isoformat(timespec="seconds"),
            "database": connection.vendor,
        }
        started = time.perf_counter()
        load_before = os.getloadavg()
        server = FakeOpenAI().start() if options["llm"] else None
        try:
            result = run_pipeline_bench(
                bench, server, log=lambda message: self.stderr.write(f"bench_pipeline: {message}")
            )
        finally:
            if server:
                server.stop()
        # The machine may be shared: how busy it was before and after is part of the figures.
        meta["load_average"] = (f"{' '.join(f'{x:.2f}' for x in load_before)} before, "
                                f"{' '.join(f'{x:.2f}' for x in os.getloadavg())} after")
        meta["seconds"] = time.perf_counter() - started
        self.stdout.write(render_pipeline_text(result, meta))
        json_path, md_path = write_pipeline_outputs(Path(options["out"]), result, meta)
        kept = f"; graph {result['graph']} kept" if bench.keep else ""
        self.stdout.write(f"\nwrote {json_path} and {md_path}{kept}")
