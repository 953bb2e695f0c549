"""Any CSV of tickets or conversations (Intercom, Freshdesk, HubSpot, a spreadsheet), with a column
mapping given by a person: ``--map "external_id=Ticket ID,author=Requester,
reference_time=Created,content=Description,customer=Organization,status=Status"``.

The mapping's fields (``FIELDS``; ``reference_time`` and ``content`` or ``subject`` are needed):

* ``external_id`` — the ticket's id: rows with the same id are one ticket's history, in time
  order (an export of one row per message); without it each row is a ticket of its own;
* ``reference_time`` — when the row was written (the ticket created, the message sent);
  ``updated`` — when its ``status`` was set, when the export has that time;
* ``author`` (who wrote it), ``customer`` (their organization: the ticket's customer; without it
  the author is), ``content``, ``subject``, ``status``, ``priority``, ``assignee``, ``tags``;
* ``issue``, ``product``, ``plan`` — columns that name the problem, the product and the customer's
  plan: facts, as ``memory.importers.mappings.field_statements`` says;
* ``brand`` (the help desk's brand: the source becomes ``csv:<brand>``), ``url`` (the ticket's
  page).

Reading: UTF-8 (a byte-order mark is skipped) unless ``--encoding`` names another (``latin-1``,
``cp1252``...); a file that does not decode says so with the byte, and nothing is stored. The
delimiter is sniffed (comma, semicolon, tab, pipe); quoted cells may hold newlines and commas. A
cell that starts like a spreadsheet formula (``=``, ``+``, ``-``, ``@``) is text like any other:
it is stored as written and shown escaped, never evaluated. Times: ISO 8601, or
``YYYY-MM-DD HH:MM[:SS]``, ``YYYY/MM/DD HH:MM``, ``DD.MM.YYYY HH:MM``, a date alone; without an
offset, in ``--timezone`` (UTC by default).
"""

from __future__ import annotations

import codecs
import csv
import io
from collections import defaultdict
from datetime import datetime
from typing import Any

from memory.importers.mappings import (
    MappingError,
    customer_of,
    ended,
    field_statements,
    parse_mapping,
)
from memory.importers.model import (
    Change,
    Item,
    Party,
    Problem,
    ReadResult,
    WrongFormat,
    parse_time,
    zone,
)
from memory.ontology import default_ontology

EXPECTED = "a CSV file with a header row"
TOOL = "csv"
FIELDS = ("external_id", "reference_time", "updated", "author", "customer", "content",
          "subject", "status", "priority", "assignee", "tags", "issue", "product", "plan",
          "brand", "url")
TIME_FORMATS = ("%Y-%m-%d %H:%M:%S", "%Y-%m-%d %H:%M", "%Y/%m/%d %H:%M:%S", "%Y/%m/%d %H:%M",
                "%d.%m.%Y %H:%M:%S", "%d.%m.%Y %H:%M", "%Y-%m-%d", "%Y/%m/%d", "%d.%m.%Y")
PREVIEW_ROWS = 5
csv.field_size_limit(1024 * 1024)  # a long description in one cell is fine; 128 KB was not


def decode_table(payload: bytes, encoding: str | None = None) -> str:
    """The file as text: in the declared encoding, else UTF-8 (with or without a byte-order
    mark). ``WrongFormat`` naming the byte when it does not decode."""
    name = (encoding or "utf-8-sig").strip()
    try:
        codec = codecs.lookup(name)
    except LookupError:
        raise ValueError(f"unknown encoding {name!r} (e.g. utf-8, latin-1, cp1252)") from None
    if codec.name == "utf-8":
        name = "utf-8-sig"  # a declared UTF-8 may still start with a byte-order mark
    try:
        return payload.decode(name)
    except UnicodeDecodeError as exc:
        hint = "" if encoding else "; pass the file's encoding (--encoding latin-1, cp1252…)"
        label = "UTF-8" if codec.name in ("utf-8", "utf-8-sig") else codec.name
        raise WrongFormat(EXPECTED, f"a file that is not {label} text (byte {exc.start}: "
                                    f"{payload[exc.start:exc.start + 1]!r}){hint}") from None


def table(payload: bytes, encoding: str | None = None
          ) -> tuple[list[str], list[tuple[str, list[str]]]]:
    """The header and every row with its position (``row 2`` is the first after the header, as
    a spreadsheet numbers rows; a cell's newlines do not change the numbering)."""
    text = decode_table(payload, encoding)
    if not text.strip():
        raise WrongFormat(EXPECTED, "an empty file")
    if text.lstrip()[:1] in "[{":
        raise WrongFormat(EXPECTED, "JSON, not CSV")
    try:
        dialect: Any = csv.Sniffer().sniff(text[:8192], delimiters=",;\t|")
    except csv.Error:
        dialect = csv.excel
    reader = csv.reader(io.StringIO(text, newline=""), dialect)
    try:
        header = [name.strip() for name in next(reader)]
    except (StopIteration, csv.Error):
        raise WrongFormat(EXPECTED, "no header row") from None
    rows: list[tuple[str, list[str]]] = []
    number = 1
    try:
        for row in reader:
            number += 1
            if any(cell.strip() for cell in row):
                rows.append((f"row {number}", row))
    except csv.Error as exc:
        rows.append((f"row {number + 1}", [f"\0{exc}"]))
    return header, rows


def preview(payload: bytes, encoding: str | None = None,
            limit: int = PREVIEW_ROWS) -> tuple[list[str], list[list[str]]]:
    """The header and the first rows, as the upload form shows them before importing."""
    header, rows = table(payload, encoding)
    return header, [row for _, row in rows[:limit] if not (row and row[0].startswith("\0"))]


GUESSES: dict[str, tuple[str, ...]] = {
    "external_id": ("ticket id", "id", "ticket", "ticket number", "conversation id",
                    "external id", "number"),
    "reference_time": ("created", "created at", "created time", "created date", "date",
                       "timestamp", "submitted", "opened", "sent at", "time"),
    "updated": ("updated", "updated at", "last update", "last update time", "last updated",
                "resolved time", "solved at"),
    "author": ("requester", "requester name", "author", "from", "user", "contact",
               "full name", "customer name", "reporter"),
    "customer": ("organization", "organisation", "company", "company name", "account",
                 "customer", "organization name"),
    "content": ("description", "body", "message", "content", "text", "comment", "details"),
    "subject": ("subject", "title", "summary"),
    "status": ("status", "state", "ticket status"),
    "priority": ("priority", "urgency"),
    "assignee": ("assignee", "agent", "owner", "assigned to"),
    "tags": ("tags", "labels"),
    "issue": ("issue", "problem", "category", "topic"),
    "product": ("product", "component"),
    "plan": ("plan", "tier", "subscription"),
    "brand": ("brand",),
    "url": ("url", "link", "ticket url"),
}


def guess_mapping(header: list[str]) -> dict[str, str]:
    """A first mapping from the columns' names (``Created`` → ``reference_time``...), for a
    person to check: each column at most once."""
    columns = {" ".join(c.lower().replace("_", " ").split()): c for c in header}
    mapping: dict[str, str] = {}
    for key, names in GUESSES.items():
        for name in names:
            column = columns.get(name)
            if column and column not in mapping.values():
                mapping[key] = column
                break
    return mapping


def check_mapping(mapping: dict[str, str], header: list[str]) -> None:
    missing = [f"{key}={column}" for key, column in mapping.items() if column not in header]
    if missing:
        shown = ", ".join(header[:12]) + (", …" if len(header) > 12 else "")
        raise MappingError(f"--map names columns the file does not have: {', '.join(missing)}"
                           f" (its columns: {shown})")
    if "reference_time" not in mapping:
        raise MappingError("--map needs reference_time=<the column of when it was written>")
    if "content" not in mapping and "subject" not in mapping:
        raise MappingError("--map needs content=<column> or subject=<column>")


def read(payload: bytes, *, mapping: str | dict[str, str] | None = None,
         encoding: str | None = None, timezone: str | None = None,
         base_url: str | None = None, **_: Any) -> ReadResult:
    fields = parse_mapping(mapping, FIELDS)
    if not fields:
        raise MappingError("a CSV needs a column mapping: --map \"reference_time=Created,"
                           "content=Description,...\" (fields: " + ", ".join(FIELDS) + ")")
    header, rows = table(payload, encoding)
    check_mapping(fields, header)
    tz = zone(timezone)
    result = ReadResult()
    tickets: dict[str, list[tuple[str, datetime, dict[str, str]]]] = defaultdict(list)
    for position, row in rows:
        if row and row[0].startswith("\0"):
            result.problems.append(Problem(position, f"unreadable CSV: {row[0][1:]}"))
            continue
        cells = dict(zip(header, row, strict=False))
        values = {key: (cells.get(column) or "").strip() for key, column in fields.items()}
        ident = values.get("external_id") or position.replace("row ", "row-")
        try:
            when = _time(values["reference_time"], "reference_time", tz)
            if not (values.get("content") or values.get("subject")):
                raise ValueError("no content and no subject")
        except ValueError as exc:
            result.problems.append(Problem(position, str(exc), item=f"Ticket {ident}"))
            continue
        tickets[ident].append((position, when, values))
    for ident, entries in tickets.items():
        try:
            result.items.append(_item(ident, sorted(entries, key=lambda e: e[1]), tz,
                                      base_url))
        except ValueError as exc:
            result.problems.append(Problem(entries[0][0], str(exc), item=f"Ticket {ident}"))
    return result


def _time(value: str, name: str, tz: Any) -> datetime:
    if not value:
        raise ValueError(f"{name}: empty")
    try:
        return parse_time(value, default_zone=tz, formats=TIME_FORMATS)
    except ValueError:
        raise ValueError(f"{name}: {value!r} is not a time (ISO 8601, YYYY-MM-DD HH:MM, "
                         "DD.MM.YYYY HH:MM or a date)") from None


def _item(ident: str, entries: list[tuple[str, datetime, dict[str, str]]], tz: Any,
          base_url: str | None) -> Item:
    first = entries[0][2]
    customer = customer_of(first.get("customer", ""), first.get("author", ""))
    brand = first.get("brand") or None
    statements = field_statements(customer, issue=first.get("issue", ""),
                                  product=first.get("product", ""), plan=first.get("plan", ""),
                                  brand=brand)
    reported = tuple(s for s in statements if s.relation == "REPORTED")
    final = default_ontology().is_final_status
    changes: list[Change] = []
    status = ""
    assignee: Party | None = None
    for number, (_position, when, values) in enumerate(entries):
        author = values.get("author", "")
        actor = customer if customer and author in ("", first.get("author", "")) else (
            Party(author, "Person") if author else None)
        new_status = values.get("status", "")
        new_assignee = Party(values["assignee"], "Person") if values.get("assignee") else None
        status_at = _time(values["updated"], "updated", tz) if values.get("updated") else when
        text = values.get("content", "")
        note = f"Priority: {values['priority']}." if values.get("priority") else ""
        own = statements if number == 0 else ()
        ends = (new_status and new_status != status and final(new_status)
                and not (status and final(status)))
        same_time = status_at <= when
        changes.append(Change(
            at=when, key=f"row:{when.isoformat()}:{number}", actor=actor, created=number == 0,
            status=new_status if new_status != status and same_time else None,
            assignees_added=(new_assignee,) if new_assignee and new_assignee != assignee else (),
            assignees_removed=(assignee,) if assignee and new_assignee and
            new_assignee != assignee else (),
            text=text, note=note,
            statements=own + (ended(reported) if ends and same_time else ())))
        if new_status and new_status != status and not same_time:
            changes.append(Change(at=status_at, key=f"status:{new_status}:{status_at.isoformat()}",
                                  status=new_status,
                                  statements=ended(reported) if ends else ()))
        status = new_status or status
        assignee = new_assignee or assignee
    url = first.get("url", "")
    if not url and base_url:
        url = f"{base_url.rstrip('/')}/{ident}"
    tags = tuple(t.strip() for t in first.get("tags", "").replace(";", ",").split(",")
                 if t.strip())
    return Item(
        tool=TOOL, key=f"Ticket {ident}", title=first.get("subject", ""),
        created_at=entries[0][1], url=url if url.startswith(("http://", "https://")) else "",
        reporters=(customer,) if customer else (), labels=tags,
        priority=first.get("priority", ""), changes=changes,
        position=entries[0][0], source=f"{TOOL}:{brand}" if brand else TOOL,
    )

