"""``manage.py import FORMAT PATH --graph SLUG [--create] [--since DATE]``."""

from __future__ import annotations

from io import StringIO
from pathlib import Path

import pytest
from django.core.management import CommandError, call_command

from memory.models import Episode, Graph
from tests.memory.importers.conftest import FIXTURES


@pytest.mark.django_db
def test_it_prints_the_same_line_as_ingest(django_capture_on_commit_callbacks) -> None:
    out = StringIO()
    with django_capture_on_commit_callbacks(execute=True):
        call_command("import", "github", str(FIXTURES / "github-webcompat-issues.jsonl"),
                     graph="webcompat", create=True, stdout=out)

    assert out.getvalue().strip() == "stored 160, duplicates 0, rejected 0"
    assert Graph.objects.get(slug="webcompat").episodes.count() == 160


@pytest.mark.django_db
def test_since_a_date_imports_from_its_start(graph: Graph) -> None:
    out = StringIO()
    call_command("import", "bugzilla", str(FIXTURES / "bugzilla-bugs.jsonl"),
                 graph=graph.slug, since="2019-10-01", no_process=True, stdout=out)

    assert out.getvalue().startswith("stored ")
    assert min(Episode.objects.filter(graph=graph).values_list("reference_time", flat=True)
               ).isoformat() >= "2019-10-01"


@pytest.mark.django_db
def test_the_wrong_format_is_one_clear_error_and_stores_nothing(graph: Graph) -> None:
    with pytest.raises(CommandError) as refused:
        call_command("import", "jira", str(FIXTURES / "bugzilla-bugs.jsonl"), graph=graph.slug)

    assert str(refused.value) == (
        "not a jira export: expected Jira REST search JSON with expand=changelog: issue objects "
        "with key and fields; found Bugzilla bugs (objects with id, summary and creation_time)")
    assert not Episode.objects.exists()


@pytest.mark.django_db
def test_rejected_items_are_reported_with_their_position_and_the_exit_is_1(
    graph: Graph, tmp_path: Path
) -> None:
    rows = (FIXTURES / "linear-export.csv").read_text().replace("\nENG-3,", "\nnot-an-id,", 1)
    export = tmp_path / "linear.csv"
    export.write_text(rows)
    out, err = StringIO(), StringIO()

    with pytest.raises(SystemExit) as exited:
        call_command("import", "linear", str(export), graph=graph.slug, no_process=True,
                     stdout=out, stderr=err)

    assert exited.value.code == 1
    assert out.getvalue().strip() == "stored 6, duplicates 0, rejected 1"
    assert err.getvalue().strip() == (
        "row 4 (not-an-id): ID 'not-an-id' is not an issue id such as ENG-123")


@pytest.mark.django_db
def test_an_unknown_graph_needs_create() -> None:
    with pytest.raises(CommandError, match="unknown graph 'nope'; pass --create"):
        call_command("import", "github", str(FIXTURES / "github-webcompat-issues.jsonl"),
                     graph="nope")
