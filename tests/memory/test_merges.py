"""Merges are journaled and reversible: undo restores every fact and alias to where it was."""

from __future__ import annotations

import pytest

from memory.merges import (
    MergeError,
    accept_suggestion,
    merge_entities,
    reject_suggestion,
    undo_merge,
)
from memory.models import Alias, Entity, Fact, Graph, MergeSuggestion
from tests.conftest import IngestFn
from tests.factories import EntityFactory, EpisodeFactory, FactFactory, UserFactory


@pytest.fixture
def twins(graph: Graph) -> tuple[Entity, Entity]:
    return (EntityFactory(graph=graph, name="Auth Service Refactor"),
            EntityFactory(graph=graph, name="AuthN Rewrite"))


def positions(graph: Graph) -> set[tuple[int, int, int]]:
    return set(Fact.objects.filter(graph=graph).values_list("pk", "source_id", "target_id"))


@pytest.mark.django_db
def test_merging_moves_facts_aliases_and_authored_episodes_onto_the_kept_entity(
    graph: Graph, twins: tuple[Entity, Entity]
) -> None:
    kept, merged = twins
    waiting = FactFactory(graph=graph, target=merged)
    owned = FactFactory(graph=graph, source=merged, relation="HAS_STATUS")
    Alias.objects.create(graph=graph, entity=merged, name="authn", normalized_name="authn")
    episode = EpisodeFactory(graph=graph, author_entity=merged)

    merge_entities(kept, merged, user=UserFactory())

    waiting.refresh_from_db(), owned.refresh_from_db(), episode.refresh_from_db()
    assert (waiting.target, owned.source, episode.author_entity) == (kept, kept, kept)
    assert set(Alias.objects.filter(entity=kept).values_list("name", flat=True)) == {
        "authn", "AuthN Rewrite"
    }
    merged.refresh_from_db()
    assert merged.merged_into == kept


@pytest.mark.django_db
def test_undoing_a_merge_restores_every_fact_and_alias(
    graph: Graph, twins: tuple[Entity, Entity]
) -> None:
    kept, merged = twins
    FactFactory(graph=graph, target=merged)
    FactFactory(graph=graph, source=merged, relation="HAS_STATUS")
    FactFactory(graph=graph, target=kept)
    Alias.objects.create(graph=graph, entity=merged, name="authn", normalized_name="authn")
    before_facts = positions(graph)
    before_aliases = set(Alias.objects.values_list("pk", "entity_id"))

    record = merge_entities(kept, merged)
    assert positions(graph) != before_facts
    undo_merge(record)

    assert positions(graph) == before_facts
    assert set(Alias.objects.values_list("pk", "entity_id")) == before_aliases
    merged.refresh_from_db()
    assert merged.merged_into is None
    with pytest.raises(MergeError, match="already undone"):
        undo_merge(record)


@pytest.mark.django_db
def test_a_fact_between_the_two_entities_stays_rather_than_becoming_a_self_loop(
    graph: Graph, twins: tuple[Entity, Entity]
) -> None:
    kept, merged = twins
    between = FactFactory(graph=graph, source=merged, target=kept)

    merge_entities(kept, merged)

    between.refresh_from_db()
    assert (between.source, between.target) == (merged, kept)


@pytest.mark.django_db
def test_accepting_a_suggestion_merges_and_records_who_decided(
    graph: Graph, twins: tuple[Entity, Entity]
) -> None:
    kept, merged = twins
    suggestion = MergeSuggestion.objects.create(graph=graph, entity=merged, into=kept, score=90)
    pm = UserFactory(username="pm")

    record = accept_suggestion(suggestion, user=pm)

    suggestion.refresh_from_db()
    assert (suggestion.status, suggestion.decided_by) == (MergeSuggestion.Status.ACCEPTED, pm)
    assert (record.kept, record.merged, record.performed_by) == (kept, merged, pm)
    undo_merge(record, user=pm)
    suggestion.refresh_from_db()
    assert suggestion.status == MergeSuggestion.Status.OPEN


@pytest.mark.django_db
def test_a_rejected_suggestion_changes_nothing_else_and_cannot_be_decided_twice(
    graph: Graph, twins: tuple[Entity, Entity]
) -> None:
    kept, merged = twins
    suggestion = MergeSuggestion.objects.create(graph=graph, entity=merged, into=kept, score=88)

    reject_suggestion(suggestion)

    assert Entity.objects.get(pk=merged.pk).merged_into is None
    with pytest.raises(MergeError, match="already decided"):
        accept_suggestion(suggestion)


@pytest.mark.django_db
def test_entities_of_different_graphs_cannot_be_merged(graph: Graph) -> None:
    ours = EntityFactory(graph=graph)
    theirs = EntityFactory(graph=Graph.objects.create(slug="other", name="Other"))

    with pytest.raises(MergeError, match="different graphs"):
        merge_entities(ours, theirs)


@pytest.mark.django_db
def test_a_trackers_duplicate_becomes_a_merge_suggestion_never_a_merge(
    graph: Graph, ingest: IngestFn
) -> None:
    record = {"external_id": "dup", "author": "Tracker",
              "reference_time": "2026-11-08T10:00:00+00:00", "content": "ATL-4 duplicates ATL-3.",
              "facts": [{"source": "ATL-4", "relation": "duplicates", "target": "ATL-3",
                         "source_type": "WorkItem", "target_type": "WorkItem"}]}
    ingest(graph, [record])
    ingest(graph, [{**record, "external_id": "dup-again"}])

    suggestion = MergeSuggestion.objects.get(graph=graph)
    assert (suggestion.entity.name, suggestion.into.name, suggestion.score) == ("ATL-4", "ATL-3",
                                                                                1.0)
    assert suggestion.status == MergeSuggestion.Status.OPEN
    assert not Entity.objects.filter(graph=graph, merged_into__isnull=False).exists()
