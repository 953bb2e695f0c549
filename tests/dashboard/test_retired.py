"""Retired history: the observations that ended (evidence ended, split, merged), most recently
retired first, filterable by reason and date, each opening the same observation page. A version
superseded by a newer one lives in its successor's history and is listed only when asked for."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.test import Client
from django.urls import reverse

from memory.models import Graph, Observation
from tests.dashboard.conftest import htmx, signed_in
from tests.factories import MONDAY, ObservationFactory, PipelineRunFactory

pytestmark = pytest.mark.django_db


def retired_url(graph: Graph, query: str = "") -> str:
    return reverse("retired", args=[graph.slug]) + (f"?{query}" if query else "")


def names(response) -> list[str]:  # type: ignore[no-untyped-def]
    return [c.observation.name for c in response.context["cards"]]


@pytest.fixture
def history(graph: Graph) -> list[Observation]:
    run = PipelineRunFactory(graph=graph)
    retired = [
        ("Old blocker ended", Observation.RetiredReason.EVIDENCE_ENDED, 1),
        ("Chain grew", Observation.RetiredReason.SUPERSEDED, 8),
        ("Chain split", Observation.RetiredReason.SPLIT, 15),
    ]
    rows = [
        ObservationFactory(graph=graph, created_by_run=run, name=name,
                           status=Observation.Status.RETIRED, retired_reason=reason,
                           retired_at=MONDAY + timedelta(days=day), retired_by_run=run)
        for name, reason, day in retired
    ]
    ObservationFactory(graph=graph, created_by_run=run, name="Still active")
    return rows


def test_the_owner_sees_retired_observations_newest_first(
    client: Client, graph, owner, history
) -> None:
    response = signed_in(client, owner).get(retired_url(graph))

    assert response.status_code == 200
    assert names(response) == ["Chain split", "Old blocker ended"]  # endings, not versions
    html = response.content.decode()
    assert "Retired · split into several" in html
    for observation in (history[0], history[2]):
        assert reverse("observation", args=[graph.slug, observation.uuid]) in html


def test_a_member_sees_the_same_history(client: Client, graph, member, history) -> None:
    assert names(signed_in(client, member).get(retired_url(graph))) == [
        "Chain split", "Old blocker ended"]


def test_an_outsider_gets_404_for_the_page_and_its_fragment(
    client: Client, graph, outsider, history
) -> None:
    signed_in(client, outsider)

    assert client.get(retired_url(graph)).status_code == 404
    assert client.get(retired_url(graph), **htmx("retired-results")).status_code == 404


def test_the_reason_filter(client: Client, graph, owner, history) -> None:
    response = signed_in(client, owner).get(retired_url(graph, "reason=superseded"))

    assert names(response) == ["Chain grew"]


def test_the_date_range_filter_includes_both_days(client: Client, graph, owner, history) -> None:
    response = signed_in(client, owner).get(retired_url(
        graph, "reason=superseded&since=2026-11-25&until=2026-12-01"))

    assert names(response) == ["Chain grew"]


def test_an_inverted_range_is_said_and_ignored(client: Client, graph, owner, history) -> None:
    response = signed_in(client, owner).get(retired_url(graph, "since=2026-12-01&until=2026-11-01"))

    # The bad end is dropped; the start still applies.
    assert names(response) == ["Chain split"]
    assert b"The end date is before the start date." in response.content


def test_htmx_gets_the_results_fragment_and_the_canonical_url(
    client: Client, graph, owner, history
) -> None:
    response = signed_in(client, owner).get(
        retired_url(graph, "reason=split&since=&until="), **htmx("retired-results")
    )

    assert response.content.decode().lstrip().startswith('<section id="retired-results"')
    assert response["HX-Push-Url"] == retired_url(graph, "reason=split")
    assert "HX-Request" in response["Vary"]


def test_nothing_retired_yet_says_what_will_appear(client: Client, graph, owner) -> None:
    html = signed_in(client, owner).get(retired_url(graph)).content.decode()

    assert "Nothing retired yet" in html


def test_the_shipped_seed_appears_with_its_reason_when_superseded_versions_are_asked_for(
        client: Client, graph, owner, shipped) -> None:
    first = signed_in(client, owner).get(retired_url(graph))
    assert names(first) == []
    assert "No pattern has ended yet" in first.content.decode()
    assert "1 older version of current patterns lives in their history" in first.content.decode()
    response = client.get(retired_url(graph, "reason=superseded"))

    assert names(response) == [shipped.name]
    assert b"Retired \xc2\xb7 superseded by a new version" in response.content


@pytest.mark.parametrize("count", [10, 300])
def test_the_history_takes_the_same_six_queries_whatever_its_length(
    client: Client, graph: Graph, owner, count: int, django_assert_num_queries
) -> None:
    run = PipelineRunFactory(graph=graph)
    Observation.objects.bulk_create(ObservationFactory.build_batch(
        count, graph=graph, created_by_run=run, status=Observation.Status.RETIRED,
        retired_reason=Observation.RetiredReason.EVIDENCE_ENDED, retired_at=MONDAY,
    ))
    signed_in(client, owner)

    # 1 session, 2 user, 3 membership + graph, 4 count, 5 one page of observations,
    # 6 their entities, 7 the switcher's graphs.
    with django_assert_num_queries(7):
        client.get(retired_url(graph))
