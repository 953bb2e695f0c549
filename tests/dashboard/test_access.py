"""Every page and fragment of a graph, for each persona: the owner, an editor and a member read
it; an outsider gets 404 — the same answer as for a graph that does not exist. Every write: the
owner and an editor may; a member (viewer) gets 403 — they can see the graph, so a 404 would be a
lie, as in the API; an outsider gets 404; nobody signed out gets anything."""

from __future__ import annotations

from collections.abc import Callable
from urllib.parse import urlencode

import pytest
from django.test import Client
from django.urls import reverse

from memory.models import (
    Entity,
    Episode,
    MergeRecord,
    MergeSuggestion,
    Observation,
    PipelineRun,
)
from tests.dashboard.conftest import htmx, signed_in
from tests.factories import MONDAY, EntityFactory, EpisodeFactory, PipelineRunFactory

pytestmark = pytest.mark.django_db

Address = Callable[[Observation], tuple[str, dict[str, str]]]


def _board(o: Observation) -> str:
    return reverse("board", args=[o.graph.slug])


def _detail(o: Observation) -> str:
    return reverse("observation", args=[o.graph.slug, o.uuid])


def _retired(o: Observation) -> str:
    return reverse("retired", args=[o.graph.slug])


def _progress(o: Observation) -> str:
    return reverse("run-progress", args=[o.graph.slug])


def _page(name: str, query: str = "") -> Callable[[Observation], str]:
    return lambda o: reverse(name, args=[o.graph.slug]) + query


def _entity(o: Observation) -> str:
    entity = Entity.objects.filter(graph=o.graph, name="Auth Service Refactor").get()
    return reverse("entity", args=[o.graph.slug, entity.uuid])


def _episode(o: Observation) -> str:
    return reverse("episode", args=[o.graph.slug, o.episodes.order_by("pk").first().uuid])


def _pending_batch(o: Observation) -> str:
    return reverse("upload-progress", args=[o.graph.slug]) + "?" + urlencode(
        {"batch": MONDAY.isoformat()})


def _run(o: Observation) -> str:
    run = PipelineRun.objects.get(graph=o.graph, status=PipelineRun.Status.RUNNING)
    return reverse("run", args=[o.graph.slug, run.uuid])


def _week(o: Observation) -> str:
    return reverse("weekly", args=[o.graph.slug, "2026-W48"])


ADDRESSES: dict[str, Address] = {
    "board": lambda o: (_board(o), {}),
    "board-results fragment": lambda o: (_board(o) + "?kind=dependency_chain",
                                         htmx("board-results")),
    "run-progress fragment": lambda o: (_progress(o), htmx("run-progress")),
    "observation": lambda o: (_detail(o), {}),
    "observation with an open trail": lambda o: (_detail(o) + "?claim=1", {}),
    "claims fragment": lambda o: (_detail(o) + "?claim=1", htmx("claims")),
    "retired": lambda o: (_retired(o), {}),
    "retired-results fragment": lambda o: (_retired(o) + "?reason=split", htmx("retired-results")),
    "weekly review": lambda o: (_week(o), {}),
    "weekly review with hindsight": lambda o: (_week(o) + "?view=hindsight", {}),
    "timeline": lambda o: (_page("timeline")(o), {}),
    "timeline-chart fragment": lambda o: (_page("timeline", "?type=WorkItem")(o),
                                          htmx("timeline-chart")),
    "entity": lambda o: (_entity(o), {}),
    "merges": lambda o: (_page("merges")(o), {}),
    "merge-review fragment": lambda o: (_page("merges")(o), htmx("merge-review")),
    "episodes": lambda o: (_page("episodes")(o), {}),
    "episode-results fragment": lambda o: (_page("episodes", "?author=Alice")(o),
                                           htmx("episode-results")),
    "upload-progress fragment": lambda o: (_pending_batch(o), htmx("upload-progress")),
    "episode": lambda o: (_episode(o), {}),
    "runs": lambda o: (_page("runs")(o), {}),
    "run-list fragment": lambda o: (_page("runs")(o), htmx("run-list")),
    "run": lambda o: (_run(o), {}),
    "run-progress fragment of a run": lambda o: (_run(o), htmx("run-progress")),
    "run-status fragment": lambda o: (_run(o), htmx("run-status")),
    "run-summary fragment": lambda o: (_run(o), htmx("run-summary")),
}

EXPORTS: dict[str, Callable[[Observation], str]] = {
    "weekly Markdown": lambda o: reverse("weekly-markdown", args=[o.graph.slug, "2026-W48"]),
    "weekly CSV": lambda o: reverse("weekly-csv", args=[o.graph.slug, "2026-W48"]),
}


def _suggestion(o: Observation) -> MergeSuggestion:
    return MergeSuggestion.objects.get(graph=o.graph)


def _merge(o: Observation) -> MergeRecord:
    return MergeRecord.objects.get(graph=o.graph)


WRITES: dict[str, Callable[[Observation], str]] = {
    "add an update": _page("episode-add"),
    "upload a file": _page("episode-upload"),
    "retry an episode": lambda o: _episode(o) + "/retry",
    "start a run": _page("run-start"),
    "accept a merge": lambda o: reverse("merge-accept", args=[o.graph.slug, _suggestion(o).pk]),
    "reject a merge": lambda o: reverse("merge-reject", args=[o.graph.slug, _suggestion(o).pk]),
    "undo a merge": lambda o: reverse("merge-undo", args=[o.graph.slug, _merge(o).pk]),
}


@pytest.fixture
def with_active_run(seeded: Observation) -> Observation:
    """The seed graph with a run in progress, an upload waiting to be processed, a merge
    suggestion and a merge."""
    from memory.merges import merge_entities

    graph = seeded.graph
    PipelineRunFactory(graph=graph, status=PipelineRun.Status.RUNNING, finished_at=None)
    EpisodeFactory(graph=graph, status=Episode.Status.PENDING, ingested_at=MONDAY)
    team = Entity.objects.get(graph=graph, name="Backend Team")
    MergeSuggestion.objects.create(graph=graph, score=80, into=team,
                                   entity=EntityFactory(graph=graph, name="Backend", type="Team"))
    merge_entities(team, EntityFactory(graph=graph, name="Backend Squad", type="Team"))
    return seeded


@pytest.mark.parametrize("persona", ["owner", "editor", "member"])
@pytest.mark.parametrize("address", ADDRESSES, ids=str)
def test_members_of_the_graph_read_every_page_and_fragment(
    client: Client, request, with_active_run: Observation, persona: str, address: str
) -> None:
    url, headers = ADDRESSES[address](with_active_run)

    response = signed_in(client, request.getfixturevalue(persona)).get(url, **headers)

    assert response.status_code == 200, (persona, address)
    assert "HX-Request" in response["Vary"]


@pytest.mark.parametrize("address", ADDRESSES, ids=str)
def test_an_outsider_gets_404_for_every_page_and_fragment(
    client: Client, outsider, with_active_run: Observation, address: str
) -> None:
    url, headers = ADDRESSES[address](with_active_run)

    response = signed_in(client, outsider).get(url, **headers)

    assert response.status_code == 404, address
    assert with_active_run.name.encode() not in response.content


@pytest.mark.parametrize("address", ADDRESSES, ids=str)
def test_nobody_signed_out_gets_anything(client: Client, with_active_run, address: str) -> None:
    url, headers = ADDRESSES[address](with_active_run)

    response = client.get(url, **headers)

    assert response.status_code in {200, 302}
    assert with_active_run.name.encode() not in response.content
    if headers:
        assert response["HX-Redirect"].startswith(reverse("login"))
    else:
        assert response["Location"].startswith(reverse("login"))


@pytest.mark.parametrize("address", ADDRESSES, ids=str)
def test_pages_answer_only_get(client: Client, owner, with_active_run, address: str) -> None:
    url, headers = ADDRESSES[address](with_active_run)

    assert signed_in(client, owner).post(url, **headers).status_code == 405


@pytest.mark.parametrize("persona", ["owner", "editor", "member"])
@pytest.mark.parametrize("export", EXPORTS, ids=str)
def test_members_download_the_exports(
    client: Client, request, with_active_run: Observation, persona: str, export: str
) -> None:
    response = signed_in(client, request.getfixturevalue(persona)).get(
        EXPORTS[export](with_active_run))

    assert response.status_code == 200
    assert response["Content-Disposition"].startswith("attachment;")


@pytest.mark.parametrize("export", EXPORTS, ids=str)
def test_an_outsider_and_the_signed_out_get_no_export(
    client: Client, outsider, with_active_run: Observation, export: str
) -> None:
    url = EXPORTS[export](with_active_run)

    assert client.get(url).status_code == 302
    assert signed_in(client, outsider).get(url).status_code == 404


@pytest.mark.parametrize(("persona", "status"), [("member", 403), ("outsider", 404)])
@pytest.mark.parametrize("write", WRITES, ids=str)
def test_only_editors_and_owners_write(
    client: Client, request, with_active_run: Observation, persona: str, status: int, write: str
) -> None:
    url = WRITES[write](with_active_run)
    runs = PipelineRun.objects.count()

    response = signed_in(client, request.getfixturevalue(persona)).post(url)

    assert response.status_code == status, (persona, write)
    assert PipelineRun.objects.count() == runs
    assert MergeSuggestion.objects.get(graph=with_active_run.graph).status == "open"
    if status == 403:
        assert b"needs the editor or owner role" in response.content


@pytest.mark.parametrize("write", WRITES, ids=str)
def test_the_signed_out_cannot_write(client: Client, with_active_run, write: str) -> None:
    response = client.post(WRITES[write](with_active_run))

    assert response.status_code == 302
    assert response["Location"].startswith(reverse("login"))


@pytest.mark.parametrize("write", WRITES, ids=str)
def test_writes_answer_only_post(client: Client, owner, with_active_run, write: str) -> None:
    assert signed_in(client, owner).get(WRITES[write](with_active_run)).status_code == 405
