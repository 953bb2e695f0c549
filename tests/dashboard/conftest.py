"""Fixtures of the page tests: the seed scenario (DESIGN §1) as real observations, built by
ingesting the three updates and letting the pipeline run in-process."""

from __future__ import annotations

from datetime import UTC, datetime, time, timedelta

import pytest
from django.test import Client

from memory.ingestion import ingest_records
from memory.models import Graph, Observation, PipelineRun
from memory.pipeline import run_pipeline
from memory.processing import process_episode
from tests.conftest import IngestFn
from tests.scenarios import SEED, SHIPPED


@pytest.fixture
def seeded(graph: Graph, ingest: IngestFn) -> Observation:
    """The seed observation: the auth service refactor blocks Alice, Bob and (downstream) Clara."""
    ingest(graph, SEED)
    return Observation.objects.get(graph=graph, status=Observation.Status.ACTIVE)


@pytest.fixture
def shipped(seeded: Observation, graph: Graph, ingest: IngestFn) -> Observation:
    """The seed observation after the backend team shipped the refactor: retired, with a
    successor around what blocks work now."""
    ingest(graph, [SHIPPED], now=datetime.fromisoformat("2026-12-02T10:05:00+00:00"))
    seeded.refresh_from_db()
    return seeded


def signed_in(client: Client, user) -> Client:  # type: ignore[no-untyped-def]
    client.force_login(user)
    return client


HTMX = {"HTTP_HX_REQUEST": "true"}


def htmx(target: str) -> dict[str, str]:
    """Headers of an htmx request swapping the element with this id."""
    return {**HTMX, "HTTP_HX_TARGET": target}


# --- A week replayed as it happened ----------------------------------------------------------

SEED_WEEK = "2026-W45"
"""The week the replayed seed happened in: Monday 2 to Sunday 8 November 2026 (in the past, so
its review is over whatever the day the tests run)."""
REPLAYED_SEED = [
    {**record, "reference_time": moment}
    for record, moment in zip(SEED, ["2026-11-02T09:00:00+00:00", "2026-11-04T09:00:00+00:00",
                                     "2026-11-06T09:00:00+00:00"], strict=True)
]
BACKFILL = {
    "external_id": "dan", "author": "Dan", "reference_time": "2026-11-03T09:00:00+00:00",
    "content": "The mobile app release is blocked. I'm waiting on the auth service refactor.",
}
"""Dan's Tuesday update of the seed week, which reached the system a week late."""
BACKFILL_ARRIVES = datetime.fromisoformat("2026-11-10T14:00:00+00:00")


def replay(graph: Graph, records: list[dict], *, arrived: datetime | None = None) -> None:
    """Load updates the way the demo does: each one stored at the moment it arrived (three minutes
    after it was written, unless ``arrived`` says otherwise) and processed, and the pipeline run as
    of the end of that day — so facts, episodes and observations carry the times they would have
    had, and a past week's review sees exactly what was known then."""
    for record in records:
        written = datetime.fromisoformat(record["reference_time"])
        moment = arrived or written + timedelta(minutes=3)
        report = ingest_records(graph, [(1, record)], now=moment, process=False)
        for episode_id in report.stored_ids:
            process_episode(episode_id)
        end_of_day = datetime.combine(moment.date(), time(23, 59, 59), tzinfo=UTC)
        run = run_pipeline(graph, trigger=PipelineRun.Trigger.COMMAND, as_of=end_of_day)
        assert run is not None and run.status == PipelineRun.Status.SUCCEEDED, run


@pytest.fixture
def seed_week(graph: Graph) -> Graph:
    """The seed scenario replayed in week 2026-W45: Alice on Monday, Bob on Wednesday, Clara on
    Friday, the pipeline at the end of each of those days."""
    replay(graph, REPLAYED_SEED)
    return graph
