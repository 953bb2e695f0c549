"""Linear: the CSV export of a team's issues (Settings → Import/Export → Export CSV).

What becomes what:

* ``ID`` → the item (``ENG-123``); ``Title``; ``Creator`` its reporter; ``Assignee``;
* ``Status`` → its status (the team's own names: ``Done`` is done, ``Canceled`` ended), recorded
  at ``Completed`` or ``Canceled`` when set, else at ``Started``, else at ``Created``;
* ``Parent issue`` → the parent ``TRACKS`` the issue; ``Blocked by`` → ``DEPENDS_ON``, ``Blocks``
  reversed, ``Duplicate of`` → ``DUPLICATE_OF``, ``Related to`` → ``RELATES_TO`` (the columns of
  exports that have them; several ids are separated by commas);
* ``Labels``, ``Priority``, ``Project``, ``Team`` and the cycle are words in the episode.

A CSV has no history beyond those times. Linear writes them in UTC (``2024-05-14T08:53:33Z``);
one without an offset is read as UTC. The export has no links to the issues: pass the
workspace's address (``--base-url https://linear.app/acme``) for ``…/issue/ENG-123`` links.
"""

from __future__ import annotations

import re
from datetime import datetime
from typing import Any

from memory.importers.model import (
    Change,
    Item,
    ItemLink,
    LinkKind,
    Party,
    Problem,
    ReadResult,
    optional_time,
)
from memory.importers.reading import csv_rows

EXPECTED = "a Linear CSV export: columns ID, Title, Status and Created"
TOOL = "linear"
_KEY = re.compile(r"^[A-Za-z][A-Za-z0-9]*-\d+$")
_LINK_COLUMNS = {
    "Blocked by": LinkKind.DEPENDS_ON,
    "Blocks": LinkKind.BLOCKS,
    "Duplicate of": LinkKind.DUPLICATE_OF,
    "Related to": LinkKind.RELATES,
    "Parent issue": LinkKind.TRACKED_BY,
}
# Older exports spell the time of a JavaScript Date: "Tue May 14 2024 08:53:33 GMT+0000 (…)".
_JS_DATE = re.compile(r"^\w{3} (\w{3} \d{1,2} \d{4} \d{2}:\d{2}:\d{2}) GMT([+-]\d{4})")


def _time(value: str, name: str) -> datetime | None:
    match = _JS_DATE.match(value)
    if match:
        value = datetime.strptime(f"{match.group(1)} {match.group(2)}",
                                  "%b %d %Y %H:%M:%S %z").isoformat()
    try:
        return optional_time(value)
    except ValueError:
        raise ValueError(f"{name}: {value!r} is not a time this export writes") from None


def read(payload: bytes, *, base_url: str | None = None, **_: Any) -> ReadResult:
    header, rows = csv_rows(payload, EXPECTED, required=("ID", "Title", "Status", "Created"))
    result = ReadResult()
    for position, row in rows:
        if row and row[0].startswith("\0"):
            result.problems.append(Problem(position, f"unreadable CSV: {row[0][1:]}"))
            continue
        values = {name: cell.strip() for name, cell in zip(header, row, strict=False)}
        key = values.get("ID", "")
        try:
            if not _KEY.match(key):
                raise ValueError(f"ID {key!r} is not an issue id such as ENG-123")
            result.items.append(_item(values, position, base_url))
        except ValueError as exc:
            result.problems.append(Problem(position, str(exc), item=key))
    return result


def _party(value: str) -> Party | None:
    return Party(value) if value else None


def _item(values: dict[str, str], position: str, base_url: str | None) -> Item:
    key = values["ID"]
    created_at = _time(values.get("Created", ""), "Created")
    if created_at is None:
        raise ValueError("no Created time")
    links = [ItemLink(kind, other.strip())
             for column, kind in _LINK_COLUMNS.items()
             for other in values.get(column, "").split(",") if _KEY.match(other.strip())]
    creator, assignee = _party(values.get("Creator", "")), _party(values.get("Assignee", ""))
    status = values.get("Status", "")
    ends = [t for t in (_time(values.get("Completed", ""), "Completed"),
                        _time(values.get("Canceled", ""), "Canceled")) if t]
    started = _time(values.get("Started", ""), "Started")
    status_at = ends[0] if ends else (started or created_at)
    changes = [Change(at=created_at, key="created", actor=creator, created=True,
                      status=status if status_at == created_at else None,
                      assignees_added=(assignee,) if assignee else (),
                      links_added=tuple(dict.fromkeys(links)))]
    if status and status_at != created_at:
        changes.append(Change(at=max(status_at, created_at),
                              key=f"status:{status}:{status_at.isoformat()}", status=status))
    words = [f"{name.lower()} {values[name]}" for name in ("Team", "Project", "Cycle Name")
             if values.get(name)]
    return Item(
        tool=TOOL,
        key=key,
        title=values.get("Title", ""),
        created_at=created_at,
        url=f"{base_url.rstrip('/')}/issue/{key}" if base_url else "",
        reporters=(creator,) if creator else (),
        labels=tuple(label.strip() for label in values.get("Labels", "").split(",")
                     if label.strip()) + tuple(words),
        priority=values.get("Priority", "") if values.get("Priority") != "No priority" else "",
        changes=changes,
        position=position,
    )
