"""Tenant isolation of every API route, generated from the URL configuration (DESIGN §5: every
query is scoped to one graph; anything outside your graphs answers 404, never 403).

The routes are found by walking the resolver, not listed by hand, so a route added later is
covered or fails here:

* every route under ``/api/`` that names a graph: someone who is not a member of graph B asks
  for B (with B's objects in the path) and gets a JSON 404 that leaks nothing of B, and nothing
  is written;
* every route that also takes an **object id** (an episode, fact, entity, observation, run,
  task...): graph B's object asked for through graph A's path — by A's owner who is not in B,
  and by someone who owns both graphs — answers 404 and leaks nothing; a route without a graph
  in its path (Zep's ``tasks/{uuid}``) answers 404 to whoever cannot read B. The same request
  through B's own path by B's member does reach the object (so the 404 is isolation, not a bad
  id).

A new route with an object id needs a line in ``OBJECT_IDS`` saying how to name graph B's
object; until it has one, ``test_every_route_with_an_object_id_has_a_cross_graph_case`` fails
naming it."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

import pytest
from django.contrib.auth.models import AnonymousUser
from django.urls import URLPattern, URLResolver, get_resolver, reverse

from memory.api.access import readable_graphs
from memory.models import (
    Entity,
    Episode,
    Fact,
    Graph,
    ImportRun,
    Membership,
    Observation,
    PipelineRun,
)
from tests.api.conftest import ClientFor
from tests.factories import (
    EntityFactory,
    EpisodeFactory,
    FactFactory,
    GraphFactory,
    MembershipFactory,
    ObservationFactory,
    PipelineRunFactory,
    UserFactory,
)

pytestmark = pytest.mark.django_db

#: URL parameters that name the graph (its slug or uuid).
GRAPH_PARAMETERS = {"graph", "graph_uuid"}
#: URL parameters that are neither the graph nor an object id: a choice among fixed words.
CHOICE_PARAMETERS = {"scope"}
#: Every piece of graph B's text carries this word, so a body that leaks any of it shows it.
MARKER = "Initech"
METHODS = ("get", "post", "put", "patch", "delete")


@dataclass(frozen=True)
class Route:
    name: str
    pattern: str
    parameters: frozenset[str]
    methods: tuple[str, ...]

    @property
    def graph_parameter(self) -> str | None:
        return next(iter(self.parameters & GRAPH_PARAMETERS), None)

    @property
    def object_parameters(self) -> frozenset[str]:
        return self.parameters - GRAPH_PARAMETERS - CHOICE_PARAMETERS


def _parameters(pattern: Any) -> set[str]:
    """The named parameters of a ``path()`` or ``re_path()`` pattern."""
    return set(pattern.regex.groupindex)


def _walk(patterns: list[Any], prefix: str, inherited: set[str]) -> Iterator[Route]:
    for entry in patterns:
        if isinstance(entry, URLResolver):
            yield from _walk(entry.url_patterns, prefix + str(entry.pattern),
                             inherited | _parameters(entry.pattern))
        elif isinstance(entry, URLPattern):
            view = getattr(entry.callback, "view_class", None)
            methods = tuple(m for m in METHODS if view is not None and hasattr(view, m))
            shown = prefix + str(entry.pattern).removeprefix("^").removesuffix("$")
            yield Route(entry.name or shown, shown,
                        frozenset(inherited | _parameters(entry.pattern)), methods)


def api_routes() -> list[Route]:
    """Every route under ``/api/`` in the project's URL configuration."""
    return [r for r in _walk(get_resolver().url_patterns, "", set())
            if r.pattern.startswith("api/")]


def graph_routes() -> list[Route]:
    return [r for r in api_routes() if r.graph_parameter]


def object_routes() -> list[Route]:
    return [r for r in api_routes() if r.object_parameters]


# --- Graph B and its objects ---------------------------------------------------------------------


@dataclass
class TenantB:
    """Graph B with one of each object, every text of it carrying ``MARKER``."""

    graph: Graph
    episode: Episode
    fact: Fact
    entity: Entity
    observation: Observation
    run: PipelineRun
    import_run: ImportRun

    def counts(self) -> dict[str, int]:
        """What B holds, to show a refused request wrote nothing."""
        return {model.__name__: model.objects.filter(graph=self.graph).count()
                for model in (Episode, Fact, Entity, Observation, PipelineRun, ImportRun)}


#: How to name graph B's object in each route that takes an object id (keyed by route name).
OBJECT_IDS: dict[str, Callable[[TenantB], dict[str, str]]] = {
    "api-episode": lambda b: {"uuid": str(b.episode.uuid)},
    "api-fact": lambda b: {"uuid": str(b.fact.uuid)},
    "api-entity": lambda b: {"uuid": str(b.entity.uuid)},
    "api-observation": lambda b: {"uuid": str(b.observation.uuid)},
    "api-run": lambda b: {"uuid": str(b.run.uuid)},
    "api-import": lambda b: {"uuid": str(b.import_run.uuid)},
    "zep-episode": lambda b: {"episode_uuid": str(b.episode.uuid)},
    "zep-edge": lambda b: {"edge_uuid": str(b.fact.uuid)},
    "zep-node": lambda b: {"node_uuid": str(b.entity.uuid)},
    "zep-observation": lambda b: {"observation_uuid": str(b.observation.uuid)},
    "zep-task": lambda b: {"task_uuid": str(b.episode.uuid)},
}

#: A valid body for the routes whose handler reads one, so that only access decides the answer.
BODIES: dict[str, dict[str, Any]] = {
    "api-episodes": {"reference_time": "2026-11-23T09:00:00+00:00", "content": "Hello."},
    "api-episodes-bulk": {"episodes": [{"reference_time": "2026-11-23T09:00:00+00:00",
                                        "content": "Hello."}]},
    "zep-episode-add": {"data": "Alice: hello.", "type": "message"},
    "zep-search": {"query": "merger"},
    "zep-context": {"query": "merger"},
}


@pytest.fixture
def tenant_b(db: None) -> TenantB:
    graph = GraphFactory(slug="tenant-b", name=f"{MARKER} merger room")
    episode = EpisodeFactory(graph=graph, author=f"{MARKER} Insider",
                             content=f"The {MARKER} merger is blocked on the audit.")
    source = EntityFactory(graph=graph, name=f"{MARKER} Merger")
    target = EntityFactory(graph=graph, name=f"{MARKER} Audit")
    fact = FactFactory(graph=graph, source=source, target=target, episodes=[episode],
                       sentence=f"The {MARKER} merger is blocked on the audit.")
    observation = ObservationFactory(graph=graph, name=f"{MARKER} Audit blocking 1 workstream")
    observation.episodes.add(episode)
    return TenantB(graph=graph, episode=episode, fact=fact, entity=source,
                   observation=observation, run=PipelineRunFactory(graph=graph),
                   import_run=ImportRun.objects.create(graph=graph, format="jira",
                                                      filename=f"{MARKER} merger.json"))


@pytest.fixture
def graph_a(db: None) -> Graph:
    graph = GraphFactory(slug="tenant-a", name="Tenant A")
    EpisodeFactory(graph=graph, content="Nothing to report.")
    return graph


def url_of(route: Route, graph: Graph, b: TenantB) -> str:
    kwargs: dict[str, str] = {}
    if route.object_parameters:
        if route.name not in OBJECT_IDS:
            pytest.fail(f"{route.name} takes an object id: say in OBJECT_IDS how to name B's")
        kwargs = OBJECT_IDS[route.name](b)
    if route.graph_parameter:
        # Zep's paths name graphs by uuid (the SDK's habit), ours by slug.
        kwargs[route.graph_parameter] = (str(graph.uuid) if route.graph_parameter == "graph_uuid"
                                         else graph.slug)
    if "scope" in route.parameters:
        kwargs["scope"] = "episodes"
    return reverse(route.name, kwargs=kwargs)


def send(client: Any, method: str, url: str, route: Route) -> Any:
    return getattr(client, method)(url, BODIES.get(route.name, {}), format="json")


def assert_not_found_and_silent(response: Any, url: str, b: TenantB) -> None:
    """A JSON 404 that says nothing of B beyond what the request itself carried."""
    assert response.status_code == 404, (url, response.status_code, response.content[:300])
    assert response["Content-Type"].startswith("application/json")
    body = response.content.decode()
    assert response.json()["error"]["code"] == "not_found"
    told = {MARKER, str(b.graph.uuid), b.graph.slug}
    for secret in told:
        if secret not in url:
            assert secret.lower() not in body.lower(), (url, secret, body)


def _ids(routes: list[Route]) -> list[Any]:
    return [pytest.param(r, m, id=f"{m.upper()} {r.pattern}") for r in routes
            for m in r.methods]


# --- The routes, as the resolver sees them -------------------------------------------------------


def test_every_route_with_an_object_id_has_a_cross_graph_case() -> None:
    uncovered = sorted(f"{r.name} ({r.pattern})" for r in object_routes()
                       if r.name not in OBJECT_IDS)
    stale = sorted(set(OBJECT_IDS) - {r.name for r in object_routes()})

    assert not uncovered, ("API routes taking an object id with no cross-graph isolation "
                           f"case in OBJECT_IDS: {uncovered}")
    assert not stale, f"OBJECT_IDS names routes without an object id (or gone): {stale}"


def test_the_walk_finds_the_routes_the_api_is_known_for() -> None:
    """The resolver walk itself is right: it sees both APIs' detail routes and their methods."""
    routes = {r.name: r for r in api_routes()}

    assert routes["api-episode"].object_parameters == {"uuid"}
    assert routes["api-episode"].graph_parameter == "graph"
    assert routes["zep-episode"].methods == ("get", "delete")
    assert routes["zep-task"].graph_parameter is None
    assert routes["zep-search"].object_parameters == set()
    assert len(object_routes()) >= 10 and len(graph_routes()) >= 25


# --- Outsiders: every route of graph B -----------------------------------------------------------


@pytest.mark.parametrize(("route", "method"), _ids(graph_routes()))
def test_an_outsider_asking_for_graph_b_gets_404_and_nothing_is_written(
    api: ClientFor, tenant_b: TenantB, route: Route, method: str
) -> None:
    charlie = UserFactory(username="charlie")
    MembershipFactory(user=charlie, role=Membership.Role.OWNER)  # owner elsewhere
    before = tenant_b.counts()
    url = url_of(route, tenant_b.graph, tenant_b)

    response = send(api(charlie), method, url, route)

    assert_not_found_and_silent(response, url, tenant_b)
    assert tenant_b.counts() == before


# --- Objects: B's object through A's path --------------------------------------------------------


@pytest.mark.parametrize(("route", "method"), _ids(object_routes()))
def test_graph_b_objects_are_404_through_graph_a_and_to_whoever_cannot_read_b(
    api: ClientFor, graph_a: Graph, tenant_b: TenantB, route: Route, method: str
) -> None:
    only_a = MembershipFactory(graph=graph_a, user__username="alice",
                               role=Membership.Role.OWNER).user
    both = MembershipFactory(graph=graph_a, user__username="dana",
                             role=Membership.Role.OWNER).user
    MembershipFactory(graph=tenant_b.graph, user=both, role=Membership.Role.OWNER)
    insider = MembershipFactory(graph=tenant_b.graph, user__username="bob",
                                role=Membership.Role.OWNER).user
    before = tenant_b.counts()
    through_a = url_of(route, graph_a, tenant_b)

    # A's owner, who cannot read B: 404 through A's path (and through B's: see the outsider
    # test above).
    assert_not_found_and_silent(send(api(only_a), method, through_a, route), through_a, tenant_b)
    if route.graph_parameter:
        # Someone who can read both graphs still does not find B's object in A.
        assert_not_found_and_silent(send(api(both), method, through_a, route), through_a,
                                    tenant_b)
    assert tenant_b.counts() == before

    # B's own member, through B's own path, does reach it: the id above named a real object.
    through_b = url_of(route, tenant_b.graph, tenant_b)
    reached = send(api(insider), method, through_b, route)
    assert reached.status_code != 404 and reached.status_code < 500, reached.content[:300]


# --- What a refusal says (memory.api.access) -----------------------------------------------------


def test_an_unknown_graph_is_a_404_naming_what_was_asked_for(api: ClientFor, graph_a: Graph
                                                             ) -> None:
    owner = MembershipFactory(graph=graph_a, role=Membership.Role.OWNER).user

    body = api(owner).get("/api/v1/graphs/nope").json()

    assert body == {"error": {"code": "not_found", "message": "No graph nope.", "param": "graph",
                              "details": {}}}


def test_a_viewers_write_is_a_403_naming_their_role(api: ClientFor, graph_a: Graph) -> None:
    viewer = MembershipFactory(graph=graph_a, role=Membership.Role.VIEWER).user

    response = api(viewer).post(f"/api/v1/graphs/{graph_a.slug}/runs")

    assert response.status_code == 403
    assert response.json()["error"] == {
        "code": "permission_denied", "param": "graph", "details": {"role": "viewer"},
        "message": "On graph tenant-a your role is viewer: writing needs the editor or owner role.",
    }


def test_a_superuser_reads_any_graph_but_writes_only_as_a_member(api: ClientFor, graph_a: Graph
                                                                 ) -> None:
    auditor = UserFactory(username="auditor", is_superuser=True)
    client = api(auditor)

    read = client.get(f"/api/v1/graphs/{graph_a.slug}")
    write = client.post(f"/api/v1/graphs/{graph_a.slug}/runs")

    assert read.status_code == 200 and read.json()["role"] is None
    assert write.status_code == 403
    assert write.json()["error"]["details"] == {"role": None}
    assert write.json()["error"]["message"] == (
        "On graph tenant-a you are not a member (audit access only): writing needs the editor "
        "or owner role.")


def test_only_the_owner_deletes_a_graph(api: ClientFor, graph_a: Graph) -> None:
    editor = MembershipFactory(graph=graph_a, role=Membership.Role.EDITOR).user
    owner = MembershipFactory(graph=graph_a, role=Membership.Role.OWNER).user
    path = f"/api/v4/graphs/{graph_a.uuid}"

    refused = api(editor).delete(path)

    assert refused.status_code == 403
    assert refused.json()["error"]["details"] == {"role": "editor"}
    assert refused.json()["error"]["message"] == (
        "On graph tenant-a your role is editor: only its owner may do this.")
    assert api(owner).delete(path).status_code == 202
    assert not Graph.objects.filter(pk=graph_a.pk).exists()


def test_each_graph_is_read_with_the_users_role_in_that_graph(api: ClientFor, graph_a: Graph,
                                                              tenant_b: TenantB) -> None:
    dana = MembershipFactory(graph=tenant_b.graph, user__username="dana",
                             role=Membership.Role.OWNER).user
    MembershipFactory(graph=graph_a, user=dana, role=Membership.Role.VIEWER)
    client = api(dana)

    listed = client.get("/api/v1/graphs").json()["items"]

    assert [(g["slug"], g["role"]) for g in listed] == [("tenant-a", "viewer"),
                                                         ("tenant-b", "owner")]
    assert client.post(f"/api/v1/graphs/{graph_a.slug}/runs").status_code == 403
    assert client.post(f"/api/v1/graphs/{tenant_b.graph.slug}/runs").status_code == 202


def test_nobody_signed_in_reads_no_graph(graph_a: Graph) -> None:
    assert list(readable_graphs(None)) == list(readable_graphs(AnonymousUser())) == []
