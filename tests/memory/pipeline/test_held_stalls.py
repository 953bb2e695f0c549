"""Patterns kept as they are whose quiet stalls changed, written again
(``memory.pipeline.held_stalls``): a chain written before its root went quiet says so in its
next version, an untouched pattern is looked at again only when time passing since the last run
could have changed what it holds."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from memory.engine.stalled import Stall
from memory.models import Graph, Observation, PipelineRun
from memory.pipeline.held_stalls import crossed_after
from tests.conftest import IngestFn
from tests.memory.stall_updates import run, stalled, update, weeks_ago

pytestmark = [pytest.mark.django_db, pytest.mark.stalled]



def test_a_chain_written_before_its_root_went_quiet_is_written_again_to_say_so(
    graph: Graph,
    ingest: IngestFn,
) -> None:
    # Written while nothing was stalled (here: stalled items off), the chain is kept as it is
    # while its evidence is; once its root is a quiet stall inside it, its next version says
    # so, and the run after leaves it alone.
    Graph.objects.filter(pk=graph.pk).update(settings={"stalled_after_weeks": 0})
    graph.refresh_from_db()
    ingest(
        graph,
        [
            update(
                "a",
                "Alice",
                weeks_ago(6),
                "The API migration is blocked by the auth refactor. The auth refactor is in "
                "review.",
            ),
            update("b", "Bob", weeks_ago(6), "The payments work is blocked by the auth refactor."),
        ],
    )
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
    assert [
        r.counts["rewritten_for_stalls"]
        for r in PipelineRun.objects.filter(graph=graph, pk__gt=first).order_by("pk")
    ] == [1, 0]
    assert stalled(graph) == []


@pytest.mark.parametrize(
    ("last_run_weeks_ago", "from_before", "version"),
    [
        (5.5, None, 2),
        (1, None, 1),
        (1, {"stalled": 0}, 2),  # before held stalls
        (1, {"stalled": 0, "rewritten_for_stalls": 0}, 2),  # before trackers' own stalls were held
    ],
)
def test_only_time_passing_since_the_last_run_makes_an_untouched_pattern_look_again(
    graph: Graph,
    ingest: IngestFn,
    last_run_weeks_ago: float,
    from_before: dict[str, int] | None,
    version: int,
) -> None:
    # The root went quiet inside the chain three weeks ago. After a last run 5.5 weeks ago,
    # this run looks at the chain and writes it again. After a last run a week ago (made to
    # look so here), that run would have written it: this one does not look at the chain —
    # unless that run is from before held stalls (its patterns never held any), or from before
    # a tracker's own quiet stall was its tracker pattern's (a [meta] bug's was a card then).
    Graph.objects.filter(pk=graph.pk).update(settings={"stalled_after_weeks": 0})
    graph.refresh_from_db()
    ingest(
        graph,
        [
            update(
                "a",
                "Alice",
                weeks_ago(6),
                "The API migration is blocked by the auth refactor. The auth refactor is in "
                "review.",
            ),
            update("b", "Bob", weeks_ago(6), "The payments work is blocked by the auth refactor."),
        ],
    )
    run(graph)
    Graph.objects.filter(pk=graph.pk).update(settings={"stalled_after_weeks": 3})
    graph.refresh_from_db()
    PipelineRun.objects.filter(graph=graph).update(
        started_at=datetime.now(UTC) - timedelta(weeks=last_run_weeks_ago),
        settings={"stalled_after_weeks": 3},
    )
    if from_before is not None:
        PipelineRun.objects.filter(graph=graph).update(counts=from_before)

    run(graph)

    (chain,) = Observation.objects.filter(graph=graph, status=Observation.Status.ACTIVE)
    assert chain.version == version


def test_a_stall_crosses_when_it_has_both_lasted_and_gone_quiet() -> None:
    now = datetime(2026, 12, 5, tzinfo=UTC)
    stall = Stall(
        item_id=1,
        state="status",
        since=now - timedelta(weeks=10),
        as_of=now,
        fact_ids=(1,),
        episode_ids=(1,),
        last_said=now - timedelta(weeks=4),
    )

    # Lasted three weeks 7 weeks ago, quiet for three weeks 1 week ago: it crossed then.
    assert crossed_after(stall, now - timedelta(weeks=2), 3)
    assert not crossed_after(stall, now - timedelta(days=6), 3)
    assert crossed_after(stall, None, 3)
