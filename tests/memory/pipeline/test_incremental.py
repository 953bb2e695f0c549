"""What a run leaves in its process for the next run of the same graph
(``memory.pipeline.incremental``): the next run scans for stalled items only the items the
changed updates name."""

from __future__ import annotations

import pytest

from memory.models import Graph, PipelineRun, StalledItemsMemo
from memory.pipeline import run_pipeline
from tests.conftest import IngestFn
from tests.memory.stall_updates import run, stalled, update, weeks_ago

pytestmark = [pytest.mark.django_db, pytest.mark.stalled]



def test_a_run_after_another_examines_only_the_items_whose_updates_changed(
    graph: Graph,
    ingest: IngestFn,
) -> None:
    ingest(
        graph,
        [
            update("a", "Alice", weeks_ago(5), "The audit report is stalled."),
            update("b", "Bob", weeks_ago(4), "The search rewrite is in review."),
        ],
    )
    first = run_pipeline(graph)
    assert first is not None and first.counts["stalled"] == 2
    assert StalledItemsMemo.objects.get(graph=graph).run_id == first.pk

    ingest(graph, [update("c", "Bob", weeks_ago(0), "The search rewrite is done.")])
    run(graph)

    # The run that processing started examined the one item the new update is about; the
    # one started here found nothing new and examined none.
    runs = PipelineRun.objects.filter(graph=graph, pk__gt=first.pk).order_by("pk")
    assert [r.counts["stalled_examined"] for r in runs] == [1, 0]
    assert [o.name.split(" stalled since ")[0] for o in stalled(graph)] == ["Audit Report"]
    assert StalledItemsMemo.objects.get(graph=graph).run_id == runs.reverse()[0].pk
