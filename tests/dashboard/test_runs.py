"""Pipeline runs: the list with counts, timings, model calls and tokens; one run's stages and
results; the progress that polls while a run is active and stops when it ends; starting a run."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.test import Client, RequestFactory
from django.urls import reverse

from dashboard.access import run_for_user
from memory.models import Graph, Observation, PipelineRun
from tests.dashboard.conftest import htmx, signed_in
from tests.factories import MONDAY, GraphFactory, LLMCallFactory, PipelineRunFactory

pytestmark = pytest.mark.django_db


def runs_url(graph: Graph) -> str:
    return reverse("runs", args=[graph.slug])


def run_url(run: PipelineRun) -> str:
    return reverse("run", args=[run.graph.slug, run.uuid])


@pytest.fixture
def finished(graph: Graph) -> PipelineRun:
    run = PipelineRunFactory(
        graph=graph, started_at=MONDAY, finished_at=MONDAY + timedelta(seconds=4, milliseconds=200),
        counts={"episodes": 67, "facts": 60, "clusters": 3, "created": 1, "updated": 2,
                "retired": 1, "untouched": 0, "retired_by_reason": {"evidence_ended": 1},
                "llm": {"fallbacks": 0}},
        timings={"load": 0.012, "summarize": 3.5}, llm_calls=3, llm_cached=1,
        tokens_in=1234, tokens_out=321,
        progress={"percent": 100, "stages": [
            {"name": "load", "status": "done", "done": 1, "total": 1, "seconds": 0.012},
            {"name": "summarize", "status": "done", "done": 3, "total": 3, "seconds": 3.5},
        ]},
    )
    LLMCallFactory(graph=graph, purpose="extraction", tokens_in=500, tokens_out=90,
                   created_at=MONDAY - timedelta(minutes=5))
    LLMCallFactory.create_batch(3, graph=graph, run=run, purpose="summary",
                                prompt_version="summary-2", tokens_in=400, tokens_out=100,
                                created_at=MONDAY + timedelta(seconds=2))
    return run


@pytest.fixture
def running(graph: Graph) -> PipelineRun:
    return PipelineRunFactory(
        graph=graph, status=PipelineRun.Status.RUNNING, finished_at=None, stage="summarize",
        progress={"percent": 58, "stages": [
            {"name": "load", "status": "done", "done": 1, "total": 1, "seconds": 0.01},
            {"name": "summarize", "status": "running", "done": 2, "total": 5},
            {"name": "publish", "status": "pending", "done": 0, "total": 0},
        ]},
    )


# --- Reading -------------------------------------------------------------------------------------


@pytest.mark.parametrize("persona", ["owner", "editor", "member"])
def test_members_see_each_run_with_counts_timings_model_calls_and_tokens(
    client: Client, request, graph, finished, persona: str
) -> None:
    response = signed_in(client, request.getfixturevalue(persona)).get(runs_url(graph))

    assert response.status_code == 200
    html = response.content.decode()
    assert run_url(finished) in html
    assert '<td class="num">4.2 s</td>' in html
    assert '<td class="num">67</td>' in html and '<td class="num">60</td>' in html
    assert '+1</span> <span class="change change--updated" title="Updated">~2' in html
    # Its summary calls, and the extraction calls made since the run before it.
    assert "3 calls<br><span class=\"muted small\">1200 in / 300 out" in html
    assert "+1 cached" in html
    assert "1 call<br><span class=\"muted small\">500 in / 90 out" in html
    assert "fake-model-1 · summary-2" in html and "fake-model-1 · extract-2" in html


def test_an_outsider_gets_404_for_the_runs_and_a_run(
    client: Client, graph, outsider, finished
) -> None:
    signed_in(client, outsider)

    assert client.get(runs_url(graph)).status_code == 404
    assert client.get(run_url(finished)).status_code == 404


def test_a_run_of_another_graph_is_404(client: Client, graph, owner) -> None:
    foreign = PipelineRunFactory(graph=GraphFactory(slug="other"))

    response = signed_in(client, owner).get(reverse("run", args=[graph.slug, foreign.uuid]))

    assert response.status_code == 404


def test_a_run_page_shows_its_stages_results_and_observations(
    client: Client, owner, seeded: Observation
) -> None:
    run = seeded.created_by_run

    response = signed_in(client, owner).get(run_url(run))

    html = response.content.decode()
    assert [s.label for s in response.context["stages"]] == [
        "Load the facts", "Cluster the episodes", "Reconcile with the observations",
        "Analyse the changed clusters", "Write the summaries", "Publish"]
    assert "Done" in html and 'value="100"' in html
    assert reverse("observation", args=[seeded.graph.slug, seeded.uuid]) in html
    assert "hx-trigger=\"every" not in html  # a finished run is not polled


def test_a_failed_run_shows_its_error(client: Client, graph, owner) -> None:
    run = PipelineRunFactory(graph=graph, status=PipelineRun.Status.FAILED,
                             error="RuntimeError: the model went away\nTraceback ...")

    response = signed_in(client, owner).get(run_url(run))

    html = response.content.decode()
    assert "RuntimeError: the model went away" in html
    assert "Nothing was published" in html


# --- Progress ----------------------------------------------------------------------------------


def test_the_list_shows_the_active_runs_stages_and_polls_them(
    client: Client, graph, member, running
) -> None:
    html = signed_in(client, member).get(runs_url(graph)).content.decode()

    assert f'hx-get="{run_url(running)}" hx-trigger="every 1s"' in html
    assert 'value="58"' in html and "2 / 5" in html


def test_an_active_runs_badges_and_summary_reload_when_it_finishes(
    client: Client, owner, running
) -> None:
    html = signed_in(client, owner).get(run_url(running)).content.decode()

    assert html.count('hx-trigger="runFinished from:body"') == 2


def test_the_progress_keeps_polling_while_the_run_is_active(
    client: Client, owner, running
) -> None:
    response = signed_in(client, owner).get(run_url(running), **htmx("run-progress"))

    assert response.status_code == 200
    html = response.content.decode()
    assert html.lstrip().startswith('<div id="run-progress"')
    assert 'hx-trigger="every 1s"' in html and "Running: summarize" in html
    assert "HX-Request" in response["Vary"]


def test_when_the_run_ends_polling_stops_with_286_and_the_results_reload(
    client: Client, owner, running
) -> None:
    running.status = PipelineRun.Status.SUCCEEDED
    running.counts = {"created": 1, "updated": 0, "retired": 0, "untouched": 2}
    running.save()

    response = signed_in(client, owner).get(run_url(running), **htmx("run-progress"))

    assert response.status_code == 286
    html = response.content.decode()
    assert "hx-trigger" not in html and 'value="100"' in html
    assert "Published: 1 new, 0 updated, 0 retired, 2 untouched." in html
    assert "runFinished" in response["HX-Trigger-After-Settle"]
    badges = client.get(run_url(running), **htmx("run-status"))
    assert badges.content.decode().lstrip().startswith('<div id="run-status"')
    assert "Succeeded" in badges.content.decode()


def test_the_summary_and_the_list_reload_as_fragments(client: Client, owner, finished) -> None:
    signed_in(client, owner)

    summary = client.get(run_url(finished), **htmx("run-summary"))
    table = client.get(runs_url(finished.graph), **htmx("run-list"))

    assert summary.content.decode().lstrip().startswith('<div id="run-summary"')
    assert "67 episodes, 60 current facts" in summary.content.decode()
    assert table.content.decode().lstrip().startswith('<section id="run-list"')


# --- Starting a run -----------------------------------------------------------------------------


def test_an_editor_starts_a_run_and_follows_it_on_its_page(
    client: Client, graph, editor, seeded, django_capture_on_commit_callbacks
) -> None:
    with django_capture_on_commit_callbacks(execute=True):
        response = signed_in(client, editor).post(reverse("run-start", args=[graph.slug]))

    run = PipelineRun.objects.filter(graph=graph).latest("created_at")
    assert response.status_code == 302 and response["Location"] == run_url(run)
    assert (run.trigger, run.requested_by) == (PipelineRun.Trigger.MANUAL, editor)
    run.refresh_from_db()
    assert run.status == PipelineRun.Status.SUCCEEDED


def test_only_editors_see_the_start_button(client: Client, graph, editor, member) -> None:
    start = reverse("run-start", args=[graph.slug])

    assert f'action="{start}"' in signed_in(Client(), editor).get(runs_url(graph)).content.decode()
    assert f'action="{start}"' not in signed_in(Client(), member).get(
        runs_url(graph)).content.decode()


@pytest.mark.parametrize(("persona", "status"), [("member", 403), ("outsider", 404)])
def test_viewers_and_outsiders_cannot_start_a_run(
    client: Client, graph, request, persona: str, status: int
) -> None:
    response = signed_in(client, request.getfixturevalue(persona)).post(
        reverse("run-start", args=[graph.slug]))

    assert response.status_code == status
    assert not PipelineRun.objects.filter(graph=graph).exists()


def test_starting_a_run_is_a_post(client: Client, graph, owner) -> None:
    response = signed_in(client, owner).get(reverse("run-start", args=[graph.slug]))

    assert response.status_code == 405


# --- Query counts ------------------------------------------------------------------------------


@pytest.mark.parametrize("count", [3, 200])
def test_the_list_takes_the_same_seven_queries_at_3_and_200_runs(
    client: Client, graph, owner, count: int, django_assert_num_queries
) -> None:
    PipelineRunFactory.create_batch(count, graph=graph)
    signed_in(client, owner)

    # 1 session, 2 user, 3 membership + graph, 4 count, 5 one page (with who started each),
    # 6-8 the model's spend per run (the run before the page, the runs' own calls, the calls
    # between them), 9 the active run, 10 the switcher.
    with django_assert_num_queries(10):
        client.get(runs_url(graph))


def test_a_run_page_takes_seven_queries(
    client: Client, owner, seeded, django_assert_num_queries
) -> None:
    url = run_url(seeded.created_by_run)
    signed_in(client, owner)

    # 1 session, 2 user, 3 membership + graph, 4 the run, 5 the observations it wrote, 6 those
    # it retired, 7-9 the model's spend (the run before it, its own calls, the calls between),
    # 10 the switcher.
    with django_assert_num_queries(10):
        client.get(url)


def test_the_summary_reloads_with_what_the_run_wrote(
    client: Client, owner, seeded, django_assert_num_queries
) -> None:
    url = run_url(seeded.created_by_run)
    signed_in(client, owner)

    # 1 session, 2 user, 3 membership + graph, 4 the run, 5 the observations it wrote, 6 those
    # it retired, 7-9 the model's spend.
    with django_assert_num_queries(9):
        response = client.get(url, **htmx("run-summary"))

    assert "Written by this run" in response.content.decode()


def test_a_run_says_which_summaries_wait_for_the_models_reading_of_their_updates(
    client: Client, owner, graph: Graph,
) -> None:
    run = PipelineRunFactory(graph=graph, counts={"llm": {"deferred": 2, "pending": 0}})

    html = signed_in(client, owner).get(run_url(run)).content.decode()

    assert "2 by the template until the model has read their updates" in html
    assert "because the model failed" not in html


def test_a_run_is_read_with_who_asked_for_it(
    rf: RequestFactory, graph: Graph, owner, django_assert_num_queries
) -> None:
    run = PipelineRunFactory(graph=graph, requested_by=owner)
    request = rf.get("/")
    request.user = owner

    found, _ = run_for_user(request, graph.slug, run.uuid)

    with django_assert_num_queries(0):  # the run page names them
        assert found.requested_by == owner
