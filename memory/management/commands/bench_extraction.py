"""``manage.py bench_extraction``: the product's extraction scored against the labelled corpus of
real public text (``tests/corpus``): precision and recall per genre and per relation on each
split, how many episodes yield a fact, and the extraction speed. ``--path recorded`` scores the
facts the product records after ingestion and processing instead (``--path both``: the two side
by side). See ``memory.bench.extraction_bench``, ``memory.bench.recorded_facts`` and
``tests/corpus/GUIDE.md``."""

from __future__ import annotations

import sys
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError, CommandParser

from memory.bench.extraction_bench import (
    BATCHES,
    GENRES,
    PATHS,
    SPLITS,
    BenchResult,
    comparison_tables,
    load_corpus,
    miss_listing,
    path_differences,
    reading_report,
    report_tables,
    run_extraction_bench,
    write_outputs,
)
from memory.bench.recorded_facts import run_recorded_bench
from memory.management.commands.bench import machine

DEFAULT_CORPUS = Path(settings.BASE_DIR) / "tests" / "corpus" / "episodes"


class Command(BaseCommand):
    help = "Score the extraction against the labelled corpus of real text (tests/corpus)."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--split", choices=[*SPLITS, "both"], default="both")
        parser.add_argument("--genre", action="append", choices=GENRES,
                            help="only this genre (repeatable); all by default")
        parser.add_argument("--batch", action="append", choices=BATCHES,
                            help="only this batch (repeatable): 'original' (the episodes the "
                                 "split was frozen on), 'dev-extra' (dev-only episodes added "
                                 "later), 'validation' (dev-only episodes of the original "
                                 "sources, for measuring only: never with --misses) or "
                                 "'dev-extra2' (dev-only episodes of five more sources); "
                                 "original and dev-extra by default")
        parser.add_argument("--source", action="append",
                            help="only this source (repeatable): a corpus file's name without "
                                 ".jsonl, e.g. bevy-prs; all sources of the batches by default")
        parser.add_argument("--corpus", default=str(DEFAULT_CORPUS),
                            help="directory of labelled .jsonl files")
        parser.add_argument("--out", default="var/bench-extraction",
                            help="directory for JSON and Markdown")
        parser.add_argument("--path", choices=[*PATHS, "both"], default="extraction",
                            help="what is scored: 'extraction' (what the extractor reads from "
                                 "each episode, the default), 'recorded' (the facts the product "
                                 "records with each episode as evidence after ingest and "
                                 "processing, each source in a throwaway graph of the "
                                 "configured database) or 'both', side by side")
        parser.add_argument("--misses", action="store_true",
                            help="also list, per episode, the gold facts missed (- explicit, "
                                 "* implicit) and the predicted facts that match none (+)")
        parser.add_argument("--by-reading", action="store_true",
                            help="also print, per split and batch, each reading's (rule's) "
                                 "true and false positives and precision")

    def handle(self, *args: Any, **options: Any) -> None:
        corpus = Path(options["corpus"])
        if not corpus.is_dir():
            raise CommandError(f"no corpus directory {corpus}")
        if options["misses"] and "validation" in (options["batch"] or ()):
            raise CommandError("the validation batch is for measuring, not for reading misses "
                               "(tests/corpus/README.md): drop --misses or --batch validation")
        splits = SPLITS if options["split"] == "both" else (options["split"],)
        episodes = load_corpus(corpus, splits=splits, genres=options["genre"],
                               batches=options["batch"], sources=options["source"])
        if not episodes:
            raise CommandError(f"no labelled episodes in {corpus} for {', '.join(splits)}"
                               + (f" in {', '.join(options['batch'])}" if options["batch"]
                                  else "")
                               + (f" from {', '.join(options['source'])}" if options["source"]
                                  else ""))
        paths = PATHS if options["path"] == "both" else (options["path"],)
        results: dict[str, BenchResult] = {}
        for path in paths:
            results[path] = (run_recorded_bench(episodes) if path == "recorded"
                             else run_extraction_bench(episodes))
        meta = {
            "command": "python manage.py bench_extraction " + " ".join(sys.argv[2:]),
            "machine": machine(),
            "date": datetime.now(UTC).isoformat(timespec="seconds"),
            "llm_extraction": bool(settings.LLM_EXTRACTION),
        }
        written: list[Path] = []
        for path, result in results.items():
            figures = result.figures()
            if len(results) > 1:
                self.stdout.write(f"=== {path} path ===\n")
            if options["misses"]:
                self.stdout.write("\n".join(miss_listing(result.scores)) + "\n")
            if options["by_reading"]:
                self.stdout.write("\n".join(reading_report(result.scores)).lstrip("\n")
                                  + "\n\n")
            self.stdout.write("\n".join(report_tables(figures)).lstrip("\n") + "\n\n")
            written += write_outputs(Path(options["out"]), figures, meta)
        if len(results) > 1:
            if options["misses"]:
                self.stdout.write("=== gold facts only one path matched (> recorded, "
                                  "< extraction) ===\n" + "\n".join(path_differences(
                                      results["extraction"].scores,
                                      results["recorded"].scores)) + "\n")
            self.stdout.write("\n".join(comparison_tables(
                results["extraction"].figures(), results["recorded"].figures())).lstrip("\n")
                + "\n\n")
        self.stdout.write("wrote " + ", ".join(str(p) for p in written))
