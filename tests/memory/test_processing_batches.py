"""Processing many episodes in one transaction (the ingest command, uploads, the bulk API): the
same facts as processing them one at a time, and a number of queries that does not grow with the
graph."""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Any

import pytest

from memory.ingestion import ingest_records
from memory.models import Alias, Entity, Episode, Fact, Graph, MergeRecord, MergeSuggestion
from memory.processing import NamesRead, process_episode, process_episodes
from tests.factories import EpisodeFactory, GraphFactory

START = datetime.fromisoformat("2026-09-07T09:00:00+00:00")
NOW = datetime.fromisoformat("2026-12-01T12:00:00+00:00")

ITEMS = ["API migration", "payments integration", "checkout flow", "search revamp",
         "billing migration", "data pipeline rewrite", "mobile release", "SSO rollout"]
PEOPLE = ["Alice", "Bob", "Clara", "Dana", "Erin", "Frank"]
STATUSES = ["on track", "at risk", "blocked", "in progress", "delayed", "on hold"]


def update(n: int, content: str, *, author: str | None = None, days_back: int = 0,
           source: str = "weekly-status") -> dict[str, Any]:
    """The n-th update, a few hours after the previous one (or a backfill ``days_back``)."""
    when = START + timedelta(hours=7 * n) - timedelta(days=days_back)
    return {"external_id": f"u{n}", "author": author or PEOPLE[n % len(PEOPLE)],
            "reference_time": when.isoformat(), "source": source, "content": content}


def a_quarter_of_updates() -> list[dict[str, Any]]:
    """Status notes that exercise every time rule: restatements, single-valued statuses,
    dependencies ended by completions and by "no longer", backfills (a restatement that moves a
    fact's start earlier, an old status, a dependency on work already shipped), plan changes,
    support issues resolved, near-identical names that merge or become suggestions, and a name
    an earlier update of the same batch made known that changes how a later one is read."""
    records = []
    for n in range(90):
        item, other = ITEMS[n % len(ITEMS)], ITEMS[(n * 3 + 1) % len(ITEMS)]
        kind = n % 9
        if kind == 0:
            text = f"I'm working on the {item}. The {item} is {STATUSES[n % len(STATUSES)]}."
        elif kind == 1:
            text = f"The {item} is blocked. I'm waiting on the {other}."
        elif kind == 2:
            text = f"The {item} depends on the {other}, which the platform team owns."
        elif kind == 3:
            text = f"The {other} is {STATUSES[(n // 3) % len(STATUSES)]}."
        elif kind == 4:
            # What the update three before said it waited on.
            waiting, on = ITEMS[(n - 3) % len(ITEMS)], ITEMS[(3 * (n - 3) + 1) % len(ITEMS)]
            text = f"The {waiting} is no longer blocked on the {on}."
        elif kind == 5:
            text = f"{PEOPLE[(n + 2) % len(PEOPLE)]} is responsible for the {item}."
        elif kind == 6:
            text = f"The {item} is unblocked. The {other} is on track."
        elif kind == 7:
            text = f"The {other} shipped." if n % 2 else f"We finished the {other}."
        else:
            text = f"The {item} is blocked by the {other}."
        records.append(update(n, text))
    records += [
        # Backfills: arriving now, about weeks ago.
        update(90, "The API migration is blocked. I'm waiting on the payments integration.",
               author="Alice", days_back=20),
        update(91, "The checkout flow is at risk.", author="Clara", days_back=15),
        update(92, "The search revamp is blocked by the billing migration.", author="Dana",
               days_back=18),
        update(93, "The mobile release depends on the SSO rollout.", author="Erin", days_back=2),
        # Near-identical names: an automatic merge and a suggestion.
        update(94, "The payment integration is at risk.", author="Bob"),
        update(95, "The checkout flows v2 are blocked by the API migrations.", author="Clara"),
        # A customer's plan and issues.
        update(96, "We upgraded to Enterprise on 2026-09-20.", author="Acme Corp",
               source="zendesk"),
        update(97, "We're seeing 502 errors on the checkout page.", author="Acme Corp",
               source="zendesk"),
        update(98, "We have the Pro plan.", author="Acme Corp", source="zendesk", days_back=30),
        update(99, "The 502 errors are resolved.", author="Globex Inc", source="zendesk"),
        update(100, "Lunch was great today.", author="Frank"),
        # Older notes restating what is already known: the fact is revised, twice.
        update(101, "The mobile release depends on the SSO rollout.", author="Erin",
               days_back=10),
        update(102, "The mobile release depends on the SSO rollout.", author="Erin",
               days_back=12),
        # A customer met earlier in the same batch (as an author) is no work item to wait on:
        # the later update reads differently once the name is known.
        update(103, "We're seeing timeouts on the search page.", author="Initech",
               source="zendesk"),
        update(104, "The search revamp is blocked by Initech.", author="Bob"),
    ]
    return records


def store(graph: Graph, records: list[dict[str, Any]]) -> list[int]:
    report = ingest_records(graph, list(enumerate(records, start=1)), now=NOW, process=False)
    assert report.rejected == 0
    return report.stored_ids


def recorded(graph: Graph) -> dict[str, Any]:
    """Everything processing wrote, without ids: each fact with both time axes, what closed it
    and its evidence; entities, aliases, merges, suggestions; each episode's author and status."""

    def signature(fact: Fact | None) -> tuple[str, ...] | None:
        if fact is None:
            return None
        return (fact.source.name, fact.relation, fact.target.name, fact.valid_at.isoformat())

    facts = Fact.objects.filter(graph=graph).select_related(
        "source", "target", "closed_by_episode", "closed_by_fact__source",
        "closed_by_fact__target",
    ).prefetch_related("evidence__episode")
    return {
        "facts": sorted(
            (*signature(fact), fact.sentence, fact.invalid_at, fact.created_at, fact.expired_at,
             fact.close_reason, fact.extractor,
             fact.closed_by_episode.external_id if fact.closed_by_episode else None,
             signature(fact.closed_by_fact),
             sorted((e.episode.external_id, e.sentence, e.created_at) for e in fact.evidence.all()))
            for fact in facts
        ),
        "entities": sorted(
            (e.name, e.type, e.merged_into.name if e.merged_into else None)
            for e in Entity.objects.filter(graph=graph).select_related("merged_into")
        ),
        "aliases": sorted(Alias.objects.filter(graph=graph).values_list("name", "entity__name")),
        "merges": sorted(MergeRecord.objects.filter(graph=graph).values_list(
            "kept__name", "merged__name", "automatic")),
        "suggestions": sorted(MergeSuggestion.objects.filter(graph=graph).values_list(
            "entity__name", "into__name", "score")),
        "episodes": sorted(Episode.objects.filter(graph=graph).values_list(
            "external_id", "status", "extractor", "author_entity__name", "attempts")),
    }


@pytest.mark.django_db
def test_a_batch_records_exactly_what_processing_one_episode_at_a_time_records() -> None:
    one_at_a_time, batched = GraphFactory(slug="one"), GraphFactory(slug="batched")
    # One transaction per episode.
    assert process_episodes(store(one_at_a_time, a_quarter_of_updates()), batch_size=1) == {
        "processed": 105}

    # Batches of 7: merges, closures and backfills fall inside and across batch boundaries.
    counts = process_episodes(store(batched, a_quarter_of_updates()), batch_size=7)

    assert counts == {"processed": 105}
    expected = recorded(one_at_a_time)
    assert recorded(batched) == expected
    # The sequence did exercise what a batch keeps in memory between its episodes.
    closed = Fact.objects.filter(graph=batched, invalid_at__isnull=False)
    assert set(closed.values_list("close_reason", flat=True)) == {
        "single_valued", "resolution", "explicit"}
    assert Fact.objects.filter(graph=batched, close_reason="revised").count() == 2
    assert closed.filter(expired_at__isnull=True).exists()  # learned already ended (backfills)
    assert expected["merges"] and expected["suggestions"]


@pytest.mark.django_db
def test_a_backfilled_restatement_in_the_same_batch_revises_the_fact_made_earlier_in_it(
    graph: Graph,
) -> None:
    process_episodes(store(graph, [
        update(10, "The mobile release depends on the SSO rollout.", author="Erin"),
        update(11, "The mobile release depends on the SSO rollout.", author="Erin",
               days_back=3),
        update(12, "The mobile release depends on the SSO rollout.", author="Erin",
               days_back=5),
    ]))

    [current] = Fact.objects.filter(graph=graph, relation="DEPENDS_ON", expired_at__isnull=True)
    assert current.valid_at == START + timedelta(hours=7 * 12) - timedelta(days=5)
    assert sorted(current.evidence.values_list("episode__external_id", flat=True)) == [
        "u10", "u11", "u12"]
    revised = Fact.objects.filter(graph=graph, relation="DEPENDS_ON", close_reason="revised")
    assert sorted(revised.values_list("closed_by_episode__external_id", flat=True)) == [
        "u11", "u12"]


@pytest.mark.django_db
def test_an_episode_that_cannot_be_processed_fails_alone_and_the_rest_of_its_batch_is_kept(
    graph: Graph,
) -> None:
    ids = store(graph, [update(n, f"The {ITEMS[n]} is blocked.") for n in range(4)])
    # Stored by an older version that let an unknown relation through.
    broken = EpisodeFactory(graph=graph, status=Episode.Status.PENDING, ingested_at=NOW,
                            supplied={"facts": [{"source": "A", "relation": "FROBNICATES",
                                                 "target": "B"}]})

    counts = process_episodes([*ids[:2], broken.pk, *ids[2:]])

    assert counts == {"processed": 4, "failed": 1}
    broken.refresh_from_db()
    assert (broken.status, broken.attempts) == ("failed", 1)
    assert "FROBNICATES" in broken.error
    assert Fact.objects.filter(graph=graph, relation="HAS_STATUS").count() == 4
    assert set(Episode.objects.exclude(pk=broken.pk).values_list("status", "attempts")) == {
        ("processed", 1)}


@pytest.mark.django_db
def test_processing_a_batch_again_changes_nothing(graph: Graph) -> None:
    ids = store(graph, a_quarter_of_updates()[:20])
    process_episodes(ids)
    before = recorded(graph)

    assert process_episodes(ids) == {"skipped": 20}
    assert recorded(graph) == before


def round_of_updates(n: int) -> list[dict[str, Any]]:
    """Ten updates on the shared platform work and on work items of their own (new names)."""
    status = STATUSES[n % len(STATUSES)]
    return [
        {"author": f"Person {n}-{i}", "reference_time": (START + timedelta(days=n, hours=i))
         .isoformat(), "content": (
            f"The feature {n}-{i} migration is blocked. I'm waiting on the auth service "
            f"refactor, which the backend team owns. The auth service refactor is {status}.")}
        for i in range(10)
    ]


@pytest.mark.django_db
def test_the_queries_to_process_a_batch_do_not_grow_with_the_graph(
    graph: Graph, django_assert_num_queries: Any
) -> None:
    process_episodes(store(graph, round_of_updates(0)))
    small = store(graph, round_of_updates(1))
    # their graph · claim its queue's head (savepoint, select, update, release; then the
    # episodes) · name index catch-up · savepoint · lock · name index catch-up · names ·
    # aliases · the facts the batch can touch · one entity insert per episode (each names a new
    # person and work item) · facts · updated facts · evidence · episodes · data version ·
    # release · anything stored meanwhile?
    with django_assert_num_queries(30):
        process_episodes(small)

    for n in range(2, 32):
        process_episodes(store(graph, round_of_updates(n)))
    assert Fact.objects.filter(graph=graph).count() > 900
    large = store(graph, round_of_updates(40))
    with django_assert_num_queries(30):
        process_episodes(large)


@pytest.mark.django_db
def test_the_queries_to_process_one_episode_do_not_grow_with_the_graph(
    graph: Graph, django_assert_num_queries: Any
) -> None:
    process_episodes(store(graph, round_of_updates(0)))
    [small] = store(graph, round_of_updates(1)[:1])
    # its graph · claim its queue's head (savepoint, select, update, release; then the
    # episode) · name index catch-up · savepoint · lock · name index catch-up · names · aliases ·
    # the facts it can touch · entities · facts · updated facts · evidence · the episode · data
    # version · release · anything stored meanwhile?
    with django_assert_num_queries(21):
        process_episode(small)

    for n in range(2, 32):
        process_episodes(store(graph, round_of_updates(n)))
    [large] = store(graph, round_of_updates(40)[:1])
    with django_assert_num_queries(21):
        process_episode(large)


def test_an_episode_is_read_again_only_when_a_name_it_asked_about_is_known_differently() -> None:
    reads = NamesRead({"acme": "Customer"})
    assert reads.get("acme") == "Customer"
    assert "initech" not in reads

    # Names it never asked about may come and go.
    assert not reads.changed_in({"acme": "Customer", "orion": "Team"})
    assert not reads.changed_in({"acme": "Customer"})
    # A name it asked about that is now known, or known as something else, counts.
    assert reads.changed_in({"acme": "Customer", "initech": "Customer"})
    assert reads.changed_in({"acme": "Team"})
    assert reads.changed_in({})


def test_an_episode_whose_extraction_read_every_known_name_is_always_read_again() -> None:
    reads = NamesRead({"acme": "Customer"})
    assert list(reads) == ["acme"]

    assert reads.changed_in({"acme": "Customer"})
