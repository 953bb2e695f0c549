"""``manage.py bench_llm``: model calls and tokens per update for one batch, daily batches and one
at a time, against the fake OpenAI server with tokens counted by tiktoken's o200k_base (see
``memory.bench.llm_bench``). Prints a table; JSON goes to ``--out``."""

from __future__ import annotations

import json
import sys
import time
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from django.core.management.base import BaseCommand, CommandParser
from django.db import connection

from memory.bench.llm_bench import GRAPHITI, PATTERNS, TARGET, LLMBenchOptions, run_llm_bench
from memory.management.commands.bench import machine


class Command(BaseCommand):
    help = "Count model calls and tokens per update in three ingestion patterns."

    def add_arguments(self, parser: CommandParser) -> None:
        defaults = LLMBenchOptions()
        parser.add_argument("--size", type=int, default=defaults.size,
                            help="updates per scenario (projects and support)")
        parser.add_argument("--seed", type=int, default=defaults.seed)
        parser.add_argument("--patterns", nargs="+", choices=PATTERNS, default=list(PATTERNS),
                            metavar="PATTERN", help=f"any of: {', '.join(PATTERNS)}")
        parser.add_argument("--wait-seconds", type=float, default=None,
                            help="the graphs' model_wait_seconds (default: the product's)")
        parser.add_argument("--out", default="var/bench-llm", help="directory for the JSON")

    def handle(self, *args: Any, **options: Any) -> None:
        bench = LLMBenchOptions(size=options["size"], seed=options["seed"],
                                patterns=tuple(options["patterns"]),
                                wait_seconds=options["wait_seconds"])
        started = time.perf_counter()
        result = run_llm_bench(bench)
        result["meta"] = {
            "command": "python manage.py bench_llm " + " ".join(sys.argv[2:]),
            "machine": machine(), "database": connection.vendor,
            "date": datetime.now(UTC).isoformat(timespec="seconds"),
            "seconds": round(time.perf_counter() - started, 1),
        }
        out = Path(options["out"])
        out.mkdir(parents=True, exist_ok=True)
        (out / "bench-llm.json").write_text(json.dumps(result, indent=1))
        self.stdout.write(render(result))


def render(result: dict[str, Any]) -> str:
    lines = [
        f"Tokens counted with {result['counter']}.",
        f"Graphiti (issue #16): {GRAPHITI['llm_calls']:g} LLM + {GRAPHITI['embedding_calls']:g} "
        f"embedding calls, {GRAPHITI['prompt_tokens']:,.0f} prompt tokens per short episode. "
        f"Targets: <= {TARGET['calls']} calls and <= {TARGET['prompt_tokens']:.0f} prompt tokens "
        "per episode.",
        "",
        "| pattern | updates | calls / update (extraction + summaries) | prompt tokens / update "
        "| completion tokens / update | updates per extraction call | summary calls / cluster "
        "| runs | Graphiti / ours: calls (LLM only), prompt tokens | targets |",
        "|---|---|---|---|---|---|---|---|---|---|",
    ]
    for pattern, parts in result["patterns"].items():
        for name in ("projects", "support", "all"):
            r = parts.get(name)
            if r is None:
                continue
            label = f"{pattern}, {name}" if name != "all" else f"**{pattern}, both**"
            lines.append(
                f"| {label} | {r['episodes']} | {r['calls_per_episode']:.3f} "
                f"({r['extraction_calls_per_episode']:.3f} + {r['summary_calls_per_episode']:.3f})"
                f" | {r['prompt_tokens_per_episode']:.0f}"
                f" | {r['completion_tokens_per_episode']:.0f}"
                f" | {r['episodes_per_extraction_call']:.1f} | {r['summary_calls_per_cluster']:.2f}"
                f" | {r['runs']} | {r['graphiti_calls_ratio']:.0f}× "
                f"({r['graphiti_llm_calls_ratio']:.0f}×), {r['graphiti_prompt_tokens_ratio']:.1f}×"
                f" | {'met' if r['meets_targets'] else 'not met'} |")
    meta = result.get("meta", {})
    lines += ["", f"Took {meta.get('seconds', '?')} s on {meta.get('database', '?')}."]
    return "\n".join(lines) + "\n"
