"""The admin audit (DESIGN §1, use 3): for any observation, the episodes and facts it was built
from, the settings and model that wrote it, and its history.

Evidence is read-only here for everyone, superusers included: episodes are immutable, facts are
closed by time rules, observations are written only by pipeline runs (DESIGN §5). The admin can
view them, never add, change or delete them. Merge suggestions are decided through
``memory.merges`` — the same service the pages and the API use — and each decision is journaled
(a ``MergeRecord`` for an accepted merge, the admin's history for every action).
"""

from __future__ import annotations

import json
import re
from typing import Any

from django.contrib import admin, messages
from django.contrib.auth.models import User
from django.db.models import QuerySet
from django.http import HttpRequest
from django.urls import reverse
from django.utils.html import format_html, format_html_join
from django.utils.safestring import SafeString

from memory import merges
from memory.models import (
    Claim,
    Entity,
    Episode,
    Fact,
    FactEvidence,
    Graph,
    LLMCall,
    Membership,
    MergeRecord,
    MergeSuggestion,
    ModelEndpoint,
    Observation,
    PipelineRun,
)


class ReadOnlyAdmin(admin.ModelAdmin):
    """View only, for everyone: the audit trail is not editable by hand."""

    def has_add_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    def has_delete_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False


class ReadOnlyInline(admin.TabularInline):
    extra = 0
    can_delete = False
    show_change_link = True

    def has_add_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    def has_delete_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False


def admin_link(obj: Any, text: Any = None) -> SafeString:
    meta = obj._meta
    url = reverse(f"admin:{meta.app_label}_{meta.model_name}_change", args=[obj.pk])
    return format_html('<a href="{}">{}</a>', url, text if text is not None else obj)


def _user_of(request: HttpRequest) -> User | None:
    """Who decided: the admin is only open to staff who logged in."""
    return request.user if request.user.is_authenticated else None


def pretty_json(value: Any) -> SafeString:
    text = json.dumps(value, indent=2, sort_keys=True, default=str)
    # Lists of ids on one line each: a structure is mostly id lists.
    text = re.sub(r"\[\s+([-\d.,\s]+?)\s+\]", lambda m: "[" + " ".join(m[1].split()) + "]", text)
    return format_html("<pre>{}</pre>", text)


# --- Graphs and members (editable: this is where owners are set up) ----------------------------


class MembershipInline(admin.TabularInline):
    model = Membership
    extra = 1
    autocomplete_fields = ["user"]


@admin.register(Graph)
class GraphAdmin(admin.ModelAdmin):
    list_display = ["name", "slug", "kind", "created_at"]
    search_fields = ["name", "slug"]
    prepopulated_fields = {"slug": ["name"]}
    readonly_fields = ["uuid", "data_version", "created_at"]
    inlines = [MembershipInline]


# --- Evidence ----------------------------------------------------------------------------------


class EvidenceOfEpisodeInline(ReadOnlyInline):
    model = FactEvidence
    fk_name = "episode"
    fields = readonly_fields = ("fact_link", "sentence", "extractor", "created_at")
    verbose_name = "fact it supports"
    verbose_name_plural = "facts it supports"

    @admin.display(description="fact")
    def fact_link(self, row: FactEvidence) -> SafeString:
        return admin_link(row.fact)


@admin.register(Episode)
class EpisodeAdmin(ReadOnlyAdmin):
    list_display = ["__str__", "graph", "source", "type", "status", "reference_time", "ingested_at"]
    list_filter = ["graph", "status", "type", "source"]
    search_fields = ["content", "author", "external_id"]
    date_hierarchy = "reference_time"
    list_select_related = ["graph"]
    inlines = [EvidenceOfEpisodeInline]


class EvidenceOfFactInline(ReadOnlyInline):
    model = FactEvidence
    fk_name = "fact"
    fields = readonly_fields = ("episode_link", "sentence", "extractor", "created_at")
    verbose_name = "supporting episode"
    verbose_name_plural = "supporting episodes"

    @admin.display(description="episode")
    def episode_link(self, row: FactEvidence) -> SafeString:
        return admin_link(row.episode)


@admin.register(Fact)
class FactAdmin(ReadOnlyAdmin):
    list_display = ["__str__", "graph", "relation", "valid_at", "invalid_at", "expired_at",
                    "close_reason"]
    list_filter = ["graph", "relation", "close_reason"]
    search_fields = ["sentence", "source__name", "target__name"]
    list_select_related = ["graph", "source", "target"]
    inlines = [EvidenceOfFactInline]


@admin.register(Entity)
class EntityAdmin(ReadOnlyAdmin):
    list_display = ["name", "type", "graph", "merged_into", "created_at"]
    list_filter = ["graph", "type"]
    search_fields = ["name", "normalized_name", "aliases__name"]
    list_select_related = ["graph", "merged_into"]


# --- Observations: claims → facts → episodes ---------------------------------------------------


class ClaimInline(ReadOnlyInline):
    model = Claim
    fields = readonly_fields = ("position", "text", "evidence")
    show_change_link = False

    def get_queryset(self, request: HttpRequest) -> QuerySet[Claim]:
        return super().get_queryset(request).prefetch_related(
            "facts__source", "facts__target", "facts__evidence__episode"
        )

    @admin.display(description="facts → episodes")
    def evidence(self, claim: Claim) -> SafeString:
        rows = []
        for fact in claim.facts.all():
            episodes = format_html_join(
                ", ", "{}", ((admin_link(e.episode),) for e in fact.evidence.all())
            )
            rows.append(format_html("<li>{} ← {}</li>", admin_link(fact), episodes))
        return format_html("<ul>{}</ul>", format_html_join("", "{}", ((r,) for r in rows)))


@admin.register(Observation)
class ObservationAdmin(ReadOnlyAdmin):
    list_display = ["name", "graph", "kind", "status", "version", "generator", "created_at",
                    "retired_reason"]
    list_filter = ["graph", "status", "kind", "retired_reason", "generator"]
    search_fields = ["name", "summary", "uuid", "lineage"]
    list_select_related = ["graph"]
    date_hierarchy = "created_at"
    inlines = [ClaimInline]
    readonly_fields = ["dashboard_link", "structure_json", "retirement_json", "lineage_links"]
    fieldsets = [
        (None, {"fields": ["name", "summary", "dashboard_link", "graph", "kind", "status",
                           "uuid", "lineage", "version", "lineage_links"]}),
        ("Evidence", {"fields": ["window_start", "window_end", "episode_count", "fact_count",
                                 "people_count", "reach_people", "reach_work_items",
                                 "evidence_fingerprint"]}),
        ("How it was written", {"fields": ["generator", "prompt_version", "llm_call", "tokens",
                                           "created_by_run", "created_at"]}),
        ("Retirement", {"fields": ["retired_at", "retired_by_run", "retired_reason",
                                   "retirement_json"]}),
        ("Structure", {"fields": ["structure_json"], "classes": ["collapse"]}),
    ]

    @admin.display(description="open in the dashboard")
    def dashboard_link(self, observation: Observation) -> SafeString:
        url = reverse("observation", args=[observation.graph.slug, observation.uuid])
        return format_html('<a href="{}">{}</a>', url, url)

    @admin.display(description="structure")
    def structure_json(self, observation: Observation) -> SafeString:
        return pretty_json(observation.structure)

    @admin.display(description="retirement")
    def retirement_json(self, observation: Observation) -> SafeString:
        return pretty_json(observation.retirement)

    @admin.display(description="lineage")
    def lineage_links(self, observation: Observation) -> SafeString:
        versions = Observation.objects.filter(lineage=observation.lineage).order_by("version")
        return format_html_join(
            " → ", "{}", ((admin_link(v, f"v{v.version} ({v.status})"),) for v in versions)
        )


@admin.register(PipelineRun)
class PipelineRunAdmin(ReadOnlyAdmin):
    list_display = ["uuid", "graph", "status", "trigger", "created_at", "finished_at", "llm_calls",
                    "tokens_in", "tokens_out"]
    list_filter = ["graph", "status", "trigger"]
    list_select_related = ["graph"]
    date_hierarchy = "created_at"
    readonly_fields = ["settings_json", "counts_json", "timings_json", "audit_json"]
    fieldsets = [
        (None, {"fields": ["uuid", "graph", "status", "trigger", "as_of", "stage", "error",
                           "requested_by", "data_version"]}),
        ("Times", {"fields": ["created_at", "started_at", "heartbeat_at", "finished_at",
                              "published_at"]}),
        ("Model use", {"fields": ["llm_calls", "llm_cached", "tokens_in", "tokens_out"]}),
        ("Settings and outcome", {"fields": ["settings_json", "counts_json", "timings_json"]}),
        ("Clustering audit", {"fields": ["audit_json"], "classes": ["collapse"]}),
    ]

    @admin.display(description="settings")
    def settings_json(self, run: PipelineRun) -> SafeString:
        return pretty_json(run.settings)

    @admin.display(description="counts")
    def counts_json(self, run: PipelineRun) -> SafeString:
        return pretty_json(run.counts)

    @admin.display(description="timings (s)")
    def timings_json(self, run: PipelineRun) -> SafeString:
        return pretty_json(run.timings)

    @admin.display(description="clustering audit and decisions")
    def audit_json(self, run: PipelineRun) -> SafeString:
        return pretty_json(run.audit)


@admin.register(LLMCall)
class LLMCallAdmin(ReadOnlyAdmin):
    list_display = ["created_at", "graph", "purpose", "model", "prompt_version", "outcome",
                    "tokens_in", "tokens_out", "latency_ms"]
    list_filter = ["graph", "purpose", "outcome", "model"]
    list_select_related = ["graph"]
    date_hierarchy = "created_at"
    readonly_fields = ["messages_sent", "schema_sent"]

    @admin.display(description="messages sent (each text stored once, read back by its hash)")
    def messages_sent(self, call: LLMCall) -> SafeString:
        return format_html_join(
            "", "<h4>{}</h4><pre>{}</pre>",
            ((message["role"], message["content"]) for message in call.messages()),
        )

    @admin.display(description="JSON schema")
    def schema_sent(self, call: LLMCall) -> SafeString:
        text = call.schema_text()
        return pretty_json(json.loads(text)) if text else format_html("<p>{}</p>", "—")


@admin.register(ModelEndpoint)
class ModelEndpointAdmin(ReadOnlyAdmin):
    """What each configured model server was found to accept (found out by the calls)."""

    list_display = ["model", "base_url", "response_format", "usable", "checked_at"]


# --- Merges: decided through memory.merges, journaled ------------------------------------------


@admin.register(MergeSuggestion)
class MergeSuggestionAdmin(ReadOnlyAdmin):
    list_display = ["entity", "into", "score", "status", "graph", "created_at", "decided_by"]
    list_filter = ["graph", "status"]
    list_select_related = ["graph", "entity", "into", "decided_by"]
    actions = ["accept", "reject"]

    def has_decide_permission(self, request: HttpRequest) -> bool:
        return request.user.has_perm("memory.change_mergesuggestion")

    @admin.action(description="Accept: merge the entities", permissions=["decide"])
    def accept(self, request: HttpRequest, queryset: QuerySet[MergeSuggestion]) -> None:
        for suggestion in queryset.select_related("entity", "into"):
            try:
                record = merges.accept_suggestion(suggestion, user=_user_of(request))
            except merges.MergeError as error:
                self.message_user(request, f"{suggestion}: {error}", messages.WARNING)
                continue
            self.log_change(request, suggestion, f"Accepted; merge record {record.pk}")
            self.message_user(request, f"Merged {record.merged} into {record.kept}.")

    @admin.action(description="Reject: keep them apart", permissions=["decide"])
    def reject(self, request: HttpRequest, queryset: QuerySet[MergeSuggestion]) -> None:
        for suggestion in queryset:
            try:
                merges.reject_suggestion(suggestion, user=_user_of(request))
            except merges.MergeError as error:
                self.message_user(request, f"{suggestion}: {error}", messages.WARNING)
                continue
            self.log_change(request, suggestion, "Rejected")
            self.message_user(request, f"Rejected {suggestion}.")


@admin.register(MergeRecord)
class MergeRecordAdmin(ReadOnlyAdmin):
    list_display = ["merged", "kept", "automatic", "score", "performed_by", "created_at",
                    "undone_at"]
    list_filter = ["graph", "automatic"]
    list_select_related = ["graph", "merged", "kept", "performed_by"]
    actions = ["undo"]

    def has_decide_permission(self, request: HttpRequest) -> bool:
        return request.user.has_perm("memory.change_mergerecord")

    @admin.action(description="Undo these merges", permissions=["decide"])
    def undo(self, request: HttpRequest, queryset: QuerySet[MergeRecord]) -> None:
        for record in queryset:
            try:
                merges.undo_merge(record, user=_user_of(request))
            except merges.MergeError as error:
                self.message_user(request, f"{record}: {error}", messages.WARNING)
                continue
            self.log_change(request, record, "Undone")
            self.message_user(request, f"Undid the merge of {record.merged} into {record.kept}.")
