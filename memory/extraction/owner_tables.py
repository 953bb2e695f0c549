"""Tables of work with an owner column: "| Item | Owner | Status |" (issue #17).

Meeting notes and status reports keep their action items and work in tables whose header row
says what each column holds. Tables stay unread as sentences (their cells are data:
``memory.language.documents``); a table whose header names **an owner column** (Owner, Assignee,
Who, DRI, Lead, Responsible, Champion…) **and an item column** (Item, Action, Task, Topic,
Description, What, Issue, Deliverable, Work item…) is read row by row:

* the people the owner cell names ("Alice", "@bob", "Alice, Bob", "Alice & Bob") are responsible
  for the row's item — never a cell that names no one ("TBD", "—", "Team", "all");
* the item is the work item a reference in the item cell names, else the cell's words: an
  action ("Update the release doc") names its object when that is work, else the whole cell
  as the item's name when it is a noun phrase ("Migration plan review");
* a status column whose cell is a status word ("In progress", "Blocked", "Done") gives the item
  that status.

Header and cells are matched by their words only; a row that cannot be read gives nothing.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from memory.extraction.readings import reading
from memory.language.words import lemma, tag

if TYPE_CHECKING:
    from memory.extraction.rules import _Reader
    from memory.language.documents import TableRow

_OWNER_COLUMN = re.compile(
    r"^(?:owners?|assignees?|assigned(?: to)?|who|dri|leads?|responsible(?: person)?"
    r"|champions?|driver|point of contact|poc|person|people)$",
    re.IGNORECASE,
)
_ITEM_COLUMN = re.compile(
    r"^(?:items?|action(?: items?)?|actions?|tasks?|topics?|descriptions?|what|issues?"
    r"|deliverables?|work(?: items?)?|to-?dos?|title|subject|next steps?|follow[- ]ups?)$",
    re.IGNORECASE,
)
_STATUS_COLUMN = re.compile(r"^(?:status|state|progress)$", re.IGNORECASE)
_IMPERATIVE = re.compile(
    r"^(?P<verb>[A-Za-z]+)\s+(?P<object>(?:the|a|an|our|this|that|these|all|new|zzref\d+zz)\b.*)$"
)
"""An action in an item cell: a verb, then its object ("Update the release doc")."""
_SPLIT = re.compile(r"\s*,\s*(?:and\s+)?|\s+and\s+|\s*[&+/;]\s*|<br\s*/?>")
_NAME = re.compile(r"^(?:zzref\d+zz|@?[A-Z][\w.'’-]*(?: [A-Z][\w.'’-]*){0,2}|@[a-z][\w.-]*)$")
_NO_ONE = frozenset(
    {"tbd", "tba", "n/a", "na", "none", "nobody", "all", "everyone", "team", "we", "us", "?",
     "unassigned", "unknown", "open"}
)
_STATUS = {
    "done": "done",
    "complete": "done",
    "completed": "done",
    "finished": "done",
    "in progress": "in progress",
    "ongoing": "in progress",
    "wip": "in progress",
    "started": "in progress",
    "blocked": "blocked",
    "on hold": "on hold",
    "postponed": "postponed",
    "deferred": "postponed",
    "merged": "merged",
    "released": "released",
    "shipped": "released",
    "closed": "closed",
    "in review": "in review",
    "under review": "in review",
    "approved": "approved",
    "at risk": "at risk",
    "delayed": "delayed",
}
"""Status words a status cell may hold (``memory.extraction.rules._STATUS_WORDS``' values)."""


def _clean(cell: str) -> str:
    return re.sub(r"[*_`~]+", "", cell).strip(" .:")


def columns(header: tuple[str, ...]) -> tuple[int, int, int | None] | None:
    """(item, owner, status) column indexes of a header row, or None when it names no owner
    column or no item column. The first column of each kind counts."""
    owner = item = status = None
    for index, cell in enumerate(header):
        words = _clean(cell)
        if owner is None and _OWNER_COLUMN.match(words):
            owner = index
        elif item is None and _ITEM_COLUMN.match(words):
            item = index
        elif status is None and _STATUS_COLUMN.match(words):
            status = index
    if owner is None or item is None:
        return None
    return item, owner, status


def owner_names(cell: str) -> list[str]:
    """The names an owner cell gives, in order; none when any part names no one in particular
    ("TBD", "all") or is no name ("the infra folks")."""
    parts = [p for p in _SPLIT.split(_clean(cell)) if p]
    if not parts or len(parts) > 6:
        return []
    if any(p.lower().lstrip("@") in _NO_ONE or not _NAME.match(p) for p in parts):
        return []
    return parts


def status_word(cell: str) -> str | None:
    """The status a status cell states ("In progress" → in progress), else None ("50%",
    "see notes")."""
    words = re.sub(r"^[^\w]+", "", _clean(cell)).lower()
    return _STATUS.get(words)


@reading("owner_table")
def read_rows(r: _Reader, rows: list[TableRow]) -> None:
    """The rows of tables with an owner and an item column (module docstring). Only in notes:
    never in a tracker's thread or a customer's message."""
    from memory.extraction import ExtractedEntity
    from memory.extraction.minutes import names_work
    from memory.extraction.minutes_reading import _committed, agenda_item
    from memory.extraction.rules import PLACEHOLDER_REF, RESPONSIBLE_FOR, _Clause
    from memory.extraction.task_items import object_item
    from memory.language.documents import Passage
    from memory.language.references import mask

    if (r.own is not None and not r.own_is_section) or (
        r.author is not None and r.author.type == "Customer"
    ):
        return
    for row in rows:
        found = columns(row.header)
        if found is None or len(row.cells) <= max(i for i in found if i is not None):
            continue
        item_at, owner_at, status_at = found
        masked = mask(row.cells[item_at])
        r.masked = masked
        clause = _Clause(text=masked.text, kind="main", sentence=row.line, ordinal=r.ordinal)
        references = [
            ref
            for word in PLACEHOLDER_REF.findall(masked.text)
            if (ref := masked.references.get(word)) is not None and ref.type == "WorkItem"
        ]
        words = _clean(masked.text)
        item = ExtractedEntity(references[0].name, "WorkItem") if references else None
        action = _IMPERATIVE.match(words)
        if item is None and action is not None and lemma(action["verb"].lower()) == action[
                "verb"].lower() and tag(action["verb"].lower()) in {"VB", "VBP", "NN"}:
            # "Update the release doc": the action's object when it is work, else the agenda
            # item above, else the object as the only thing the row can be about
            work = object_item(action["object"])
            if work is not None and names_work(work):
                item = r.thing(work, clause)
            item = item or agenda_item(r, Passage("", row.headings))
            if item is None and work is not None:
                item = r.thing(work, clause)
        elif item is None and words:
            item = r.thing(words, clause)  # "Migration plan review"
        if item is None or item.type not in {"WorkItem", "Service", "Product"}:
            continue
        owners = mask(row.cells[owner_at])
        r.masked = owners
        names = owner_names(owners.text)
        people = _committed(r, " and ".join(names), clause, labelled=True) if names else []
        for person in people:
            r.fact(person, RESPONSIBLE_FOR, item, clause)
        if status_at is not None and (word := status_word(row.cells[status_at])) is not None:
            r.status(item, word, clause, reported=False)
