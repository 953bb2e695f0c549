"""``manage.py bench``: the performance and quality harness (issue #7, ``memory.bench``).

For each scenario × size × form it generates the episodes and their ground truth, runs them
through the real product path in a throwaway graph (deleted afterwards unless ``--keep``),
scores the result and prints a table; JSON and Markdown go to ``--out`` (``var/bench``).
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import sys
import time
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError, CommandParser
from django.db import connection

from memory.bench.alternatives import NETWORKX_MISSING
from memory.bench.fake_openai import FakeOpenAI
from memory.bench.import_bench import measure_imports
from memory.bench.imports import render as render_imports
from memory.bench.imports import run_import_bench
from memory.bench.report import render_text, write_outputs
from memory.bench.runner import CaseOptions, run_case
from memory.bench.scenarios import FORMS, SCENARIOS
from memory.bench.support_corpus import BATCHES, SKLEARN_MISSING, SPLITS
from memory.bench.support_corpus import compare as compare_support_corpus
from memory.bench.trap_runs import run_traps
from memory.bench.trickle import run_trickle

PARTS = ("scenarios", "traps", "trickle", "support-corpus", "support-imports")
DEFAULT_CORPUS = Path(settings.BASE_DIR) / "tests" / "corpus" / "episodes"
FULL_SIZES = [1_000, 10_000, 100_000]
QUICK_SIZES = [150]
TRICKLE_SIZE = 300
QUICK_TRICKLE_SIZE = 100
TEXT_MAX_SIZE = 10_000
"""Free text goes through the rules extractor (~hundreds of episodes/s): above this size only the
structured form runs (clustering and pipeline at scale), unless --forms says otherwise."""


class Command(BaseCommand):
    help = "Generate scenarios with ground truth, run them through the product, score and time."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--sizes", type=int, nargs="+", help="episodes per scenario")
        parser.add_argument("--scenarios", nargs="+", choices=SCENARIOS, default=list(SCENARIOS))
        parser.add_argument("--forms", nargs="+", choices=FORMS,
                            help=f"default: text up to {TEXT_MAX_SIZE:,} episodes, structured "
                                 "at every size")
        parser.add_argument("--quick", action="store_true",
                            help=f"sizes {QUICK_SIZES}, few requests (the CI test)")
        parser.add_argument("--out", default="var/bench", help="directory for JSON and Markdown")
        parser.add_argument("--seed", type=int, default=7)
        parser.add_argument("--requests", type=int, help="requests per page timed (default 20)")
        parser.add_argument("--no-llm", action="store_true",
                            help="no fake model server: template summaries, no naive comparison")
        parser.add_argument("--keep", action="store_true", help="keep the bench graphs")
        parser.add_argument("--imports", action=argparse.BooleanOptionalAction, default=True,
                            help="the tracker import figures (parsing and mapping throughput; "
                                 "the real samples end to end); on by default")
        parser.add_argument("--imports-only", action="store_true",
                            help="only the tracker import figures")
        parser.add_argument("--parts", nargs="+", choices=PARTS, default=list(PARTS),
                            help="the generated scenarios; the traps of issue #13 (found/right "
                                 "per trap); versions per observation per week in a one-at-a-"
                                 "time trickle; the real support corpus grouped by us and by "
                                 "TF-IDF + k-means; the support formats' import throughput (all "
                                 "by default)")
        parser.add_argument("--trickle-size", type=int,
                            help=f"updates in the trickle (default {TRICKLE_SIZE}, "
                                 f"{QUICK_TRICKLE_SIZE} with --quick)")
        parser.add_argument("--corpus", default=str(DEFAULT_CORPUS),
                            help="directory of the labelled corpus (support-corpus part)")
        parser.add_argument("--support-split", choices=SPLITS, default="all",
                            help="the support corpus's messages of this split (default all)")
        parser.add_argument("--support-batch", choices=BATCHES, default="original",
                            help="the support corpus's messages of this batch (default the "
                                 "original one; dev-extra and validation are dev only; all = "
                                 "original and dev-extra)")

    def handle(self, *args: Any, **options: Any) -> None:
        if options["imports_only"]:
            self._imports(options)
            return
        parts = options["parts"]
        try:
            import networkx  # noqa: F401
        except ImportError:
            raise CommandError(NETWORKX_MISSING) from None
        if "support-corpus" in parts:
            try:
                import sklearn  # noqa: F401
            except ImportError:
                raise CommandError(SKLEARN_MISSING) from None
        quick = options["quick"]
        sizes = options["sizes"] or (QUICK_SIZES if quick else FULL_SIZES)
        out = Path(options["out"])
        case_options = CaseOptions(
            seed=options["seed"],
            requests=options["requests"] if options["requests"] is not None else
            (5 if quick else 20),
            repeats=1 if quick else 3,
            data_dir=out / "data",
            keep=options["keep"],
        )
        server = None if options["no_llm"] else FakeOpenAI().start()
        started = time.perf_counter()
        results: list[dict[str, Any]] = []
        extras: dict[str, Any] = {}
        try:
            if "traps" in parts:
                self.stderr.write(f"bench: the traps of issue #13 on {connection.vendor}…")
                extras["traps"] = run_traps(seed=options["seed"], server=server,
                                            keep=options["keep"])
            if "trickle" in parts:
                size = options["trickle_size"] or (QUICK_TRICKLE_SIZE if quick else TRICKLE_SIZE)
                self.stderr.write(f"bench: {size} updates one at a time…")
                extras["trickle"] = run_trickle(size, seed=options["seed"], server=server,
                                                keep=options["keep"])
            if "support-corpus" in parts:
                self.stderr.write(f"bench: the support corpus on {connection.vendor}…")
                extras["support_corpus"] = compare_support_corpus(
                    Path(options["corpus"]), split=options["support_split"],
                    batch=options["support_batch"])
            if "support-imports" in parts:
                tickets = 2_000 if quick else 20_000
                self.stderr.write(f"bench: import throughput, {tickets:,} tickets per format…")
                extras["support_imports"] = measure_imports(tickets, seed=options["seed"])
            for size in (sizes if "scenarios" in parts else []):
                forms = options["forms"] or (
                    ["text", "structured"] if size <= TEXT_MAX_SIZE else ["structured"])
                for form in forms:
                    for scenario in options["scenarios"]:
                        self.stderr.write(f"bench: {scenario} {form} {size:,} on "
                                          f"{connection.vendor}…")
                        case_started = time.perf_counter()
                        results.append(run_case(scenario, size, form, case_options, server))
                        self.stderr.write(f"  done in {time.perf_counter() - case_started:.1f} s")
                        # Written after every case: a long run interrupted keeps what it measured.
                        write_outputs(out, results, self._meta(started, server), extras)
        finally:
            if server:
                server.stop()
        self.stdout.write(render_text(results, extras))
        json_path, md_path = write_outputs(out, results, self._meta(started, server), extras)
        self.stdout.write(f"\nwrote {json_path} and {md_path}")
        if options["imports"]:
            self._imports(options)

    def _imports(self, options: dict[str, Any]) -> None:
        self.stderr.write(f"bench: tracker imports on {connection.vendor}…")
        result = run_import_bench(keep=options["keep"])
        self.stdout.write("\n" + render_imports(result))
        out = Path(options["out"])
        out.mkdir(parents=True, exist_ok=True)
        (out / "imports.json").write_text(json.dumps(result, indent=1, default=str))


    def _meta(self, started: float, server: FakeOpenAI | None) -> dict[str, Any]:
        return {
            "command": "python manage.py bench " + " ".join(sys.argv[2:]),
            "machine": machine(),
            "date": datetime.now(UTC).isoformat(timespec="seconds"),
            "seconds": time.perf_counter() - started,
            "database": connection.vendor,
            "llm": "fake OpenAI server" if server else "off (template summaries)",
            # Other work on the machine slows wall-clock figures (the import throughput's).
            "load_average": [round(x, 2) for x in os.getloadavg()],
        }


def machine() -> str:
    cpus = os.cpu_count()
    try:
        memory = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES") / 2**30
    except (ValueError, OSError):
        memory = 0.0
    db = connection.vendor
    if db == "postgresql":
        db += f" {connection.cursor().connection.info.server_version}"
    return (f"{platform.system()} {platform.machine()}, {cpus} CPUs, {memory:.0f} GB RAM, "
            f"Python {platform.python_version()}, {db}")
