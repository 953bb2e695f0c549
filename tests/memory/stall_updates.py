"""Updates dated back from now and the stalled observations a run publishes from them: the
shared vocabulary of the stalled-items tests (``tests/memory/test_stalled_items.py``) and of the
pipeline's held stalls and incremental runs (``tests/memory/pipeline/``)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from memory.models import Graph, Observation
from memory.pipeline import run_pipeline


def weeks_ago(weeks: float) -> str:
    return (datetime.now(UTC) - timedelta(weeks=weeks)).isoformat()


def update(external_id: str, author: str, when: str, content: str) -> dict[str, str]:
    return {"external_id": external_id, "author": author, "reference_time": when,
            "content": content}


def stalled(graph: Graph, status: str = Observation.Status.ACTIVE) -> list[Observation]:
    return list(Observation.objects.filter(graph=graph, kind=Observation.Kind.STALLED,
                                           status=status).order_by("pk"))


def run(graph: Graph) -> None:
    finished = run_pipeline(graph)
    assert finished is not None and finished.status == "succeeded", finished and finished.error
