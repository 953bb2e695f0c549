"""Where data comes in: the episode list and its filters, one episode's page, adding an update,
uploading a JSON Lines file with good, duplicate and bad lines, processing status and retry —
for the owner, an editor, a member and an outsider."""

from __future__ import annotations

import json
from datetime import timedelta

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import Client
from django.urls import reverse

from memory.models import Episode, Graph, Observation
from tests.conftest import jsonl
from tests.dashboard.conftest import htmx, signed_in
from tests.factories import MONDAY, EpisodeFactory, FactFactory, GraphFactory
from tests.scenarios import SEED

pytestmark = pytest.mark.django_db


def list_url(graph: Graph, query: str = "") -> str:
    return reverse("episodes", args=[graph.slug]) + (f"?{query}" if query else "")


def detail_url(episode: Episode) -> str:
    return reverse("episode", args=[episode.graph.slug, episode.uuid])


def authors(response) -> list[str]:  # type: ignore[no-untyped-def]
    return [e.author for e in response.context["page"].object_list]


def upload(client: Client, graph: Graph, payload: bytes, name: str = "updates.jsonl",
           **headers: str):  # type: ignore[no-untyped-def]
    file = SimpleUploadedFile(name, payload, content_type="application/jsonl")
    return client.post(reverse("episode-upload", args=[graph.slug]), {"file": file}, **headers)


# --- The list ----------------------------------------------------------------------------------


@pytest.fixture
def three(graph: Graph) -> list[Episode]:
    return [
        EpisodeFactory(graph=graph, author="Alice", source="weekly-status",
                       reference_time=MONDAY, content="The API migration is blocked."),
        EpisodeFactory(graph=graph, author="Bob", source="standup",
                       reference_time=MONDAY + timedelta(days=2), content="Payments stalled."),
        EpisodeFactory(graph=graph, author="Clara", source="standup",
                       reference_time=MONDAY + timedelta(days=4), status=Episode.Status.FAILED,
                       error="ValueError: no sentence found", content="Checkout can't move."),
    ]


@pytest.mark.parametrize("persona", ["owner", "editor", "member"])
def test_members_see_every_episode_newest_first(
    client: Client, request, graph, three, persona: str
) -> None:
    response = signed_in(client, request.getfixturevalue(persona)).get(list_url(graph))

    assert response.status_code == 200
    assert authors(response) == ["Clara", "Bob", "Alice"]
    assert detail_url(three[0]).encode() in response.content


def test_an_outsider_gets_404_for_the_list_and_an_episode(
    client: Client, graph, outsider, three
) -> None:
    signed_in(client, outsider)

    assert client.get(list_url(graph)).status_code == 404
    assert client.get(detail_url(three[0])).status_code == 404


def test_an_episode_of_another_graph_is_404(client: Client, graph, owner) -> None:
    foreign = EpisodeFactory(graph=GraphFactory(slug="other"))

    response = signed_in(client, owner).get(
        reverse("episode", args=[graph.slug, foreign.uuid]))

    assert response.status_code == 404


@pytest.mark.parametrize(("query", "expected"), [
    ("author=bob", ["Bob"]),
    ("source=standup", ["Clara", "Bob"]),
    ("status=failed", ["Clara"]),
    ("since=2026-11-24&until=2026-11-25", ["Bob"]),
])
def test_the_filters_narrow_the_list(
    client: Client, graph, owner, three, query: str, expected: list[str]
) -> None:
    assert authors(signed_in(client, owner).get(list_url(graph, query))) == expected


def test_the_entity_filter_keeps_the_episodes_that_mention_it(
    client: Client, graph, owner, three
) -> None:
    fact = FactFactory(graph=graph, episodes=[three[1]])

    response = signed_in(client, owner).get(list_url(graph, f"entity={fact.target.uuid}"))

    assert authors(response) == ["Bob"]


def test_bad_filter_values_are_ignored_and_said_so(client: Client, graph, owner, three) -> None:
    response = signed_in(client, owner).get(list_url(graph, "status=lost&since=soon&page=0"))

    assert authors(response) == ["Clara", "Bob", "Alice"]
    assert "Status: Select a valid choice." in response.content.decode()


def test_a_failed_episode_shows_its_error_and_a_retry_button_to_editors(
    client: Client, graph, editor, member, three
) -> None:
    retry = reverse("episode-retry", args=[graph.slug, three[2].uuid])

    for user, shown in ((editor, True), (member, False)):
        html = signed_in(Client(), user).get(list_url(graph)).content.decode()
        assert "ValueError: no sentence found" in html
        assert (f'action="{retry}"' in html) is shown


def test_htmx_gets_the_results_fragment_and_the_canonical_url(
    client: Client, graph, owner, three
) -> None:
    response = signed_in(client, owner).get(list_url(graph, "author=&status=failed"),
                                            **htmx("episode-results"))

    assert response.content.decode().lstrip().startswith('<section id="episode-results"')
    assert response["HX-Push-Url"] == list_url(graph, "status=failed")
    assert "HX-Request" in response["Vary"]


def test_the_list_pages_through_many_episodes(client: Client, graph, owner) -> None:
    EpisodeFactory.create_batch(30, graph=graph)

    response = signed_in(client, owner).get(list_url(graph, "page=2"))

    assert len(response.context["page"].object_list) == 5
    assert b"Page 2 of 2" in response.content


@pytest.mark.parametrize("count", [5, 300])
def test_the_list_takes_the_same_ten_queries_at_5_and_300_episodes(
    client: Client, graph, owner, count: int, django_assert_num_queries
) -> None:
    EpisodeFactory.create_batch(count, graph=graph)
    signed_in(client, owner)

    # 1 session, 2 user, 3 membership + graph, 4 count, 5 one page (with its facts counted),
    # 6 the switcher, 7 the sources, 8 the authors, 9 the status counts, 10 the CSV mapping the
    # graph remembers (the upload form of an editor).
    with django_assert_num_queries(10):
        client.get(list_url(graph))


# --- One episode -------------------------------------------------------------------------------


@pytest.fixture
def alices(seeded: Observation) -> Episode:
    return Episode.objects.get(graph=seeded.graph, external_id="alice")


def test_an_episode_shows_its_words_its_facts_the_extractor_and_its_observations(
    client: Client, member, seeded: Observation, alices: Episode
) -> None:
    response = signed_in(client, member).get(detail_url(alices))

    assert response.status_code == 200
    html = response.content.decode()
    assert ("<mark>I&#x27;m waiting on the auth service refactor, which the backend team "
            "owns.</mark>") in html
    edges = {(r.fact.source.name, r.fact.relation, r.fact.target.name)
             for r in response.context["evidence"]}
    assert ("API Migration", "DEPENDS_ON", "Auth Service Refactor") in edges
    assert "rules@1" in html
    assert reverse("observation", args=[seeded.graph.slug, seeded.uuid]) in html
    for row in response.context["evidence"]:
        assert f'id="fact-{row.fact.uuid}"' in html
        assert reverse("entity", args=[seeded.graph.slug, row.fact.source.uuid]) in html


def test_an_episode_lists_the_facts_it_ended(client: Client, owner, shipped) -> None:
    ship = Episode.objects.get(graph=shipped.graph, external_id="ship")

    response = signed_in(client, owner).get(detail_url(ship))

    ended = {(f.source.name, f.target.name) for f in response.context["closed"]}
    assert ("API Migration", "Auth Service Refactor") in ended


def test_a_pending_episode_polls_its_status_and_reloads_when_processed(
    client: Client, graph, owner
) -> None:
    episode = EpisodeFactory(graph=graph, status=Episode.Status.PENDING)
    signed_in(client, owner)

    page = client.get(detail_url(episode)).content.decode()
    waiting = client.get(detail_url(episode), **htmx("episode-status"))
    Episode.objects.filter(pk=episode.pk).update(status=Episode.Status.PROCESSED)
    done = client.get(detail_url(episode), **htmx("episode-status"))

    assert f'hx-get="{detail_url(episode)}" hx-trigger="every 1s"' in page
    assert waiting.content.decode().lstrip().startswith('<div id="episode-status"')
    assert done["HX-Refresh"] == "true"


def test_an_episode_page_takes_eight_queries(
    client: Client, owner, alices: Episode, django_assert_num_queries
) -> None:
    signed_in(client, owner)
    url = detail_url(alices)

    # 1 session, 2 user, 3 membership + graph, 4 the episode, 5 the facts it supports (with
    # what closed them), 6 the facts it ended, 7 its observations, 8 the switcher.
    with django_assert_num_queries(8):
        client.get(url)


# --- Retry ---------------------------------------------------------------------------------------


@pytest.fixture
def failed(graph: Graph) -> Episode:
    return EpisodeFactory(graph=graph, status=Episode.Status.FAILED, attempts=3,
                          error="OperationalError: database is locked",
                          content="The API migration is blocked. I'm waiting on the auth "
                                  "service refactor.")


def test_an_editor_retries_a_failed_episode_and_it_is_processed(
    client: Client, editor, failed: Episode, django_capture_on_commit_callbacks
) -> None:
    with django_capture_on_commit_callbacks(execute=True):
        response = signed_in(client, editor).post(
            reverse("episode-retry", args=[failed.graph.slug, failed.uuid]))

    assert response.status_code == 302 and response["Location"] == detail_url(failed)
    failed.refresh_from_db()
    assert failed.status == Episode.Status.PROCESSED and failed.error == ""
    assert failed.facts.filter(relation="DEPENDS_ON").exists()


def test_htmx_retry_re_renders_the_status_in_place(client: Client, owner, failed) -> None:
    response = signed_in(client, owner).post(
        reverse("episode-retry", args=[failed.graph.slug, failed.uuid]), **htmx("episode-status"))

    assert response.status_code == 200
    assert response.content.decode().lstrip().startswith('<div id="episode-status"')


def test_retry_from_the_list_goes_back_to_the_list(client: Client, owner, failed) -> None:
    back = list_url(failed.graph, "status=failed")
    url = reverse("episode-retry", args=[failed.graph.slug, failed.uuid])
    signed_in(client, owner)

    plain = client.post(url, {"next": back})
    Episode.objects.filter(pk=failed.pk).update(status=Episode.Status.FAILED)
    from_list = client.post(url, {"next": back}, **htmx("episode-list-row"))
    elsewhere = client.post(url, {"next": "https://evil.example/"})

    assert plain["Location"] == back
    assert from_list.status_code == 204 and "episodesChanged" in from_list["HX-Trigger"]
    assert elsewhere["Location"] == detail_url(failed)


def test_a_viewer_cannot_retry(client: Client, member, failed) -> None:
    response = signed_in(client, member).post(
        reverse("episode-retry", args=[failed.graph.slug, failed.uuid]))

    assert response.status_code == 403
    failed.refresh_from_db()
    assert failed.status == Episode.Status.FAILED


# --- Adding an update ---------------------------------------------------------------------------


def add(client: Client, graph: Graph, headers: dict[str, str] | None = None,
        **fields: str):  # type: ignore[no-untyped-def]
    data = {"content": "The payments integration is stalled.", "author": "Bob",
            "reference_time": "2026-11-25T09:00", "source": "standup", **fields}
    return client.post(reverse("episode-add", args=[graph.slug]), data, **(headers or {}))


def test_an_editor_adds_an_update_and_lands_on_its_page_processed(
    client: Client, graph, editor, django_capture_on_commit_callbacks
) -> None:
    with django_capture_on_commit_callbacks(execute=True):
        response = add(signed_in(client, editor), graph)

    episode = Episode.objects.get(graph=graph)
    assert response.status_code == 302 and response["Location"] == detail_url(episode)
    assert (episode.author, episode.source, episode.reference_time.isoformat()) == (
        "Bob", "standup", "2026-11-25T09:00:00+00:00")
    assert episode.status == Episode.Status.PROCESSED


def test_adding_with_htmx_re_renders_the_form_and_refreshes_the_list(
    client: Client, graph, owner
) -> None:
    signed_in(client, owner)

    response = client.post(reverse("episode-add", args=[graph.slug]), {
        "content": "Payments stalled.", "author": "Bob", "reference_time": "2026-11-25T09:00",
    }, **htmx("episode-add"))

    assert response.status_code == 200
    html = response.content.decode()
    assert html.lstrip().startswith('<div id="episode-add"') and "Stored:" in html
    assert "episodesChanged" in response["HX-Trigger-After-Settle"]


def test_the_same_update_twice_is_stored_once(client: Client, graph, owner) -> None:
    signed_in(client, owner)
    add(client, graph)

    response = add(client, graph, headers=htmx("episode-add"))

    assert Episode.objects.filter(graph=graph).count() == 1
    assert "Already stored:" in response.content.decode()
    assert "HX-Trigger-After-Settle" not in response


def test_a_bad_update_shows_what_is_wrong_with_422(client: Client, graph, owner) -> None:
    signed_in(client, owner)

    plain = add(client, graph, content="   ", reference_time="yesterday")
    fragment = add(client, graph, author="x" * 201, headers=htmx("episode-add"))

    assert plain.status_code == fragment.status_code == 422
    assert "Enter a valid date/time." in plain.content.decode()
    assert "This field is required." in plain.content.decode()
    assert "Ensure this value has at most 200 characters" in fragment.content.decode()
    assert not Episode.objects.filter(graph=graph).exists()


@pytest.mark.parametrize("persona", ["member", "outsider"])
def test_viewers_and_outsiders_cannot_add(client: Client, graph, request, persona: str) -> None:
    response = add(signed_in(client, request.getfixturevalue(persona)), graph)

    assert response.status_code == {"member": 403, "outsider": 404}[persona]
    assert not Episode.objects.filter(graph=graph).exists()


def test_writes_need_the_csrf_token(graph, owner) -> None:
    client = Client(enforce_csrf_checks=True)
    client.force_login(owner)

    assert add(client, graph).status_code == 403


def test_only_editors_see_the_forms(client: Client, graph, editor, member) -> None:
    assert b'id="episode-add"' in signed_in(Client(), editor).get(list_url(graph)).content
    assert b'id="episode-add"' not in signed_in(Client(), member).get(list_url(graph)).content


# --- Uploading a file ----------------------------------------------------------------------------


GOOD = {"external_id": "u-1", "author": "Alice", "reference_time": "2026-11-23T09:00:00+00:00",
        "content": "The API migration is blocked. I'm waiting on the auth service refactor."}


def test_an_upload_stores_good_lines_and_reports_every_line(
    client: Client, graph, owner, django_capture_on_commit_callbacks
) -> None:
    payload = b"\n".join([
        json.dumps(GOOD).encode(),
        json.dumps(GOOD).encode(),  # the same external id again
        b"{not json",
        json.dumps({"author": "Bob", "content": "Stalled."}).encode(),
        json.dumps({**SEED[1], "external_id": "u-2"}).encode(),
    ])
    signed_in(client, owner)

    with django_capture_on_commit_callbacks(execute=True):
        response = upload(client, graph, payload)

    assert response.status_code == 200
    result = response.context["upload"]
    assert [(r.line, r.status, r.field, r.reason) for r in result.report.results] == [
        (1, "stored", None, None),
        (2, "duplicate", None, "external_id already stored"),
        (3, "rejected", "line", "malformed JSON: Expecting property name enclosed in double "
                                "quotes at column 2"),
        (4, "rejected", "reference_time", "is required (ISO 8601 with offset)"),
        (5, "stored", None, None),
    ]
    html = response.content.decode()
    assert ("<strong>2</strong> stored · <strong>1</strong> duplicate · "
            "<strong>2</strong> rejected") in html
    assert "<code>reference_time</code>: is required (ISO 8601 with offset)" in html
    # Stored, then processed after the commit (in-process here, as in the embedded default;
    # the test's transaction defers the commit until after the answer, as a worker would).
    assert result.total == 2
    assert set(Episode.objects.filter(graph=graph).values_list("status", flat=True)) == {
        Episode.Status.PROCESSED}


def test_uploading_the_same_file_again_stores_nothing_twice(client: Client, graph, owner) -> None:
    signed_in(client, owner)
    upload(client, graph, jsonl([GOOD]))

    again = upload(client, graph, jsonl([GOOD]))

    assert Episode.objects.filter(graph=graph).count() == 1
    assert [r.status for r in again.context["upload"].report.results] == ["duplicate"]


def test_an_htmx_upload_re_renders_its_panel_and_polls_while_episodes_wait(
    client: Client, graph, owner
) -> None:
    signed_in(client, owner)

    # Without executing the on-commit callbacks the episodes stay pending, as while a worker has
    # not picked them up yet.
    response = upload(client, graph, jsonl([GOOD]), **htmx("episode-upload"))

    html = response.content.decode()
    assert html.lstrip().startswith('<div id="episode-upload"')
    batch = response.context["upload"].ingested_at
    progress = reverse("upload-progress", args=[graph.slug])
    assert f'hx-get="{progress}?batch=' in html and 'hx-trigger="every 1s"' in html
    assert "episodesChanged" in response["HX-Trigger-After-Settle"]

    waiting = client.get(progress, {"batch": batch.isoformat()}, **htmx("upload-progress"))
    assert waiting.status_code == 200 and "0 / 1" in waiting.content.decode()
    Episode.objects.filter(graph=graph).update(status=Episode.Status.PROCESSED)
    done = client.get(progress, {"batch": batch.isoformat()}, **htmx("upload-progress"))
    assert done.status_code == 286  # htmx stops polling
    assert "1 / 1" in done.content.decode()
    assert "episodesChanged" in done["HX-Trigger-After-Settle"]


def test_the_progress_route_without_htmx_goes_back_to_the_list(
    client: Client, graph, owner
) -> None:
    response = signed_in(client, owner).get(reverse("upload-progress", args=[graph.slug]))

    assert response.status_code == 302 and response["Location"] == list_url(graph)


def test_a_file_over_the_limit_is_refused_with_422(client: Client, graph, owner, settings) -> None:
    settings.UPLOAD_MAX_BYTES = 100

    response = upload(signed_in(client, owner), graph, jsonl([GOOD, {**GOOD, "external_id": "2"}]))

    assert response.status_code == 422
    assert "the limit is 0 MB" not in response.content.decode()
    assert "Split it, or use manage.py ingest." in response.content.decode()
    assert not Episode.objects.filter(graph=graph).exists()


def test_a_viewer_cannot_upload(client: Client, graph, member) -> None:
    assert upload(signed_in(client, member), graph, jsonl([GOOD])).status_code == 403
    assert not Episode.objects.filter(graph=graph).exists()


@pytest.mark.parametrize(
    ("content", "note"),
    [
        ("Lunch was great today, see you all on Friday!",
         "No facts: not understood by the rules extractor."),
        ("Die Anmeldung funktioniert seit dem letzten Update nicht mehr, bitte helft uns.",
         "No facts: language not supported."),
    ],
)
def test_an_update_the_rules_cannot_read_is_stored_and_its_page_says_why_it_has_no_facts(
    client: Client, graph, editor, django_capture_on_commit_callbacks, content: str, note: str
) -> None:
    with django_capture_on_commit_callbacks(execute=True):
        add(signed_in(client, editor), graph, content=content)

    episode = Episode.objects.get(graph=graph)
    assert episode.status == Episode.Status.PROCESSED
    assert not episode.evidence.exists()
    assert f"{episode.extraction_note}." in note
    assert note in client.get(detail_url(episode)).content.decode()


def test_an_update_with_facts_carries_no_note(
    client: Client, graph, editor, django_capture_on_commit_callbacks
) -> None:
    with django_capture_on_commit_callbacks(execute=True):
        add(signed_in(client, editor), graph)

    episode = Episode.objects.get(graph=graph)
    assert episode.extraction_note == ""
    assert "No facts:" not in client.get(detail_url(episode)).content.decode()


# --- Importing a tracker export from the episodes page ------------------------------------------


def test_an_editor_uploads_a_tracker_export_with_its_format(client: Client, graph, owner) -> None:
    from tests.memory.importers.conftest import fixture_bytes

    file = SimpleUploadedFile("issues.jsonl", fixture_bytes("github-webcompat-issues.jsonl"))
    response = signed_in(client, owner).post(reverse("episode-upload", args=[graph.slug]),
                                             {"format": "github", "file": file})

    assert response.status_code == 200
    result = response.context["upload"]
    assert (result.report.stored, result.imported.items, result.imported.episodes) == (
        160, 100, 160)
    html = response.content.decode()
    assert "160</strong> stored" in html and "100 items, 160 changes" in html
    assert result.total == 160  # the processing progress covers every stored change
    episode = Episode.objects.filter(graph=graph, external_id__endswith=":created").first()
    page = client.get(reverse("episode", args=[graph.slug, episode.uuid])).content.decode()
    assert f'href="{episode.url}"' in page and "Open in github" in page


def test_a_tracker_export_of_the_wrong_format_is_refused_on_the_form(
    client: Client, graph, owner
) -> None:
    from tests.memory.importers.conftest import fixture_bytes

    file = SimpleUploadedFile("bugs.jsonl", fixture_bytes("bugzilla-bugs.jsonl"))
    response = signed_in(client, owner).post(reverse("episode-upload", args=[graph.slug]),
                                             {"format": "linear", "file": file})

    assert response.status_code == 422
    assert ("Not a Linear (CSV export) file: expected a Linear CSV export: columns ID, Title, "
            "Status and Created; found") in response.content.decode()
    assert not Episode.objects.filter(graph=graph).exists()


# --- Uploading a CSV with a column mapping (issue #14) -----------------------------------------


def upload_url(graph: Graph) -> str:
    return reverse("episode-upload", args=[graph.slug])


def csv_upload(**fields: str) -> dict:
    from tests.memory.importers.conftest import fixture_bytes

    return {"format": "csv", "file": SimpleUploadedFile(
        "tickets.csv", fixture_bytes("support-tickets.csv"), content_type="text/csv"), **fields}


def test_a_csv_without_a_mapping_shows_its_first_rows_and_a_guessed_column_per_field(
        client: Client, graph, owner) -> None:
    response = signed_in(client, owner).post(upload_url(graph), csv_upload())

    assert response.status_code == 200
    assert not Episode.objects.filter(graph=graph).exists()  # nothing stored before a mapping
    html = response.content.decode()
    assert "choose the column of each field" in html
    assert '<option value="Created" selected>Created</option>' in html
    assert "Exports time out" in html


def test_a_preview_with_htmx_answers_only_the_preview(client: Client, graph, owner) -> None:
    response = signed_in(client, owner).post(upload_url(graph), csv_upload(preview="1"),
                                             HTTP_HX_REQUEST="true")
    html = response.content.decode()
    assert html.lstrip().startswith('<div id="csv-preview"')
    assert 'name="map_reference_time"' in html


def test_chosen_columns_import_the_csv_and_the_graph_keeps_them(
        client: Client, graph, owner) -> None:
    choices = {"map_external_id": "Ticket ID", "map_reference_time": "Created",
               "map_content": "Description", "map_subject": "Subject",
               "map_customer": "Organization", "map_author": "Requester",
               "map_status": "Status"}
    signed_in(client, owner)
    response = client.post(upload_url(graph), csv_upload(**choices))

    assert response.status_code == 200
    assert Episode.objects.filter(graph=graph, source="csv").count() == 4
    page = client.get(list_url(graph)).content.decode()
    assert "Kept for CSV files: external_id=Ticket ID" in page  # the form says what it keeps


def test_a_mapping_naming_a_missing_column_is_a_field_error_with_the_preview(
        client: Client, graph, owner) -> None:
    response = signed_in(client, owner).post(
        upload_url(graph), csv_upload(mapping="reference_time=Created,content=Body"))

    assert response.status_code == 422
    html = response.content.decode()
    assert "content=Body" in html and "its columns: Ticket ID" in html
    assert 'name="map_content"' in html
    assert not Episode.objects.filter(graph=graph).exists()


def test_a_zendesk_export_uploads_with_its_field_mapping(client: Client, graph, owner) -> None:
    from tests.memory.importers.conftest import fixture_bytes

    payload = SimpleUploadedFile("tickets.json", fixture_bytes("zendesk-incremental-tickets.json"))
    response = signed_in(client, owner).post(upload_url(graph), {
        "format": "zendesk", "file": payload,
        "mapping": "issue=custom_field:27642,plan=organization_field:plan"})

    assert response.status_code == 200
    assert Episode.objects.filter(graph=graph, source="zendesk:Nimbus").count() == 5


def test_a_message_placed_by_its_words_highlights_its_sentence_and_shows_the_words_shared(
    client: Client, member, graph: Graph, ingest
) -> None:
    ingest(graph, [
        {"external_id": "kim", "author": "kim", "source": "support:acme/app",
         "content": "Hyperkit has high CPU usage while idle, the fan spins all day.",
         "reference_time": "2026-11-10T09:00:00+00:00"},
        {"external_id": "sam", "author": "sam", "source": "support:acme/app",
         "content": "Thanks for looking. Hyperkit spins the fan when the machine is idle.",
         "reference_time": "2026-11-11T09:00:00+00:00"},
    ])
    sams = Episode.objects.get(graph=graph, external_id="sam")

    html = signed_in(client, member).get(detail_url(sams)).content.decode()

    assert "<mark>Hyperkit spins the fan when the machine is idle.</mark>" in html
    assert "[shares: fan, hyperkit, idle, spin]" in html
