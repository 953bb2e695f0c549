"""A graph's settings page: what the model costs per day and per run, its budget and wait (owners
change them), and every setting the runs use; and what the board and the runs page say when the
model cannot write."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import pytest
from django.test import Client
from django.urls import reverse
from django.utils import timezone

from memory.llm import record_endpoint
from memory.models import Graph, Observation
from tests.dashboard.conftest import signed_in
from tests.factories import LLMCallFactory, PipelineRunFactory
from tests.fake_openai import FakeOpenAI
from tests.fake_openai import fake_openai as fake_openai_fixture  # noqa: F401

pytestmark = pytest.mark.django_db


def settings_url(graph: Graph) -> str:
    return reverse("graph-settings", args=[graph.slug])


@pytest.fixture
def spent(graph: Graph) -> Graph:
    """Two days of model calls: extraction and summaries yesterday, an entity page today."""
    now = timezone.now()
    run = PipelineRunFactory(graph=graph, created_at=now - timedelta(days=1, minutes=10),
                             started_at=now - timedelta(days=1, minutes=10),
                             finished_at=now - timedelta(days=1))
    LLMCallFactory(graph=graph, purpose="extraction", tokens_in=700, tokens_out=200,
                   created_at=now - timedelta(days=1, minutes=20))
    LLMCallFactory(graph=graph, purpose="summary", run=run, prompt_version="summary-2",
                   tokens_in=300, tokens_out=80, created_at=now - timedelta(days=1, minutes=5))
    LLMCallFactory(graph=graph, purpose="entity_summary", prompt_version="entity-summary-2",
                   tokens_in=90, tokens_out=30, created_at=now)
    return graph


def test_members_read_the_spend_per_day_and_per_run_with_model_and_prompt_version(
    client: Client, member, spent: Graph,
) -> None:
    response = signed_in(client, member).get(settings_url(spent))

    assert response.status_code == 200
    html = response.content.decode()
    assert "1 extraction call, 1 summary call, 1 entity-page call" in html
    assert "1090 tokens in, 310 out" in html
    assert "fake-model-1 · extract-2" in html
    assert "fake-model-1 · summary-2" in html
    assert "fake-model-1 · entity-summary-2" in html
    assert "700 in / 200 out" in html and "300 in / 80 out" in html
    assert "<code>model_wait_seconds</code></dt><dd>108000" in html
    assert "Only owners change these." in html


def test_an_owner_sets_the_monthly_budget_and_the_wait(client: Client, owner, graph) -> None:
    response = signed_in(client, owner).post(settings_url(graph), {
        "monthly_token_budget": "200000", "model_wait_seconds": "3600"})

    assert response.status_code == 302
    graph.refresh_from_db()
    assert graph.settings == {"monthly_token_budget": 200000, "model_wait_seconds": 3600}

    signed_in(client, owner).post(settings_url(graph), {
        "monthly_token_budget": "", "model_wait_seconds": "3600"})

    graph.refresh_from_db()
    assert "monthly_token_budget" not in graph.settings  # no limit


@pytest.mark.stalled
def test_an_owner_sets_after_how_many_weeks_an_item_is_stalled(
    client: Client, owner, graph,
) -> None:
    page = signed_in(client, owner).get(settings_url(graph)).content.decode()
    assert "<code>stalled_after_weeks</code></dt><dd>3" in page  # the default

    signed_in(client, owner).post(settings_url(graph), {
        "model_wait_seconds": "3600", "stalled_after_weeks": "6"})

    graph.refresh_from_db()
    assert graph.settings["stalled_after_weeks"] == 6
    response = signed_in(client, owner).post(settings_url(graph), {
        "model_wait_seconds": "3600", "stalled_after_weeks": "-1"})
    assert response.status_code == 422
    graph.refresh_from_db()
    assert graph.settings["stalled_after_weeks"] == 6


def test_a_bad_value_is_refused_with_its_field_named(client: Client, owner, graph) -> None:
    response = signed_in(client, owner).post(settings_url(graph), {
        "monthly_token_budget": "-5", "model_wait_seconds": "3600"})

    assert response.status_code == 422
    assert "Ensure this value is greater than or equal to 0" in response.content.decode()


def test_editors_cannot_change_the_settings_and_outsiders_cannot_see_them(
    client: Client, editor, outsider, graph,
) -> None:
    post = {"monthly_token_budget": "1", "model_wait_seconds": "0"}
    assert signed_in(client, editor).post(settings_url(graph), post).status_code == 403
    assert signed_in(Client(), outsider).get(settings_url(graph)).status_code == 404
    graph.refresh_from_db()
    assert graph.settings == {}


# -- when the model cannot write ------------------------------------------------------------------


def test_the_board_says_when_the_monthly_budget_is_spent(
    client: Client, member, graph, fake_openai: FakeOpenAI,
) -> None:
    Graph.objects.filter(pk=graph.pk).update(settings={"monthly_token_budget": 1000})
    LLMCallFactory(graph=graph, tokens_in=900, tokens_out=200)

    html = signed_in(client, member).get(reverse("board", args=[graph.slug])).content.decode()

    assert "monthly model budget is spent (1,100 of 1,000 tokens)" in html
    assert "the rules extractor and the template write until 1 " in html


def test_the_board_and_the_runs_page_say_when_the_model_is_unusable(
    client: Client, member, graph, fake_openai: FakeOpenAI,
) -> None:
    record_endpoint("", usable=False, detail="every response format refused: HTTP 400")
    signed_in(client, member)

    board = client.get(reverse("board", args=[graph.slug])).content.decode()
    runs = client.get(reverse("runs", args=[graph.slug])).content.decode()

    for html in (board, runs):
        assert "The model fake-model-1 is unusable: every response format refused" in html


def test_without_a_model_the_board_says_nothing_about_it(client: Client, member, graph) -> None:
    html = signed_in(client, member).get(reverse("board", args=[graph.slug])).content.decode()

    assert "The model" not in html and "budget" not in html


def test_the_runs_page_shows_the_detected_format_and_the_stand_ins_waiting(
    client: Client, member, graph, fake_openai: FakeOpenAI, settings: Any,
) -> None:
    from tests.factories import ObservationFactory

    record_endpoint("json_object", usable=True)
    ObservationFactory(graph=graph, summary_pending=True,
                       summary_fallback="model failed: timeout")

    html = signed_in(client, member).get(reverse("runs", args=[graph.slug])).content.decode()

    assert "answers as <code>json_object</code>" in html
    assert "the schema is in the prompt and every answer is checked here" in html
    assert "1 summary written by the template while the model failed" in html


def test_a_card_says_the_template_stood_in_and_will_retry(
    client: Client, member, graph,
) -> None:
    from tests.factories import ObservationFactory

    ObservationFactory(graph=graph, summary_pending=True, summary_fallback="model failed: timeout")
    ObservationFactory(graph=graph, summary_fallback="model output rejected: claim 1 names Bob")

    html = signed_in(client, member).get(reverse("board", args=[graph.slug])).content.decode()

    assert "template (model failed: timeout) — will retry" in html
    assert "template (model output rejected)</span>" in html
    assert Observation.objects.filter(summary_pending=True).count() == 1


def test_a_rules_reading_awaiting_the_model_says_by_when_the_models_replaces_it(
    client: Client, member, graph, settings: Any,
) -> None:
    from datetime import UTC, datetime

    from tests.factories import EpisodeFactory

    settings.LLM_EXTRACTION = True
    Graph.objects.filter(pk=graph.pk).update(settings={"model_wait_seconds": 3600})
    episode = EpisodeFactory(graph=graph, extractor="rules@1", awaits_model=True,
                             ingested_at=datetime(2026, 11, 23, 9, 0, tzinfo=UTC))

    html = signed_in(client, member).get(
        reverse("episode", args=[graph.slug, episode.uuid])).content.decode()

    assert "Rules reading; model reading due by 23 Nov, 10:00" in html

    episode.awaits_model = False  # the model's reading stands
    episode.save()
    html = signed_in(client, member).get(
        reverse("episode", args=[graph.slug, episode.uuid])).content.decode()

    assert "model reading due" not in html
