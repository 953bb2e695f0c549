"""Where data comes in: the episode list (``/g/<graph>/episodes``) with its filters, the form to
add one update and the JSON Lines upload (editors and owners), and one episode's page
(``/g/<graph>/ep/<uuid>``) with its words, the facts extracted from it, the observations it
supports and its processing status (retry when it failed).

Writes store through ``memory.ingestion`` like every other way in: validated line by line,
committed first, processed after commit — by a worker in production, in-process right after the
commit in the embedded default (so there the upload's answer arrives once its episodes are
processed). An upload's progress is read from its episodes' statuses: all episodes of one upload
share their ingestion time, which the progress poll carries (no extra record to keep).

Fragments: ``episode-results`` (the list; it also reloads itself on ``episodesChanged``),
``episode-add`` and ``episode-upload`` (the forms, re-rendered in place after an htmx POST),
``upload-progress`` (polled until the upload's episodes are processed) and ``episode-status``
(polled while the episode waits to be processed)."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any
from uuid import UUID

from django.conf import settings
from django.core.paginator import Paginator
from django.http import HttpResponse
from django.shortcuts import redirect
from django.template.response import TemplateResponse
from django.urls import reverse
from django.utils import timezone
from django.utils.cache import patch_vary_headers
from django.utils.http import url_has_allowed_host_and_scheme
from django.views.decorators.http import require_GET, require_POST
from django_htmx.http import (
    HttpResponseClientRefresh,
    HttpResponseStopPolling,
    push_url,
    trigger_client_event,
)

from dashboard.access import (
    GraphAccess,
    editable_graph_for_user,
    episode_for_user,
    graph_for_user,
)
from dashboard.forms import (
    JSON_LINES,
    EpisodeFilterForm,
    EpisodeForm,
    UploadBatchForm,
    UploadForm,
    end_of_day,
    start_of_day,
)
from dashboard.http import AuthenticatedHttpRequest
from dashboard.presenters import UploadResult
from dashboard.selectors import (
    EpisodeFilters,
    episode_authors,
    episode_evidence,
    episode_list,
    episode_observations,
    episode_sources,
    episode_status_counts,
    facts_closed_by,
    switcher_graphs,
)
from dashboard.views.common import login_required, render_page, wants_fragment
from memory import tasks
from memory.api.services import find_duplicate
from memory.importers import FORMAT_LABELS, WrongFormat, table
from memory.importers.mappings import MappingError, parse_mapping
from memory.importers.runs import (
    MAPPED_FORMATS,
    ImportReport,
    import_export,
    remembered_mapping,
)
from memory.ingestion import IngestReport, ingest_records, read_records
from memory.models import Episode, Graph
from memory.processing import retry_episode
from memory.processing.model_queue import model_reading_due
from memory.support_issues import cited_sentence

PAGE_SIZE = 25
POLL_SECONDS = 1
LIST_FRAGMENTS = frozenset({"episode-results"})
EPISODE_FRAGMENTS = frozenset({"episode-status"})
CHANGED = "episodesChanged"
"""The event a write fires so that the list (which listens for it) reloads itself."""
# Where a rejected record's field shows on the form.
FORM_FIELDS = {"content": "content", "author": "author", "reference_time": "reference_time",
               "source": "source"}


# --- The list ------------------------------------------------------------------------------------


@login_required
@require_GET
def episodes(request: AuthenticatedHttpRequest, slug: str) -> HttpResponse:
    return _list_page(request, graph_for_user(request, slug))


def _list_page(
    request: AuthenticatedHttpRequest,
    access: GraphAccess,
    *,
    status: int = 200,
    **forms: Any,
) -> HttpResponse:
    graph = access.graph
    form = EpisodeFilterForm(request.GET)
    values = form.values()
    filters = EpisodeFilters(
        author=values.get("author", ""), source=values.get("source", ""),
        status=values.get("status", ""),
        since=start_of_day(values["since"]) if values.get("since") else None,
        until=end_of_day(values["until"]) if values.get("until") else None,
        entity=values.get("entity"),
    )
    page = Paginator(episode_list(graph, filters), PAGE_SIZE).get_page(values["page"])
    query = form.canonical_query()
    context: dict[str, Any] = {
        "access": access,
        "graph": graph,
        "section": "episodes",
        "form": form,
        "filtered": form.canonical_query(page=1) != "",
        "page": page,
        "query": query,
        "page_query": form.canonical_query(page=None),
        "list_url": reverse("episodes", args=[graph.slug]) + (f"?{query}" if query else ""),
    }
    fragment = request.method == "GET" and wants_fragment(request, LIST_FRAGMENTS)
    if not fragment:
        context.update(
            graphs=switcher_graphs(request.user),
            sources=episode_sources(graph),
            authors=episode_authors(graph),
            counts=episode_status_counts(graph),
        )
        if access.can_edit:
            context["add_form"] = forms.get("add_form") or _blank_episode_form()
            context["upload_form"] = forms.get("upload_form") or _upload_form(graph=graph)
            # Folded away while browsing; open with a result to show, or nothing to browse yet.
            context["open_forms"] = bool(forms) or not page.paginator.count
        context.update({k: v for k, v in forms.items() if k not in {"add_form", "upload_form"}})
    response = render_page(request, "dashboard/episodes.html", context,
                           fragments=LIST_FRAGMENTS, status=status)
    if fragment:
        push_url(response, context["list_url"])
    return response


def _blank_episode_form() -> EpisodeForm:
    now = timezone.localtime().replace(second=0, microsecond=0)
    return EpisodeForm(initial={"reference_time": now.strftime("%Y-%m-%dT%H:%M")})


def _upload_form(*args: Any, graph: Graph | None = None) -> UploadForm:
    """The upload form; a blank one says which mapping the graph keeps for CSV files (used when
    the field is left empty)."""
    form = UploadForm(*args, max_bytes=settings.UPLOAD_MAX_BYTES)
    if graph is not None and not args:
        remembered = remembered_mapping(graph, "csv")
        if remembered:
            kept = ", ".join(f"{k}={v}" for k, v in remembered.items())
            form.fields["mapping"].help_text += f" Kept for CSV files: {kept}."
    return form


@dataclass
class CsvPreview:
    """The first rows of a CSV and the column chosen for each field (the mapping form)."""

    header: list[str]
    rows: list[list[str]]
    chosen: dict[str, str]
    fields: tuple[str, ...] = table.FIELDS

    @property
    def choices(self) -> list[tuple[str, str]]:
        return [(field, self.chosen.get(field, "")) for field in self.fields]


def _posted_mapping(request: AuthenticatedHttpRequest, form: UploadForm) -> str | dict[str, str]:
    """The mapping the form sends: the preview's column choices, else the typed mapping."""
    chosen = {field: request.POST.get(f"map_{field}", "").strip() for field in table.FIELDS}
    chosen = {field: column for field, column in chosen.items() if column}
    return chosen or form.cleaned_data.get("mapping", "")


def _csv_preview(payload: bytes, encoding: str, mapping: str | dict[str, str],
                 graph: Graph) -> CsvPreview:
    header, rows = table.preview(payload, encoding or None)
    try:
        chosen = parse_mapping(mapping, table.FIELDS) if mapping else {}
    except MappingError:
        chosen = {}
    chosen = chosen or remembered_mapping(graph, "csv") or table.guess_mapping(header)
    return CsvPreview(header, rows, {k: v for k, v in chosen.items() if v in header})


# --- Adding an update ----------------------------------------------------------------------------


@login_required
@require_POST
def add_episode(request: AuthenticatedHttpRequest, slug: str) -> HttpResponse:
    access = editable_graph_for_user(request, slug)
    form = EpisodeForm(request.POST)
    added: Episode | None = None
    duplicate = False
    if form.is_valid():
        record = form.record()
        line = ingest_records(access.graph, [(1, record)]).results[0]
        if line.status == "rejected":
            form.add_error(FORM_FIELDS.get(line.field or ""), line.reason or "is invalid")
        elif line.status == "stored":
            assert line.episode_uuid is not None  # a stored episode has its uuid
            added = Episode.objects.get(graph=access.graph, uuid=line.episode_uuid)
        else:
            added, duplicate = find_duplicate(access.graph, record), True
    failed = added is None
    if not request.htmx:
        if added is None:
            return _list_page(request, access, add_form=form, status=422)
        return redirect("episode", slug=slug, uuid=added.uuid)
    context = {
        "access": access, "graph": access.graph,
        "add_form": form if failed else _blank_episode_form(),
        "added": added, "duplicate": duplicate, "authors": episode_authors(access.graph),
    }
    response = TemplateResponse(request, "dashboard/episodes.html#episode-add", context,
                                status=422 if failed else 200)
    if added is not None and not duplicate:
        trigger_client_event(response, CHANGED, after="settle")
    return response


# --- Uploading a file ----------------------------------------------------------------------------


@login_required
@require_POST
def upload_episodes(request: AuthenticatedHttpRequest, slug: str) -> HttpResponse:
    """Store every good line of a JSON Lines file (or every change of a tracker export), report
    each line (or each refused item), then process what was stored. Posting the same file again
    stores nothing twice: its lines come back duplicate."""
    access = editable_graph_for_user(request, slug)
    form = _upload_form(request.POST, request.FILES)
    upload: UploadResult | None = None
    report: IngestReport | ImportReport | None = None
    preview: CsvPreview | None = None
    now = timezone.now()
    if form.is_valid():
        file = form.cleaned_data["file"]
        fmt = form.cleaned_data["format"]
        payload = file.read()
        encoding = form.cleaned_data.get("encoding", "")
        if fmt == JSON_LINES:
            report = ingest_records(access.graph, read_records(payload), now=now)
        elif fmt == "csv" and (request.POST.get("preview") or not (
                _posted_mapping(request, form) or remembered_mapping(access.graph, "csv"))):
            # Show the columns and the first rows, and a column to choose for each field.
            try:
                preview = _csv_preview(payload, encoding, _posted_mapping(request, form),
                                       access.graph)
            except (WrongFormat, ValueError) as exc:
                form.add_error("file", f"Not a readable CSV file: {exc}.")
        else:
            # An export is read, mapped and stored here like a JSON Lines file (storing is
            # quick); its processing runs after the commit, with the same progress.
            options = {"mapping": _posted_mapping(request, form) if fmt in MAPPED_FORMATS
                       else "", "encoding": encoding}
            try:
                report = import_export(access.graph, fmt, payload, now=now,
                                       options={k: v for k, v in options.items() if v})
            except MappingError as exc:
                form.add_error("mapping", f"{exc}.")
                try:
                    preview = _csv_preview(payload, encoding, {}, access.graph)
                except (WrongFormat, ValueError):
                    preview = None
            except (WrongFormat, ValueError) as exc:
                form.add_error("file", f"Not a {FORMAT_LABELS[fmt]} file: {exc}.")
    if preview is not None and request.htmx and request.POST.get("preview"):
        context = {"graph": access.graph, "upload_form": form, "preview": preview}
        return TemplateResponse(request, "dashboard/episodes.html#csv-preview", context,
                                status=200 if form.is_valid() else 422)
    if form.is_valid() and report is not None:
        upload = UploadResult(
            filename=file.name, report=report, ingested_at=now,
            progress=episode_status_counts(access.graph, ingested_at=now),
        )
    status = 200 if upload is not None or (preview is not None and form.is_valid()) else 422
    if not request.htmx:
        return _list_page(request, access, upload_form=form, upload=upload, preview=preview,
                          status=status)
    context = {"access": access, "graph": access.graph, "upload_form": form,
               "upload": upload, "preview": preview, "poll_seconds": POLL_SECONDS}
    response = TemplateResponse(request, "dashboard/episodes.html#episode-upload", context,
                                status=status)
    if upload is not None and report is not None and report.stored:
        trigger_client_event(response, CHANGED, after="settle")
    return response


@login_required
@require_GET
def upload_progress(request: AuthenticatedHttpRequest, slug: str) -> HttpResponse:
    """The ``upload-progress`` fragment: how many of an upload's episodes are processed. When
    none is waiting any more it answers 286 (htmx stops polling) and fires ``episodesChanged``."""
    access = graph_for_user(request, slug)
    batch = UploadBatchForm(request.GET).values().get("batch")
    response: HttpResponse
    if not request.htmx or batch is None:
        response = redirect("episodes", slug=slug)
        patch_vary_headers(response, ["HX-Request"])
        return response
    counts = episode_status_counts(access.graph, ingested_at=batch)
    context = {"graph": access.graph, "upload": UploadResult.progress_only(batch, counts),
               "poll_seconds": POLL_SECONDS}
    html = TemplateResponse(request, "dashboard/episodes.html#upload-progress", context)
    html.render()
    waiting = counts[Episode.Status.PENDING] + counts[Episode.Status.PROCESSING]
    response = HttpResponse(html.content) if waiting else HttpResponseStopPolling(html.content)
    if not waiting:
        trigger_client_event(response, CHANGED, after="settle")
    patch_vary_headers(response, ["HX-Request"])
    return response


# --- One episode ---------------------------------------------------------------------------------


@login_required
@require_GET
def episode_detail(request: AuthenticatedHttpRequest, slug: str, uuid: UUID) -> HttpResponse:
    episode, access = episode_for_user(request, slug, uuid)
    context: dict[str, Any] = {
        "access": access, "graph": access.graph, "section": "episodes", "episode": episode,
        "poll_seconds": POLL_SECONDS, "model_read_by": model_read_by(access.graph, episode),
    }
    if wants_fragment(request, EPISODE_FRAGMENTS):
        if not _is_waiting(episode):
            # Processed (or failed) while the page watched: reload it to show the new facts.
            response: HttpResponse = HttpResponseClientRefresh()
            patch_vary_headers(response, ["HX-Request"])
            return response
    else:
        evidence = episode_evidence(episode)
        context.update(
            graphs=switcher_graphs(request.user),
            evidence=evidence,
            # a resemblance's evidence names the words it shares after the message's sentence
            sentences=[cited_sentence(row.sentence) for row in evidence],
            closed=facts_closed_by(episode),
            observations=episode_observations(episode),
        )
    return render_page(request, "dashboard/episode.html", context, fragments=EPISODE_FRAGMENTS)


def model_read_by(graph: Graph, episode: Episode) -> datetime | None:
    """When the model's reading replaces an update's rules reading at the latest (the model
    reads it with others of its graph to share the call; ``memory.processing.model_queue``);
    ``None`` when its current reading is final."""
    if not settings.LLM_EXTRACTION:
        return None
    return model_reading_due(graph, episode)


def _is_waiting(episode: Episode) -> bool:
    return episode.status in {Episode.Status.PENDING, Episode.Status.PROCESSING}


@login_required
@require_POST
def retry(request: AuthenticatedHttpRequest, slug: str, uuid: UUID) -> HttpResponse:
    """Put a failed episode back in the queue and process it again (after commit)."""
    episode, access = episode_for_user(request, slug, uuid)
    access.require_editor()
    if retry_episode(episode):
        tasks.enqueue_processing(access.graph.pk, [episode.pk])
    episode.refresh_from_db()
    if request.htmx and request.htmx.target == "episode-status":
        context = {"access": access, "graph": access.graph, "episode": episode,
                   "poll_seconds": POLL_SECONDS}
        return TemplateResponse(request, "dashboard/episode.html#episode-status", context)
    if request.htmx:
        # From a row of the list: the list reloads itself on the event.
        response = HttpResponse(status=204)
        trigger_client_event(response, CHANGED)
        return response
    back = request.POST.get("next", "")
    if url_has_allowed_host_and_scheme(back, allowed_hosts={request.get_host()},
                                       require_https=request.is_secure()):
        return redirect(back)
    return redirect("episode", slug=slug, uuid=episode.uuid)
