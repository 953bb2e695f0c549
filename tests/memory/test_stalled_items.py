"""Stalled items through a pipeline run: published once per item with the updates that show its
state, left alone while nothing changes, retired as evidence_ended when the item moves on, and
off when the graph's setting says so; a quiet stall inside a pattern shown by that pattern,
written again when what it holds changes."""

from __future__ import annotations

import re
from datetime import UTC, datetime, timedelta

import pytest

from memory.engine.stalled import Stall
from memory.held_stalls import crossed_after
from memory.models import Graph, Observation, PipelineRun, StalledItemsMemo
from memory.pipeline import run_pipeline
from tests.conftest import IngestFn

pytestmark = [pytest.mark.django_db, pytest.mark.stalled]


def weeks_ago(weeks: float) -> str:
    return (datetime.now(UTC) - timedelta(weeks=weeks)).isoformat()


def update(external_id: str, author: str, when: str, content: str) -> dict[str, str]:
    return {"external_id": external_id, "author": author, "reference_time": when,
            "content": content}


def stalled(graph: Graph, status: str = Observation.Status.ACTIVE) -> list[Observation]:
    return list(Observation.objects.filter(graph=graph, kind=Observation.Kind.STALLED,
                                           status=status).order_by("pk"))


def run(graph: Graph) -> None:
    finished = run_pipeline(graph)
    assert finished is not None and finished.status == "succeeded", finished and finished.error


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


def test_a_run_after_another_examines_only_the_items_whose_updates_changed(
    graph: Graph, ingest: IngestFn,
) -> None:
    ingest(graph, [
        update("a", "Alice", weeks_ago(5), "The audit report is stalled."),
        update("b", "Bob", weeks_ago(4), "The search rewrite is in review."),
    ])
    first = run_pipeline(graph)
    assert first is not None and first.counts["stalled"] == 2
    assert StalledItemsMemo.objects.get(graph=graph).run_id == first.pk

    ingest(graph, [update("c", "Bob", weeks_ago(0), "The search rewrite is done.")])
    run(graph)

    # The run that processing started examined the one item the new update is about; the
    # one started here found nothing new and examined none.
    runs = PipelineRun.objects.filter(graph=graph, pk__gt=first.pk).order_by("pk")
    assert [r.counts["stalled_examined"] for r in runs] == [1, 0]
    assert [o.name.split(" stalled since ")[0] for o in stalled(graph)] == ["Audit Report"]
    assert StalledItemsMemo.objects.get(graph=graph).run_id == runs.reverse()[0].pk


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


def test_a_chain_written_before_its_root_went_quiet_is_written_again_to_say_so(
    graph: Graph, ingest: IngestFn,
) -> None:
    # Written while nothing was stalled (here: stalled items off), the chain is kept as it is
    # while its evidence is; once its root is a quiet stall inside it, its next version says
    # so, and the run after leaves it alone.
    Graph.objects.filter(pk=graph.pk).update(settings={"stalled_after_weeks": 0})
    graph.refresh_from_db()
    ingest(graph, [
        update("a", "Alice", weeks_ago(6),
               "The API migration is blocked by the auth refactor. The auth refactor is in "
               "review."),
        update("b", "Bob", weeks_ago(6), "The payments work is blocked by the auth refactor."),
    ])
    run(graph)
    (before,) = Observation.objects.filter(graph=graph, status=Observation.Status.ACTIVE)
    assert before.structure["held_stalls"] == []
    first = PipelineRun.objects.filter(graph=graph).latest("pk").pk
    Graph.objects.filter(pk=graph.pk).update(settings={"stalled_after_weeks": 3})
    graph.refresh_from_db()

    run(graph)
    run(graph)

    (after,) = Observation.objects.filter(graph=graph, status=Observation.Status.ACTIVE)
    assert (after.lineage, after.version) == (before.lineage, 2)
    assert [held["state"] for held in after.structure["held_stalls"]] == ["status"]
    assert "The Auth Refactor has been in review since " in after.summary
    before.refresh_from_db()
    assert before.retired_reason == Observation.RetiredReason.SUPERSEDED
    assert [r.counts["rewritten_for_stalls"] for r in PipelineRun.objects.filter(
        graph=graph, pk__gt=first).order_by("pk")] == [1, 0]
    assert stalled(graph) == []


@pytest.mark.parametrize(("last_run_weeks_ago", "from_before", "version"), [
    (5.5, None, 2), (1, None, 1),
    (1, {"stalled": 0}, 2),  # before held stalls
    (1, {"stalled": 0, "rewritten_for_stalls": 0}, 2),  # before trackers' own stalls were held
])
def test_only_time_passing_since_the_last_run_makes_an_untouched_pattern_look_again(
    graph: Graph, ingest: IngestFn, last_run_weeks_ago: float,
    from_before: dict[str, int] | None, version: int,
) -> None:
    # The root went quiet inside the chain three weeks ago. After a last run 5.5 weeks ago,
    # this run looks at the chain and writes it again. After a last run a week ago (made to
    # look so here), that run would have written it: this one does not look at the chain —
    # unless that run is from before held stalls (its patterns never held any), or from before
    # a tracker's own quiet stall was its tracker pattern's (a [meta] bug's was a card then).
    Graph.objects.filter(pk=graph.pk).update(settings={"stalled_after_weeks": 0})
    graph.refresh_from_db()
    ingest(graph, [
        update("a", "Alice", weeks_ago(6),
               "The API migration is blocked by the auth refactor. The auth refactor is in "
               "review."),
        update("b", "Bob", weeks_ago(6), "The payments work is blocked by the auth refactor."),
    ])
    run(graph)
    Graph.objects.filter(pk=graph.pk).update(settings={"stalled_after_weeks": 3})
    graph.refresh_from_db()
    PipelineRun.objects.filter(graph=graph).update(
        started_at=datetime.now(UTC) - timedelta(weeks=last_run_weeks_ago),
        settings={"stalled_after_weeks": 3})
    if from_before is not None:
        PipelineRun.objects.filter(graph=graph).update(counts=from_before)

    run(graph)

    (chain,) = Observation.objects.filter(graph=graph, status=Observation.Status.ACTIVE)
    assert chain.version == version


def test_a_stall_crosses_when_it_has_both_lasted_and_gone_quiet() -> None:
    now = datetime(2026, 12, 5, tzinfo=UTC)
    stall = Stall(item_id=1, state="status", since=now - timedelta(weeks=10), as_of=now,
                  fact_ids=(1,), episode_ids=(1,), last_said=now - timedelta(weeks=4))

    # Lasted three weeks 7 weeks ago, quiet for three weeks 1 week ago: it crossed then.
    assert crossed_after(stall, now - timedelta(weeks=2), 3)
    assert not crossed_after(stall, now - timedelta(days=6), 3)
    assert crossed_after(stall, None, 3)


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
