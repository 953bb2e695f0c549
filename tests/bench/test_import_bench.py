"""Import throughput: the generated exports read as their importers expect, every ticket mapped."""

from __future__ import annotations

from memory.bench.import_bench import measure_imports


def test_each_format_reads_every_generated_ticket_without_problems() -> None:
    results = {r["format"]: r for r in measure_imports(60)}

    assert set(results) == {"zendesk", "csv", "slack"}
    assert all(r["items"] == 60 and r["problems"] == 0 for r in results.values())
    assert results["zendesk"]["episodes"] == 180  # three audits a ticket
    assert results["csv"]["episodes"] == 60
    assert results["slack"]["episodes"] == 180  # a thread of three messages
    assert all(r["items_per_second"] > 0 and r["cpu_seconds"] > 0 for r in results.values())
