"""``manage.py bench_llm`` on a small run: real calls to the fake server, real token counts, the
product's own scheduling on a simulated clock."""

from __future__ import annotations

import json
from io import StringIO
from pathlib import Path

import pytest
from django.core.management import call_command

from memory.bench.llm_bench import LLMBenchOptions, arrivals, run_llm_bench
from memory.bench.scenarios import generate
from memory.models import Graph, LLMCall

pytestmark = pytest.mark.django_db


@pytest.mark.slow
def test_the_bench_counts_calls_and_tokens_per_update_in_every_pattern() -> None:
    result = run_llm_bench(LLMBenchOptions(size=40))

    assert result["counter"].startswith("tiktoken 0.14.0, o200k_base")
    for pattern in ("one batch", "daily batches", "one at a time"):
        both = result["patterns"][pattern]["all"]
        assert both["episodes"] >= 80
        assert both["calls"]["extraction"] > 0 and both["calls"]["summary"] > 0
        assert both["failed_calls"] == 0  # every answer of the "model" was accepted
        assert both["prompt_tokens_per_episode"] > 0 and both["completion_tokens_per_episode"] > 0
        assert both["episodes_read_by_the_model"] == both["episodes"]
    one_batch = result["patterns"]["one batch"]["all"]
    assert one_batch["episodes_per_extraction_call"] > 10  # batches of up to 16
    assert one_batch["meets_targets"]
    assert not Graph.objects.exists() and not LLMCall.objects.exists()  # cleaned up


def test_one_at_a_time_each_update_arrives_alone_after_it_was_said() -> None:
    records = generate("projects", 20, form="text").records()

    groups = arrivals("one at a time", records, LLMBenchOptions())
    daily = arrivals("daily batches", records, LLMBenchOptions())

    assert len(groups) == len(records) and all(len(g) == 1 for _, g in groups)
    assert [at for at, _ in groups] == sorted(at for at, _ in groups)
    assert all(at.isoformat() >= g[0]["reference_time"] for at, g in groups)
    assert sum(len(g) for _, g in daily) == len(records)
    assert all(at.hour == 18 for at, _ in daily)


@pytest.mark.slow
def test_the_command_prints_the_table_and_writes_the_json(tmp_path: Path) -> None:
    out = StringIO()

    call_command("bench_llm", "--size", "20", "--patterns", "one batch", "--out", str(tmp_path),
                 stdout=out)

    assert "| **one batch, both** |" in out.getvalue()
    assert "Tokens counted with tiktoken" in out.getvalue()
    data = json.loads((tmp_path / "bench-llm.json").read_text())
    assert data["meta"]["command"].startswith("python manage.py bench_llm")
