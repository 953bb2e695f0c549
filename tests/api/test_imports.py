"""``POST /api/v1/graphs/{graph}/imports`` (multipart) and ``GET …/imports/{uuid}``."""

from __future__ import annotations

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile

from memory.models import Episode, Graph, ImportRun
from tests.api.conftest import ClientFor, error_of
from tests.memory.importers.conftest import fixture_bytes


def upload(name: str) -> SimpleUploadedFile:
    return SimpleUploadedFile(name, fixture_bytes(name))


@pytest.mark.django_db
def test_an_editor_imports_an_export_and_polls_the_run(
    api: ClientFor, graph: Graph, editor, django_capture_on_commit_callbacks  # type: ignore[no-untyped-def]
) -> None:
    client = api(editor)
    with django_capture_on_commit_callbacks(execute=True):
        response = client.post(f"/api/v1/graphs/{graph.slug}/imports",
                               {"format": "github",
                                "file": upload("github-webcompat-issues.jsonl")},
                               format="multipart")

    assert response.status_code == 202, response.content
    run = response.json()
    assert (run["format"], run["filename"]) == ("github", "github-webcompat-issues.jsonl")
    polled = client.get(f"/api/v1/graphs/{graph.slug}/imports/{run['uuid']}").json()
    assert polled["status"] == "succeeded"
    assert (polled["items"], polled["stored"], polled["rejected"], polled["percent"]) == (
        100, 160, 0, 100)
    episode = client.get(f"/api/v1/graphs/{graph.slug}/episodes?page_size=1").json()["items"][0]
    assert episode["url"].startswith("https://github.com/webcompat/web-bugs/issues/")


@pytest.mark.django_db
def test_the_wrong_format_fails_the_run_with_the_reason_and_stores_nothing(
    api: ClientFor, graph: Graph, editor, django_capture_on_commit_callbacks  # type: ignore[no-untyped-def]
) -> None:
    with django_capture_on_commit_callbacks(execute=True):
        response = api(editor).post(f"/api/v1/graphs/{graph.slug}/imports",
                                    {"format": "jira-csv",
                                     "file": upload("linear-export.csv")}, format="multipart")

    run = ImportRun.objects.get(uuid=response.json()["uuid"])
    assert run.status == ImportRun.Status.FAILED
    assert run.error == ("expected a Jira CSV export: columns Issue key, Summary, Status and "
                         "Created; found CSV columns ID, Team, Title, Description, Status, "
                         "Estimate, … (no Issue key, Summary)")
    assert not Episode.objects.filter(graph=graph).exists()


@pytest.mark.django_db
def test_an_unknown_format_is_a_400_naming_the_field(
    api: ClientFor, graph: Graph, editor  # type: ignore[no-untyped-def]
) -> None:
    response = api(editor).post(f"/api/v1/graphs/{graph.slug}/imports",
                                {"format": "trello", "file": upload("linear-export.csv")},
                                format="multipart")

    assert response.status_code == 400
    assert error_of(response)["param"] == "format"


@pytest.mark.django_db
def test_an_unknown_time_zone_is_a_400(api: ClientFor, graph: Graph, editor) -> None:  # type: ignore[no-untyped-def]
    response = api(editor).post(f"/api/v1/graphs/{graph.slug}/imports",
                                {"format": "jira-csv", "file": upload("jira-export.csv"),
                                 "timezone": "Mars/Olympus"}, format="multipart")

    assert response.status_code == 400
    assert error_of(response)["param"] == "timezone"


@pytest.mark.django_db
def test_a_viewer_may_not_import(api: ClientFor, graph: Graph, member) -> None:  # type: ignore[no-untyped-def]
    response = api(member).post(f"/api/v1/graphs/{graph.slug}/imports",
                                {"format": "linear", "file": upload("linear-export.csv")},
                                format="multipart")

    assert response.status_code == 403
    assert not ImportRun.objects.exists()


@pytest.mark.django_db
def test_an_import_of_another_graph_is_404(api: ClientFor, graph: Graph, editor) -> None:  # type: ignore[no-untyped-def]
    other = Graph.objects.create(slug="other", name="Other")
    run = ImportRun.objects.create(graph=other, format="github")

    response = api(editor).get(f"/api/v1/graphs/other/imports/{run.uuid}")
    assert response.status_code == 404


CSV_MAP = ("external_id=Ticket ID,subject=Subject,content=Description,status=Status,"
           "author=Requester,customer=Organization,plan=Plan,reference_time=Created")


@pytest.mark.django_db
def test_a_csv_imports_with_its_mapping_and_the_graph_remembers_it(
    api: ClientFor, graph: Graph, editor, django_capture_on_commit_callbacks  # type: ignore[no-untyped-def]
) -> None:
    client = api(editor)
    with django_capture_on_commit_callbacks(execute=True):
        first = client.post(f"/api/v1/graphs/{graph.slug}/imports",
                            {"format": "csv", "file": upload("support-tickets.csv"),
                             "mapping": CSV_MAP}, format="multipart")
    run = ImportRun.objects.get(uuid=first.json()["uuid"])
    assert (run.status, run.items, run.rejected) == (ImportRun.Status.SUCCEEDED, 3, 0)
    with django_capture_on_commit_callbacks(execute=True):
        again = client.post(f"/api/v1/graphs/{graph.slug}/imports",
                            {"format": "csv", "file": upload("support-tickets.csv")},
                            format="multipart")
    rerun = ImportRun.objects.get(uuid=again.json()["uuid"])
    assert (rerun.status, rerun.stored, rerun.duplicates) == (ImportRun.Status.SUCCEEDED, 0, 4)


@pytest.mark.django_db
def test_a_mapping_of_unknown_fields_is_a_400_naming_the_mapping(
    api: ClientFor, graph: Graph, editor  # type: ignore[no-untyped-def]
) -> None:
    response = api(editor).post(f"/api/v1/graphs/{graph.slug}/imports",
                                {"format": "csv", "file": upload("support-tickets.csv"),
                                 "mapping": "when=Created"}, format="multipart")
    assert response.status_code == 400
    assert error_of(response)["param"] == "mapping"
    assert "unknown field 'when'" in error_of(response)["message"]
