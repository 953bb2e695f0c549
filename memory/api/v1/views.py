"""The native API: one DRF view per endpoint. Views validate, ask for the graph, call a service
or selector, and render; observations are read-only (every write method answers 405)."""

from __future__ import annotations

import uuid
from typing import Any

from django.conf import settings
from django.http import Http404
from drf_spectacular.utils import OpenApiResponse, extend_schema
from rest_framework import status
from rest_framework.parsers import FormParser, MultiPartParser
from rest_framework.request import Request
from rest_framework.response import Response

from memory import search as search_service
from memory import selectors
from memory.api import selectors as api_selectors
from memory.api import services
from memory.api.access import readable_graphs
from memory.api.base import ApiView, json_object, validated
from memory.api.errors import ApiError
from memory.api.idempotency import idempotent
from memory.api.pagination import keyset_page, offset_cursor, read_offset
from memory.api.v1 import serializers as s
from memory.importers.mappings import MappingError, parse_mapping
from memory.importers.model import zone
from memory.importers.runs import MAPPED_FORMATS, start_import
from memory.models import Entity, Episode, Fact, ImportRun, Observation, PipelineRun

ERROR = s.ErrorSerializer


def errors(*codes: int) -> dict[int, Any]:
    """The error responses an endpoint documents (every one has the same JSON body)."""
    described = {
        400: "Invalid input; `param` names the field.",
        401: "No or invalid credentials.",
        403: "Your role on the graph does not allow this.",
        404: "No such graph or object, or not yours to see.",
        409: "A request with this Idempotency-Key is still in flight.",
        413: "Too large.",
        422: "This Idempotency-Key was used for a different request.",
        429: "Throttled; see Retry-After.",
    }
    return {code: OpenApiResponse(ERROR, description=described[code]) for code in codes}


READ_ERRORS = errors(400, 401, 404, 429)
WRITE_ERRORS = errors(400, 401, 403, 404, 409, 422, 429)


def page(items: list[Any], serializer: Any, next_cursor: str | None,
         **context: Any) -> Response:
    return Response({
        "items": serializer(items, many=True, context=context).data,
        "next_cursor": next_cursor,
    })


# --- Graphs --------------------------------------------------------------------------------------


class GraphListView(ApiView):
    @extend_schema(operation_id="graphs_list", parameters=[s.PageQuery],
                   responses={200: s.GraphPage, **READ_ERRORS}, tags=["graphs"])
    def get(self, request: Request) -> Response:
        query = validated(s.PageQuery, request.query_params)
        result = keyset_page(readable_graphs(request.user), ["slug"], query.get("cursor"),
                             query["page_size"])
        return page(result.items, s.GraphSerializer, result.next_cursor)

    @extend_schema(operation_id="graphs_create", request=s.GraphCreateInput,
                   responses={201: s.GraphSerializer, **errors(400, 401, 409, 422, 429)},
                   tags=["graphs"])
    @idempotent
    def post(self, request: Request) -> Response:
        data = validated(s.GraphCreateInput, json_object(request))
        graph = services.create_graph(self.user(request), name=data["name"], slug=data.get("slug"),
                                      description=data["description"])
        return Response(s.GraphSerializer(graph).data, status=status.HTTP_201_CREATED)


class GraphDetailView(ApiView):
    @extend_schema(operation_id="graphs_get", responses={200: s.GraphSerializer, **READ_ERRORS},
                   tags=["graphs"])
    def get(self, request: Request, graph: str) -> Response:
        return Response(s.GraphSerializer(self.graph(request, graph)).data)


# --- Episodes ------------------------------------------------------------------------------------


class EpisodeListView(ApiView):
    @extend_schema(operation_id="episodes_list", parameters=[s.EpisodeQuery],
                   responses={200: s.EpisodePage, **READ_ERRORS}, tags=["episodes"])
    def get(self, request: Request, graph: str) -> Response:
        the_graph = self.graph(request, graph)
        query = validated(s.EpisodeQuery, request.query_params)
        episodes = api_selectors.episodes(the_graph, status=query.get("status"),
                                          author=query.get("author"))
        result = keyset_page(episodes, ["-reference_time", "-id"], query.get("cursor"),
                             query["page_size"])
        return page(result.items, s.EpisodeSerializer, result.next_cursor)

    @extend_schema(
        operation_id="episodes_add", request=s.EpisodeInput,
        responses={201: s.EpisodeAddedSerializer,
                   200: OpenApiResponse(s.EpisodeAddedSerializer,
                                        description="A duplicate: the episode already stored."),
                   **WRITE_ERRORS},
        tags=["episodes"],
    )
    @idempotent
    def post(self, request: Request, graph: str) -> Response:
        the_graph = self.graph(request, graph, write=True)
        added = services.add_episode(the_graph, json_object(request, checked=False))
        added.episode.refresh_from_db()
        return Response(
            {"status": added.outcome, "episode": s.EpisodeSerializer(added.episode).data},
            status=status.HTTP_201_CREATED if added.outcome == "stored" else status.HTTP_200_OK,
        )

    def get_throttles(self) -> list[Any]:
        self.throttle_scope = "ingest" if self.request.method == "POST" else "api"
        return super().get_throttles()


class EpisodeBulkView(ApiView):
    throttle_scope = "ingest"

    @extend_schema(
        operation_id="episodes_bulk", request=s.BulkInput,
        responses={200: s.BulkResultSerializer, **WRITE_ERRORS, **errors(413)},
        tags=["episodes"],
        description="Store up to `API_MAX_BULK_EPISODES` (1000) episodes; one result per item "
                    "in order: stored, duplicate, or rejected with the field and the reason. "
                    "Send an Idempotency-Key to retry safely.",
    )
    @idempotent
    def post(self, request: Request, graph: str) -> Response:
        the_graph = self.graph(request, graph, write=True)
        records = json_object(request, checked=False).get("episodes")
        if not isinstance(records, list):
            raise ApiError(status.HTTP_400_BAD_REQUEST, "invalid",
                           "episodes: must be a list of episode objects.", param="episodes")
        report = services.add_episodes(the_graph, records)
        return Response(s.BulkResultSerializer({
            "stored": report.stored, "duplicates": report.duplicates,
            "rejected": report.rejected, "results": report.results,
        }).data)


class EpisodeDetailView(ApiView):
    @extend_schema(operation_id="episodes_get",
                   responses={200: s.EpisodeSerializer, **READ_ERRORS}, tags=["episodes"])
    def get(self, request: Request, graph: str, uuid: uuid.UUID) -> Response:
        episode = Episode.objects.filter(graph=self.graph(request, graph), uuid=uuid).first()
        if episode is None:
            raise Http404("No such episode in this graph.")
        return Response(s.EpisodeSerializer(episode).data)


# --- Facts and entities --------------------------------------------------------------------------


class FactListView(ApiView):
    @extend_schema(operation_id="facts_list", parameters=[s.FactQuery],
                   responses={200: s.FactPage, **READ_ERRORS}, tags=["facts"],
                   description="Current facts by default; `as_of` for what held at a time, "
                               "`known_at` for what was believed at a time, `include_ended` for "
                               "every fact.")
    def get(self, request: Request, graph: str) -> Response:
        the_graph = self.graph(request, graph)
        query = validated(s.FactQuery, request.query_params)
        facts = api_selectors.facts(the_graph, as_of=query.get("as_of"),
                                    known_at=query.get("known_at"),
                                    include_ended=query["include_ended"])
        if query.get("relation"):
            facts = facts.filter(relation=query["relation"].upper())
        if query.get("entity"):
            facts = facts.filter(api_selectors.touching([query["entity"]]))
        result = keyset_page(facts, ["valid_at", "id"], query.get("cursor"), query["page_size"])
        return page(result.items, s.FactSerializer, result.next_cursor)


class FactDetailView(ApiView):
    @extend_schema(operation_id="facts_get", responses={200: s.FactSerializer, **READ_ERRORS},
                   tags=["facts"])
    def get(self, request: Request, graph: str, uuid: uuid.UUID) -> Response:
        fact = selectors.with_evidence(
            Fact.objects.filter(graph=self.graph(request, graph), uuid=uuid)
            .select_related("source", "target")
        ).first()
        if fact is None:
            raise Http404("No such fact in this graph.")
        return Response(s.FactSerializer(fact).data)


class EntityListView(ApiView):
    @extend_schema(operation_id="entities_list", parameters=[s.EntityQuery],
                   responses={200: s.EntityPage, **READ_ERRORS}, tags=["entities"])
    def get(self, request: Request, graph: str) -> Response:
        the_graph = self.graph(request, graph)
        query = validated(s.EntityQuery, request.query_params)
        entities = api_selectors.entities(the_graph, entity_type=query.get("type"))
        result = keyset_page(entities, ["name", "id"], query.get("cursor"), query["page_size"])
        return page(result.items, s.EntitySerializer, result.next_cursor)


class EntityDetailView(ApiView):
    @extend_schema(operation_id="entities_get",
                   responses={200: s.EntityDetailSerializer, **READ_ERRORS}, tags=["entities"])
    def get(self, request: Request, graph: str, uuid: uuid.UUID) -> Response:
        entity = (api_selectors.entities(self.graph(request, graph)).filter(uuid=uuid).first())
        if entity is None:
            raise Http404("No such entity in this graph.")
        current, ended = selectors.entity_facts(entity)
        # EntityDetailSerializer reads the two lists from the instance: not model attributes.
        entity.current_facts, entity.ended_facts = (  # type: ignore[attr-defined]
            _with_episodes(current + ended, current))
        return Response(s.EntityDetailSerializer(entity).data)


def _with_episodes(facts: list[Fact], current: list[Fact]) -> tuple[list[Fact], list[Fact]]:
    """Load the facts' evidence in one query, then split them back."""
    by_pk = {
        f.pk: f for f in selectors.with_evidence(
            Fact.objects.filter(pk__in=[f.pk for f in facts]).select_related("source", "target")
        )
    }
    current_ids = {f.pk for f in current}
    return ([by_pk[f.pk] for f in facts if f.pk in current_ids],
            [by_pk[f.pk] for f in facts if f.pk not in current_ids])


# --- Observations (read-only) --------------------------------------------------------------------


class ObservationListView(ApiView):
    @extend_schema(operation_id="observations_list", parameters=[s.ObservationQuery],
                   responses={200: s.ObservationPage, **READ_ERRORS}, tags=["observations"],
                   description="The board's filters. Observations are read-only: every write "
                               "method answers 405.")
    def get(self, request: Request, graph: str) -> Response:
        the_graph = self.graph(request, graph)
        query = validated(s.ObservationQuery, request.query_params)
        observations = api_selectors.observations(
            the_graph, status=query["status"], kind=query.get("kind"),
            entity=query.get("entity"), text=query.get("q"), since=query.get("since"),
        )
        result = keyset_page(observations, api_selectors.SORTS[query["sort"]],
                             query.get("cursor"), query["page_size"])
        return page(result.items, s.ObservationSerializer, result.next_cursor)


class RetiredObservationListView(ApiView):
    @extend_schema(operation_id="observations_retired", parameters=[s.RetiredQuery],
                   responses={200: s.ObservationPage, **READ_ERRORS}, tags=["observations"],
                   description="Retired observations, most recently retired first, with their "
                               "reason.")
    def get(self, request: Request, graph: str) -> Response:
        the_graph = self.graph(request, graph)
        query = validated(s.RetiredQuery, request.query_params)
        observations = api_selectors.observations(
            the_graph, status=Observation.Status.RETIRED, kind=query.get("kind"))
        result = keyset_page(observations, api_selectors.SORTS["retired"], query.get("cursor"),
                             query["page_size"])
        return page(result.items, s.ObservationSerializer, result.next_cursor)


class ObservationDetailView(ApiView):
    @extend_schema(operation_id="observations_get",
                   responses={200: s.ObservationDetailSerializer, **READ_ERRORS},
                   tags=["observations"])
    def get(self, request: Request, graph: str, uuid: uuid.UUID) -> Response:
        observation = api_selectors.observation_detail(self.graph(request, graph), uuid)
        if observation is None:
            raise Http404("No such observation in this graph.")
        return Response(s.ObservationDetailSerializer(observation).data)


# --- Runs ----------------------------------------------------------------------------------------


class RunListView(ApiView):
    @extend_schema(operation_id="runs_list", parameters=[s.PageQuery],
                   responses={200: s.RunPage, **READ_ERRORS}, tags=["runs"])
    def get(self, request: Request, graph: str) -> Response:
        the_graph = self.graph(request, graph)
        query = validated(s.PageQuery, request.query_params)
        result = keyset_page(api_selectors.runs(the_graph), ["-created_at", "-id"],
                             query.get("cursor"), query["page_size"])
        return page(result.items, s.RunSerializer, result.next_cursor)

    @extend_schema(operation_id="runs_start", request=None,
                   responses={202: s.RunSerializer, **WRITE_ERRORS}, tags=["runs"],
                   description="Queue a pipeline run (a run already queued is reused); poll "
                               "its status for progress.")
    @idempotent
    def post(self, request: Request, graph: str) -> Response:
        run = services.start_run(self.graph(request, graph, write=True), self.user(request))
        return Response(s.RunSerializer(run).data, status=status.HTTP_202_ACCEPTED)


class RunDetailView(ApiView):
    @extend_schema(operation_id="runs_get", responses={200: s.RunSerializer, **READ_ERRORS},
                   tags=["runs"])
    def get(self, request: Request, graph: str, uuid: uuid.UUID) -> Response:
        run = PipelineRun.objects.filter(graph=self.graph(request, graph), uuid=uuid).first()
        if run is None:
            raise Http404("No such run in this graph.")
        return Response(s.RunSerializer(run).data)


# --- Imports -------------------------------------------------------------------------------------


class ImportListView(ApiView):
    throttle_scope = "ingest"
    parser_classes = [MultiPartParser, FormParser]

    @extend_schema(
        operation_id="imports_start", request={"multipart/form-data": s.ImportInput},
        responses={202: s.ImportRunSerializer, **WRITE_ERRORS, **errors(413)}, tags=["imports"],
        description="Import a tracker export (`github`, `jira`, `jira-csv`, `linear`, "
                    "`bugzilla`), a support desk's or chat's (`zendesk`, `slack`) or any CSV "
                    "with a column `mapping` (`csv`): one episode per change or message, with "
                    "its facts. Answers with the "
                    "import run at once; poll it for progress. A file of the wrong format "
                    "fails the run with the reason and stores nothing; re-importing stores "
                    "only what is new.",
    )
    @idempotent
    def post(self, request: Request, graph: str) -> Response:
        the_graph = self.graph(request, graph, write=True)
        data = validated(s.ImportInput, request.data)
        upload = data["file"]
        if upload.size > settings.UPLOAD_MAX_BYTES:
            raise ApiError(status.HTTP_413_REQUEST_ENTITY_TOO_LARGE, "payload_too_large",
                           f"file: {upload.size} bytes; the limit is "
                           f"{settings.UPLOAD_MAX_BYTES}.", param="file")
        options = {key: data[key] for key in ("base_url", "timezone", "mapping", "encoding")
                   if data.get(key)}
        try:
            zone(options.get("timezone"))
        except ValueError as exc:
            raise ApiError(status.HTTP_400_BAD_REQUEST, "invalid", f"timezone: {exc}.",
                           param="timezone") from None
        if "mapping" in options:
            try:
                parse_mapping(options["mapping"], MAPPED_FORMATS.get(data["format"], ()),
                              what="mapping")
            except MappingError as exc:
                raise ApiError(status.HTTP_400_BAD_REQUEST, "invalid", f"{exc}.",
                               param="mapping") from None
        run = start_import(the_graph, data["format"], upload.read(), filename=upload.name or "",
                           since=data.get("since"), options=options, user=request.user)
        run.refresh_from_db()
        return Response(s.ImportRunSerializer(run).data, status=status.HTTP_202_ACCEPTED)


class ImportDetailView(ApiView):
    @extend_schema(operation_id="imports_get",
                   responses={200: s.ImportRunSerializer, **READ_ERRORS}, tags=["imports"])
    def get(self, request: Request, graph: str, uuid: uuid.UUID) -> Response:
        run = ImportRun.objects.filter(graph=self.graph(request, graph), uuid=uuid).first()
        if run is None:
            raise Http404("No such import in this graph.")
        return Response(s.ImportRunSerializer(run).data)


# --- Search --------------------------------------------------------------------------------------


class SearchView(ApiView):
    @extend_schema(operation_id="search", parameters=[s.SearchQuerySerializer],
                   responses={200: s.SearchPage, **READ_ERRORS}, tags=["search"],
                   description="Ranked search over active observations, current facts, "
                               "episodes and entities (PostgreSQL full-text; a portable "
                               "fallback on SQLite).")
    def get(self, request: Request, graph: str) -> Response:
        the_graph = self.graph(request, graph)
        query = validated(s.SearchQuerySerializer, request.query_params)
        kinds = sorted(query.get("types") or search_service.KINDS,
                       key=search_service.KINDS.index)
        key = f"{the_graph.pk}:{query['q']}:{','.join(kinds)}"
        offset = read_offset(query.get("cursor"), key)
        hits, more = search_service.search(the_graph, query["q"], kinds=kinds,
                                           limit=query["page_size"], offset=offset)
        items = [hit_as_dict(hit) for hit in hits]
        cursor = offset_cursor(offset + len(hits), key) if more else None
        return Response({"items": s.SearchHitSerializer(items, many=True).data,
                         "next_cursor": cursor})


def hit_as_dict(hit: search_service.Hit) -> dict[str, Any]:
    item = hit.item
    if isinstance(item, Observation):
        title, text = item.name, item.summary
    elif isinstance(item, Fact):
        title, text = f"{item.source.name} {item.relation} {item.target.name}", item.sentence
    elif isinstance(item, Episode):
        title, text = item.author or item.source or "episode", item.content
    elif isinstance(item, Entity):
        title, text = item.name, item.summary or item.type
    else:  # pragma: no cover
        raise TypeError(type(item))
    return {"kind": hit.kind, "score": hit.score, "uuid": item.uuid, "title": title,
            "text": text}
