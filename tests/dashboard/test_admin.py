"""The admin audit: evidence is read-only for everyone, superusers included; merge suggestions are
decided through ``memory.merges`` and journaled."""

from __future__ import annotations

import pytest
from django.contrib.admin.models import LogEntry
from django.test import Client
from django.urls import reverse

from memory.models import (
    Entity,
    Episode,
    Fact,
    LLMCall,
    MergeRecord,
    MergeSuggestion,
    ModelEndpoint,
    Observation,
    PipelineRun,
)
from tests.factories import EntityFactory

pytestmark = pytest.mark.django_db

EVIDENCE = [Episode, Fact, Observation]
AUDIT = [Entity, PipelineRun, LLMCall, MergeRecord, MergeSuggestion, ModelEndpoint]


def admin_url(model: type, view: str, *args: object) -> str:
    return reverse(f"admin:memory_{model._meta.model_name}_{view}", args=args)


@pytest.fixture
def superuser_client(admin_client: Client) -> Client:
    return admin_client


@pytest.mark.parametrize("model", EVIDENCE + AUDIT, ids=lambda m: m.__name__)
def test_a_superuser_cannot_add_evidence_or_audit_rows(superuser_client: Client, model) -> None:
    assert superuser_client.get(admin_url(model, "add")).status_code == 403
    assert superuser_client.post(admin_url(model, "add"), {}).status_code == 403


@pytest.mark.parametrize("model", EVIDENCE, ids=lambda m: m.__name__)
def test_a_superuser_can_view_but_not_change_or_delete_evidence(
    superuser_client: Client, seeded: Observation, model
) -> None:
    row = model.objects.filter(graph=seeded.graph).first()
    before = model.objects.count()

    view = superuser_client.get(admin_url(model, "change", row.pk))
    change = superuser_client.post(admin_url(model, "change", row.pk), {"name": "edited"})
    delete = superuser_client.post(admin_url(model, "delete", row.pk), {"post": "yes"})
    bulk_delete = superuser_client.post(admin_url(model, "changelist"), {
        "action": "delete_selected", "_selected_action": [row.pk], "post": "yes"})

    assert view.status_code == 200 and b"Save" not in view.content
    assert change.status_code == 403
    assert delete.status_code == 403
    assert bulk_delete.status_code in {200, 302}  # no such action: nothing happens
    assert model.objects.count() == before


@pytest.mark.parametrize("model", EVIDENCE + AUDIT, ids=lambda m: m.__name__)
def test_every_audit_list_opens(superuser_client: Client, seeded: Observation, model) -> None:
    assert superuser_client.get(admin_url(model, "changelist")).status_code == 200


def test_an_observations_admin_page_walks_claims_to_facts_to_episodes(
    superuser_client: Client, seeded: Observation
) -> None:
    html = superuser_client.get(admin_url(Observation, "change", seeded.pk)).content.decode()

    clara = Episode.objects.get(graph=seeded.graph, author="Clara")
    fact = Fact.objects.filter(evidence__episode=clara).first()
    assert admin_url(Fact, "change", fact.pk) in html
    assert admin_url(Episode, "change", clara.pk) in html
    assert reverse("observation", args=[seeded.graph.slug, seeded.uuid]) in html
    assert "root_blockers" in html  # the structure, for the audit


def test_a_dashboard_user_who_is_not_staff_cannot_open_the_admin(client: Client, owner) -> None:
    client.force_login(owner)

    response = client.get(reverse("admin:index"))

    assert response.status_code == 302 and "/admin/login/" in response["Location"]


@pytest.fixture
def suggestion(graph) -> MergeSuggestion:  # type: ignore[no-untyped-def]
    kept = EntityFactory(graph=graph, name="Auth Service Refactor")
    merged = EntityFactory(graph=graph, name="Auth Svc Refactor")
    return MergeSuggestion.objects.create(graph=graph, entity=merged, into=kept, score=91)


def test_accepting_a_suggestion_merges_through_the_service_and_journals_it(
    superuser_client: Client, suggestion: MergeSuggestion, admin_user
) -> None:
    response = superuser_client.post(admin_url(MergeSuggestion, "changelist"), {
        "action": "accept", "_selected_action": [suggestion.pk]})

    assert response.status_code == 302
    suggestion.refresh_from_db()
    assert suggestion.status == MergeSuggestion.Status.ACCEPTED
    assert suggestion.decided_by == admin_user
    record = MergeRecord.objects.get(suggestion=suggestion)
    assert record.performed_by == admin_user
    assert record.merged.merged_into == record.kept
    assert LogEntry.objects.filter(object_id=str(suggestion.pk)).exists()


def test_rejecting_a_suggestion_keeps_the_entities_apart(
    superuser_client: Client, suggestion: MergeSuggestion, admin_user
) -> None:
    superuser_client.post(admin_url(MergeSuggestion, "changelist"), {
        "action": "reject", "_selected_action": [suggestion.pk]})

    suggestion.refresh_from_db()
    assert suggestion.status == MergeSuggestion.Status.REJECTED
    assert suggestion.decided_by == admin_user
    assert not MergeRecord.objects.exists()
    assert suggestion.entity.merged_into is None


def test_a_merge_can_be_undone_from_its_journal(
    superuser_client: Client, suggestion: MergeSuggestion
) -> None:
    superuser_client.post(admin_url(MergeSuggestion, "changelist"), {
        "action": "accept", "_selected_action": [suggestion.pk]})
    record = MergeRecord.objects.get()

    superuser_client.post(admin_url(MergeRecord, "changelist"), {
        "action": "undo", "_selected_action": [record.pk]})

    record.refresh_from_db()
    assert record.undone_at is not None
    assert Entity.objects.get(pk=suggestion.entity_id).merged_into is None


def test_a_model_calls_admin_page_shows_the_messages_and_schema_it_sent(
    superuser_client: Client, graph, fake_openai,
) -> None:
    from memory.llm import complete_json

    fake_openai.reply_json({"answer": "42"})
    result = complete_json(
        graph=graph, purpose=LLMCall.Purpose.SUMMARY, prompt_version="test@1",
        messages=[{"role": "system", "content": "Answer <in> JSON."},
                  {"role": "user", "content": "What is the answer?"}],
        schema={"type": "object", "properties": {"answer": {"type": "string"}}},
        schema_name="test")

    page = superuser_client.get(admin_url(LLMCall, "change", result.call_id)).content.decode()

    assert "<h4>system</h4><pre>Answer &lt;in&gt; JSON.</pre>" in page
    assert "What is the answer?" in page
    assert "&quot;answer&quot;" in page
