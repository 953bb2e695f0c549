"""Any CSV with a column mapping: a help-desk-style sample (fixtures/support-tickets.csv) and the
bad input of issue #14 — a mapping naming a missing column, encodings, newlines in cells,
formula-looking cells."""

from __future__ import annotations

import pytest
from django.core.management import CommandError, call_command

from memory.importers import table
from memory.importers.mappings import MappingError
from memory.importers.model import WrongFormat
from memory.models import Episode, Graph
from tests.memory.importers.conftest import FIXTURES, ImportFn, facts_of, fixture_bytes

MAP = ("external_id=Ticket ID,subject=Subject,content=Description,status=Status,"
       "priority=Priority,author=Requester,customer=Organization,plan=Plan,"
       "reference_time=Created,updated=Last update,brand=Brand,url=Ticket URL")


def test_rows_of_one_ticket_are_its_history_in_time_order() -> None:
    items = {i.key: i for i in table.read(fixture_bytes("support-tickets.csv"),
                                          mapping=MAP).items}

    ticket = items["Ticket 1001"]
    assert [c.at.isoformat() for c in ticket.changes] == ["2026-11-02T09:12:00+00:00",
                                                          "2026-11-05T08:30:00+00:00"]
    assert ticket.changes[0].text.endswith("It started on Monday, see attached log.")
    assert "\n" in ticket.changes[0].text  # the cell's newline is kept, the row is one row
    assert ticket.reporters[0].name == "Acme Corp" and ticket.reporters[0].type == "Customer"
    assert ticket.url == "https://help.example.com/tickets/1001"
    assert ticket.source == "csv:Nimbus"
    assert items["Ticket 1003"].reporters[0].name == "Sam Ortiz"  # no organization


def test_a_status_set_later_than_the_row_is_recorded_at_its_own_time() -> None:
    ticket = next(i for i in table.read(fixture_bytes("support-tickets.csv"), mapping=MAP).items
                  if i.key == "Ticket 1002")
    assert [(c.at.isoformat(), c.status) for c in ticket.changes] == [
        ("2026-11-03T10:05:00+00:00", None), ("2026-11-05T16:00:00+00:00", "Resolved")]


def test_formula_looking_cells_are_imported_as_the_text_they_are() -> None:
    ticket = next(i for i in table.read(fixture_bytes("support-tickets.csv"), mapping=MAP).items
                  if i.key == "Ticket 1003")
    assert ticket.title == '=HYPERLINK("http://evil.example","click")'
    assert ticket.changes[0].text == "@SUM(A1:A9) -5 degrees +1 more"


@pytest.mark.django_db
def test_the_sample_imports_with_its_customers_plans_and_one_recurring_problem(
        graph: Graph, run_import: ImportFn) -> None:
    report = run_import(graph, "csv", fixture_bytes("support-tickets.csv"),
                        options={"mapping": MAP})
    assert (report.items, report.rejected) == (3, 0)

    assert set(facts_of(graph, "ON_PLAN", current=True)) == {("Acme Corp", "Enterprise"),
                                                              ("Globex", "Pro")}
    statuses = set(facts_of(graph, "HAS_STATUS", current=True))
    assert statuses == {("Ticket 1001", "Open"), ("Ticket 1002", "Resolved"),
                        ("Ticket 1003", "Open")}
    timeouts = {s for s, t in facts_of(graph, "REPORTED") if t.startswith("Timeout Errors")}
    assert timeouts == {"Acme Corp", "Globex"}  # read from the words, as the brand's problem
    first = Episode.objects.get(graph=graph, external_id__startswith="csv:Ticket 1001:row",
                                reference_time__day=2)
    assert first.url == "https://help.example.com/tickets/1001"
    assert first.content.startswith("Exports time out\n\nOur exports fail")


def test_a_mapping_naming_a_missing_column_says_which_and_what_the_file_has() -> None:
    with pytest.raises(MappingError) as error:
        table.read(fixture_bytes("support-tickets.csv"),
                   mapping="reference_time=Created,content=Body,customer=Company")
    message = str(error.value)
    assert "content=Body, customer=Company" in message
    assert "its columns: Ticket ID, Subject, Description" in message


def test_a_mapping_needs_a_time_and_words() -> None:
    with pytest.raises(MappingError, match="reference_time"):
        table.read(fixture_bytes("support-tickets.csv"), mapping="content=Description")
    with pytest.raises(MappingError, match="content=<column> or subject"):
        table.read(fixture_bytes("support-tickets.csv"), mapping="reference_time=Created")
    with pytest.raises(MappingError, match="column mapping"):
        table.read(fixture_bytes("support-tickets.csv"))


def latin1_sample() -> bytes:
    return ("Créé;Société;Message\n"
            "2026-11-02 09:00;Müller GmbH;Our exports fail with timeout errors.\n"
            ).encode("latin-1")


def test_latin1_reads_with_its_declared_encoding_and_semicolons_are_sniffed() -> None:
    result = table.read(latin1_sample(), encoding="latin-1",
                        mapping="reference_time=Créé,customer=Société,content=Message")
    assert [i.reporters[0].name for i in result.items] == ["Müller GmbH"]


def test_latin1_without_its_encoding_is_refused_naming_the_byte() -> None:
    with pytest.raises(WrongFormat) as error:
        table.read(latin1_sample(), mapping="reference_time=Créé,content=Message")
    assert "not UTF-8 text (byte 2: b'\\xe9')" in str(error.value)
    assert "--encoding latin-1" in str(error.value)


def test_utf8_with_a_byte_order_mark_reads_its_first_column() -> None:
    payload = "\ufeffCreated,Description\n2026-11-02T09:00:00Z,Login fails\n".encode()
    result = table.read(payload, mapping="reference_time=Created,content=Description")
    assert len(result.items) == 1 and result.problems == []


def test_an_unknown_encoding_is_a_clear_error() -> None:
    with pytest.raises(ValueError, match="unknown encoding 'klingon'"):
        table.read(b"a,b\n", encoding="klingon", mapping="reference_time=a,content=b")


def test_a_bad_row_is_reported_with_its_row_and_the_others_read() -> None:
    payload = (b"Created,Description\n2026-11-02 09:00,Login fails\nlast tuesday,Sync fails\n"
               b"2026-11-03 09:00,\n")
    result = table.read(payload, mapping="reference_time=Created,content=Description")
    assert len(result.items) == 1
    assert [(p.position, p.reason[:39]) for p in result.problems] == [
        ("row 3", "reference_time: 'last tuesday' is not a"),
        ("row 4", "no content and no subject")]


def test_json_is_not_a_csv() -> None:
    with pytest.raises(WrongFormat, match="JSON, not CSV"):
        table.read(b'[{"a": 1}]', mapping="reference_time=a,content=a")


@pytest.mark.django_db
def test_the_command_takes_the_mapping_and_reports_a_missing_column(graph: Graph) -> None:
    path = FIXTURES / "support-tickets.csv"
    with pytest.raises(CommandError, match="content=Body"):
        call_command("import", "csv", str(path), "--graph", graph.slug,
                     "--map", "reference_time=Created,content=Body")
    assert not Episode.objects.filter(graph=graph).exists()


def test_columns_are_guessed_from_their_names_each_once() -> None:
    header, _ = table.preview(fixture_bytes("support-tickets.csv"))
    assert table.guess_mapping(header) == {
        "external_id": "Ticket ID", "reference_time": "Created", "updated": "Last update",
        "author": "Requester", "customer": "Organization", "content": "Description",
        "subject": "Subject", "status": "Status", "priority": "Priority", "plan": "Plan",
        "brand": "Brand", "url": "Ticket URL"}


def test_the_preview_is_the_header_and_the_first_rows_with_their_newlines() -> None:
    header, rows = table.preview(fixture_bytes("support-tickets.csv"), limit=2)
    assert header[:3] == ["Ticket ID", "Subject", "Description"]
    assert [row[0] for row in rows] == ["1001", "1002"]
    assert rows[0][2].count("\n") == 1


@pytest.mark.django_db
def test_a_graph_remembers_the_mapping_it_last_imported_with(graph: Graph,
                                                             run_import: ImportFn) -> None:
    from memory.importers.runs import remembered_mapping

    run_import(graph, "csv", fixture_bytes("support-tickets.csv"), options={"mapping": MAP})
    assert remembered_mapping(graph, "csv")["customer"] == "Organization"

    again = run_import(graph, "csv", fixture_bytes("support-tickets.csv"))  # no mapping given
    assert (again.items, again.duplicates, again.stored) == (3, 5, 0)  # 4 rows, 1 later status
