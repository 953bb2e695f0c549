"""What a run leaves in its process for the next run of the same graph
(``memory.pipeline.incremental``): the next run scans for stalled items only the items the
changed updates name."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from memory.models import Graph, Observation, PipelineRun, StalledItemsMemo
from memory.pipeline import run_pipeline
from tests.conftest import IngestFn

pytestmark = [pytest.mark.django_db, pytest.mark.stalled]


def weeks_ago(weeks: float) -> str:
    return (datetime.now(UTC) - timedelta(weeks=weeks)).isoformat()


def update(external_id: str, author: str, when: str, content: str) -> dict[str, str]:
    return {
        "external_id": external_id,
        "author": author,
        "reference_time": when,
        "content": content,
    }


def stalled(graph: Graph, status: str = Observation.Status.ACTIVE) -> list[Observation]:
    return list(
        Observation.objects.filter(
            graph=graph, kind=Observation.Kind.STALLED, status=status
        ).order_by("pk")
    )


def run(graph: Graph) -> None:
    finished = run_pipeline(graph)
    assert finished is not None and finished.status == "succeeded", finished and finished.error


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
