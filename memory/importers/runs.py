"""Running an import into a graph: read the export, map it, ingest the episodes in time order in
chunks (so a long import shows its progress), and report like ``ingest`` does.

``import_export`` is the work itself (the command calls it directly); ``ImportRun`` rows record
an import started from the episodes page or the API, which runs as a Celery task in production
and in-process in the embedded default (``memory.tasks.run_import``)."""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from django.db import transaction
from django.utils import timezone

from memory.graph_settings import ontology_for
from memory.importers import read_export, table, zendesk
from memory.importers.mapping import map_items
from memory.importers.mappings import parse_mapping
from memory.importers.model import Problem, WrongFormat
from memory.ingestion import ingest_records
from memory.models import Graph, ImportMapping, ImportRun

logger = logging.getLogger(__name__)

CHUNK = 1000
"""Episodes per ingestion call: each is stored (and, in-process, processed) before the next."""

Progress = Callable[[int, int], None]


@dataclass
class ImportReport:
    items: int = 0
    episodes: int = 0
    stored: int = 0
    duplicates: int = 0
    rejected: int = 0
    problems: list[Problem] = field(default_factory=list)
    stored_ids: list[int] = field(default_factory=list)

    def summary(self) -> str:
        return f"stored {self.stored}, duplicates {self.duplicates}, rejected {self.rejected}"


def import_export(
    graph: Graph,
    fmt: str,
    payload: bytes,
    *,
    since: datetime | None = None,
    options: dict[str, Any] | None = None,
    progress: Progress | None = None,
    process: bool = True,
    now: datetime | None = None,
) -> ImportReport:
    """Import one export. ``WrongFormat`` (nothing stored) when the file is not ``fmt``.

    Rejected counts the items that could not be read and the episodes ingestion refused; every
    one is in ``problems`` with its position and reason."""
    options = dict(options or {})
    if fmt in MAPPED_FORMATS and not options.get("mapping"):
        options["mapping"] = remembered_mapping(graph, fmt)
    result = read_export(fmt, payload, **options)
    if fmt in MAPPED_FORMATS and options.get("mapping"):
        remember_mapping(graph, fmt, options["mapping"])
    mapped = map_items(result.items, since=since,
                       is_final=ontology_for(graph).is_final_status)
    report = ImportReport(items=len(result.items), episodes=len(mapped),
                          problems=list(result.problems), rejected=len(result.problems))
    if progress:
        progress(0, len(mapped))
    for start in range(0, len(mapped), CHUNK):
        chunk = mapped[start:start + CHUNK]
        numbered = [(start + offset, episode.record) for offset, episode in enumerate(chunk)]
        ingested = ingest_records(graph, numbered, process=process, now=now)
        report.stored += ingested.stored
        report.duplicates += ingested.duplicates
        report.stored_ids += ingested.stored_ids
        for line in ingested.results:
            if line.status == "rejected":
                episode = mapped[line.line]
                report.rejected += 1
                report.problems.append(Problem(episode.position, f"{line.field}: {line.reason}",
                                               item=episode.item))
        if progress:
            progress(start + len(chunk), len(mapped))
    return report


# --- Mappings remembered per graph ------------------------------------------------------------

MAPPED_FORMATS = {"csv": table.FIELDS, "zendesk": zendesk.MAPPED}
"""Formats read with a mapping; the last one a graph imported with is used when none is given."""


def remembered_mapping(graph: Graph, fmt: str) -> dict[str, str]:
    row = ImportMapping.objects.filter(graph=graph, format=fmt).first()
    if row is None:
        return {}
    # In the format's field order: PostgreSQL's jsonb keeps keys in its own order, not ours.
    order = {name: position for position, name in enumerate(MAPPED_FORMATS[fmt])}
    return dict(sorted(row.mapping.items(), key=lambda item: order.get(item[0], len(order))))


def remember_mapping(graph: Graph, fmt: str, mapping: str | dict[str, str]) -> None:
    """Keep the mapping an import was read with (it was read: its columns exist)."""
    parsed = parse_mapping(mapping, MAPPED_FORMATS[fmt])
    ImportMapping.objects.update_or_create(graph=graph, format=fmt, defaults={
        "mapping": parsed, "updated_at": timezone.now()})


# --- Import runs (the episodes page and the API) ----------------------------------------------


def start_import(graph: Graph, fmt: str, payload: bytes, *, filename: str = "",
                 since: datetime | None = None, options: dict[str, str] | None = None,
                 user: Any = None) -> ImportRun:
    """Record an import and run it after commit: on a worker in production, in-process in the
    embedded default (where the run has ended when this returns after commit)."""
    run = ImportRun.objects.create(graph=graph, format=fmt, filename=filename[:255],
                                   since=since, payload=payload, options=options or {},
                                   requested_by=user if getattr(user, "pk", None) else None)
    from memory.tasks import run_import

    transaction.on_commit(lambda: run_import.delay(run.pk))
    return run


def execute_run(run_id: int) -> str:
    """Carry out a recorded import once (a second delivery of the task finds it started)."""
    with transaction.atomic():
        run = ImportRun.objects.select_for_update().filter(pk=run_id).first()
        if run is None or run.status != ImportRun.Status.QUEUED:
            return "skipped"
        run.status = ImportRun.Status.RUNNING
        run.started_at = timezone.now()
        run.save(update_fields=["status", "started_at"])
    payload = bytes(run.payload)

    def progress(done: int, total: int) -> None:
        ImportRun.objects.filter(pk=run.pk).update(processed=done, episodes=total)

    try:
        report = import_export(run.graph, run.format, payload, since=run.since,
                               options=run.options, progress=progress)
    except (WrongFormat, ValueError) as exc:
        _finish(run, ImportRun.Status.FAILED, error=str(exc))
        return "failed"
    except Exception as exc:  # recorded for the person who started it, then raised for the log
        _finish(run, ImportRun.Status.FAILED, error=f"import failed: {exc}")
        raise
    _finish(run, ImportRun.Status.SUCCEEDED, report=report)
    return "succeeded"


def _finish(run: ImportRun, status: str, *, error: str = "",
            report: ImportReport | None = None) -> None:
    values: dict[str, Any] = {"status": status, "error": error, "payload": b"",
                              "finished_at": timezone.now()}
    if report is not None:
        values.update(items=report.items, episodes=report.episodes, processed=report.episodes,
                      stored=report.stored, duplicates=report.duplicates,
                      rejected=report.rejected,
                      problems=[p.as_dict() for p in report.problems])
    ImportRun.objects.filter(pk=run.pk).update(**values)
    for key, value in values.items():
        setattr(run, key, value)
