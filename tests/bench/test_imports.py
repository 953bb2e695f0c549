"""The import figures of ``manage.py bench`` on the two real samples: what issue #12 measures
after importing each and one run (timings are printed by the bench, never asserted)."""

from __future__ import annotations

from io import StringIO

import pytest
from django.core.management import call_command

from memory.bench.imports import SAMPLES, SAMPLES_DIR, end_to_end, parse_and_map
from memory.models import Graph

pytestmark = pytest.mark.stalled  # the samples' stalled items: dates years old


def test_parsing_and_mapping_counts_items_and_changes() -> None:
    row = parse_and_map("bugzilla", (SAMPLES_DIR / SAMPLES["bugzilla"]).read_bytes(), repeats=1)

    assert (row["items"], row["episodes"]) == (58, 433)
    assert row["items_per_second"] > 0


@pytest.mark.django_db(transaction=True)
def test_the_bugzilla_sample_end_to_end_meets_the_issues_measures() -> None:
    figures = end_to_end("bugzilla", (SAMPLES_DIR / SAMPLES["bugzilla"]).read_bytes(),
                         slug="bench-import-test")

    assert figures["stored"] == 433 and figures["run_status"] == "succeeded"
    assert figures["observations_with_final_root_blocker"] == 0
    assert (figures["dependency_cycles_ever"], figures["dependency_cycles_current"]) == (2, 0)
    assert figures["open_trees_split_across_observations"] == 0
    assert figures["tracking_items"] == 4
    assert figures["tracking_items_shown_as_root_blockers"] == 0
    # Two [meta] bugs and two old dependencies, each named by its bug's title; no bug's own
    # history (issue #13: five observations before, one of them "3 updates about Bug 1586096");
    # and the four bugs still NEW since they were filed that no pattern holds, as stalled items
    # (issue #13 item 5; tests/memory/importers/test_observations_of_the_samples.py names them;
    # the [meta] Bug 447581's own quiet stall is held by its tracker card).
    names = figures["observations"]
    patterns = [name for name in names if " in status NEW since " not in name]
    assert figures["active_observations"] == len(names) == 8
    assert len(names) - len(patterns) == 4
    assert [name.split(" “")[0] for name in patterns] == [
        "Bug 1556846", "Bug 370886 blocking Bug 528988", "Bug 446261", "Bug 447581"]
    assert not Graph.objects.filter(slug="bench-import-test").exists()  # deleted after


@pytest.mark.django_db(transaction=True)
def test_the_github_sample_end_to_end_has_no_closed_root_blocker() -> None:
    figures = end_to_end("github", (SAMPLES_DIR / SAMPLES["github"]).read_bytes(),
                         slug="bench-import-test")

    assert figures["stored"] == 160
    # No fact joins two issues (see the README): no pattern; the 40 issues still open since
    # April 2021 are stalled items.
    assert len(figures["observations"]) == 40
    assert all(" open since 1" in name and name.endswith(" Apr 2021")
               for name in figures["observations"])
    assert figures["observations_with_final_root_blocker"] == 0
    assert figures["dependency_cycles_current"] == 0


@pytest.mark.django_db(transaction=True)
def test_the_bench_prints_the_import_tables(tmp_path) -> None:  # type: ignore[no-untyped-def]
    out = StringIO()
    call_command("bench", "--imports-only", "--out", str(tmp_path), stdout=out,
                 stderr=StringIO())

    text = out.getvalue()
    assert "Import: parsing and mapping" in text and "items/s" in text
    assert "trackers shown as root blockers" in text
    assert "Observations of the bugzilla sample, as the board names them" in text
    assert (tmp_path / "imports.json").exists()
