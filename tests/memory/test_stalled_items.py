"""Stalled items through a pipeline run: published once per item with the updates that show its
state, left alone while nothing changes, retired as evidence_ended when the item moves on, and
off when the graph's setting says so; a quiet stall inside a pattern shown by that pattern
(written again when what it holds changes: ``tests/memory/pipeline/test_held_stalls.py``)."""

from __future__ import annotations

import re

import pytest

from memory.models import Graph, Observation, PipelineRun
from memory.pipeline import run_pipeline
from tests.conftest import IngestFn
from tests.memory.stall_updates import run, stalled, update, weeks_ago

pytestmark = [pytest.mark.django_db, pytest.mark.stalled]



def test_an_item_stalled_for_five_weeks_is_one_observation_citing_the_update_that_said_so(
    graph: Graph, ingest: IngestFn,
) -> None:
    ingest(graph, [
        update("a", "Alice", weeks_ago(5), "The audit report is stalled."),
        update("b", "Bob", weeks_ago(1), "The search rewrite is stalled."),  # one week: not yet
    ])
    run(graph)

    (observation,) = stalled(graph)
    assert observation.name.startswith("Audit Report stalled since ")
    assert "(5 weeks by " in observation.summary
    assert [e.external_id for e in observation.episodes.all()] == ["a"]
    assert [c.facts.count() for c in observation.claims.all()] == [1]
    assert observation.structure["stalled"]["state"] == "status"
    assert observation.structure["stalled"]["weeks"] == 5


def test_a_run_with_nothing_new_leaves_the_stalled_item_as_it_was(
    graph: Graph, ingest: IngestFn,
) -> None:
    ingest(graph, [update("a", "Alice", weeks_ago(5), "The audit report is stalled.")])
    run(graph)
    (before,) = stalled(graph)

    run(graph)

    (after,) = stalled(graph)
    assert (after.pk, after.version) == (before.pk, 1)


def test_the_item_moving_on_retires_its_stalled_observation_as_evidence_ended(
    graph: Graph, ingest: IngestFn,
) -> None:
    ingest(graph, [update("a", "Alice", weeks_ago(5), "The audit report is stalled.")])
    run(graph)

    ingest(graph, [update("b", "Alice", weeks_ago(0), "The audit report is done.")])
    run(graph)

    assert stalled(graph) == []
    (retired,) = stalled(graph, Observation.Status.RETIRED)
    assert retired.retired_reason == Observation.RetiredReason.EVIDENCE_ENDED
    assert len(retired.retirement["closed_facts"]) == 1


def test_an_item_waiting_in_a_chain_is_shown_by_the_chain_and_its_root_may_be_stalled(
    graph: Graph, ingest: IngestFn,
) -> None:
    ingest(graph, [
        update("a", "Alice", weeks_ago(6), "The API migration is blocked by the auth refactor."),
        update("b", "Bob", weeks_ago(6), "The payments work is blocked by the auth refactor."),
        update("c", "Carol", weeks_ago(6), "The auth refactor is in review."),
    ])
    run(graph)

    kinds = dict(Observation.objects.filter(graph=graph, status=Observation.Status.ACTIVE)
                 .values_list("name", "kind"))
    assert kinds.get("Auth Refactor blocking 2 workstreams") == "dependency_chain"
    assert [o.name for o in stalled(graph)] == [
        next(name for name in kinds if name.startswith("Auth Refactor in review since"))]


def test_a_graph_that_sets_stalled_after_weeks_to_zero_shows_none(
    graph: Graph, ingest: IngestFn,
) -> None:
    Graph.objects.filter(pk=graph.pk).update(settings={"stalled_after_weeks": 0})
    graph.refresh_from_db()
    ingest(graph, [update("a", "Alice", weeks_ago(5), "The audit report is stalled.")])

    run(graph)

    assert stalled(graph) == []


def test_a_longer_threshold_waits_longer(graph: Graph, ingest: IngestFn) -> None:
    Graph.objects.filter(pk=graph.pk).update(settings={"stalled_after_weeks": 8})
    graph.refresh_from_db()
    ingest(graph, [update("a", "Alice", weeks_ago(5), "The audit report is stalled.")])

    run(graph)

    assert stalled(graph) == []
    assert run_pipeline(graph).settings["stalled_after_weeks"] == 8  # type: ignore[union-attr]


def test_a_quiet_stall_inside_a_chain_is_no_card_and_the_chain_says_how_long(
    graph: Graph, ingest: IngestFn,
) -> None:
    # The root blocker's status is the chain's evidence and nobody has restated it for six
    # weeks: the chain holds it, says since when and how long, and carries it in its structure.
    ingest(graph, [
        update("a", "Alice", weeks_ago(6),
               "The API migration is blocked by the auth refactor. The auth refactor is in "
               "review."),
        update("b", "Bob", weeks_ago(6), "The payments work is blocked by the auth refactor."),
    ])
    run(graph)

    assert stalled(graph) == []
    (chain,) = Observation.objects.filter(graph=graph, status=Observation.Status.ACTIVE)
    assert chain.kind == "dependency_chain"
    (held,) = chain.structure["held_stalls"]
    assert (chain.structure["names"][str(held["item"])], held["state"], held["weeks"]) == (
        "Auth Refactor", "status", 6)
    last = chain.claims.order_by("-position").first()
    assert last is not None
    assert re.fullmatch(r"The Auth Refactor has been in review since \d+ \w+( \d{4})? \(6 weeks by "
                        r"\d+ \w+( \d{4})?\)\.", last.text), last.text
    assert [f.pk for f in last.facts.all()] == held["facts"]
    assert PipelineRun.objects.filter(graph=graph).latest("pk").counts[
        "stalled_within_patterns"] == 1


def test_a_support_message_reporting_a_problem_and_naming_its_ticket_is_one_stalled_item(
    graph: Graph, ingest: IngestFn,
) -> None:
    """One message, its ticket and the problem it reports: one stall, the ticket's (it has the
    address), naming the problem inside — not a look-alike card for each."""
    ingest(graph, [{
        "external_id": "bw-9262", "author": "kensaiD2591", "reference_time": weeks_ago(80),
        "source": "support:bitwarden/clients", "url": "https://github.com/bitwarden/clients/issues/9262",
        "content": "# Application Not Letting Me Log In (refusing to accept correct credentials) "
                   "#9262\n\n### Steps To Reproduce\n\n1. Open the Application\n2. Enter the "
                   "Master Password\n3. Application then refuses and says it's an incorrect "
                   "combo of email/password\n\n### Actual Result\n\nNo activity. Login fails.",
    }])

    run(graph)

    (only,) = stalled(graph)
    # the ticket by its title (its first line, "# … #9262"), the problem inside
    assert only.name.startswith(
        "bitwarden/clients#9262 “Application Not Letting Me Log In"), only.name
    assert "” reports the Login Failures" in only.name
    assert len(only.structure["stalled"]["also"]) == 1
    assert only.episodes.count() == 1
