"""Zendesk Support: the incremental ticket export (``GET /api/v2/incremental/tickets/cursor.json``,
pages of ``{"tickets": [...]}`` with the ``users``, ``organizations`` and ``brands`` side-loads of
``include=users,organizations,brands``), plus ticket audits when given (``GET
/api/v2/tickets/{id}/audits.json``: ``{"audits": [...]}``, each with its ``ticket_id`` and its
events, comments included). One file: one page, or one page per line (JSON Lines) — ticket
pages, audit pages, user and organization pages, in any order.

What becomes what:

* a ticket → the item ``Ticket #<id>`` (a work item); ``subject`` its title; its agent page
  (``https://<subdomain>.zendesk.com/agent/tickets/<id>``, from the ticket's API ``url``) on
  every episode;
* the requester's organization (``organization_id``, else the requester's) → the **customer**
  (``Customer``) who reported the ticket; without one, the requester as the customer. Agents are
  people (``Person``);
* ``description`` (without audits) or each public ``Comment`` event (with audits) → what was
  written, by whom: read by the text extractor, which finds the problem in the words;
* ``status`` over time (audits' ``Create`` / ``Change`` events on ``status``; without audits the
  current status at ``updated_at``) → the ticket's status: ``solved`` and ``closed`` end it;
  ``assignee_id`` → its assignee; ``priority`` and ``tags`` are words in the episode;
* fields mapped with ``--map`` (``issue``, ``product``, ``plan``), each
  ``custom_field:<id>``, ``tag:<prefix>`` (the first tag that starts with it, without it),
  ``organization_field:<key>`` or ``field:<ticket field>`` → the customer reported the issue,
  which affects the product, and the customer's plan. A solved ticket ends its customer's report
  of its mapped issue — that customer's only;
* a ticket's brand (``brand_id`` with the ``brands`` side-load) → the source
  ``zendesk:<brand>``: its problems and products are that brand's (``memory.support``).

Zendesk writes times in UTC (``2009-07-20T22:55:29Z``); one without an offset is read as UTC.
Private comments (internal notes) are left out: they are not what the customer said.
"""

from __future__ import annotations

import json
import re
from collections import defaultdict
from dataclasses import dataclass, field, replace
from typing import Any

from memory.importers.mappings import customer_of, ended, field_statements, parse_mapping
from memory.importers.model import (
    Change,
    Item,
    Party,
    Problem,
    ReadResult,
    WrongFormat,
    optional_time,
    parse_time,
)
from memory.importers.reading import decode, describe

EXPECTED = ("a Zendesk incremental ticket export: pages of {\"tickets\": [...]} (with users and "
            "organizations side-loaded), and ticket audits ({\"audits\": [...]}) when given")
TOOL = "zendesk"
MAPPED = ("issue", "product", "plan")
FINAL = {"solved", "closed"}
_API_URL = re.compile(r"^(https?://[^/]+)/api/v2/tickets/(\d+)(?:\.json)?")


@dataclass
class Export:
    tickets: list[tuple[str, dict[str, Any]]] = field(default_factory=list)
    audits: dict[int, list[dict[str, Any]]] = field(default_factory=lambda: defaultdict(list))
    users: dict[int, dict[str, Any]] = field(default_factory=dict)
    organizations: dict[int, dict[str, Any]] = field(default_factory=dict)
    brands: dict[int, str] = field(default_factory=dict)
    problems: list[Problem] = field(default_factory=list)


def read(payload: bytes, *, mapping: str | dict[str, str] | None = None,
         base_url: str | None = None, **_: Any) -> ReadResult:
    fields = parse_mapping(mapping, MAPPED)
    for key, spec in fields.items():
        kind = spec.partition(":")[0]
        if kind not in ("custom_field", "tag", "organization_field", "field"):
            raise ValueError(f"--map {key}={spec}: write custom_field:<id>, tag:<prefix>, "
                             "organization_field:<key> or field:<ticket field>")
    export = _pages(payload)
    result = ReadResult(problems=list(export.problems))
    for position, ticket in export.tickets:
        try:
            result.items.append(_item(ticket, position, export, fields, base_url))
        except (ValueError, TypeError, KeyError, AttributeError) as exc:
            result.problems.append(Problem(position, str(exc), item=f"Ticket #{ticket.get('id')}"))
    return result


def _pages(payload: bytes) -> Export:
    text = decode(payload, EXPECTED).strip()
    if not text:
        raise WrongFormat(EXPECTED, "an empty file")
    pages: list[tuple[str, Any]] = []
    lines = text.split("\n")
    first: Any = None
    if len(lines) > 1:
        try:  # JSON Lines when the first line is a whole page (each page is decoded once)
            first = json.loads(lines[0])
        except json.JSONDecodeError:
            first = None
    if first is None:
        try:
            pages = [("page 1", json.loads(text))]
        except json.JSONDecodeError as exc:
            raise WrongFormat(EXPECTED, f"JSON that does not parse ({exc.msg}, line "
                                        f"{exc.lineno})") from None
    else:
        pages.append(("line 1", first))
        for number, line in enumerate(lines[1:], start=2):
            if line.strip():
                try:
                    pages.append((f"line {number}", json.loads(line)))
                except json.JSONDecodeError as exc:
                    pages.append((f"line {number}",
                                  Problem(f"line {number}", f"malformed JSON: {exc.msg}")))
    export = Export()
    first_record: Any = None
    for where, page in pages:
        if isinstance(page, Problem):
            export.problems.append(page)
            continue
        if isinstance(page, list):  # a bare array of tickets
            page = {"tickets": page}
        if not isinstance(page, dict):
            continue
        for key in ("tickets", "audits", "users", "organizations", "brands"):
            if not isinstance(page.get(key), list):
                continue
            for index, value in enumerate(page[key], start=1):
                position = f"{where}, {key[:-1]} {index}"
                if first_record is None and key in ("tickets", "audits"):
                    first_record = value
                if not isinstance(value, dict) or not isinstance(value.get("id"), int):
                    export.problems.append(Problem(position, f"not a Zendesk {key[:-1]} "
                                                             "(an object with an integer id)"))
                    continue
                if key == "tickets":
                    export.tickets.append((position, value))
                elif key == "audits":
                    if isinstance(value.get("ticket_id"), int):
                        export.audits[value["ticket_id"]].append(value)
                    else:
                        export.problems.append(Problem(position, "an audit without ticket_id"))
                elif key == "users":
                    export.users[value["id"]] = value
                elif key == "organizations":
                    export.organizations[value["id"]] = value
                else:
                    export.brands[value["id"]] = str(value.get("name") or "")
    if export.audits and not export.tickets:
        raise WrongFormat(EXPECTED, "audits without their tickets (export the tickets too)")
    if not any(_looks_like_ticket(t) for _, t in export.tickets):
        first = first_record if first_record is not None else next(
            (p for _, p in pages if not isinstance(p, Problem)), None)
        raise WrongFormat(EXPECTED, describe(first) if first is not None else "no JSON")
    return export


def _looks_like_ticket(value: dict[str, Any]) -> bool:
    return "subject" in value or "requester_id" in value or "status" in value


def _user(export: Export, user_id: Any) -> dict[str, Any]:
    # Audit events write ids as strings ("value": "235323"), side-loads as numbers.
    if isinstance(user_id, str) and user_id.isdigit():
        user_id = int(user_id)
    return export.users.get(user_id) or {}


def _name(export: Export, user_id: Any) -> str:
    user = _user(export, user_id)
    return str(user.get("name") or (f"User {user_id}" if user_id not in (None, "") else ""))


def _organization(export: Export, org_id: Any) -> dict[str, Any]:
    return export.organizations.get(org_id) or {}


def _field(ticket: dict[str, Any], spec: str, organization: dict[str, Any]) -> str:
    kind, _, key = spec.partition(":")
    value: Any = None
    if kind == "custom_field":
        for entry in ticket.get("custom_fields") or ticket.get("fields") or []:
            if isinstance(entry, dict) and str(entry.get("id")) == key:
                value = entry.get("value")
    elif kind == "tag":
        value = next((t[len(key):] for t in ticket.get("tags") or []
                      if isinstance(t, str) and t.startswith(key) and len(t) > len(key)), None)
        value = value.replace("_", " ").strip() if value else None
    elif kind == "organization_field":
        value = (organization.get("organization_fields") or {}).get(key)
    elif kind == "field":
        value = ticket.get(key)
    if isinstance(value, list):
        value = value[0] if value else None
    if isinstance(value, str):
        return value.replace("_", " ").strip() if kind != "field" else value.strip()
    return "" if value is None or isinstance(value, bool) else str(value)


def _status(value: Any) -> str:
    return str(value).strip().capitalize() if value else ""


def _item(ticket: dict[str, Any], position: str, export: Export, fields: dict[str, str],
          base_url: str | None) -> Item:
    ticket_id = ticket["id"]
    key = f"Ticket #{ticket_id}"
    created_at = parse_time(ticket.get("created_at"))
    updated_at = optional_time(ticket.get("updated_at")) or created_at
    requester_id = ticket.get("requester_id")
    requester = _user(export, requester_id)
    org_id = ticket.get("organization_id") or requester.get("organization_id")
    organization = _organization(export, org_id)
    org_name = str(organization.get("name") or (f"Organization {org_id}" if org_id else ""))
    customer = customer_of(org_name, _name(export, requester_id))
    brand_id = ticket.get("brand_id")
    brand = (export.brands.get(brand_id) if isinstance(brand_id, int) else None) or None
    values = {name: _field(ticket, spec, organization) for name, spec in fields.items()}
    statements = field_statements(customer, brand=brand, **values)
    reported = tuple(s for s in statements if s.relation == "REPORTED")

    def actor(user_id: Any) -> Party | None:
        if user_id is None or user_id == -1:  # -1: Zendesk itself (a trigger, an automation)
            return None
        user = _user(export, user_id)
        if str(user_id) == str(requester_id) or user.get("role") == "end-user":
            return replace(customer, role="customer") if customer is not None else None
        # an agent or an admin: the help desk's side of the conversation
        return Party(_name(export, user_id), "Person",
                     "agent" if user.get("role") in ("agent", "admin") else "")

    def person(user_id: Any) -> Party | None:
        return Party(_name(export, user_id), "Person") if user_id not in (None, -1) else None

    audits = sorted(export.audits.get(ticket_id, []),
                    key=lambda a: (str(a.get("created_at")), a["id"]))
    changes: list[Change] = []
    if audits:
        status = ""
        assignee = None
        for number, audit in enumerate(audits):
            at = parse_time(audit.get("created_at"))
            new_status, notes, texts = None, [], []
            added: tuple[Party, ...] = ()
            removed: tuple[Party, ...] = ()
            for event in audit.get("events") or []:
                if not isinstance(event, dict):
                    continue
                kind, name = event.get("type"), event.get("field_name")
                if kind in ("Create", "Change") and name == "status":
                    new_status = _status(event.get("value"))
                elif kind in ("Create", "Change") and name == "priority" and event.get("value"):
                    notes.append(f"Priority: {event['value']}.")
                elif kind in ("Create", "Change") and name == "assignee_id":
                    new = person(event.get("value")) if event.get("value") else None
                    if new != assignee:
                        added = (new,) if new else ()
                        removed = (assignee,) if assignee else ()
                        assignee = new
                elif kind == "Comment" and event.get("public", True):
                    body = event.get("plain_body") or event.get("body") or ""
                    if isinstance(body, str) and body.strip():
                        texts.append(body.strip())
            final = bool(new_status and new_status.lower() in FINAL
                         and status.lower() not in FINAL)
            status = new_status or status
            changes.append(Change(
                at=at, key=f"audit-{audit['id']}", actor=actor(audit.get("author_id")),
                created=number == 0, status=new_status or None, assignees_added=added,
                assignees_removed=removed, note=" ".join(notes), text="\n\n".join(texts),
                statements=(statements if number == 0 else ()) + (
                    ended(reported) if final else ())))
    else:
        status = _status(ticket.get("status"))
        assignee = person(ticket.get("assignee_id")) if ticket.get("assignee_id") else None
        same = updated_at <= created_at
        changes.append(Change(
            at=created_at, key="created", actor=actor(ticket.get("submitter_id", requester_id)),
            created=True, status=status if same and status else None,
            assignees_added=(assignee,) if assignee else (),
            text=str(ticket.get("description") or ""),
            statements=statements + (ended(reported) if same and status.lower() in FINAL
                                     else ())))
        if status and not same:
            changes.append(Change(at=updated_at, key=f"status:{status}:{updated_at.isoformat()}",
                                  status=status,
                                  statements=ended(reported) if status.lower() in FINAL
                                  else ()))
    return Item(
        tool=TOOL, key=key, title=str(ticket.get("subject") or ticket.get("raw_subject") or ""),
        created_at=created_at, url=_url(ticket, base_url), type="WorkItem",
        reporters=(customer,) if customer else (),
        labels=tuple(str(t) for t in ticket.get("tags") or [] if isinstance(t, str)),
        priority=str(ticket.get("priority") or ""), changes=changes, position=position,
        source=f"{TOOL}:{brand}" if brand else TOOL,
    )



def _url(ticket: dict[str, Any], base_url: str | None) -> str:
    match = _API_URL.match(str(ticket.get("url") or ""))
    if match:
        return f"{match.group(1)}/agent/tickets/{match.group(2)}"
    if base_url:
        return f"{base_url.rstrip('/')}/agent/tickets/{ticket['id']}"
    return ""

