"""The Zep v4-compatible API proven with the real ``zep-cloud==4.0.1`` SDK over HTTP against a
live test server — no mocks on either side. Tasks run in-process, so an episode is processed
(and the graph's pipeline run) before its add returns; ``transaction=True`` makes every commit
real so the server thread sees it."""

from __future__ import annotations

import time
import uuid
from typing import Any

import httpx
import pytest
from zep_cloud.client import Zep
from zep_cloud.core.api_error import ApiError as ZepHTTPError
from zep_cloud.errors import BadRequestError, ForbiddenError, NotFoundError

from memory.api.keys import create_api_key
from memory.models import Episode, Graph, Membership
from tests.factories import GraphFactory, MembershipFactory, UserFactory
from tests.scenarios import SEED

pytestmark = pytest.mark.django_db(transaction=True)


def zep_for(live_server: Any, user: Any) -> tuple[Zep, str]:
    _, raw = create_api_key(user, "zep sdk")
    client = Zep(api_key=raw, base_url=f"{live_server.url}/api/v4", max_retries=0, timeout=60)
    return client, raw


def wait_for_task(client: Zep, task_uuid: str, timeout: float = 30) -> Any:
    deadline = time.monotonic() + timeout
    while True:
        task = client.task.get(task_uuid)
        if task.status in {"succeeded", "failed"} or time.monotonic() > deadline:
            return task
        time.sleep(0.2)


def test_the_story_from_the_issue_with_the_real_sdk(live_server: Any) -> None:
    alice = UserFactory(username="alice")
    client, raw = zep_for(live_server, alice)

    # Create a graph; its graph_id is our slug.
    graph = client.graph.create(name="Project Atlas", description="The seed scenario")
    assert graph.graph_id == "project-atlas" and graph.type == "standard"

    # Add the seed's three episodes as messages written "Name: text" (Name is the author).
    added = [
        client.graph.episode.add(
            graph.uuid_, data=f"{record['author']}: {record['content']}", type="message",
            source_description="standup", reference_time=record["reference_time"],
        )
        for record in SEED
    ]
    tasks = [wait_for_task(client, result.task.uuid_) for result in added]
    assert [t.status for t in tasks] == ["succeeded"] * 3
    episode = client.graph.episode.get(graph.uuid_, added[2].episode.uuid_)
    assert episode.processed is True and episode.role_name == "Clara"
    assert episode.reference_time.startswith("2026-11-27T09:00:00")
    assert Episode.objects.get(uuid=episode.uuid_).author == "Clara"

    # Facts (edges) and entities (nodes).
    edges = list(client.graph.edge.list(graph.uuid_))
    signatures = {(e.source_node_name, e.name, e.target_node_name) for e in edges}
    assert {("API Migration", "DEPENDS_ON", "Auth Service Refactor"),
            ("Payments Integration", "DEPENDS_ON", "Auth Service Refactor"),
            ("Checkout Flow", "DEPENDS_ON", "Payments Integration")} <= signatures
    assert all(e.valid_at and e.created_at and e.episode_uuids for e in edges)
    assert all(e.invalid_at is None and e.expired_at is None for e in edges)
    nodes = {n.name: n for n in client.graph.node.list(graph.uuid_)}
    refactor = nodes["Auth Service Refactor"]
    assert refactor.labels == ["WorkItem"] and refactor.episode_uuids_truncated is False
    assert set(refactor.episode_uuids) == {added[0].episode.uuid_, added[1].episode.uuid_}
    assert client.graph.node.get(graph.uuid_, refactor.uuid_).name == "Auth Service Refactor"
    edge = edges[0]
    assert client.graph.edge.get(graph.uuid_, edge.uuid_).fact == edge.fact

    # The observation: listed, fetched, and found by "blocked workstreams".
    (observation,) = list(client.graph.observation.list(graph.uuid_))
    assert set(observation.episode_uuids) == {a.episode.uuid_ for a in added}
    attributes = observation.attributes
    # Each add ran the pipeline at once: the pattern formed on Wednesday and grew on Friday.
    assert attributes["status"] == "active" and attributes["version"] == 2
    assert attributes["root_blockers"][0]["entity"] == "Auth Service Refactor"
    assert attributes["claims"] and all(c["fact_uuids"] for c in attributes["claims"])
    fetched = client.graph.observation.get(graph.uuid_, observation.uuid_)
    assert (fetched.name, fetched.summary) == (observation.name, observation.summary)
    hits = client.graph.search_observations(graph.uuid_, query="blocked workstreams",
                                            page_size=5).items
    assert hits[0].uuid_ == observation.uuid_ and hits[0].score > 0

    # A context block for a prompt, within the character budget.
    context = client.graph.get_context(graph.uuid_, query="what blocks the checkout flow?",
                                       max_characters=600)
    assert "Auth Service Refactor" in context.context and len(context.context) <= 600

    # Page through 250 episodes with the pager (stored through the native bulk endpoint with
    # the same key).
    firehose = client.graph.create(name="Firehose")
    records = [{"external_id": f"u{n}", "author": "Dana",
                "reference_time": f"2026-11-{1 + n // 24:02d}T{n % 24:02d}:00:00+00:00",
                "content": f"Update {n}: nothing new to report."} for n in range(250)]
    stored = httpx.post(f"{live_server.url}/api/v1/graphs/{firehose.graph_id}/episodes/bulk",
                        json={"episodes": records}, headers={"Authorization": f"Bearer {raw}"},
                        timeout=120).json()
    assert stored["stored"] == 250
    paged = list(client.graph.episode.list(firehose.uuid_, page_size=100))
    assert len(paged) == 250 and len({e.uuid_ for e in paged}) == 250

    # Another tenant's graph and a missing observation are NotFoundError (a JSON 404).
    foreign = GraphFactory(slug="charlies")
    MembershipFactory(graph=foreign, user__username="charlie", role=Membership.Role.OWNER)
    with pytest.raises(NotFoundError) as error:
        client.graph.get(str(foreign.uuid))
    assert error.value.body.error.code == "not_found"
    with pytest.raises(NotFoundError):
        list(client.graph.edge.list(str(foreign.uuid)))
    with pytest.raises(NotFoundError):
        client.graph.observation.get(graph.uuid_, str(uuid.uuid4()))


def test_roles_filters_and_writes_through_the_sdk(live_server: Any) -> None:
    graph = GraphFactory(slug="atlas")
    owner = MembershipFactory(graph=graph, user__username="alice", role="owner").user
    viewer = MembershipFactory(graph=graph, user__username="bob", role="viewer").user
    owner_client, _ = zep_for(live_server, owner)
    viewer_client, _ = zep_for(live_server, viewer)

    # A viewer's key cannot write.
    with pytest.raises(ForbiddenError):
        viewer_client.graph.episode.add(str(graph.uuid), data="Bob: hello there", type="message")
    # Bad input is a 400 naming the field, parsed by the SDK.
    with pytest.raises(BadRequestError) as bad:
        owner_client.graph.episode.add(str(graph.uuid), data="x", reference_time="monday")
    assert bad.value.body.error.param == "reference_time"
    # Filters we do not support are refused, never ignored.
    with pytest.raises(BadRequestError) as unsupported:
        owner_client.graph.edge.list(str(graph.uuid), filters={"node_labels": ["Person"]})
    assert unsupported.value.body.error.code == "unsupported_filter"
    # Episodes are immutable: delete answers 405 with a JSON error.
    result = owner_client.graph.episode.add(str(graph.uuid), data="Alice: the API is done.",
                                            type="message",
                                            reference_time="2026-11-23T09:00:00Z")
    with pytest.raises(ZepHTTPError) as immutable:
        owner_client.graph.episode.delete(str(graph.uuid), result.episode.uuid_)
    assert immutable.value.status_code == 405
    assert immutable.value.body["error"]["code"] == "episode_immutable"
    # Graphs are listed and looked up by graph_id; only the owner deletes one.
    assert [g.graph_id for g in viewer_client.graph.list()] == ["atlas"]
    assert owner_client.graph.lookup(graph_id="atlas").uuid_ == str(graph.uuid)
    with pytest.raises(ForbiddenError):
        viewer_client.graph.delete(str(graph.uuid))
    deleted = owner_client.graph.delete(str(graph.uuid))
    assert deleted.task.status == "succeeded"
    assert not Graph.objects.filter(pk=graph.pk).exists()
    with pytest.raises(NotFoundError):
        owner_client.graph.get(str(graph.uuid))
