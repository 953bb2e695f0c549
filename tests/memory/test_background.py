"""The embedded default with a model: no request waits for it. Model work a request queues runs
in the web process's background thread once the response is made (a real thread, a real HTTP
model server that holds its answers until the test releases them)."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import pytest
from django.test import Client
from django.urls import reverse
from django.utils import timezone

from memory import background
from memory.models import Entity, Episode, Graph, LLMCall, Membership
from tests.factories import EntityFactory, FactFactory, GraphFactory, MembershipFactory
from tests.fake_openai import FakeOpenAI, json_reply
from tests.fake_openai import fake_openai as fake_openai_fixture  # noqa: F401

# The background thread has its own database connection: it sees committed rows only.
pytestmark = pytest.mark.django_db(transaction=True)

ANSWER = {"episodes": [{"id": 1, "entities": [
    {"n": "Payments Integration", "t": "WorkItem"},
    {"n": "Auth Service Refactor", "t": "WorkItem"}],
    "facts": [{"s": 0, "r": "DEPENDS_ON", "o": 1, "q": 1, "d": None, "x": False}]}]}


@pytest.fixture(autouse=True)
def _no_jobs_left_behind() -> Any:
    """A delayed job must not outlive its test (ids are reused by the next one)."""
    yield
    background.runner().cancel()
    background.drain()


@pytest.fixture
def graph_and_editor(db: None) -> tuple[Graph, Any]:
    graph = GraphFactory(slug="atlas", settings={"model_wait_seconds": 0})
    editor = MembershipFactory(graph=graph, user__username="erin",
                               role=Membership.Role.EDITOR).user
    return graph, editor


def signed_in(editor: Any) -> Client:
    client = Client()
    client.force_login(editor)
    return client


def test_adding_an_update_answers_before_the_model_has_read_it(
    fake_openai: FakeOpenAI, settings: Any, graph_and_editor: tuple[Graph, Any],
) -> None:
    graph, editor = graph_and_editor
    settings.LLM_EXTRACTION = True
    fake_openai.responder = lambda request: json_reply(
        ANSWER if "<ep " in request.prompt else {"clusters": []})
    fake_openai.hold()

    response = signed_in(editor).post(reverse("episode-add", args=[graph.slug]), {
        "content": "The payments integration is blocked by the auth service refactor.",
        "author": "Bob", "reference_time": "2026-11-25T09:00", "source": "standup"})

    # The page answered while the model still holds its answer; the rules' reading is there.
    assert response.status_code == 302
    assert fake_openai.wait_for_requests(1)
    episode = Episode.objects.get(graph=graph)
    assert episode.status == Episode.Status.PROCESSED and episode.extractor == "rules@1"
    assert episode.awaits_model
    fake_openai.release()
    assert background.drain()
    episode.refresh_from_db()
    assert episode.extractor.startswith("llm:") and not episode.awaits_model
    assert episode.facts.filter(relation="DEPENDS_ON").count() == 1


def test_an_entity_page_answers_at_once_while_the_model_writes_its_summary(
    fake_openai: FakeOpenAI, graph_and_editor: tuple[Graph, Any],
) -> None:
    graph, editor = graph_and_editor
    entity = EntityFactory(graph=graph, name="Auth Service Refactor")
    FactFactory(graph=graph, source__name="Backend Team", source__type="Team",
                relation="RESPONSIBLE_FOR", target=entity)
    fake_openai.responder = lambda request: json_reply({"summary": "Owned by the Backend Team."})
    fake_openai.hold()
    client = signed_in(editor)
    url = reverse("entity", args=[graph.slug, entity.uuid])

    page = client.get(url)

    assert page.status_code == 200
    assert "a new summary is being written" in page.content.decode()
    assert fake_openai.wait_for_requests(1)
    fake_openai.release()
    assert background.drain()
    assert Entity.objects.get(pk=entity.pk).summary == "Owned by the Backend Team."
    assert "Owned by the Backend Team." in client.get(url).content.decode()


def test_a_stalled_model_never_holds_a_request_and_its_failure_is_recorded(
    fake_openai: FakeOpenAI, settings: Any, graph_and_editor: tuple[Graph, Any],
) -> None:
    graph, editor = graph_and_editor
    settings.LLM_EXTRACTION = True
    settings.LLM_TIMEOUT_SECONDS = 0.3
    fake_openai.responder = lambda request: json_reply({}, delay=5)

    response = signed_in(editor).post(reverse("episode-add", args=[graph.slug]), {
        "content": "The payments integration is blocked by the auth service refactor.",
        "author": "Bob", "reference_time": "2026-11-25T09:00", "source": "standup"})

    assert response.status_code == 302
    assert background.drain()
    episode = Episode.objects.get(graph=graph)
    # Nothing lost: the rules read it, and the episode says why.
    assert episode.status == Episode.Status.PROCESSED
    assert episode.extractor == "rules@1 (model failed: timeout)"
    assert LLMCall.objects.filter(purpose="extraction", outcome="timeout").exists()


def test_updates_arriving_one_at_a_time_wait_to_share_one_extraction_call(
    fake_openai: FakeOpenAI, settings: Any, graph_and_editor: tuple[Graph, Any],
) -> None:
    graph, editor = graph_and_editor
    # The first two wait (a long time); the third fills the batch, and all three go together.
    Graph.objects.filter(pk=graph.pk).update(settings={"model_wait_seconds": 3600})
    settings.LLM_EXTRACTION = True
    settings.LLM_EXTRACTION_BATCH_SIZE = 3
    client = signed_in(editor)
    for n in range(3):
        client.post(reverse("episode-add", args=[graph.slug]), {
            "content": f"The payments integration {n} is blocked by the auth service refactor.",
            "author": "Bob", "reference_time": f"2026-11-25T09:0{n}", "source": "standup"})
        if n < 2:
            assert background.drain(later=False)
            assert fake_openai.completions() == []  # waiting for others

    assert background.drain(later=False)

    extraction_calls = [r for r in fake_openai.completions() if "<ep " in r.prompt]
    assert len(extraction_calls) == 1
    assert extraction_calls[0].prompt.count("<ep ") == 3
    assert set(Episode.objects.values_list("status", flat=True)) == {Episode.Status.PROCESSED}


def test_outside_a_request_work_runs_at_once_in_the_callers_thread(db: None) -> None:
    ran: list[int] = []

    background.after_response(ran.append, 1)

    assert ran == [1]


def test_the_first_request_of_a_process_resumes_updates_a_stopped_process_left_waiting(
    fake_openai: FakeOpenAI, settings: Any, graph_and_editor: tuple[Graph, Any],
) -> None:
    from tests.factories import EpisodeFactory

    graph, _ = graph_and_editor
    settings.LLM_EXTRACTION = True
    left = EpisodeFactory(graph=graph, status=Episode.Status.PENDING,
                          ingested_at=timezone.now() - timedelta(days=1),
                          content="The payments integration is blocked by the auth service "
                                  "refactor.")

    Client().get(reverse("login"))

    assert background.drain()
    left.refresh_from_db()
    assert left.status == Episode.Status.PROCESSED
    assert len([r for r in fake_openai.completions() if "<ep " in r.prompt]) == 1
