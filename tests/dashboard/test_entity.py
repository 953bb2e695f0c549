"""An entity's page: its summary, timeline, current and ended facts, the episodes that mention it,
the observations that involve it, its aliases and open merge suggestions."""

from __future__ import annotations

import pytest
from django.test import Client, RequestFactory
from django.urls import reverse

from dashboard.access import entity_for_user
from memory.merges import merge_entities
from memory.models import Alias, Entity, Graph, MergeSuggestion, Observation
from tests.dashboard.conftest import signed_in
from tests.factories import EntityFactory, GraphFactory

pytestmark = pytest.mark.django_db


def entity_url(entity: Entity) -> str:
    return reverse("entity", args=[entity.graph.slug, entity.uuid])


def named(graph: Graph, name: str) -> Entity:
    return Entity.objects.get(graph=graph, name=name)


@pytest.mark.parametrize("persona", ["owner", "editor", "member"])
def test_members_read_the_blockers_page(
    client: Client, request, seeded: Observation, persona: str
) -> None:
    refactor = named(seeded.graph, "Auth Service Refactor")

    response = signed_in(client, request.getfixturevalue(persona)).get(entity_url(refactor))

    assert response.status_code == 200
    html = response.content.decode()
    assert "The Backend Team is responsible for the Auth Service Refactor." in html
    assert "2 work items wait on the Auth Service Refactor" in html
    assert "Written by the template from its 3 current facts" in html
    assert {(f.source.name, f.relation) for f in response.context["current"]} == {
        ("Backend Team", "RESPONSIBLE_FOR"), ("API Migration", "DEPENDS_ON"),
        ("Payments Integration", "DEPENDS_ON")}
    assert [e.author for e in response.context["episodes"]] == ["Bob", "Alice"]
    assert reverse("observation", args=[seeded.graph.slug, seeded.uuid]) in html
    assert f"{reverse('episodes', args=[seeded.graph.slug])}?entity={refactor.uuid}" in html


def test_an_outsider_gets_404(client: Client, outsider, seeded: Observation) -> None:
    response = signed_in(client, outsider).get(entity_url(named(seeded.graph, "Backend Team")))

    assert response.status_code == 404
    assert b"Backend Team" not in response.content


def test_an_entity_of_another_graph_is_404(client: Client, graph, owner) -> None:
    foreign = EntityFactory(graph=GraphFactory(slug="other"))

    response = signed_in(client, owner).get(reverse("entity", args=[graph.slug, foreign.uuid]))

    assert response.status_code == 404


def test_ended_facts_say_what_ended_them(client: Client, owner, shipped: Observation) -> None:
    api = named(shipped.graph, "API Migration")

    response = signed_in(client, owner).get(entity_url(api))

    (ended,) = [f for f in response.context["ended"] if f.relation == "DEPENDS_ON"]
    assert ended.closed_by_episode.author == "Dana"
    html = response.content.decode()
    assert "resolution rule" in html and "by <a href=" in html and "Dana, 2 Dec" in html


def test_the_timeline_draws_its_facts_and_links_each_bar_to_its_episode(
    client: Client, owner, seeded: Observation
) -> None:
    refactor = named(seeded.graph, "Auth Service Refactor")

    response = signed_in(client, owner).get(entity_url(refactor))

    timeline = response.context["timeline"]
    assert [row.label for row in timeline.rows] == [
        "Updates", "API Migration", "Backend Team", "Payments Integration"]
    html = response.content.decode()
    for bar in timeline.bars:
        assert bar.href.startswith(f"/g/{seeded.graph.slug}/ep/") and "#fact-" in bar.href
        assert f'href="{bar.href}"' in html
    assert "<title>API Migration waits on Auth Service Refactor (23 Nov 2026, still holds)." in html


def test_aliases_and_open_merge_suggestions_are_listed(client: Client, graph, owner) -> None:
    kept = EntityFactory(graph=graph, name="Acme Corp", type="Customer")
    merge_entities(kept, EntityFactory(graph=graph, name="ACME Corporation", type="Customer"))
    maybe = EntityFactory(graph=graph, name="Acme", type="Customer")
    MergeSuggestion.objects.create(graph=graph, entity=maybe, into=kept, score=88)

    response = signed_in(client, owner).get(entity_url(kept))

    assert [a.name for a in response.context["aliases"]] == ["ACME Corporation"]
    html = response.content.decode()
    assert "Also known as" in html and "88% alike" in html
    assert reverse("merges", args=[graph.slug]) in html


def test_a_merged_entity_leads_to_the_one_it_was_merged_into(client: Client, graph, owner):
    kept = EntityFactory(graph=graph, name="Acme Corp", type="Customer")
    merged = EntityFactory(graph=graph, name="ACME Corporation", type="Customer")
    merge_entities(kept, merged)

    response = signed_in(client, owner).get(entity_url(merged), follow=True)

    assert response.redirect_chain == [(entity_url(kept), 302)]
    assert "ACME Corporation was merged into Acme Corp." in response.content.decode()


def test_the_summary_is_written_once_then_read(
    client: Client, owner, seeded: Observation, django_assert_num_queries
) -> None:
    refactor = named(seeded.graph, "Auth Service Refactor")
    url = entity_url(refactor)
    signed_in(client, owner)

    # The first view writes the summary (one UPDATE more)...
    with django_assert_num_queries(11):
        client.get(url)
    # ...then, while its facts stay the same: 1 session, 2 user, 3 membership + graph, 4 the
    # entity, 5 its facts (with what closed them and where each was first said), 6 the episodes
    # that mention it, 7 its observations, 8 its aliases, 9 merge suggestions, 10 the switcher.
    with django_assert_num_queries(10):
        client.get(url)


def test_names_are_escaped(client: Client, graph, owner) -> None:
    evil = EntityFactory(graph=graph, name="<img src=x onerror=alert(1)>")
    Alias.objects.create(graph=graph, entity=evil, name="<b>x</b>", normalized_name="x")

    html = signed_in(client, owner).get(entity_url(evil)).content.decode()

    assert "<img src=x" not in html and "<b>x</b>" not in html
    assert "&lt;img src=x onerror=alert(1)&gt;" in html


def test_a_merged_entity_is_read_with_the_entity_it_was_merged_into(
    rf: RequestFactory, graph: Graph, owner, django_assert_num_queries
) -> None:
    kept = EntityFactory(graph=graph, name="Acme Corp", type="Customer")
    merged = EntityFactory(graph=graph, name="Acme", type="Customer")
    merge_entities(kept, merged)
    request = rf.get("/")
    request.user = owner

    found, _ = entity_for_user(request, graph.slug, merged.uuid)

    with django_assert_num_queries(0):  # its page says where it went
        assert found.merged_into.name == "Acme Corp"
