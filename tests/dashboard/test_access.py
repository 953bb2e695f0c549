"""Every page and fragment of a graph, for each persona: the owner, an editor and a member read
it; an outsider gets 404 — the same answer as for a graph that does not exist."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from django.test import Client
from django.urls import reverse

from memory.models import Observation, PipelineRun
from tests.dashboard.conftest import htmx, signed_in
from tests.factories import PipelineRunFactory

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
}


@pytest.fixture
def with_active_run(seeded: Observation) -> Observation:
    PipelineRunFactory(graph=seeded.graph, status=PipelineRun.Status.RUNNING, finished_at=None)
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
