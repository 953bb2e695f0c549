"""A recurring issue's customers (with plans), tickets (open and solved, linking to the help desk)
and first and latest report, on its card and its page (issue #14)."""

from __future__ import annotations

from datetime import UTC, date, datetime
from uuid import uuid4

import pytest
from django.test import Client
from django.urls import reverse

from dashboard.presenters import EntityRef, IssueSummary, ObservationCard
from dashboard.support_queue import (
    CustomerLine,
    QueueSummary,
    ReportRow,
    queue_summaries,
    report_span,
    summarize,
)
from memory.models import Graph, Observation
from memory.pipeline import run_pipeline
from tests.dashboard.conftest import signed_in
from tests.memory.importers.conftest import fixture_bytes

MAP = ("external_id=Ticket ID,subject=Subject,content=Description,status=Status,"
       "priority=Priority,author=Requester,customer=Organization,plan=Plan,"
       "reference_time=Created,updated=Last update,brand=Brand,url=Ticket URL")


def row(customer: int, target: int, target_type: str = "WorkItem", day: int = 2,
        observation: int = 1) -> ReportRow:
    return ReportRow(observation, customer, f"Customer {customer}", uuid4(), target,
                     f"Ticket {target}", target_type, uuid4(), f"https://desk.example/{target}",
                     datetime(2026, 11, day, tzinfo=UTC))


def test_customers_are_counted_by_plan_and_tickets_by_open_or_solved() -> None:
    rows = [row(1, 10, day=3), row(2, 11, day=5), row(3, 12, day=4), row(1, 99, "Issue", 2)]
    summary = summarize(rows, plans={1: "Enterprise", 2: "Enterprise", 3: "Pro"},
                        statuses={10: "Open", 11: "Solved", 12: "Pending"},
                        is_final=lambda s: s.lower() == "solved")[1]

    assert summary.customers_text == "3 customers, 2 on Enterprise, 1 on Pro"
    assert [(t.name, t.open) for t in summary.tickets] == [
        ("Ticket 10", True), ("Ticket 12", True), ("Ticket 11", False)]
    assert summary.tickets_text == "2 open, 1 solved"
    assert (summary.first_report.day, summary.latest_report.day) == (2, 5)


def test_customers_without_a_known_plan_are_counted_without_one() -> None:
    summary = summarize([row(1, 99, "Issue")], plans={}, statuses={}, is_final=bool)[1]
    assert summary.customers_text == "1 customer"
    assert summary.tickets == [] and summary.tickets_text == ""


def test_reports_of_this_year_read_by_day_and_month() -> None:
    assert report_span(datetime(2026, 11, 2, tzinfo=UTC), datetime(2026, 11, 5, tzinfo=UTC),
                       today=date(2026, 12, 5)) == "first 2 Nov, latest 5 Nov"


def test_reports_of_other_years_carry_their_years() -> None:
    # warpdotdev/warp's Login Failures: reported from August 2022 to July 2026, read in
    # December 2026; and tailscale's Ping Failures, all in 2025.
    assert report_span(datetime(2022, 8, 30, tzinfo=UTC), datetime(2026, 7, 9, tzinfo=UTC),
                       today=date(2026, 12, 5)) == "first 30 Aug 2022, latest 9 Jul 2026"
    assert report_span(datetime(2025, 1, 31, tzinfo=UTC), datetime(2025, 4, 20, tzinfo=UTC),
                       today=date(2026, 12, 5)) == "first 31 Jan 2025, latest 20 Apr 2025"


def customers(n: int) -> list[CustomerLine]:
    return [CustomerLine(f"Customer {i}", uuid4()) for i in range(n)]


def test_the_queue_counts_its_customers_in_all_when_they_are_more_than_the_issues() -> None:
    issue = IssueSummary(EntityRef("High Memory Usage", None), reporters=10,
                         recurring_events=[], reporter_types=frozenset({"Customer"}))
    more = ObservationCard(Observation(), "", None, issue, QueueSummary(customers(11)))
    same = ObservationCard(Observation(), "", None, issue, QueueSummary(customers(10)))
    assert more.queue_customers_text == "11 customers in all"
    assert same.queue_customers_text == "10 customers"


@pytest.fixture
def queue_graph(graph: Graph, django_capture_on_commit_callbacks) -> Graph:  # type: ignore[no-untyped-def]
    from memory.importers.runs import import_export

    with django_capture_on_commit_callbacks(execute=True):
        import_export(graph, "csv", fixture_bytes("support-tickets.csv"),
                      options={"mapping": MAP})
    run_pipeline(graph)
    return graph


@pytest.mark.django_db
def test_the_card_says_who_is_affected_on_which_plan_and_how_many_tickets_are_open(
        client: Client, queue_graph: Graph, owner) -> None:
    response = signed_in(client, owner).get(reverse("board", args=[queue_graph.slug]))

    html = response.content.decode()
    assert "2 customers, 1 on Enterprise, 1 on Pro" in html
    assert "2 tickets: 1 open, 1 solved" in html
    assert "first 2 Nov" in html and "latest 5 Nov" in html
    # Its reporters are customers: "2 customers" beside the issue, not "2 reporters" (#13).
    assert '<span class="reach">2 customers</span>' in html


@pytest.mark.django_db
def test_the_page_lists_customers_with_plans_and_links_each_ticket_to_the_help_desk(
        client: Client, queue_graph: Graph, owner) -> None:
    observation = Observation.objects.get(graph=queue_graph, status="active",
                                          kind="recurring_issue")
    response = signed_in(client, owner).get(
        reverse("observation", args=[queue_graph.slug, observation.uuid]))

    html = response.content.decode()
    assert "Customers and tickets" in html
    assert 'href="https://help.example.com/tickets/1001"' in html
    assert 'href="https://help.example.com/tickets/1002"' in html
    assert "Resolved" in html and "Enterprise" in html


@pytest.mark.django_db
def test_a_page_of_recurring_issues_costs_three_queries(queue_graph: Graph,
                                                        django_assert_num_queries) -> None:
    observations = list(Observation.objects.filter(graph=queue_graph, status="active"))
    with django_assert_num_queries(3):
        summaries = queue_summaries(queue_graph, observations)
    assert len(summaries) == 1


@pytest.mark.django_db
def test_the_tickets_csv_lists_each_ticket_and_writes_formula_looking_names_as_text(
        client: Client, queue_graph: Graph, owner) -> None:
    import csv
    import io

    from memory.models import Entity

    Entity.objects.filter(graph=queue_graph, name="Acme Corp").update(name="=HYPERLINK(1)")
    observation = Observation.objects.get(graph=queue_graph, status="active",
                                          kind="recurring_issue")
    response = signed_in(client, owner).get(
        reverse("observation-tickets-csv", args=[queue_graph.slug, observation.uuid]))

    assert response["Content-Type"] == "text/csv; charset=utf-8"
    rows = list(csv.reader(io.StringIO(response.content.decode("utf-8-sig"))))
    assert rows[0] == ["ticket", "customer", "plan", "status", "open", "link"]
    assert sorted(r[0] for r in rows[1:]) == ["Ticket 1001", "Ticket 1002"]
    acme = next(r for r in rows if r[0] == "Ticket 1001")
    assert acme[1] == "'=HYPERLINK(1)" and acme[2] == "Enterprise"
    assert acme[5] == "https://help.example.com/tickets/1001"


@pytest.mark.django_db
def test_an_observation_without_customers_has_no_tickets_csv(
        client: Client, graph: Graph, owner) -> None:
    from tests.factories import ObservationFactory

    observation = ObservationFactory(graph=graph)
    response = signed_in(client, owner).get(
        reverse("observation-tickets-csv", args=[graph.slug, observation.uuid]))
    assert response.status_code == 404


@pytest.mark.django_db
def test_a_board_with_recurring_issues_takes_three_queries_more(
        client: Client, queue_graph: Graph, owner, django_assert_num_queries) -> None:
    signed_in(client, owner)
    # The board's nine (tests/dashboard/test_board.py), then the customers' reports, their
    # plans and their tickets' statuses.
    with django_assert_num_queries(12):
        client.get(reverse("board", args=[queue_graph.slug]))
