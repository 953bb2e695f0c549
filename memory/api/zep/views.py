"""The Zep v4-compatible endpoints (paths relative to ``/api/v4``, no trailing slash). Lists and
searches are POSTs with paging in the query string and filters in the JSON body, as the SDK sends
them; every 2xx is a JSON object; errors are ``{"error": {...}}`` which the SDK parses into its
typed exceptions (``NotFoundError``...)."""

from __future__ import annotations

import json
import uuid
from typing import Any

from django.db.models import Q, QuerySet
from django.http import Http404
from django.utils import timezone
from rest_framework import status
from rest_framework.request import Request
from rest_framework.response import Response

from memory import json_input
from memory import search as search_service
from memory.api import selectors as api_selectors
from memory.api import services
from memory.api.access import readable_graphs
from memory.api.base import ApiView, json_object
from memory.api.errors import ApiError, method_not_allowed
from memory.api.idempotency import idempotent
from memory.api.pagination import keyset_page, offset_cursor, page_size, read_offset
from memory.api.zep import filters as zf
from memory.api.zep import wire
from memory.api.zep.context import DEFAULT_MAX_CHARACTERS, build_context
from memory.models import Entity, Episode, Fact, Graph, Observation

SEARCH_PAGE_SIZE = 10
MAX_METADATA_KEYS = 10


def ordering(request: Request, allowed: dict[str, str], default: str = "uuid") -> list[str]:
    """Zep's ``order_by`` / ``order`` (default ``desc``) → our keyset ordering."""
    order_by = request.query_params.get("order_by") or default
    if order_by not in allowed:
        raise zf.bad("order_by", f"must be one of {', '.join(allowed)}")
    direction = request.query_params.get("order") or "desc"
    if direction not in {"asc", "desc"}:
        raise zf.bad("order", "must be asc or desc")
    sign = "-" if direction == "desc" else ""
    fields = [allowed[order_by]] + ([] if allowed[order_by] == "uuid" else ["uuid"])
    return [f"{sign}{name}" for name in fields]


def paged(request: Request, queryset: QuerySet[Any], order: list[str]) -> Any:
    size = page_size(request.query_params.get("page_size"))
    return keyset_page(queryset, order, request.query_params.get("cursor"), size)


def page_body(items: list[dict[str, Any]], next_cursor: str | None) -> Response:
    body: dict[str, Any] = {"items": items}
    if next_cursor:
        body["next_cursor"] = next_cursor
    return Response(body)


class ZepView(ApiView):
    def zep_graph(self, request: Request, graph_uuid: str, **kwargs: Any) -> Graph:
        return self.graph(request, graph_uuid, **kwargs)


# --- Graphs --------------------------------------------------------------------------------------


class GraphCreateView(ZepView):
    @idempotent
    def post(self, request: Request) -> Response:
        body = json_object(request)
        name = body.get("name") or "Untitled graph"
        description = body.get("description") or ""
        if not isinstance(name, str) or len(name) > 200:
            raise zf.bad("name", "must be a string of at most 200 characters")
        if not isinstance(description, str):
            raise zf.bad("description", "must be a string")
        graph = services.create_graph(self.user(request), name=name, description=description)
        return Response(wire.graph(graph), status=status.HTTP_201_CREATED)


class GraphListView(ZepView):
    def post(self, request: Request) -> Response:
        body = json_object(request)
        graphs = readable_graphs(request.user)
        text = body.get("search")
        if text:
            if not isinstance(text, str):
                raise zf.bad("search", "must be a string")
            graphs = graphs.filter(Q(name__icontains=text) | Q(description__icontains=text)
                                   | Q(slug__icontains=text))
        order = ordering(request, {"uuid": "uuid", "created_at": "created_at", "name": "name"})
        result = paged(request, graphs, order)
        return page_body([wire.graph(g) for g in result.items], result.next_cursor)


class GraphLookupView(ZepView):
    def post(self, request: Request) -> Response:
        graph_id = json_object(request).get("graph_id")
        if not isinstance(graph_id, str) or not graph_id:
            raise zf.bad("graph_id", "is required (the graph's slug)")
        graph = readable_graphs(request.user).filter(slug=graph_id).first()
        if graph is None:
            raise Http404(f"No graph {graph_id}.")
        return Response(wire.graph(graph))


class GraphDetailView(ZepView):
    def get(self, request: Request, graph_uuid: str) -> Response:
        return Response(wire.graph(self.zep_graph(request, graph_uuid)))

    @idempotent
    def delete(self, request: Request, graph_uuid: str) -> Response:
        graph = self.zep_graph(request, graph_uuid, own=True)
        services.delete_graph(graph)
        return Response({"task": wire.finished_task("graph.delete", str(uuid.uuid4()),
                                                    timezone.now())},
                        status=status.HTTP_202_ACCEPTED)


# --- Episodes ------------------------------------------------------------------------------------


def episode_record(body: dict[str, Any]) -> dict[str, Any]:
    """Zep's add-episode body → our ingestion record. A ``message`` written ``Name: text`` takes
    Name as its author (the ingestion does it); ``reference_time`` defaults to now."""
    data = body.get("data")
    if not isinstance(data, str) or not data.strip():
        raise zf.bad("data", "is required (a non-empty string)")
    kind = body.get("type") or "text"
    record: dict[str, Any] = {"type": kind}
    if kind == "json":
        try:
            record["data"] = json_input.decode(data)
        except json.JSONDecodeError as exc:
            raise zf.bad("data", f"is not valid JSON ({exc.msg})") from None
    else:
        record["content"] = data
    record["reference_time"] = body.get("reference_time") or timezone.now().isoformat()
    if body.get("source_description") is not None:
        record["source"] = body["source_description"]
    metadata = body.get("metadata")
    if metadata is not None and (not isinstance(metadata, dict)
                                 or len(metadata) > MAX_METADATA_KEYS):
        raise zf.bad("metadata", f"must be an object with at most {MAX_METADATA_KEYS} keys")
    return record


ZEP_FIELD = {"content": "data", "source": "source_description"}


class EpisodeAddView(ZepView):
    throttle_scope = "ingest"

    @idempotent
    def post(self, request: Request, graph_uuid: str) -> Response:
        graph = self.zep_graph(request, graph_uuid, write=True)
        record = episode_record(json_object(request, checked=False))
        try:
            added = services.add_episode(graph, record)
        except ApiError as exc:
            if exc.code == "invalid_episode" and exc.param:
                name = ZEP_FIELD.get(exc.param, exc.param)
                raise zf.bad(name, exc.details.get("reason", exc.message)) from None
            raise
        added.episode.refresh_from_db()
        return Response({"episode": wire.episode(added.episode, str(graph.uuid)),
                         "task": wire.task(added.episode)}, status=status.HTTP_202_ACCEPTED)


class EpisodeListView(ZepView):
    def post(self, request: Request, graph_uuid: str) -> Response:
        graph = self.zep_graph(request, graph_uuid)
        filters = zf.filters_of(json_object(request), {"mentioned_node_uuids"}, "episode list")
        mentioned = (zf.uuid_list(filters["mentioned_node_uuids"],
                                  "filters.mentioned_node_uuids")
                     if "mentioned_node_uuids" in filters else None)
        episodes = api_selectors.episodes(graph, mentioned_entity_uuids=mentioned)
        order = ordering(request, {"uuid": "uuid", "created_at": "ingested_at"})
        result = paged(request, episodes, order)
        return page_body([wire.episode(e, str(graph.uuid)) for e in result.items],
                         result.next_cursor)


class EpisodeDetailView(ZepView):
    def get(self, request: Request, graph_uuid: str, episode_uuid: uuid.UUID) -> Response:
        graph = self.zep_graph(request, graph_uuid)
        episode = Episode.objects.filter(graph=graph, uuid=episode_uuid).first()
        if episode is None:
            raise Http404("No such episode in this graph.")
        return Response(wire.episode(episode, str(graph.uuid)))

    def delete(self, request: Request, graph_uuid: str, episode_uuid: uuid.UUID) -> Response:
        graph = self.zep_graph(request, graph_uuid, write=True)
        if not Episode.objects.filter(graph=graph, uuid=episode_uuid).exists():
            raise Http404("No such episode in this graph.")
        error = method_not_allowed(
            "DELETE", "Episodes are immutable here: the facts and observations they support "
            "cite them. Delete the graph to remove its data.")
        error.code = "episode_immutable"
        raise error


# --- Edges (facts) and nodes (entities) ----------------------------------------------------------

EDGE_FILTERS = {"edge_types", "exclude_edge_types", "edge_uuids", "episode_uuids",
                "source_node_uuids", "target_node_uuids", "connected_node_uuids", "date_filters"}
EDGE_DATES = {"created_at": "created_at", "valid_at": "valid_at", "invalid_at": "invalid_at",
              "expired_at": "expired_at"}


def edge_queryset(graph: Graph, filters: dict[str, Any]) -> QuerySet[Fact]:
    """Current facts, unless ``date_filters`` asks about time (then every fact it matches)."""
    if "date_filters" in filters:
        facts = api_selectors.facts(graph, include_ended=True).filter(
            zf.date_filters(filters["date_filters"], EDGE_DATES))
    else:
        facts = api_selectors.facts(graph)
    if "edge_types" in filters:
        facts = facts.filter(relation__in=zf.string_list(filters["edge_types"],
                                                         "filters.edge_types"))
    if "exclude_edge_types" in filters:
        facts = facts.exclude(relation__in=zf.string_list(filters["exclude_edge_types"],
                                                          "filters.exclude_edge_types"))
    if "edge_uuids" in filters:
        facts = facts.filter(uuid__in=zf.uuid_list(filters["edge_uuids"], "filters.edge_uuids"))
    if "episode_uuids" in filters:
        facts = facts.filter(evidence__episode__uuid__in=zf.uuid_list(
            filters["episode_uuids"], "filters.episode_uuids")).distinct()
    if "source_node_uuids" in filters:
        facts = facts.filter(source__uuid__in=zf.uuid_list(filters["source_node_uuids"],
                                                           "filters.source_node_uuids"))
    if "target_node_uuids" in filters:
        facts = facts.filter(target__uuid__in=zf.uuid_list(filters["target_node_uuids"],
                                                           "filters.target_node_uuids"))
    if "connected_node_uuids" in filters:
        facts = facts.filter(api_selectors.touching(zf.uuid_list(
            filters["connected_node_uuids"], "filters.connected_node_uuids")))
    return facts


class EdgeListView(ZepView):
    def post(self, request: Request, graph_uuid: str) -> Response:
        graph = self.zep_graph(request, graph_uuid)
        filters = zf.filters_of(json_object(request), EDGE_FILTERS, "edge list")
        order = ordering(request, {"uuid": "uuid", "created_at": "created_at",
                                   "valid_at": "valid_at"})
        result = paged(request, edge_queryset(graph, filters), order)
        return page_body([wire.edge(f, str(graph.uuid)) for f in result.items],
                         result.next_cursor)


class EdgeDetailView(ZepView):
    def get(self, request: Request, graph_uuid: str, edge_uuid: uuid.UUID) -> Response:
        graph = self.zep_graph(request, graph_uuid)
        fact = api_selectors.facts(graph, include_ended=True).filter(uuid=edge_uuid).first()
        if fact is None:
            raise Http404("No such edge in this graph.")
        return Response(wire.edge(fact, str(graph.uuid)))


def nodes_body(entities: list[Entity], graph: Graph) -> list[dict[str, Any]]:
    mentions = api_selectors.episodes_mentioning([e.pk for e in entities])
    return [wire.node(e, str(graph.uuid), mentions[e.pk]) for e in entities]


class NodeListView(ZepView):
    def post(self, request: Request, graph_uuid: str) -> Response:
        graph = self.zep_graph(request, graph_uuid)
        filters = zf.filters_of(json_object(request), {"node_labels", "exclude_node_labels"},
                                "node list")
        entities = api_selectors.entities(graph)
        if "node_labels" in filters:
            entities = entities.filter(type__in=zf.string_list(filters["node_labels"],
                                                               "filters.node_labels"))
        if "exclude_node_labels" in filters:
            entities = entities.exclude(type__in=zf.string_list(filters["exclude_node_labels"],
                                                                "filters.exclude_node_labels"))
        order = ordering(request, {"uuid": "uuid", "created_at": "created_at"})
        result = paged(request, entities, order)
        return page_body(nodes_body(result.items, graph), result.next_cursor)


class NodeDetailView(ZepView):
    def get(self, request: Request, graph_uuid: str, node_uuid: uuid.UUID) -> Response:
        graph = self.zep_graph(request, graph_uuid)
        entity = api_selectors.entities(graph).filter(uuid=node_uuid).first()
        if entity is None:
            raise Http404("No such node in this graph.")
        return Response(nodes_body([entity], graph)[0])


# --- Observations (read-only) --------------------------------------------------------------------

OBSERVATION_PROPERTIES: dict[str, type | tuple[str, ...]] = {
    "status": tuple(Observation.Status.values),
    "kind": tuple(Observation.Kind.values),
    "version": int,
}


class ObservationListView(ZepView):
    def post(self, request: Request, graph_uuid: str) -> Response:
        graph = self.zep_graph(request, graph_uuid)
        filters = zf.filters_of(json_object(request), {"date_filters", "property_filters"},
                                "observation list")
        observations = api_selectors.with_claims(api_selectors.observations(graph, status="all"))
        used: set[str] = set()
        if "property_filters" in filters:
            condition, used = zf.property_filters(filters["property_filters"],
                                                  OBSERVATION_PROPERTIES)
            observations = observations.filter(condition)
        if "status" not in used:
            observations = observations.filter(status=Observation.Status.ACTIVE)
        if "date_filters" in filters:
            observations = observations.filter(
                zf.date_filters(filters["date_filters"], {"created_at": "created_at"}))
        order = ordering(request, {"uuid": "uuid", "created_at": "created_at"})
        result = paged(request, observations, order)
        return page_body([wire.observation(o, str(graph.uuid)) for o in result.items],
                         result.next_cursor)


class ObservationDetailView(ZepView):
    def get(self, request: Request, graph_uuid: str, observation_uuid: uuid.UUID) -> Response:
        graph = self.zep_graph(request, graph_uuid)
        observation = api_selectors.with_claims(
            api_selectors.observations(graph, status="all")
        ).filter(uuid=observation_uuid).first()
        if observation is None:
            raise Http404("No such observation in this graph.")
        return Response(wire.observation(observation, str(graph.uuid)))


# --- Search, context, tasks ----------------------------------------------------------------------

SCOPES = {"observations": "observation", "edges": "fact", "nodes": "entity",
          "episodes": "episode"}


class SearchView(ZepView):
    def post(self, request: Request, graph_uuid: str, scope: str) -> Response:
        graph = self.zep_graph(request, graph_uuid)
        body = json_object(request)
        query = body.get("query")
        if not isinstance(query, str) or not query.strip():
            raise zf.bad("query", "is required")
        if len(query) > 1000:
            raise zf.bad("query", "is longer than 1000 characters")
        zf.filters_of(body, set(), f"{scope} search")
        kind = SCOPES[scope]
        size = page_size(request.query_params.get("page_size"), default=SEARCH_PAGE_SIZE)
        key = f"{graph.pk}:{scope}:{query}"
        offset = read_offset(request.query_params.get("cursor"), key)
        hits, more = search_service.search(graph, query, kinds=[kind], limit=size,
                                           offset=offset)
        items = self.render(graph, kind, hits)
        return page_body(items, offset_cursor(offset + len(hits), key) if more else None)

    def render(self, graph: Graph, kind: str, hits: list[search_service.Hit]
               ) -> list[dict[str, Any]]:
        scores = {hit.item.pk: hit.score for hit in hits}
        ids = [hit.item.pk for hit in hits]
        graph_uuid = str(graph.uuid)
        if kind == "observation":
            rows = api_selectors.with_claims(
                api_selectors.observations(graph, status="all")).filter(pk__in=ids)
            observations = {o.pk: o for o in rows}
            return [wire.observation(observations[i], graph_uuid, scores[i]) for i in ids]
        if kind == "fact":
            facts = {f.pk: f for f in api_selectors.facts(graph, include_ended=True)
                     .filter(pk__in=ids)}
            return [wire.edge(facts[i], graph_uuid, scores[i]) for i in ids]
        if kind == "entity":
            entities = {e.pk: e for e in api_selectors.entities(graph).filter(pk__in=ids)}
            mentions = api_selectors.episodes_mentioning(ids)
            return [wire.node(entities[i], graph_uuid, mentions[i], scores[i]) for i in ids]
        return [wire.episode(hit.item, graph_uuid, hit.score) for hit in hits]


class ContextView(ZepView):
    def post(self, request: Request, graph_uuid: str) -> Response:
        graph = self.zep_graph(request, graph_uuid)
        body = json_object(request)
        query = body.get("query")
        if not isinstance(query, str) or not query.strip():
            raise zf.bad("query", "is required")
        limit = body.get("max_characters") or DEFAULT_MAX_CHARACTERS
        if not isinstance(limit, int) or isinstance(limit, bool) or not 1 <= limit <= 100_000:
            raise zf.bad("max_characters", "must be an integer from 1 to 100000")
        context = build_context(graph, query[:1000], limit)
        response: dict[str, Any] = {"context": context.text, "truncated": context.truncated}
        if body.get("include_results"):
            response["results"] = self.results(graph, context)
        return Response(response)

    def results(self, graph: Graph, context: Any) -> dict[str, Any]:
        graph_uuid = str(graph.uuid)
        observations = api_selectors.with_claims(api_selectors.observations(
            graph, status="all")).filter(pk__in=[o.pk for o in context.observations])
        facts = api_selectors.facts(graph, include_ended=True).filter(
            pk__in=[f.pk for f in context.facts])
        entities = list(api_selectors.entities(graph).filter(
            pk__in=[e.pk for e in context.entities]))
        return {
            "observations": [wire.observation(o, graph_uuid, context.scores.get(o.uuid))
                             for o in observations],
            "edges": [wire.edge(f, graph_uuid, context.scores.get(f.uuid)) for f in facts],
            "nodes": nodes_body(entities, graph),
            "episodes": [],
            "thread_summaries": [],
        }


class TaskView(ZepView):
    """An episode add's task (its uuid is the episode's): the episode's processing status."""

    def get(self, request: Request, task_uuid: uuid.UUID) -> Response:
        episode = (
            Episode.objects.filter(uuid=task_uuid, graph__in=readable_graphs(request.user)
                                   .values("pk")).first()
        )
        if episode is None:
            raise Http404("No such task.")
        return Response(wire.task(episode))

