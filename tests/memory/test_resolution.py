"""Entity resolution: exact normalized name, then aliases, then fuzzy candidates — merging only
when sure, suggesting when not."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from memory.models import Alias, Entity, Graph, MergeRecord, MergeSuggestion
from memory.names import display_name, normalize_name
from memory.resolution import is_another_word, resolve_entities
from tests.factories import EntityFactory

NOW = datetime(2026, 11, 23, tzinfo=UTC)


def resolve(graph: Graph, *mentions: tuple[str, str]) -> list[Entity]:
    result = resolve_entities(graph, list(mentions), now=NOW)
    return [result.entities[m] for m in mentions]


@pytest.mark.parametrize(
    ("written", "normalized"),
    [
        ("The Auth-Service  refactor.", "auth service refactor"),
        ("the backend team", "backend team"),
        ("Backend Team", "backend team"),
        ("Café Ops", "café ops"),
        ("The", "the"),
    ],
)
def test_normalized_names_ignore_case_punctuation_whitespace_and_articles(
    written: str, normalized: str
) -> None:
    assert normalize_name(written) == normalized


def test_display_names_keep_acronyms_and_capitalize_words() -> None:
    assert display_name("the API migration") == "API Migration"
    assert display_name("our head of sales") == "Head of Sales"


@pytest.mark.django_db
def test_the_same_name_written_differently_is_one_entity(graph: Graph) -> None:
    first, second = resolve(graph, ("Auth Service Refactor", "WorkItem"),
                            ("the auth-service refactor", "WorkItem"))

    assert first == second
    assert Entity.objects.filter(graph=graph).count() == 1


@pytest.mark.django_db
def test_an_alias_resolves_to_its_entity(graph: Graph) -> None:
    entity = EntityFactory(graph=graph, name="Auth Service Refactor")
    Alias.objects.create(graph=graph, entity=entity, name="AuthZ rewrite",
                         normalized_name="authz rewrite")

    assert resolve(graph, ("AuthZ Rewrite", "WorkItem")) == [entity]


@pytest.mark.django_db
def test_a_near_identical_name_of_the_same_type_merges_automatically_and_is_journaled(
    graph: Graph,
) -> None:
    existing = EntityFactory(graph=graph, name="Payments Integration")

    (resolved,) = resolve(graph, ("Payment Integration", "WorkItem"))

    assert resolved == existing
    record = MergeRecord.objects.get(graph=graph)
    assert (record.kept, record.merged.name, record.automatic) == (existing, "Payment Integration",
                                                                   True)
    assert Alias.objects.get(graph=graph).entity == existing


@pytest.mark.django_db
def test_a_likely_match_becomes_a_suggestion_not_a_merge(graph: Graph) -> None:
    existing = EntityFactory(graph=graph, name="Checkout Flow Redesign")

    (resolved,) = resolve(graph, ("Checkout Flow Redesign Work", "WorkItem"))

    assert resolved != existing
    suggestion = MergeSuggestion.objects.get(graph=graph)
    assert (suggestion.entity, suggestion.into) == (resolved, existing)
    assert 85 <= suggestion.score < 95
    assert not MergeRecord.objects.exists()


@pytest.mark.django_db
@pytest.mark.parametrize("written", ["Umber Toucan Cleanup", "Umber Toucan 2 Migration"])
def test_names_alike_but_for_a_word_with_another_first_letter_are_suggested_not_merged(
    graph: Graph, written: str,
) -> None:
    """Amber and Umber: two codenames one letter apart (95.0 at twenty letters, more beyond)."""
    existing = EntityFactory(graph=graph, name=written.replace("Umber", "Amber"))

    (resolved,) = resolve(graph, (written, "WorkItem"))

    assert resolved != existing and resolved.name == written
    suggestion = MergeSuggestion.objects.get(graph=graph)
    assert (suggestion.into, suggestion.score >= 95) == (existing, True)
    assert not MergeRecord.objects.exists()


@pytest.mark.parametrize(("key", "other", "another"), [
    ("amber toucan cleanup", "umber toucan cleanup", True),
    ("payments integration", "paymnets integration", False),
    ("checkout flow", "checkout flow redesign", False),
])
def test_another_word_is_one_that_begins_with_another_letter(
    key: str, other: str, another: bool,
) -> None:
    assert is_another_word(key, other) is another


@pytest.mark.django_db
def test_types_that_cannot_be_the_same_thing_are_never_matched(graph: Graph) -> None:
    EntityFactory(graph=graph, name="Platform Team", type="Team")

    (resolved,) = resolve(graph, ("Platform Teams", "WorkItem"))

    assert resolved.type == "WorkItem"
    assert not MergeSuggestion.objects.exists()


@pytest.mark.django_db
def test_names_that_differ_in_their_numbers_are_never_matched(graph: Graph) -> None:
    EntityFactory(graph=graph, name="502 Errors", type="Issue")

    (resolved,) = resolve(graph, ("500 Errors", "Issue"))

    assert resolved.name == "500 Errors"
    assert not MergeSuggestion.objects.exists()


@pytest.mark.django_db
def test_short_names_are_only_matched_exactly(graph: Graph) -> None:
    bob = EntityFactory(graph=graph, name="Bob", type="Person")

    (rob,) = resolve(graph, ("Rob", "Person"))

    assert rob != bob
    assert not MergeSuggestion.objects.exists()


@pytest.mark.django_db
def test_an_organisation_suffix_does_not_make_a_new_customer(graph: Graph) -> None:
    acme = EntityFactory(graph=graph, name="Acme", type="Customer")

    assert resolve(graph, ("Acme Corp", "Customer")) == [acme]


@pytest.mark.django_db
def test_names_never_resolve_across_graphs(graph: Graph) -> None:
    other = Graph.objects.create(slug="other", name="Other")
    theirs = EntityFactory(graph=other, name="Auth Service Refactor")

    (ours,) = resolve(graph, ("Auth Service Refactor", "WorkItem"))

    assert ours != theirs and ours.graph == graph


@pytest.mark.django_db
def test_resolving_costs_the_same_queries_whatever_the_graph_size(
    graph: Graph, django_assert_max_num_queries
) -> None:
    EntityFactory.create_batch(300, graph=graph)
    resolve(graph, ("warm up the name index", "WorkItem"))
    mentions = [("Alice", "Person"), ("API Migration", "WorkItem"), ("Backend Team", "Team")]

    # names (1), aliases (1), index catch-up (1), create entities (1), savepoint (2 on PG)
    with django_assert_max_num_queries(6):
        resolve(graph, *mentions)
