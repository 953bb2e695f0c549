"""Merge review: suggestions with both sides' facts, accepted, rejected and undone through
``memory.merges`` — by editors and owners; viewers read; outsiders see nothing."""

from __future__ import annotations

import pytest
from django.test import Client, RequestFactory
from django.urls import reverse

from dashboard.access import merge_for_editor, suggestion_for_editor
from memory.merges import merge_entities
from memory.models import Entity, Fact, Graph, MergeRecord, MergeSuggestion
from tests.dashboard.conftest import htmx, signed_in
from tests.factories import EntityFactory, FactFactory, GraphFactory

pytestmark = pytest.mark.django_db


def merges_url(graph: Graph) -> str:
    return reverse("merges", args=[graph.slug])


@pytest.fixture
def suggestion(graph: Graph) -> MergeSuggestion:
    """"Acme" (who reported the timeouts) is probably "Acme Corp" (on the Pro plan)."""
    acme = EntityFactory(graph=graph, name="Acme", type="Customer")
    corp = EntityFactory(graph=graph, name="Acme Corp", type="Customer")
    FactFactory(graph=graph, source=acme, relation="REPORTED",
                target__name="Timeout Errors", target__type="Issue")
    FactFactory(graph=graph, source=corp, relation="ON_PLAN",
                target__name="Pro", target__type="Plan")
    return MergeSuggestion.objects.create(graph=graph, entity=acme, into=corp, score=86)


def accept_url(s: MergeSuggestion) -> str:
    return reverse("merge-accept", args=[s.graph.slug, s.pk])


def reject_url(s: MergeSuggestion) -> str:
    return reverse("merge-reject", args=[s.graph.slug, s.pk])


@pytest.mark.parametrize("persona", ["owner", "editor", "member"])
def test_members_see_each_suggestion_with_both_sides_facts(
    client: Client, request, graph, suggestion, persona: str
) -> None:
    response = signed_in(client, request.getfixturevalue(persona)).get(merges_url(graph))

    assert response.status_code == 200
    (item,) = response.context["suggestions"]
    assert [f.relation for f in item.merged.facts] == ["REPORTED"]
    assert [f.relation for f in item.kept.facts] == ["ON_PLAN"]
    html = response.content.decode()
    assert "Is <a href=" in html and "86% alike" in html
    assert "Timeout Errors" in html and "Pro" in html


def test_only_editors_and_owners_see_the_buttons(
    graph, editor, member, suggestion
) -> None:
    as_editor = signed_in(Client(), editor).get(merges_url(graph)).content.decode()
    as_member = signed_in(Client(), member).get(merges_url(graph)).content.decode()

    assert accept_url(suggestion) in as_editor
    assert accept_url(suggestion) not in as_member


def test_an_outsider_gets_404(client: Client, graph, outsider, suggestion) -> None:
    signed_in(client, outsider)

    assert client.get(merges_url(graph)).status_code == 404
    assert client.post(accept_url(suggestion)).status_code == 404
    suggestion.refresh_from_db()
    assert suggestion.status == MergeSuggestion.Status.OPEN


def test_a_viewer_cannot_decide(client: Client, member, suggestion) -> None:
    signed_in(client, member)

    assert client.post(accept_url(suggestion)).status_code == 403
    assert client.post(reject_url(suggestion)).status_code == 403
    suggestion.refresh_from_db()
    assert suggestion.status == MergeSuggestion.Status.OPEN


def test_accepting_merges_through_the_journal_and_says_so(
    client: Client, graph, editor, suggestion
) -> None:
    response = signed_in(client, editor).post(accept_url(suggestion), {"page": "1"}, follow=True)

    assert response.redirect_chain == [(merges_url(graph), 302)]
    assert "Merged Acme into Acme Corp." in response.content.decode()
    record = MergeRecord.objects.get(graph=graph)
    assert (record.kept.name, record.merged.name, record.performed_by) == (
        "Acme Corp", "Acme", editor)
    assert Fact.objects.get(relation="REPORTED").source.name == "Acme Corp"


def test_rejecting_keeps_them_apart(client: Client, graph, owner, suggestion) -> None:
    response = signed_in(client, owner).post(reject_url(suggestion), follow=True)

    suggestion.refresh_from_db()
    assert (suggestion.status, suggestion.decided_by) == (MergeSuggestion.Status.REJECTED, owner)
    assert "Kept Acme and Acme Corp apart." in response.content.decode()
    assert response.context["suggestions"] == []


def test_undo_restores_the_merged_entity(client: Client, graph, owner, suggestion) -> None:
    signed_in(client, owner).post(accept_url(suggestion))
    record = MergeRecord.objects.get(graph=graph)

    response = client.post(reverse("merge-undo", args=[graph.slug, record.pk]), follow=True)

    assert "Undone: Acme is its own entity again." in response.content.decode()
    assert Fact.objects.get(relation="REPORTED").source.name == "Acme"
    suggestion.refresh_from_db()
    assert suggestion.status == MergeSuggestion.Status.OPEN  # back for review


def test_a_decision_that_cannot_be_made_changes_nothing_and_says_why(
    client: Client, graph, owner, suggestion
) -> None:
    signed_in(client, owner).post(reject_url(suggestion))

    response = client.post(accept_url(suggestion), follow=True)

    assert "Nothing changed: this suggestion was already decided." in response.content.decode()
    assert not MergeRecord.objects.exists()


def test_htmx_re_renders_the_review_in_place(client: Client, graph, owner, suggestion) -> None:
    response = signed_in(client, owner).post(accept_url(suggestion), {"page": "1"},
                                             **htmx("merge-review"))

    assert response.status_code == 200
    html = response.content.decode()
    assert html.lstrip().startswith('<div id="merge-review"')
    assert "Merged Acme into Acme Corp." in html
    assert reverse("merge-undo", args=[graph.slug, MergeRecord.objects.get().pk]) in html


def test_suggestions_of_another_graph_cannot_be_decided_here(client: Client, graph, owner):
    other = GraphFactory(slug="other")
    foreign = MergeSuggestion.objects.create(
        graph=other, entity=EntityFactory(graph=other, name="A"),
        into=EntityFactory(graph=other, name="B"), score=90)

    response = signed_in(client, owner).post(reverse("merge-accept", args=[graph.slug, foreign.pk]))

    assert response.status_code == 404


def test_the_journal_shows_automatic_and_undone_merges(client: Client, graph, owner) -> None:
    kept = EntityFactory(graph=graph, name="Exports", type="Product")
    record = merge_entities(kept, EntityFactory(graph=graph, name="Export", type="Product"),
                            automatic=True, score=100)

    html = signed_in(client, owner).get(merges_url(graph)).content.decode()

    assert "automatic (100% alike)" in html
    assert reverse("merge-undo", args=[graph.slug, record.pk]) in html
    assert "Nothing to review" in html


@pytest.mark.parametrize("count", [2, 40])
def test_the_page_takes_the_same_eight_queries_whatever_the_number_of_suggestions(
    client: Client, graph, owner, count: int, django_assert_num_queries
) -> None:
    for i in range(count):
        a = EntityFactory(graph=graph, name=f"Customer {i}", type="Customer")
        b = EntityFactory(graph=graph, name=f"Customer {i} Inc", type="Customer")
        FactFactory(graph=graph, source=a, relation="REPORTED", target__type="Issue")
        MergeSuggestion.objects.create(graph=graph, entity=a, into=b, score=80)
    signed_in(client, owner)

    # 1 session, 2 user, 3 membership + graph, 4 count, 5 one page of suggestions (with both
    # entities), 6 both sides' facts, 7 the journal, 8 the switcher.
    with django_assert_num_queries(8):
        response = client.get(merges_url(graph))

    assert len(response.context["suggestions"]) == min(count, 10)
    assert Entity.objects.filter(graph=graph).count() >= count


@pytest.fixture
def second_suggestion(graph: Graph) -> MergeSuggestion:
    """"Globex" is probably "Globex Inc", suggested after Acme's."""
    return MergeSuggestion.objects.create(
        graph=graph, entity=EntityFactory(graph=graph, name="Globex", type="Customer"),
        into=EntityFactory(graph=graph, name="Globex Inc", type="Customer"), score=80)


def test_accepting_the_second_of_two_suggestions_merges_it_and_leaves_the_first_open(
    client: Client, graph, owner, suggestion, second_suggestion
) -> None:
    response = signed_in(client, owner).post(accept_url(second_suggestion), follow=True)

    assert "Merged Globex into Globex Inc." in response.content.decode()
    record = MergeRecord.objects.get(graph=graph)
    assert (record.kept.name, record.merged.name) == ("Globex Inc", "Globex")
    suggestion.refresh_from_db()
    assert suggestion.status == MergeSuggestion.Status.OPEN


def test_undoing_the_second_of_two_merges_undoes_it_and_keeps_the_first(
    client: Client, graph, owner
) -> None:
    first = merge_entities(EntityFactory(graph=graph, name="Exports", type="Product"),
                           EntityFactory(graph=graph, name="Export", type="Product"))
    second = merge_entities(EntityFactory(graph=graph, name="Billing", type="Product"),
                            EntityFactory(graph=graph, name="Bills", type="Product"))

    response = signed_in(client, owner).post(
        reverse("merge-undo", args=[graph.slug, second.pk]), follow=True)

    assert "Undone: Bills is its own entity again." in response.content.decode()
    first.refresh_from_db()
    second.refresh_from_db()
    assert (first.undone_at is None, second.undone_at is not None) == (True, True)


def test_a_suggestion_to_decide_and_a_merge_to_undo_come_with_both_their_entities(
    rf: RequestFactory, graph, owner, suggestion, django_assert_num_queries
) -> None:
    record = merge_entities(EntityFactory(graph=graph, name="Exports", type="Product"),
                            EntityFactory(graph=graph, name="Export", type="Product"))
    request = rf.post("/")
    request.user = owner

    found, _ = suggestion_for_editor(request, graph.slug, suggestion.pk)
    undone, _ = merge_for_editor(request, graph.slug, record.pk)

    with django_assert_num_queries(0):  # what the answers' messages name, read with them
        assert (found.entity.name, found.into.name) == ("Acme", "Acme Corp")
        assert (undone.kept.name, undone.merged.name) == ("Exports", "Export")
