"""The structure of a document: which lines are headings, which are list items under which
headings, and which are not prose at all (code, tables, quotations of earlier messages, HTML
comments, signatures).

Agendas, meeting notes and status reports are read item by item, each with the headings above it
as context ("PRs waiting on team" → each item under it); a heading itself is never read as a
sentence. Plain prose is one passage per line, as before.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field, replace

MAX_LINES = 4000
"""A document is read up to this many lines (64 KB of text is ~1,500 lines)."""
MAX_LINE_LENGTH = 2000
_LABEL_LEVEL = 7
"""Headings in bold or as a label ("Blocked:") sit below Markdown's six levels."""
LABEL_LEVEL = _LABEL_LEVEL
"""Longer lines are cut: no sentence of a status update is that long, and regexes stay linear."""


@dataclass(frozen=True)
class Passage:
    text: str
    """The line's words without its list marker or heading marks."""
    headings: tuple[str, ...] = ()
    """The headings above it, outermost first."""
    parents: tuple[str, ...] = ()
    """The list items it is nested under, outermost first."""
    item: bool = False
    """A list item (or a line under a heading), as opposed to free prose."""
    heading_levels: tuple[int, ...] = field(default=(), compare=False)
    """Each heading's level, as ``headings``: Markdown's 1–6, ``LABEL_LEVEL`` and below for a
    line in bold alone, a handle or a label ("**Ben**", "@dryajov", "Blocked:"). How the
    headings are written, not what the passage says: left out of comparisons."""
    task: str | None = field(default=None, compare=False)
    """A task-list item's box: ``open`` ("- [ ] …"), ``done`` ("- [x] …"), else None."""


@dataclass(frozen=True)
class TableRow:
    """A body row of a Markdown table with a header row: data, never read as a sentence; a
    reader that knows the table's columns (``memory.extraction.owner_tables``) may read it."""

    header: tuple[str, ...]
    """The header row's cells, as written."""
    cells: tuple[str, ...]
    line: str
    """The row as written (what a fact read from it cites)."""
    headings: tuple[str, ...] = ()


@dataclass(frozen=True)
class Document:
    passages: list[Passage]
    skipped: dict[str, int]
    """What was left unread, by kind (``code``, ``table``, ``quote``...): for the notes."""
    sender: str | None = None
    """Who wrote it, when the text says so in a header ("Ticket from X:", "From: X")."""
    signature: str | None = None
    """The name a sign-off gives ("Thanks, Jane")."""
    first_line: str = ""
    """The text's first non-blank line as written (an issue's or PR's title line)."""
    rows: list[TableRow] = field(default_factory=list)
    """The body rows of its tables that have a header row (at most ``MAX_TABLE_ROWS``)."""


_FENCE = re.compile(r"^\s{0,3}(?P<fence>`{3,}|~{3,})")
_ATX_HEADING = re.compile(r"^\s{0,3}(?P<marks>#{1,6})\s+(?P<text>.*?)\s*#*\s*$")
_SETEXT = re.compile(r"^\s{0,3}(?:=+|-+)\s*$")
_BOLD_LINE = re.compile(r"^\s*(?:\*\*|__)(?P<text>[^*_]{2,120})(?:\*\*|__)\s*:?\s*$")
_LABEL_LINE = re.compile(r"^\s*(?P<text>[A-Z][^.!?]{1,80}):\s*$")
_BULLET = re.compile(
    r"^(?P<indent>\s*)(?:[-*+•]|\d{1,3}[.)]|[a-z][.)])\s+(?:\[(?P<box>[ xX])\]\s+)?(?P<text>.*)$"
)
MAX_TABLE_ROWS = 200
_TABLE_DELIMITER = re.compile(r"^\s*\|?\s*:?-{3,}:?\s*(?:\|\s*:?-{3,}:?\s*)+\|?\s*$")
_HANDLE_LINE = re.compile(r"^\s*(?:\*\*)?@(?P<name>[A-Za-z0-9][\w.-]*)(?:\*\*)?\s*:?\s*$")
_TABLE_ROW = re.compile(r"^\s*\|.*\|\s*$|^\s*\|?\s*:?-{3,}:?\s*(?:\|\s*:?-{3,}:?\s*)+\|?\s*$")
_QUOTE = re.compile(r"^\s*>")
_HTML_COMMENT = re.compile(r"<!--.*?(?:-->|$)", re.S)
_RULE = re.compile(r"^\s*(?:[-*_]\s*){3,}$")
_WROTE = re.compile(r"^\s*On .{5,120} wrote:\s*$|^\s*.{1,80} wrote:\s*$")
_TICKET_FROM = re.compile(
    r"^\s*(?:(?:support\s+)?ticket|message|email|request|chat)\s+from\s+(?P<name>[^:\n]{2,80}?)"
    r"\s*[:\-–—]\s*(?P<rest>.*)$",
    re.I,
)
_FROM_HEADER = re.compile(r"^\s*from:\s*(?P<name>[^<\n]{2,80}?)\s*(?:<[^>]*>)?\s*$", re.I)
_SIGN_OFF = re.compile(
    r"^\s*(?:thanks|thank you|many thanks|thx|cheers|regards|best|best regards|kind regards"
    r"|sincerely)\s*[,!.]?\s*(?P<name>[A-Z][\w.'-]*(?:\s+[A-Z][\w.'-]*){0,3})?\s*$",
    re.I,
)
_NAME_LINE = re.compile(r"^\s*[-–—]*\s*(?P<name>[A-Z][\w.'-]*(?:\s+[A-Z][\w.'-]*){0,3})\s*$")
_HEADER_FIELD = re.compile(r"^\s*(?:to|cc|subject|date|sent):\s", re.I)


def read_document(text: str) -> Document:
    """Passages with their headings; code, tables, quotations and comments skipped."""
    if "<!--" in text:
        text = _HTML_COMMENT.sub(" ", text)
    lines = text.replace("\r\n", "\n").replace("\r", "\n").split("\n")[:MAX_LINES]
    passages: list[Passage] = []
    skipped: dict[str, int] = {}
    headings: dict[int, str] = {}  # level → heading text
    items: list[tuple[int, str]] = []  # (indent, text) of the open list items
    sender: str | None = None
    signature: str | None = None
    fence: str | None = None
    signing_off = False
    rows: list[TableRow] = []
    table: list[str] = []  # the lines of the table being read

    def skip(kind: str) -> None:
        skipped[kind] = skipped.get(kind, 0) + 1

    def context() -> tuple[str, ...]:
        return tuple(headings[level] for level in sorted(headings))

    def levels() -> tuple[int, ...]:
        return tuple(sorted(headings))

    blank_before = False
    last_line = -2  # the line the last passage ended on

    for index, raw in enumerate(lines):
        line = raw[:MAX_LINE_LENGTH]
        opening = _FENCE.match(line)
        if fence is not None:
            if opening and opening["fence"][0] == fence[0] and len(opening["fence"]) >= len(
                    fence):
                fence = None
            continue
        if opening:
            fence = opening["fence"]
            skip("code")
            continue
        if not line.strip():
            # A blank line does not end a list: an indented item after it is still nested.
            blank_before = True
            table.clear()  # but it ends a table
            continue
        after_blank, blank_before = blank_before, False
        if signing_off:
            name = _NAME_LINE.match(line)
            if name:
                signature = name["name"]
            break  # nothing after a sign-off and the name under it is a claim
        if _QUOTE.match(line) or _WROTE.match(line):
            skip("quote")
            continue
        if not _TABLE_ROW.match(line):
            table.clear()
        if _TABLE_ROW.match(line):
            table.append(line)
            if (len(table) > 2 and _TABLE_DELIMITER.match(table[1])
                    and not _TABLE_DELIMITER.match(line) and len(rows) < MAX_TABLE_ROWS):
                rows.append(TableRow(_cells(table[0]), _cells(line), line.strip(), context()))
            summary = _summary_row(line)
            if summary is not None:
                # "| **Decision 2** | London testnet fork blocks agreed, Tim to document | …":
                # a numbered row of a summary table is a statement (corpus GUIDE §5)
                passages.append(Passage(summary, context(), item=True,
                                        heading_levels=levels()))
                last_line = index
                continue
            skip("table")
            continue
        if _RULE.match(line) and not _SETEXT_ABOVE(lines, index):
            continue
        if line.startswith(("    ", "\t")) and not items and not _BULLET.match(line):
            skip("code")
            continue
        if _HEADER_FIELD.match(line):
            continue
        match_sender = _FROM_HEADER.match(line)
        if match_sender:
            sender = sender or match_sender["name"].strip()
            continue
        ticket = _TICKET_FROM.match(line)
        if ticket:
            sender = sender or ticket["name"].strip()
            line = ticket["rest"]
            if not line.strip():
                continue
        sign_off = _SIGN_OFF.match(line)
        if sign_off and passages:
            if sign_off["name"]:
                signature = sign_off["name"]
                break
            signing_off = True
            continue
        heading = _heading(line, lines, index)
        if heading is not None:
            level, words = heading
            headings = {k: v for k, v in headings.items() if k < level}
            headings[level] = words
            items.clear()
            continue
        if index + 1 < len(lines) and _SETEXT.match(lines[index + 1]) and lines[
                index + 1].strip().startswith("="):
            continue  # the text of a setext heading is taken when its underline is read
        bullet = _BULLET.match(line)
        if bullet:
            indent = len(bullet["indent"].expandtabs(4))
            while items and items[-1][0] >= indent:
                items.pop()
            words = bullet["text"].strip()
            parents = tuple(t for _, t in items)
            items.append((indent, words))
            if words:
                box = bullet["box"]
                passages.append(Passage(words, context(), parents, item=True,
                                        heading_levels=levels(),
                                        task=None if box is None else (
                                            "open" if box == " " else "done")))
                last_line = index
            continue
        if (passages and last_line == index - 1 and _continues(passages[-1].text, line)
                and len(passages[-1].text) + len(line) <= MAX_LINE_LENGTH):
            # A line wrapped at 72 columns, or an item's continuation: the same sentence goes on.
            passages[-1] = replace(passages[-1], text=f"{passages[-1].text} {line.strip()}")
            if items:
                items[-1] = (items[-1][0], passages[-1].text)
            last_line = index
            continue
        items.clear()  # prose ends the list it follows
        if after_blank:
            # A paragraph after a blank line leaves the list a label introduced ("Blocked:").
            headings = {k: v for k, v in headings.items() if k < _LABEL_LEVEL}
        under = bool(headings)
        passages.append(Passage(line.strip(), context(), item=under and _is_short(line),
                                heading_levels=levels()))
        last_line = index
    first_line = next((line.strip() for line in lines if line.strip()), "")
    return Document(passages, skipped, sender, signature, first_line[:MAX_LINE_LENGTH], rows)


def _cells(line: str) -> tuple[str, ...]:
    """A table row's cells, stripped ("| a | b |" → ("a", "b"))."""
    return tuple(cell.strip() for cell in line.strip().strip("|").split("|"))


_SUMMARY_LABEL = re.compile(
    r"^(?:\*\*|__)?(?:decision|action(?: item)?|resolution|ai)\s*#?\d+(?:\*\*|__)?$", re.I)


def _summary_row(line: str) -> str | None:
    """The statement of a numbered row of a meeting's summary table ("| **Decision 2** |
    London testnet fork blocks agreed, Tim to document | [1:01:29](…) |"), else None: other
    tables (results, benchmarks, polls) are data, never read."""
    cells = [cell.strip() for cell in line.strip().strip("|").split("|")]
    if len(cells) < 2 or not _SUMMARY_LABEL.match(cells[0]) or len(cells[1].split()) < 3:
        return None
    return cells[1]


def _SETEXT_ABOVE(lines: list[str], index: int) -> bool:
    return index > 0 and bool(lines[index - 1].strip()) and not _BULLET.match(lines[index - 1])


def _heading(line: str, lines: list[str], index: int) -> tuple[int, str] | None:
    """(level, text) when the line is a heading: Markdown's ``#``, a setext underline's text, a
    line in bold alone, or a short label ending with a colon followed by a list."""
    atx = _ATX_HEADING.match(line)
    if atx:
        return len(atx["marks"]), atx["text"].strip()
    if index + 1 < len(lines) and _SETEXT.match(lines[index + 1]) and lines[index].strip() and (
            not _BULLET.match(line)):
        underline = lines[index + 1].strip()
        if underline.startswith("=") or (underline.startswith("-") and len(underline) >= 3):
            return (1 if underline.startswith("=") else 2), line.strip()
    handle = _HANDLE_LINE.match(line)
    if handle is not None:
        return _LABEL_LEVEL, f"@{handle['name']}"  # "@dryajov" above a standup's Done / Next
    bold = _BOLD_LINE.match(line)
    if bold:
        return _LABEL_LEVEL, bold["text"].strip()
    label = _LABEL_LINE.match(line)
    if label and index + 1 < len(lines) and _BULLET.match(lines[index + 1]):
        return _LABEL_LEVEL + 1, label["text"].strip()
    return None


def _continues(previous: str, line: str) -> bool:
    """Whether ``line`` goes on with the passage before it: that passage has not ended its
    sentence, and the line starts in lower case, or is indented under it, or the passage was
    long enough to have been wrapped."""
    if previous.rstrip().endswith((".", "!", "?", ":")) or _BULLET.match(line):
        return False
    stripped = line.strip()
    return (stripped[:1].islower() or line.startswith(("  ", "\t"))
            or len(previous) >= _WRAPPED_LENGTH)


_WRAPPED_LENGTH = 60
"""A line this long that stops without a full stop was probably wrapped."""


def _is_short(line: str) -> bool:
    return len(line.split()) <= 25
