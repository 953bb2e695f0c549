"""Importers: a tool's export → episodes with structured facts (DESIGN §4, Ingest: Importers).

Beside ``memory.ingestion``, not inside it: an importer reads a tool's file into the
tool-independent model, one shared mapping layer turns that into ingest records, and ingestion
stores them as it stores everything else (idempotent, validated, processed after commit).

::

    export file ──read()──▶ ReadResult(items, problems) ──map_items()──▶ ingest records
        (one module per tool)   (memory.importers.model)     (memory.importers.mapping)
                                                                   │
                                    ImportReport ◀── ingest_records() (memory.ingestion)

Formats (``FORMATS``): ``github``, ``jira`` (REST search JSON with ``expand=changelog``),
``jira-csv``, ``linear`` (CSV), ``bugzilla`` (REST JSON with history).

Adding an importer (a support desk, Slack, a generic CSV)
--------------------------------------------------------
Write ``memory/importers/<tool>.py`` with one function and register it in ``FORMATS``::

    def read(payload: bytes, *, base_url: str | None = None, timezone: str | None = None,
             **options) -> ReadResult

It must

* raise ``WrongFormat(expected, found)`` when the file as a whole is not its format (nothing is
  stored then): ``reading.json_records`` / ``reading.csv_rows`` read the file with the position
  of every record, ``reading.first_of_shape`` refuses a file in which no record has the expected
  shape and says what the records look like instead;
* return every readable record as an ``Item`` and every unreadable one as a ``Problem(position,
  reason, item)`` — one bad record never stops the others; unknown fields are ignored and
  missing optional ones are simply absent;
* read times with ``model.parse_time`` and the tool's documented rule for times without an
  offset (``default_zone``).

An ``Item`` is one tracked thing with a stable ``key`` (its entity name: never a title), a
``title``, ``url`` (kept on every episode so every page links back), ``created_at``, its entity
``type`` (``WorkItem`` by default), ``reporters`` (``Party(name, type)``: for a support desk the
requester as a ``Person`` and their organization as a ``Customer``), ``tracker`` (a parent whose
dependencies are what it tracks), ``labels``/``priority`` (words in the episode, never facts:
tags never become hubs) and ``changes``. Each ``Change`` is one episode at its time ``at`` with a
``key`` deterministic within the item (the tool's change id, or its time and actor: the episode's
external id is ``tool:item key:change key``, which makes re-imports idempotent and incremental),
its ``actor``, whether it ``created`` the item, the new ``status``, assignees added/removed and
``ItemLink(kind, other)`` links added/removed (``LinkKind``: depends on, blocks, tracks, tracked
by, duplicate of, duplicated by, replaces, replaced by, relates). What those become is decided once,
in ``mapping`` (see its docstring), for every tool alike; a status is final (done or ended) by
the graph's ontology, not by the importer.

``run_import`` (``memory.importers.runs``) reads, maps and ingests, with progress, for the
command, the episodes page and the API.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from memory.importers import bugzilla, github, jira, linear, slack, table, zendesk
from memory.importers.model import ReadResult, WrongFormat

Reader = Callable[..., ReadResult]

FORMATS: dict[str, Reader] = {
    "github": github.read,
    "jira": jira.read_json,
    "jira-csv": jira.read_csv,
    "linear": linear.read,
    "bugzilla": bugzilla.read,
    "zendesk": zendesk.read,
    "slack": slack.read,
    "csv": table.read,
}

FORMAT_LABELS: dict[str, str] = {
    "github": "GitHub issues (REST JSON, with events)",
    "jira": "Jira (REST search JSON, expand=changelog)",
    "jira-csv": "Jira (CSV export)",
    "linear": "Linear (CSV export)",
    "bugzilla": "Bugzilla (REST JSON, with history)",
    "zendesk": "Zendesk (incremental ticket export JSON, with audits)",
    "slack": "Slack (workspace or channel export zip)",
    "csv": "Any CSV of tickets, with a column mapping",
}


def read_export(fmt: str, payload: bytes, **options: Any) -> ReadResult:
    if fmt not in FORMATS:
        raise WrongFormat(f"one of {', '.join(FORMATS)}", f"the format {fmt!r}")
    return FORMATS[fmt](payload, **options)


__all__ = ["FORMATS", "FORMAT_LABELS", "ReadResult", "WrongFormat", "read_export"]
