"""Zendesk: the incremental ticket export with users, organizations and brands side-loaded, and
ticket audits — fixtures written from Zendesk's API reference (fixtures/README.md)."""

from __future__ import annotations

import json

import pytest

from memory.importers import zendesk
from memory.importers.model import WrongFormat
from memory.models import Episode, Graph
from tests.memory.importers.conftest import ImportFn, facts_of, fixture_bytes

ISSUE_MAP = "issue=custom_field:27642,product=custom_field:27648,plan=organization_field:plan"


def export(*, audits: bool = True) -> bytes:
    pages = [json.loads(fixture_bytes("zendesk-incremental-tickets.json"))]
    if audits:
        pages.append(json.loads(fixture_bytes("zendesk-ticket-audits.json")))
    return "\n".join(json.dumps(page) for page in pages).encode()


def test_the_customer_is_the_requesters_organization_else_the_requester() -> None:
    items = {i.key: i for i in zendesk.read(export()).items}

    assert [p.name for p in items["Ticket #35436"].reporters] == ["Acme Corp"]
    assert [p.name for p in items["Ticket #35437"].reporters] == ["Globex"]
    assert [p.name for p in items["Ticket #35438"].reporters] == ["Sam Ortiz"]
    assert {p.type for i in items.values() for p in i.reporters} == {"Customer"}


def test_each_ticket_links_to_its_agent_page_and_carries_its_brand() -> None:
    ticket = next(i for i in zendesk.read(export()).items if i.key == "Ticket #35436")
    assert ticket.url == "https://example.zendesk.com/agent/tickets/35436"
    assert ticket.source == "zendesk:Nimbus"
    assert ticket.priority == "high" and "enterprise" in ticket.labels


def test_audits_are_the_tickets_history_with_public_comments_as_words() -> None:
    ticket = next(i for i in zendesk.read(export()).items if i.key == "Ticket #35436")

    assert [(c.status, c.actor.name if c.actor else None) for c in ticket.changes] == [
        ("New", "Acme Corp"), ("Open", "Dana Whitlock"), ("Solved", "Dana Whitlock")]
    assert ticket.changes[0].text == "Our nightly sync fails with a timeout since Monday."
    assert ticket.changes[1].text == "Thanks Kim, we are looking into it."  # the note is left out
    assert [a.name for a in ticket.changes[1].assignees_added] == ["Dana Whitlock"]
    assert "Priority: normal." in ticket.changes[2].note


def test_without_audits_the_current_status_is_recorded_at_the_last_update() -> None:
    ticket = next(i for i in zendesk.read(export(audits=False)).items
                  if i.key == "Ticket #35436")
    assert [(c.at.isoformat(), c.status) for c in ticket.changes] == [
        ("2026-11-02T09:12:00+00:00", None), ("2026-11-04T16:40:00+00:00", "Solved")]
    assert ticket.changes[0].text == "Our nightly sync fails with a timeout since Monday."


@pytest.mark.django_db
def test_mapped_fields_make_one_recurring_issue_and_a_solved_ticket_ends_only_its_report(
        graph: Graph, run_import: ImportFn) -> None:
    report = run_import(graph, "zendesk", export(), options={"mapping": ISSUE_MAP})
    assert (report.items, report.rejected) == (3, 0)

    reports = facts_of(graph, "REPORTED")
    issue = "sync timeouts (Nimbus)"
    assert reports[("Acme Corp", issue)].invalid_at is not None  # its ticket was solved
    assert reports[("Globex", issue)].invalid_at is None
    assert reports[("Acme Corp", "Ticket #35436")].invalid_at is not None
    assert reports[("Sam Ortiz", "Ticket #35438")].invalid_at is None
    plans = facts_of(graph, "ON_PLAN", current=True)
    assert set(plans) == {("Acme Corp", "Enterprise"), ("Globex", "Pro")}
    assert (issue, "Sync (Nimbus)") in facts_of(graph, "AFFECTS")  # one entity with the words'

    statuses = {(s, t) for s, t in facts_of(graph, "HAS_STATUS", current=True)}
    assert statuses == {("Ticket #35436", "Solved"), ("Ticket #35437", "Open"),
                        ("Ticket #35438", "Pending")}
    assert set(facts_of(graph, "RESPONSIBLE_FOR", current=True)) == {
        ("Dana Whitlock", "Ticket #35436"), ("Dana Whitlock", "Ticket #35438")}


@pytest.mark.django_db
def test_every_episode_links_back_and_the_words_are_read(graph: Graph,
                                                         run_import: ImportFn) -> None:
    run_import(graph, "zendesk", export())

    episodes = Episode.objects.filter(graph=graph)
    # 3 audits of #35436; #35437 created; #35438 created, and its status at its last update
    assert episodes.count() == 6
    assert all(e.url.startswith("https://example.zendesk.com/agent/tickets/") for e in episodes)
    first = episodes.get(external_id="zendesk:Ticket #35436:audit-7001")
    assert first.content == ("Sync keeps failing\n\nOur nightly sync fails with a timeout "
                             "since Monday.\n(labels: sync, enterprise; priority: high)")
    assert first.author == "Acme Corp" and first.source == "zendesk:Nimbus"
    assert first.extractor == "structured@1+rules@1"
    again = run_import(graph, "zendesk", export())
    assert (again.stored, again.duplicates) == (0, 6)


def test_a_file_that_is_not_a_zendesk_export_is_refused_saying_what_it_is() -> None:
    with pytest.raises(WrongFormat) as error:
        zendesk.read(b'[{"number": 1, "html_url": "https://github.com/a/b/issues/1", '
                     b'"state": "open"}]')
    assert "GitHub issues" in str(error.value)
    with pytest.raises(WrongFormat, match="audits without their tickets"):
        zendesk.read(fixture_bytes("zendesk-ticket-audits.json"))


def test_a_bad_ticket_is_reported_by_position_and_the_others_read() -> None:
    page = json.loads(fixture_bytes("zendesk-incremental-tickets.json"))
    page["tickets"][1]["created_at"] = "yesterday"
    page["tickets"].append({"subject": "no id"})
    result = zendesk.read(json.dumps(page).encode())
    assert len(result.items) == 2
    assert [(p.position, p.item) for p in result.problems] == [
        ("page 1, ticket 4", ""), ("page 1, ticket 2", "Ticket #35437")]


def test_a_mapping_of_an_unknown_kind_of_field_is_refused() -> None:
    with pytest.raises(ValueError, match="custom_field:<id>"):
        zendesk.read(export(), mapping="issue=Subject")
    with pytest.raises(ValueError, match="unknown field 'severity'"):
        zendesk.read(export(), mapping="severity=custom_field:1")


def test_an_agents_comment_is_the_help_desks_side_and_the_requesters_the_customers(
        graph: Graph, run_import: ImportFn) -> None:
    run_import(graph, "zendesk", export())

    roles = {(e.author, e.author_role) for e in Episode.objects.filter(graph=graph)}
    assert ("Dana Whitlock", "agent") in roles  # role "agent" among the side-loaded users
    assert ("Acme Corp", "customer") in roles  # the requester's organization
    assert all(role == "agent" for author, role in roles if author == "Dana Whitlock")
