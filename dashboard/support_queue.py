"""What a support lead needs to run a queue from a recurring issue (issue #14): the customers
affected with their plans ("7 customers, 3 on Enterprise"), the tickets with their help-desk
links, how many are open and how many solved, and the first and latest report.

Read for a page of observations at once, in three queries whatever the page's size: the reports
(``REPORTED`` facts of customers, as supported by the observations' episodes — solved tickets
included: their thread ended, their episodes are still the evidence), the customers' current
plans and the tickets' current statuses. ``summarize`` turns those rows into the summaries
(pure: no ORM)."""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from datetime import date, datetime
from typing import NamedTuple
from uuid import UUID

from django.utils import timezone

from memory.graph_settings import ontology_for
from memory.models import Fact, FactEvidence, Graph, Observation

CUSTOMER, TICKET = "Customer", "WorkItem"


class ReportRow(NamedTuple):
    observation_id: int
    customer_id: int
    customer: str
    customer_uuid: UUID
    target_id: int
    target: str
    target_type: str
    target_uuid: UUID
    url: str
    reported_at: datetime


@dataclass(frozen=True)
class CustomerLine:
    name: str
    uuid: UUID
    plan: str = ""


@dataclass(frozen=True)
class TicketLine:
    name: str
    uuid: UUID
    url: str
    status: str
    open: bool
    customer: str


@dataclass
class QueueSummary:
    customers: list[CustomerLine] = field(default_factory=list)
    tickets: list[TicketLine] = field(default_factory=list)
    first_report: datetime | None = None
    latest_report: datetime | None = None

    @property
    def open_tickets(self) -> int:
        return sum(1 for t in self.tickets if t.open)

    @property
    def solved_tickets(self) -> int:
        return sum(1 for t in self.tickets if not t.open)

    @property
    def plans(self) -> list[tuple[str, int]]:
        """Known plans by customers on them, most first (then by name)."""
        counts = Counter(c.plan for c in self.customers if c.plan)
        return sorted(counts.items(), key=lambda item: (-item[1], item[0]))

    @property
    def customers_text(self) -> str:
        """``7 customers, 3 on Enterprise, 2 on Pro``."""
        n = len(self.customers)
        text = f"{n} customer{'s' if n != 1 else ''}"
        return ", ".join([text, *(f"{count} on {plan}" for plan, count in self.plans)])

    @property
    def tickets_text(self) -> str:
        if not self.tickets:
            return ""
        return f"{self.open_tickets} open, {self.solved_tickets} solved"

    @property
    def reports_text(self) -> str:
        """ "first 2 Nov, latest 5 Nov" this year; "first 30 Aug 2022, latest 9 Jul 2026" when
        the reports are of other years (a thread of 2022 is not "first 30 Aug")."""
        if self.first_report is None or self.latest_report is None:
            return ""
        return report_span(self.first_report, self.latest_report, timezone.localdate())


def report_span(first: datetime, latest: datetime, today: date) -> str:
    """The first and latest report, their years given unless both are in ``today``'s."""
    form = "%-d %b" if first.year == latest.year == today.year else "%-d %b %Y"
    return f"first {first:{form}}, latest {latest:{form}}"


def summarize(rows: Iterable[ReportRow], plans: dict[int, str], statuses: dict[int, str],
              is_final: Callable[[str], bool]) -> dict[int, QueueSummary]:
    """Observation id → its queue summary, from its customers' reports (pure)."""
    by_observation: dict[int, list[ReportRow]] = defaultdict(list)
    for row in rows:
        by_observation[row.observation_id].append(row)
    summaries = {}
    for observation_id, reports in by_observation.items():
        customers = {r.customer_id: CustomerLine(r.customer, r.customer_uuid,
                                                 plans.get(r.customer_id, ""))
                     for r in reports}
        tickets: dict[int, TicketLine] = {}
        for r in sorted(reports, key=lambda r: (r.reported_at, r.target_id)):
            if r.target_type == TICKET and r.target_id not in tickets:
                status = statuses.get(r.target_id, "")
                tickets[r.target_id] = TicketLine(r.target, r.target_uuid, r.url, status,
                                                  not (status and is_final(status)), r.customer)
        times = [r.reported_at for r in reports]
        summaries[observation_id] = QueueSummary(
            customers=sorted(customers.values(), key=lambda c: (c.name.lower(), c.name)),
            tickets=sorted(tickets.values(), key=lambda t: (not t.open, t.name)),
            first_report=min(times), latest_report=max(times),
        )
    return summaries


CSV_HEADER = ["ticket", "customer", "plan", "status", "open", "link"]


def tickets_csv(summary: QueueSummary) -> str:
    """The tickets of a recurring issue, one row each (customers without a ticket: one row with
    the customer alone), for a spreadsheet. Every cell goes through ``dashboard.exports.cell``:
    names come from customers and tickets, so one that starts like a formula is written as
    text. Starts with a byte-order mark so spreadsheets read it as UTF-8."""
    import csv
    import io

    from dashboard.exports import cell

    plans = {c.name: c.plan for c in summary.customers}
    out = io.StringIO()
    writer = csv.writer(out)
    writer.writerow(CSV_HEADER)
    for ticket in summary.tickets:
        writer.writerow([cell(v) for v in (ticket.name, ticket.customer,
                                           plans.get(ticket.customer, ""), ticket.status,
                                           "yes" if ticket.open else "no", ticket.url)])
    with_tickets = {t.customer for t in summary.tickets}
    for customer in summary.customers:
        if customer.name not in with_tickets:
            writer.writerow([cell(v) for v in ("", customer.name, customer.plan, "", "", "")])
    return "\ufeff" + out.getvalue()


def queue_summaries(graph: Graph, observations: Iterable[Observation]
                    ) -> dict[int, QueueSummary]:
    """The queue summaries of the recurring issues among ``observations`` (three queries when
    there is one, none otherwise)."""
    ids = [o.pk for o in observations if o.kind == Observation.Kind.RECURRING_ISSUE]
    if not ids:
        return {}
    rows = [ReportRow(*values) for values in FactEvidence.objects.filter(
        episode__observations__in=ids, fact__relation="REPORTED",
        fact__source__type=CUSTOMER,
    ).values_list(
        "episode__observations", "fact__source_id", "fact__source__name",
        "fact__source__uuid", "fact__target_id", "fact__target__name", "fact__target__type",
        "fact__target__uuid", "episode__url", "episode__reference_time",
    ).distinct()]
    rows = [r for r in rows if r.observation_id in ids]
    customers = {r.customer_id for r in rows}
    tickets = {r.target_id for r in rows if r.target_type == TICKET}
    return summarize(rows, _current(graph, "ON_PLAN", customers),
                     _current(graph, "HAS_STATUS", tickets), ontology_for(graph).is_final_status)


def _current(graph: Graph, relation: str, source_ids: set[int]) -> dict[int, str]:
    """Source id → the target name of its current single-valued ``relation`` fact."""
    if not source_ids:
        return {}
    return dict(Fact.objects.filter(
        graph=graph, relation=relation, source_id__in=source_ids, invalid_at__isnull=True,
        expired_at__isnull=True,
    ).order_by("valid_at", "pk").values_list("source_id", "target__name"))
