"""Jira: the REST search answer with ``expand=changelog`` (``GET /rest/api/3/search?jql=…
&expand=changelog``, one page or several, or JSON Lines of issues), and the CSV export
("Export Excel CSV (all fields)").

What becomes what (both):

* ``key`` → the item (``ATL-12``); ``summary`` its title; ``reporter`` its reporter;
* ``status`` and ``resolution`` → its status: the resolution when it says the work was not done
  (``Won't Do``, ``Duplicate``, ``Cannot Reproduce``: ended), otherwise the status (``Done``...);
* ``assignee`` → its assignee;
* issue links, by their phrase as the issue shows them: "is blocked by" → ``DEPENDS_ON``,
  "blocks" reversed, "duplicates" → ``DUPLICATE_OF``, "is duplicated by" reversed, "relates to"
  (and any other type: clones, causes…) → ``RELATES_TO``;
* ``parent`` (a sub-task's parent, an epic's child) and the older ``Epic Link`` → the parent
  ``TRACKS`` the issue; an ``Epic`` (or an issue with sub-tasks) is a tracking item.

The JSON's changelog gives each change at its time (``status``, ``resolution``, ``assignee``,
``Link``, ``Parent`` / ``IssueParentAssociation``, ``Epic Link``); the state at creation is the
current one with the changelog undone. Its times carry offsets (``2026-11-23T09:00:00.000+0000``).

A CSV has no history: the item is created at ``Created`` with its assignee and links, and its
status is recorded at ``Resolved`` (when resolved) or ``Updated``. Jira writes a CSV's times in
the exporting user's time zone and date format without an offset (``23/Nov/26 9:00 AM``): pass
that zone (``--timezone Europe/Berlin``; UTC otherwise). Columns that repeat (``Labels``, one
link column per linked issue) are all read; unknown columns are ignored.
"""

from __future__ import annotations

import re
from datetime import datetime, tzinfo
from typing import Any

from memory.importers.model import (
    Change,
    Item,
    ItemLink,
    LinkKind,
    Party,
    Problem,
    ReadResult,
    link_kind,
    optional_time,
    parse_time,
    zone,
)
from memory.importers.reading import csv_rows, first_of_shape, json_records

EXPECTED_JSON = ("Jira REST search JSON with expand=changelog: issue objects with key and "
                 "fields")
EXPECTED_CSV = "a Jira CSV export: columns Issue key, Summary, Status and Created"
TOOL = "jira"
CSV_TIME_FORMATS = ("%d/%b/%y %I:%M %p", "%d/%b/%Y %I:%M %p", "%Y-%m-%d %H:%M",
                    "%d/%m/%Y %H:%M", "%m/%d/%Y %H:%M")
DONE_RESOLUTIONS = frozenset({"done", "fixed", "resolved", "complete", "completed"})
_LINK_TEXT = re.compile(r"^\s*This issue (?P<phrase>.+?) (?P<key>[A-Z][A-Z0-9_]*-\d+)\s*$")
_CSV_LINK = re.compile(r"^(?P<side>Inward|Outward) issue link \((?P<type>[^)]+)\)$")
# Jira's default link types: what their inward and outward sides say.
_LINK_TYPES = {
    "blocks": ("is blocked by", "blocks"),
    "duplicate": ("is duplicated by", "duplicates"),
    "relates": ("relates to", "relates to"),
    "cloners": ("is cloned by", "clones"),
}


def status_name(status: str, resolution: str | None) -> str:
    if resolution and resolution.strip().lower() not in DONE_RESOLUTIONS:
        return resolution.strip()
    return status


def _person(value: Any) -> Party | None:
    if isinstance(value, dict):
        name = value.get("displayName") or value.get("name") or value.get("emailAddress")
        return Party(str(name)) if name else None
    if isinstance(value, str) and value.strip():
        return Party(value.strip())
    return None


def _name(value: Any) -> str:
    if isinstance(value, dict):
        return str(value.get("name") or "")
    return str(value or "")


# --- REST JSON ---------------------------------------------------------------------------------


def looks_like_issue(value: Any) -> bool:
    return (isinstance(value, dict) and isinstance(value.get("key"), str)
            and isinstance(value.get("fields"), dict))


def read_json(payload: bytes, *, base_url: str | None = None, **_: Any) -> ReadResult:
    records = json_records(payload, EXPECTED_JSON, wrappers=("issues",))
    first_of_shape(records, looks_like_issue, EXPECTED_JSON)
    result = ReadResult()
    for position, value in records:
        if isinstance(value, Problem):
            result.problems.append(value)
        elif not looks_like_issue(value):
            result.problems.append(Problem(position, "not a Jira issue (needs key and fields)"))
        else:
            try:
                result.items.append(_json_item(value, position, base_url))
            except (ValueError, TypeError, KeyError, AttributeError) as exc:
                reason = (f"missing field {exc.args[0]!r}" if isinstance(exc, KeyError)
                          else str(exc))
                result.problems.append(Problem(position, reason, item=value["key"]))
    return result


def _browse_url(issue: dict[str, Any], base_url: str | None) -> str:
    if base_url:
        return f"{base_url.rstrip('/')}/browse/{issue['key']}"
    match = re.match(r"^(https?://[^/]+(?:/.*?)?)/rest/api/", str(issue.get("self") or ""))
    return f"{match.group(1)}/browse/{issue['key']}" if match else ""


def _json_links(fields: dict[str, Any]) -> list[ItemLink]:
    links = []
    for link in fields.get("issuelinks") or []:
        if not isinstance(link, dict):
            continue
        kind_of = link.get("type") if isinstance(link.get("type"), dict) else {}
        if isinstance(link.get("outwardIssue"), dict):
            phrase, other = (kind_of or {}).get("outward", ""), link["outwardIssue"].get("key")
        elif isinstance(link.get("inwardIssue"), dict):
            phrase, other = (kind_of or {}).get("inward", ""), link["inwardIssue"].get("key")
        else:
            continue
        if other:
            links.append(ItemLink(link_kind(str(phrase)), str(other)))
    parent = fields.get("parent")
    if isinstance(parent, dict) and parent.get("key"):
        links.append(ItemLink(LinkKind.TRACKED_BY, str(parent["key"])))
    return links


def _changelog_link(item: dict[str, Any], side: str) -> ItemLink | None:
    """A changelog item's link: ``Link`` says "This issue blocks ATL-2"; a parent change
    names the parent's key."""
    field = str(item.get("field") or "")
    text = item.get(f"{side}String")
    if field == "Link":
        match = _LINK_TEXT.match(str(text or ""))
        return ItemLink(link_kind(match.group("phrase")), match.group("key")) if match else None
    if field in ("Parent", "IssueParentAssociation", "Epic Link", "Parent Link"):
        key = text if text and re.match(r"^[A-Z][A-Z0-9_]*-\d+$", str(text)) else None
        return ItemLink(LinkKind.TRACKED_BY, str(key)) if key else None
    return None


def _json_item(issue: dict[str, Any], position: str, base_url: str | None) -> Item:
    fields = issue["fields"]
    key = issue["key"]
    created_at = parse_time(fields["created"])
    histories = sorted(
        (h for h in (issue.get("changelog") or {}).get("histories") or [] if isinstance(h, dict)),
        key=lambda h: (parse_time(h["created"]), str(h.get("id", ""))))

    status = _name(fields.get("status"))
    resolution = _name(fields.get("resolution")) or None
    assignee = _person(fields.get("assignee"))
    links = _json_links(fields)
    for history in reversed(histories):
        for item in history.get("items") or []:
            field = item.get("field")
            if field == "status":
                status = item.get("fromString") or status
            elif field == "resolution":
                resolution = item.get("fromString") or None
            elif field == "assignee":
                assignee = _person(item.get("fromString"))
            else:
                added, removed = _changelog_link(item, "to"), _changelog_link(item, "from")
                if added in links:
                    links.remove(added)
                if removed is not None and removed not in links:
                    links.append(removed)

    reporter = _person(fields.get("reporter")) or _person(fields.get("creator"))
    changes = [Change(at=created_at, key="created", actor=_person(fields.get("creator"))
                      or reporter, created=True, status=status_name(status, resolution) or None,
                      assignees_added=(assignee,) if assignee else (),
                      links_added=tuple(links))]
    for history in histories:
        new_status, new_resolution = status, resolution
        added_people: list[Party] = []
        removed_people: list[Party] = []
        added_links: list[ItemLink] = []
        removed_links: list[ItemLink] = []
        notes = []
        for item in history.get("items") or []:
            field = item.get("field")
            if field == "status":
                new_status = item.get("toString") or new_status
            elif field == "resolution":
                new_resolution = item.get("toString") or None
            elif field == "assignee":
                old, new = _person(item.get("fromString")), _person(item.get("toString"))
                removed_people += [old] if old else []
                added_people += [new] if new else []
            elif field == "summary":
                notes.append(f"Renamed: {item.get('toString') or ''}")
            else:
                added, removed = _changelog_link(item, "to"), _changelog_link(item, "from")
                added_links += [added] if added else []
                removed_links += [removed] if removed else []
        name = status_name(new_status, new_resolution)
        changed = name if name != status_name(status, resolution) else None
        status, resolution = new_status, new_resolution
        changes.append(Change(
            at=parse_time(history["created"]),
            key=f"history:{history.get('id') or history['created']}",
            actor=_person(history.get("author")),
            status=changed,
            assignees_added=tuple(added_people),
            assignees_removed=tuple(removed_people),
            links_added=tuple(added_links),
            links_removed=tuple(removed_links),
            note=" ".join(notes),
        ))
    issue_type = fields.get("issuetype") if isinstance(fields.get("issuetype"), dict) else {}
    priority = fields.get("priority") if isinstance(fields.get("priority"), dict) else {}
    return Item(
        tool=TOOL,
        key=key,
        title=str(fields.get("summary") or ""),
        created_at=created_at,
        url=_browse_url(issue, base_url),
        reporters=(reporter,) if reporter else (),
        tracker=(str((issue_type or {}).get("name", "")).lower() == "epic"
                 or bool(fields.get("subtasks"))),
        labels=tuple(str(label) for label in fields.get("labels") or []),
        priority=str((priority or {}).get("name") or ""),
        changes=changes,
        position=position,
    )


# --- CSV ---------------------------------------------------------------------------------------


def read_csv(payload: bytes, *, base_url: str | None = None, timezone: str | None = None,
             **_: Any) -> ReadResult:
    zone_of_times = zone(timezone)
    header, rows = csv_rows(payload, EXPECTED_CSV,
                            required=("Issue key", "Summary", "Status", "Created"))
    ids: dict[str, str] = {}
    column = {name: header.index(name) for name in reversed(header)}  # first of each name
    if "Issue id" in column:
        for _line, row in rows:
            if len(row) > max(column["Issue id"], column["Issue key"]):
                ids[row[column["Issue id"]].strip()] = row[column["Issue key"]].strip()
    result = ReadResult()
    for position, row in rows:
        if row and row[0].startswith("\0"):
            result.problems.append(Problem(position, f"unreadable CSV: {row[0][1:]}"))
            continue
        key = row[column["Issue key"]].strip() if len(row) > column["Issue key"] else ""
        try:
            if not key:
                raise ValueError("no Issue key")
            result.items.append(_csv_item(header, row, position, base_url, zone_of_times, ids))
        except ValueError as exc:
            result.problems.append(Problem(position, str(exc), item=key))
    return result


def _csv_item(header: list[str], row: list[str], position: str, base_url: str | None,
              zone_of_times: tzinfo, ids: dict[str, str]) -> Item:
    values: dict[str, list[str]] = {}
    for name, cell in zip(header, row, strict=False):
        if cell.strip():
            values.setdefault(name, []).append(cell.strip())

    def one(name: str) -> str:
        return values.get(name, [""])[0]

    def when(name: str) -> datetime | None:
        try:
            return optional_time(one(name), default_zone=zone_of_times,
                                 formats=CSV_TIME_FORMATS)
        except ValueError:
            raise ValueError(f"{name}: {one(name)!r} is not a date this export writes") from None

    key = one("Issue key")
    created_at = when("Created")
    if created_at is None:
        raise ValueError("no Created time")
    links: list[ItemLink] = []
    for name, cells in values.items():
        match = _CSV_LINK.match(name)
        if not match:
            continue
        inward, outward = _LINK_TYPES.get(match.group("type").strip().lower(),
                                          ("relates to", "relates to"))
        kind = link_kind(inward if match.group("side") == "Inward" else outward)
        links += [ItemLink(kind, cell) for cell in cells]
    parent = one("Parent key") or one("Parent") or one("Parent id")
    parent = ids.get(parent, parent)
    if parent and re.match(r"^[A-Z][A-Z0-9_]*-\d+$", parent):
        links.append(ItemLink(LinkKind.TRACKED_BY, parent))
    reporter = _person(one("Reporter")) or _person(one("Creator"))
    assignee = _person(one("Assignee"))
    status = status_name(one("Status"), one("Resolution") or None)
    resolved, updated = when("Resolved"), when("Updated")
    changes = [Change(at=created_at, key="created", actor=_person(one("Creator")) or reporter,
                      created=True, assignees_added=(assignee,) if assignee else (),
                      links_added=tuple(dict.fromkeys(links)))]
    status_at = resolved or updated or created_at
    if status:
        changes.append(Change(at=max(status_at, created_at),
                              key=f"status:{status}:{status_at.isoformat()}", status=status))
    return Item(
        tool=TOOL,
        key=key,
        title=one("Summary"),
        created_at=created_at,
        url=f"{base_url.rstrip('/')}/browse/{key}" if base_url else "",
        reporters=(reporter,) if reporter else (),
        tracker=one("Issue Type").lower() == "epic",
        labels=tuple(values.get("Labels", [])),
        priority=one("Priority"),
        changes=changes,
        position=position,
    )
