"""The tool-independent model every importer reads an export into: items, their changes, links
and the people involved. Plain data, no ORM; ``memory.importers.mapping`` turns it into episodes.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta, timezone, tzinfo
from enum import StrEnum
from typing import Any


class WrongFormat(ValueError):
    """The whole export is not what the chosen importer reads: nothing is stored."""

    def __init__(self, expected: str, found: str) -> None:
        super().__init__(f"expected {expected}; found {found}")
        self.expected = expected
        self.found = found


@dataclass(frozen=True)
class Problem:
    """One item of an export that could not be read: where it is and why."""

    position: str
    """``line 12``, ``item 3``, ``row 7``: where to look in the file."""
    reason: str
    item: str = ""
    """The item's key, when it could be read."""

    def as_dict(self) -> dict[str, str]:
        return {"position": self.position, "item": self.item, "reason": self.reason}


@dataclass(frozen=True)
class Party:
    """Someone involved in an item: an assignee, a reporter, who made a change. ``type`` is an
    ontology entity type: ``Person`` for trackers; a support desk's requester's organization is
    a ``Customer``."""

    name: str
    type: str = "Person"
    role: str = field(default="", compare=False)
    """Which side of a support conversation they speak for when the tool says (``customer``,
    ``agent``: ``Episode.author_role``); empty when it does not. Not part of who they are."""


class LinkKind(StrEnum):
    """An explicit link between two items, from the point of view of the item that carries it."""

    DEPENDS_ON = "depends_on"
    """This item waits on the other (Bugzilla depends_on, Jira "is blocked by", "blocked by #N")."""
    BLOCKS = "blocks"
    """The other waits on this one."""
    TRACKS = "tracks"
    """This item is the other's parent (a [meta] bug, an epic, a task list, a sub-issue)."""
    TRACKED_BY = "tracked_by"
    DUPLICATE_OF = "duplicate_of"
    DUPLICATED_BY = "duplicated_by"
    REPLACES = "replaces"
    REPLACED_BY = "replaced_by"
    RELATES = "relates"
    """See also / relates to: a weak, symmetric hint."""


@dataclass(frozen=True)
class ItemLink:
    kind: LinkKind
    other: str
    """The other item's key (the same key it has as an ``Item``)."""


@dataclass(frozen=True)
class Statement:
    """A fact a tool keeps in a field rather than in words (a ticket's custom field mapped to an
    Issue or a Product, an organization's plan): ``source —relation→ target``, with the
    ontology's relation name."""

    source: Party
    relation: str
    target: Party
    ended: bool = False
    """The fact ends at this change (a solved ticket ends its customer's report of its issue)."""


@dataclass(frozen=True)
class Change:
    """What changed in one item at one moment (one history entry, one event): one episode."""

    at: datetime
    key: str
    """Deterministic within the item (the tool's change id, or the time and what changed), so a
    re-import of the same history finds the same episode."""
    actor: Party | None = None
    created: bool = False
    status: str | None = None
    """The item's status from now on (a final status ends it: see the ontology)."""
    assignees_added: tuple[Party, ...] = ()
    assignees_removed: tuple[Party, ...] = ()
    links_added: tuple[ItemLink, ...] = ()
    links_removed: tuple[ItemLink, ...] = ()
    note: str = ""
    """Anything else worth reading in the episode (a new title, labels), in words."""
    text: str = ""
    """What someone wrote in this change (a ticket's description, a comment, a chat message):
    the episode's content, read by the text extractor besides the change's facts."""
    statements: tuple[Statement, ...] = ()
    """Facts the tool keeps in fields, true from this change on."""

    @property
    def has_facts(self) -> bool:
        return bool(self.created or self.status or self.assignees_added
                    or self.assignees_removed or self.links_added or self.links_removed
                    or self.statements)


@dataclass
class Item:
    """One tracker item (issue, bug, ticket) with its history."""

    tool: str
    """``github``, ``jira``, ``linear``, ``bugzilla`` (support desks: ``zendesk``...)."""
    key: str
    """Its name as an entity, stable over its life: ``Bug 1388990``, ``ATL-12``,
    ``webcompat/web-bugs#71058`` (never its title, which changes)."""
    title: str
    created_at: datetime
    url: str = ""
    type: str = "WorkItem"
    """The entity type of the item (a support desk's ticket may be an ``Issue``)."""
    reporters: tuple[Party, ...] = ()
    """Who reported or requested it (a support desk: the requester and their organization as a
    ``Customer``). Every episode of the item restates them: its history is one thread."""
    tracker: bool = False
    """A tracking item: what it depends on, it tracks (a [meta] bug, an epic)."""
    labels: tuple[str, ...] = ()
    priority: str = ""
    changes: list[Change] = field(default_factory=list)
    position: str = ""
    """Where it is in the export (for problems found while mapping)."""
    source: str = ""
    """The episodes' ``source`` when it is not the tool (a chat channel, a help desk's brand:
    ``zendesk:Acme Mobile``)."""


@dataclass
class ReadResult:
    items: list[Item] = field(default_factory=list)
    problems: list[Problem] = field(default_factory=list)


# --- Reading helpers shared by the importers ------------------------------------------------------


def parse_time(value: Any, *, default_zone: tzinfo = UTC,
               formats: tuple[str, ...] = ()) -> datetime:
    """An ISO 8601 time (``Z``, ``+00:00`` and ``+0000`` offsets alike) or one of ``formats``
    (``strptime``); a time without an offset is in ``default_zone`` — each tool's documented
    rule (GitHub, Bugzilla and Linear write UTC; a Jira CSV, the exporting user's zone)."""
    if not isinstance(value, str) or not value.strip():
        raise ValueError(f"{value!r} is not a time")
    text = value.strip()
    parsed: datetime | None = None
    try:
        parsed = datetime.fromisoformat(text)
    except ValueError:
        for fmt in formats:
            try:
                parsed = datetime.strptime(text, fmt)
                break
            except ValueError:
                continue
    if parsed is None:
        raise ValueError(f"{value!r} is not a time this export writes")
    if parsed.tzinfo is None or parsed.utcoffset() is None:
        parsed = parsed.replace(tzinfo=default_zone)
    return parsed


def optional_time(value: Any, **kwargs: Any) -> datetime | None:
    if value in (None, ""):
        return None
    return parse_time(value, **kwargs)


_BRACKETS = re.compile(r"\[[^\]]*\]|\([^)]*\)")


def clean_person_name(name: str) -> str:
    """A display name without the decorations trackers let people add: Bugzilla's
    ``[:nick]`` and ``(he/him)``, a leading ``:``. Falls back to the name as given."""
    cleaned = _BRACKETS.sub(" ", name).strip().lstrip(":").strip()
    cleaned = " ".join(cleaned.split())
    return cleaned or name.strip()


def stable_zone(hours: float) -> tzinfo:
    return timezone(timedelta(hours=hours))


# How trackers name their links, from the point of view of the item that shows them (Jira's link
# types' inward and outward phrases, Linear's columns): the phrase, lower case → the kind.
LINK_PHRASES: dict[str, LinkKind] = {
    "blocks": LinkKind.BLOCKS,
    "is blocking": LinkKind.BLOCKS,
    "is blocked by": LinkKind.DEPENDS_ON,
    "blocked by": LinkKind.DEPENDS_ON,
    "depends on": LinkKind.DEPENDS_ON,
    "is depended on by": LinkKind.BLOCKS,
    "duplicates": LinkKind.DUPLICATE_OF,
    "duplicate of": LinkKind.DUPLICATE_OF,
    "is duplicated by": LinkKind.DUPLICATED_BY,
    "supersedes": LinkKind.REPLACES,
    "replaces": LinkKind.REPLACES,
    "is superseded by": LinkKind.REPLACED_BY,
    "is replaced by": LinkKind.REPLACED_BY,
    "is parent of": LinkKind.TRACKS,
    "is child of": LinkKind.TRACKED_BY,
    "relates to": LinkKind.RELATES,
    "related to": LinkKind.RELATES,
}


def link_kind(phrase: str) -> LinkKind:
    """A link phrase as a kind; one the table does not know (clones, causes, a team's own link
    type) relates the two items without saying more."""
    return LINK_PHRASES.get(" ".join(phrase.lower().split()), LinkKind.RELATES)


def zone(name: str | None) -> tzinfo:
    """A time zone by its IANA name (``Europe/Berlin``), UTC when none is given."""
    if not name:
        return UTC
    from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

    try:
        return ZoneInfo(name)
    except (ZoneInfoNotFoundError, ValueError):
        raise ValueError(f"unknown time zone {name!r} (use an IANA name such as "
                         "Europe/Berlin)") from None
