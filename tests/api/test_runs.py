"""Pipeline runs over the native API: editors start them, everyone on the graph reads their
status and progress."""

from __future__ import annotations

from typing import Any

import pytest

from memory.models import Graph, PipelineRun
from tests.api.conftest import ClientFor, error_of

pytestmark = pytest.mark.django_db


def test_an_editor_starts_a_run_which_completes_in_process(
    api: ClientFor, editor, seeded: Graph, django_capture_on_commit_callbacks: Any
) -> None:
    with django_capture_on_commit_callbacks(execute=True):
        response = api(editor).post(f"/api/v1/graphs/{seeded.slug}/runs")

    assert response.status_code == 202
    run = PipelineRun.objects.get(uuid=response.json()["uuid"])
    assert (run.trigger, run.requested_by) == (PipelineRun.Trigger.API, editor)
    status = api(editor).get(f"/api/v1/graphs/{seeded.slug}/runs/{run.uuid}").json()
    assert (status["status"], status["percent"]) == ("succeeded", 100)
    assert status["counts"]["untouched"] == 1


def test_a_viewer_cannot_start_a_run_403(api: ClientFor, member, graph: Graph) -> None:
    response = api(member).post(f"/api/v1/graphs/{graph.slug}/runs")

    assert response.status_code == 403 and error_of(response)["param"] == "graph"
    assert not PipelineRun.objects.exists()


def test_an_outsider_sees_no_runs_404(api: ClientFor, outsider, seeded: Graph) -> None:
    run = PipelineRun.objects.filter(graph=seeded).first()
    client = api(outsider)

    assert client.get(f"/api/v1/graphs/{seeded.slug}/runs").status_code == 404
    assert client.get(f"/api/v1/graphs/{seeded.slug}/runs/{run.uuid}").status_code == 404
    assert client.post(f"/api/v1/graphs/{seeded.slug}/runs").status_code == 404


def test_members_list_runs_newest_first(api: ClientFor, member, seeded: Graph) -> None:
    PipelineRun.objects.create(graph=seeded, trigger=PipelineRun.Trigger.MANUAL)

    items = api(member).get(f"/api/v1/graphs/{seeded.slug}/runs").json()["items"]

    assert [(r["status"], r["trigger"]) for r in items] == [
        ("queued", "manual"), ("succeeded", "settled")]
