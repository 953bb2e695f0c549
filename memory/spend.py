"""What the model costs a graph: its monthly token budget and its spend per day and per run, read
from the audit rows (``LLMCall``), one row per HTTP attempt.

Budget: ``monthly_token_budget`` in ``Graph.settings`` (tokens in and out, per calendar month in
UTC; unset: no limit). Once the month's calls have used it, ``memory.llm.complete_json`` makes no
more calls for the graph: the rules extractor and the template write, the board says so, and the
stand-ins are asked for again when the month turns.

Spend is shown by purpose (extraction, observation summaries, entity summaries), with the model
and the prompt version, per day and per pipeline run. A run's summaries are its own calls; the
extraction and entity-summary calls of a run are those made since the graph's previous run
started (what it cost to bring the graph to this run).
"""

from __future__ import annotations

from bisect import bisect_left
from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from datetime import UTC, date, datetime, timedelta

from django.db.models import Count, Q, Sum
from django.db.models.functions import TruncDate
from django.utils import timezone

from memory.graph_settings import graph_settings
from memory.models import Graph, LLMCall, PipelineRun

PURPOSES = (LLMCall.Purpose.EXTRACTION, LLMCall.Purpose.SUMMARY, LLMCall.Purpose.ENTITY_SUMMARY)


def month_start(now: datetime | None = None) -> datetime:
    now = (now or timezone.now()).astimezone(UTC)
    return now.replace(day=1, hour=0, minute=0, second=0, microsecond=0)


def next_month(now: datetime | None = None) -> datetime:
    start = month_start(now)
    return (start + timedelta(days=32)).replace(day=1)


def tokens_this_month(graph: Graph, *, now: datetime | None = None) -> int:
    totals = LLMCall.objects.filter(graph=graph, created_at__gte=month_start(now)).aggregate(
        tokens_in=Sum("tokens_in"), tokens_out=Sum("tokens_out"))
    return int(totals["tokens_in"] or 0) + int(totals["tokens_out"] or 0)


def monthly_budget(graph: Graph) -> int | None:
    value = graph_settings(graph).get("monthly_token_budget")
    return int(value) if value not in (None, "") else None


class Budget:
    """A graph's remaining tokens this month, read once and counted down as calls are made (a
    run or a batch shares one, so it costs one query, not one per call)."""

    def __init__(self, limit: int | None, used: int = 0) -> None:
        self.limit = limit
        self.used = used

    @classmethod
    def for_graph(cls, graph: Graph, *, now: datetime | None = None) -> Budget:
        limit = monthly_budget(graph)
        if limit is None:
            return cls(None)
        return cls(limit, tokens_this_month(graph, now=now))

    @classmethod
    def unlimited(cls) -> Budget:
        return cls(None)

    def allows(self) -> bool:
        return self.limit is None or self.used < self.limit

    def spend(self, tokens: int) -> None:
        self.used += tokens

    @property
    def spent(self) -> bool:
        return not self.allows()


@dataclass(frozen=True)
class BudgetStatus:
    limit: int | None
    used: int
    resets_on: date

    @property
    def spent(self) -> bool:
        return self.limit is not None and self.used >= self.limit

    @property
    def percent(self) -> int:
        if not self.limit:
            return 0
        return min(100, round(100 * self.used / self.limit))


def budget_status(graph: Graph, *, now: datetime | None = None) -> BudgetStatus:
    """The board's and the settings page's view of the budget (one query when one is set)."""
    limit = monthly_budget(graph)
    used = tokens_this_month(graph, now=now) if limit is not None else 0
    return BudgetStatus(limit, used, next_month(now).date())


# -- spend --------------------------------------------------------------------------------------


@dataclass
class Spend:
    """Calls and tokens of one purpose, with the models and prompt versions that made them."""

    calls: int = 0
    tokens_in: int = 0
    tokens_out: int = 0
    failed: int = 0
    models: set[str] = field(default_factory=set)
    prompt_versions: set[str] = field(default_factory=set)

    def add(self, calls: int, tokens_in: int, tokens_out: int, failed: int, model: str,
            prompt_version: str) -> None:
        self.calls += calls
        self.tokens_in += tokens_in
        self.tokens_out += tokens_out
        self.failed += failed
        if model:
            self.models.add(model)
        if prompt_version:
            self.prompt_versions.add(prompt_version)

    @property
    def tokens(self) -> int:
        return self.tokens_in + self.tokens_out

    @property
    def label(self) -> str:
        """"fake-model-1 · extract-2" for the tables."""
        parts = [", ".join(sorted(self.models)), ", ".join(sorted(self.prompt_versions))]
        return " · ".join(p for p in parts if p)


@dataclass
class SpendRow:
    """One line of a spend table: a day or a run, each purpose's spend."""

    key: object
    by_purpose: dict[str, Spend]

    @property
    def total(self) -> Spend:
        total = Spend()
        for spend in self.by_purpose.values():
            total.add(spend.calls, spend.tokens_in, spend.tokens_out, spend.failed, "", "")
            total.models |= spend.models
            total.prompt_versions |= spend.prompt_versions
        return total

    def of(self, purpose: str) -> Spend:
        return self.by_purpose.get(purpose) or Spend()

    @property
    def extraction(self) -> Spend:
        return self.of(LLMCall.Purpose.EXTRACTION)

    @property
    def summaries(self) -> Spend:
        return self.of(LLMCall.Purpose.SUMMARY)

    @property
    def entity_pages(self) -> Spend:
        return self.of(LLMCall.Purpose.ENTITY_SUMMARY)


_FAILED = Q(outcome__in=[LLMCall.Outcome.ERROR, LLMCall.Outcome.TIMEOUT,
                         LLMCall.Outcome.RATE_LIMITED])


def spend_by_day(graph: Graph, *, days: int = 30, now: datetime | None = None
                 ) -> list[SpendRow]:
    """The last ``days`` days that had calls, newest first (one query)."""
    since = (now or timezone.now()) - timedelta(days=days)
    rows = (
        LLMCall.objects.filter(graph=graph, created_at__gte=since)
        .annotate(day=TruncDate("created_at"))
        .values("day", "purpose", "model", "prompt_version")
        .annotate(calls=Count("id"), tokens_in=Sum("tokens_in"), tokens_out=Sum("tokens_out"),
                  failed=Count("id", filter=_FAILED))
    )
    by_day: dict[date, dict[str, Spend]] = defaultdict(dict)
    for row in rows:
        spend = by_day[row["day"]].setdefault(row["purpose"], Spend())
        spend.add(row["calls"], row["tokens_in"] or 0, row["tokens_out"] or 0, row["failed"],
                  row["model"], row["prompt_version"])
    return [SpendRow(day, by_day[day]) for day in sorted(by_day, reverse=True)]


def spend_by_run(runs: Sequence[PipelineRun]) -> dict[int, SpendRow]:
    """Run id → its spend: its own summary calls, and the extraction and entity-summary calls
    made since the graph's previous run started (two queries for a page of runs)."""
    if not runs:
        return {}
    graph_id = runs[0].graph_id
    ordered = sorted(runs, key=lambda r: (r.created_at, r.pk))
    # The previous run of the first one on the page bounds its window.
    earlier = (PipelineRun.objects.filter(graph_id=graph_id, created_at__lt=ordered[0].created_at)
               .order_by("-created_at").values_list("created_at", flat=True).first())
    starts = [earlier, *(r.created_at for r in ordered[:-1])]
    result = {r.pk: SpendRow(r.pk, {}) for r in ordered}
    own = (LLMCall.objects.filter(run_id__in=[r.pk for r in ordered])
           .values("run_id", "purpose", "model", "prompt_version")
           .annotate(calls=Count("id"), tokens_in=Sum("tokens_in"),
                     tokens_out=Sum("tokens_out"), failed=Count("id", filter=_FAILED)))
    for row in own:
        result[row["run_id"]].by_purpose.setdefault(row["purpose"], Spend()).add(
            row["calls"], row["tokens_in"] or 0, row["tokens_out"] or 0, row["failed"],
            row["model"], row["prompt_version"])
    until = max(r.finished_at or timezone.now() for r in ordered)
    window = Q(created_at__lte=until) & (Q(created_at__gt=starts[0]) if starts[0] else Q())
    between = (LLMCall.objects.filter(window, graph_id=graph_id, run__isnull=True)
               .exclude(purpose=LLMCall.Purpose.SUMMARY)
               .values_list("created_at", "purpose", "model", "prompt_version", "tokens_in",
                            "tokens_out", "outcome"))
    ends = [r.finished_at or r.created_at for r in ordered]
    for created_at, purpose, model, version, tokens_in, tokens_out, outcome in between:
        # The first run whose window (previous start, its end] holds the call.
        index = bisect_left(ends, created_at)
        if index >= len(ordered):
            continue
        failed = int(outcome in (LLMCall.Outcome.ERROR, LLMCall.Outcome.TIMEOUT,
                                 LLMCall.Outcome.RATE_LIMITED))
        result[ordered[index].pk].by_purpose.setdefault(purpose, Spend()).add(
            1, tokens_in, tokens_out, failed, model, version)
    return result


def totals(rows: Iterable[SpendRow]) -> SpendRow:
    combined: dict[str, Spend] = {}
    for row in rows:
        for purpose, spend in row.by_purpose.items():
            total = combined.setdefault(purpose, Spend())
            total.add(spend.calls, spend.tokens_in, spend.tokens_out, spend.failed, "", "")
            total.models |= spend.models
            total.prompt_versions |= spend.prompt_versions
    return SpendRow("total", combined)


# -- what the pages say about the model ----------------------------------------------------------


@dataclass(frozen=True)
class ModelStatus:
    """What the board, the runs page and the settings page say about the model (no query when
    no model is configured; one or two otherwise)."""

    configured: bool
    model: str = ""
    response_format: str = ""
    """The format detected for this server, empty until a call has shown it."""
    usable: bool = True
    detail: str = ""
    budget: BudgetStatus | None = None
    pending_summaries: int = 0

    @property
    def warning(self) -> str:
        """Why the model is not writing for this graph now, in a sentence; empty when it is."""
        if not self.configured:
            return ""
        if not self.usable:
            return (f"The model {self.model} is unusable: {self.detail}. The rules extractor and "
                    "the template write meanwhile; it is tried again within the hour.")
        if self.budget is not None and self.budget.spent:
            return (f"This graph's monthly model budget is spent ({self.budget.used:,} of "
                    f"{self.budget.limit:,} tokens): the rules extractor and the template write "
                    f"until {self.budget.resets_on.day} {self.budget.resets_on:%B}, then the model "
                    "rewrites what they "
                    "stood in for.")
        return ""


def model_status(graph: Graph, *, pending: bool = False) -> ModelStatus:
    from memory.llm import endpoint_state, llm_enabled, model_name
    from memory.models import Observation

    if not llm_enabled():
        return ModelStatus(configured=False)
    endpoint = endpoint_state()
    limit = monthly_budget(graph)
    budget = budget_status(graph) if limit is not None else None
    waiting = (Observation.objects.filter(graph=graph, status=Observation.Status.ACTIVE,
                                          summary_pending=True).count() if pending else 0)
    return ModelStatus(
        configured=True, model=model_name(),
        response_format=endpoint.response_format if endpoint.confirmed else "",
        usable=endpoint.usable, detail=endpoint.detail, budget=budget,
        pending_summaries=waiting,
    )
