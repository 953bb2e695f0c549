"""Running imports: idempotent and incremental re-imports, the wrong format storing nothing, a
partly broken export storing every good item, import runs with their progress."""

from __future__ import annotations

import json
from datetime import UTC, datetime

import pytest

from memory.importers.model import WrongFormat
from memory.importers.runs import execute_run, start_import
from memory.models import Episode, Fact, Graph, ImportRun
from tests.memory.importers.conftest import ImportFn, fixture_bytes

BUGS = "bugzilla-bugs.jsonl"


def truncated(payload: bytes, before: str) -> bytes:
    """The same export as it would have been at ``before``: later bugs and history left out."""
    lines = []
    for line in payload.splitlines():
        bug = json.loads(line)
        if bug["creation_time"] >= before:
            continue
        for entry in sorted((h for h in bug["history"] if h["when"] >= before),
                            key=lambda h: h["when"], reverse=True):
            for change in entry["changes"]:  # undo what came later
                field = change["field_name"]
                if field in ("depends_on", "blocks"):
                    added = {int(v) for v in change["added"].split(",") if v.strip()}
                    removed = [int(v) for v in change["removed"].split(",") if v.strip()]
                    bug[field] = [v for v in bug[field] if v not in added] + removed
                elif field in ("status", "resolution", "assigned_to"):
                    bug[field] = change["removed"]
        bug["history"] = [h for h in bug["history"] if h["when"] < before]
        lines.append(json.dumps(bug))
    return "\n".join(lines).encode()


@pytest.mark.django_db
def test_importing_the_same_file_twice_stores_nothing_twice(
    graph: Graph, run_import: ImportFn
) -> None:
    first = run_import(graph, "bugzilla", fixture_bytes(BUGS))
    facts = Fact.objects.filter(graph=graph).count()
    again = run_import(graph, "bugzilla", fixture_bytes(BUGS))

    assert again.summary() == f"stored 0, duplicates {first.stored}, rejected 0"
    assert Fact.objects.filter(graph=graph).count() == facts


@pytest.mark.django_db
def test_a_later_export_adds_only_the_new_history(graph: Graph, run_import: ImportFn) -> None:
    earlier = run_import(graph, "bugzilla", truncated(fixture_bytes(BUGS), "2017-01-01"))
    later = run_import(graph, "bugzilla", fixture_bytes(BUGS))
    everything = Episode.objects.filter(graph=graph).count()

    assert earlier.stored + later.stored == everything == 433
    assert later.duplicates == earlier.stored
    # The same as importing the whole export at once.
    removed = Fact.objects.get(graph=graph, relation="DEPENDS_ON", source__name="Bug 1389136",
                               target__name="Bug 1388761")
    assert removed.invalid_at == datetime(2017, 8, 10, 17, 39, tzinfo=UTC)


@pytest.mark.django_db
def test_since_imports_only_the_changes_from_then_on(graph: Graph, run_import: ImportFn) -> None:
    report = run_import(graph, "bugzilla", fixture_bytes(BUGS),
                        since=datetime(2019, 1, 1, tzinfo=UTC))

    times = Episode.objects.filter(graph=graph).values_list("reference_time", flat=True)
    assert report.stored == len(times) > 0
    assert min(times) >= datetime(2019, 1, 1, tzinfo=UTC)


@pytest.mark.django_db
def test_the_wrong_format_stores_nothing(graph: Graph, run_import: ImportFn) -> None:
    with pytest.raises(WrongFormat, match=r"expected Bugzilla REST JSON.*found GitHub issues"):
        run_import(graph, "bugzilla", fixture_bytes("github-webcompat-issues.jsonl"))

    assert not Episode.objects.filter(graph=graph).exists()


@pytest.mark.django_db
def test_a_partly_broken_export_stores_every_good_item(graph: Graph, run_import: ImportFn) -> None:
    lines = fixture_bytes(BUGS).splitlines()
    broken = json.loads(lines[1])
    broken["creation_time"] = "not a time"
    payload = b"\n".join([lines[0], json.dumps(broken).encode(), b"{oops", *lines[2:]])

    report = run_import(graph, "bugzilla", payload)
    assert report.items == 57
    assert report.rejected == 2
    assert [(p.position, p.item) for p in report.problems] == [
        ("line 2", f"Bug {broken['id']}"), ("line 3", "")]
    assert not Episode.objects.filter(graph=graph, external_id__startswith=f"bugzilla:Bug "
                                                                           f"{broken['id']}:")\
        .exists()
    assert Episode.objects.filter(graph=graph).count() == report.stored > 400


@pytest.mark.django_db
def test_an_import_run_records_its_progress_and_outcome(
    graph: Graph, django_capture_on_commit_callbacks: object
) -> None:
    with django_capture_on_commit_callbacks(execute=True):  # type: ignore[operator]
        run = start_import(graph, "github", fixture_bytes("github-webcompat-issues.jsonl"),
                           filename="issues.jsonl")

    run.refresh_from_db()
    assert run.status == ImportRun.Status.SUCCEEDED
    assert (run.items, run.episodes, run.processed, run.stored) == (100, 160, 160, 160)
    assert run.percent == 100
    assert bytes(run.payload) == b""  # the upload is not kept once read
    assert execute_run(run.pk) == "skipped"  # a second delivery does nothing


@pytest.mark.django_db
def test_an_import_run_of_the_wrong_format_fails_with_the_reason(
    graph: Graph, django_capture_on_commit_callbacks: object
) -> None:
    with django_capture_on_commit_callbacks(execute=True):  # type: ignore[operator]
        run = start_import(graph, "linear", fixture_bytes(BUGS))

    run.refresh_from_db()
    assert run.status == ImportRun.Status.FAILED
    assert run.error.startswith("expected a Linear CSV export: columns ID, Title, Status and "
                                "Created; found")
    assert not Episode.objects.filter(graph=graph).exists()
