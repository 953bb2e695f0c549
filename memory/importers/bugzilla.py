"""Bugzilla: the REST API's bugs with their history (``GET /rest/bug?include_fields=_all`` plus
``GET /rest/bug/{id}/history``, merged as a ``history`` list on each bug), as JSON Lines, one JSON
array, or the API's own ``{"bugs": [...]}`` answer.

What becomes what:

* ``id`` → the item ``Bug {id}``; ``summary`` its title; ``creator`` its reporter;
* ``status`` / ``resolution`` → its status: the resolution when it is not ``FIXED``
  (``DUPLICATE``, ``WONTFIX``, ``INVALID``, ``WORKSFORME``, ``INCOMPLETE``: ended, not done),
  otherwise the status (``RESOLVED``, ``VERIFIED``: done; ``NEW``, ``ASSIGNED``...);
* ``assigned_to`` → its assignee (``nobody@…`` means nobody);
* ``depends_on`` / ``blocks`` → ``DEPENDS_ON`` (the bug waits on what it depends on); a [meta]
  bug's (``meta`` keyword or ``[meta]`` in its summary) ``depends_on`` are what it ``TRACKS``;
* ``dupe_of`` → ``DUPLICATE_OF`` when it was resolved as a duplicate;
* ``see_also`` links to bugs of the same Bugzilla → ``RELATES_TO``.

The state at creation is the current state with the history undone; each history entry (one
person's change at one time) is then one episode, for the fields above — CC, flags, attachments
and the rest are left out. Times are UTC, as the API documents (``Z``); one without an offset is
read as UTC. People are named by their ``real_name`` where a ``*_detail`` field of the export
gives it, by their address otherwise.
"""

from __future__ import annotations

import re
from collections import Counter
from typing import Any

from memory.importers.model import (
    Change,
    Item,
    ItemLink,
    LinkKind,
    Party,
    Problem,
    ReadResult,
    clean_person_name,
    parse_time,
)
from memory.importers.reading import first_of_shape, json_records

EXPECTED = "Bugzilla REST JSON: bug objects with id, summary, status and creation_time"
TOOL = "bugzilla"
NOBODY = re.compile(r"^nobody@", re.I)
_BUG_URL = re.compile(r"^(https?://[^/]+(?:/[^?]*)?)/show_bug\.cgi\?id=(\d+)$")
_LINK_FIELDS = {"depends_on": LinkKind.DEPENDS_ON, "blocks": LinkKind.BLOCKS}
_DETAILS = ("assigned_to_detail", "creator_detail", "qa_contact_detail", "cc_detail",
            "mentors_detail")
_MAPPED = frozenset({"status", "resolution", "assigned_to", "depends_on", "blocks", "see_also"})


def looks_like_bug(value: Any) -> bool:
    return (isinstance(value, dict) and isinstance(value.get("id"), int)
            and "summary" in value and "creation_time" in value)


def read(payload: bytes, *, base_url: str | None = None, **_: Any) -> ReadResult:
    records = json_records(payload, EXPECTED, wrappers=("bugs",))
    first_of_shape(records, looks_like_bug, EXPECTED)
    bugs = [(position, value) for position, value in records if looks_like_bug(value)]
    names = _people([value for _, value in bugs])
    base = (base_url or _infer_base([value for _, value in bugs]) or "").rstrip("/")
    result = ReadResult()
    for position, value in records:
        if isinstance(value, Problem):
            result.problems.append(value)
            continue
        if not looks_like_bug(value):
            result.problems.append(Problem(position, "not a bug object (needs id, summary and "
                                                     "creation_time)"))
            continue
        try:
            result.items.append(_item(value, position, names, base))
        except (ValueError, TypeError, KeyError, AttributeError) as exc:
            result.problems.append(Problem(position, _reason(exc), item=f"Bug {value['id']}"))
    return result


def _reason(exc: Exception) -> str:
    if isinstance(exc, KeyError):
        return f"missing field {exc.args[0]!r}"
    return str(exc)


def _people(bugs: list[dict[str, Any]]) -> dict[str, str]:
    """address → display name, from the people ``*_detail`` fields of the export."""
    names: dict[str, str] = {}
    for bug in bugs:
        for key in _DETAILS:
            value = bug.get(key)
            if not value:
                continue
            for person in value if isinstance(value, list) else [value]:
                if not isinstance(person, dict):
                    continue
                email = person.get("email")
                if email and email not in names and person.get("real_name"):
                    names[email] = clean_person_name(person["real_name"])
    return names


def _infer_base(bugs: list[dict[str, Any]]) -> str | None:
    """The Bugzilla the export came from, when its see-also links name it (the REST answer does
    not say; ``--base-url`` does)."""
    hosts: Counter[str] = Counter()
    for bug in bugs:
        for url in bug.get("see_also") or []:
            match = _BUG_URL.match(str(url))
            if match:
                hosts[match.group(1)] += 1
    return hosts.most_common(1)[0][0] if hosts else None


def _status(status: str, resolution: str) -> str:
    if resolution and resolution.upper() != "FIXED":
        return resolution
    return status


def _ids(value: Any) -> list[str]:
    """A history value (``"123, 456"``) or a field (``[123, 456]``) as item keys."""
    if isinstance(value, list):
        return [f"Bug {v}" for v in value if str(v).strip()]
    return [f"Bug {v.strip()}" for v in str(value or "").split(",") if v.strip()]


def _item(bug: dict[str, Any], position: str, names: dict[str, str], base: str) -> Item:
    people: dict[str, Party | None] = {}

    def person(address: str | None) -> Party | None:
        if not address:
            return None
        if address not in people:
            people[address] = None if NOBODY.match(address) else Party(names.get(address,
                                                                                  address))
        return people[address]

    bug_id = bug["id"]
    summary = str(bug.get("summary") or "")
    keywords = [str(k) for k in bug.get("keywords") or []]
    tracker = "meta" in (k.lower() for k in keywords) or "[meta]" in summary.lower()
    created_at = parse_time(bug["creation_time"])
    history = sorted(bug.get("history") or [], key=lambda h: str(h.get("when", "")))

    # The state at creation: the current one with every change undone, newest first.
    status = str(bug.get("status") or "")
    resolution = str(bug.get("resolution") or "")
    assignee = bug.get("assigned_to")
    # An ordered set per field (a [meta] bug's hundreds of changes stay linear).
    links = {name: dict.fromkeys(_ids(bug.get(name))) for name in _LINK_FIELDS}
    for entry in reversed(history):
        for change in entry.get("changes") or []:
            field = change.get("field_name")
            if field == "status":
                status = change.get("removed") or status
            elif field == "resolution":
                resolution = change.get("removed") or ""
            elif field == "assigned_to":
                assignee = change.get("removed") or None
            elif field in links:
                for key in _ids(change.get("added")):
                    links[field].pop(key, None)
                for key in _ids(change.get("removed")):
                    links[field].setdefault(key)

    reporter = person(bug.get("creator"))
    first_assignee = person(assignee)
    changes = [Change(
        at=created_at, key="created", actor=reporter, created=True,
        status=_status(status, resolution) or None,
        assignees_added=(first_assignee,) if first_assignee else (),
        links_added=tuple(ItemLink(kind, other) for name, kind in _LINK_FIELDS.items()
                          for other in links[name]),
    )]
    dupe_of = bug.get("dupe_of")
    for entry in history:
        if not any(change.get("field_name") in _MAPPED for change in entry.get("changes") or []):
            continue  # CC, flags, attachments...: nothing the product records
        at = parse_time(entry["when"])
        new_status, new_resolution = status, resolution
        added_people: list[Party] = []
        removed_people: list[Party] = []
        added_links: list[ItemLink] = []
        removed_links: list[ItemLink] = []
        for change in entry.get("changes") or []:
            field = change.get("field_name")
            if field == "status":
                new_status = change.get("added") or new_status
            elif field == "resolution":
                new_resolution = change.get("added") or ""
                if new_resolution.upper() == "DUPLICATE" and dupe_of:
                    added_links.append(ItemLink(LinkKind.DUPLICATE_OF, f"Bug {dupe_of}"))
            elif field == "assigned_to":
                old, new = person(change.get("removed")), person(change.get("added"))
                removed_people += [old] if old else []
                added_people += [new] if new else []
            elif field in _LINK_FIELDS:
                kind = _LINK_FIELDS[field]
                added_links += [ItemLink(kind, k) for k in _ids(change.get("added"))]
                removed_links += [ItemLink(kind, k) for k in _ids(change.get("removed"))]
            elif field == "see_also":
                added_links += _see_also(change.get("added"), base)
                removed_links += _see_also(change.get("removed"), base)
        status_name = _status(new_status, new_resolution)
        changed_status = status_name if status_name != _status(status, resolution) else None
        status, resolution = new_status, new_resolution
        changes.append(Change(
            at=at,
            key=f"{entry['when']}:{entry.get('who', '')}",
            actor=person(entry.get("who")),
            status=changed_status,
            assignees_added=tuple(added_people),
            assignees_removed=tuple(removed_people),
            links_added=tuple(added_links),
            links_removed=tuple(removed_links),
        ))
    return Item(
        tool=TOOL,
        key=f"Bug {bug_id}",
        title=summary,
        created_at=created_at,
        url=f"{base}/show_bug.cgi?id={bug_id}" if base else "",
        reporters=(reporter,) if reporter else (),
        tracker=tracker,
        labels=tuple(keywords),
        priority=str(bug.get("priority") or "").replace("--", ""),
        changes=changes,
        position=position,
    )


def _see_also(value: Any, base: str) -> list[ItemLink]:
    """See-also URLs of bugs in the same Bugzilla, as links (others are not items here)."""
    links = []
    for url in str(value or "").split(","):
        match = _BUG_URL.match(url.strip())
        if match and (not base or match.group(1) == base):
            links.append(ItemLink(LinkKind.RELATES, f"Bug {match.group(2)}"))
    return links

