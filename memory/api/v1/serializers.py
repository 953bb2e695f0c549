"""Input validators and output serializers of the native API. Output serializers only read
what the selectors prefetched (no query while rendering)."""

from __future__ import annotations

from typing import Any

from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

from memory.api import selectors as api_selectors
from memory.api.pagination import MAX_PAGE_SIZE
from memory.exports import root_blockers
from memory.importers import FORMATS
from memory.models import Entity, Episode, Fact, Graph, ImportRun, Observation, PipelineRun

# --- Errors and pages ------------------------------------------------------------------------


class ErrorBodySerializer(serializers.Serializer):
    code = serializers.CharField(help_text="Stable machine-readable code, e.g. `not_found`.")
    message = serializers.CharField(help_text="What went wrong, naming the field if any.")
    param = serializers.CharField(allow_null=True, help_text="The field or parameter at fault.")
    details = serializers.DictField(help_text="More about the error (e.g. every field's errors).")


class ErrorSerializer(serializers.Serializer):
    error = ErrorBodySerializer()


def page_of(item: type[serializers.Serializer], name: str) -> type[serializers.Serializer]:
    """A page envelope: ``{"items": [...], "next_cursor": "..." | null}``."""
    return type(name, (serializers.Serializer,), {
        "items": item(many=True),
        "next_cursor": serializers.CharField(
            allow_null=True, help_text="Pass as `cursor` for the next page; null on the last."),
        "__module__": __name__,
    })


class PageQuery(serializers.Serializer):
    cursor = serializers.CharField(required=False, help_text="From the previous page.")
    page_size = serializers.IntegerField(required=False, min_value=1, max_value=MAX_PAGE_SIZE,
                                         default=50)


# --- Graphs ----------------------------------------------------------------------------------


class ReadOnlyModelSerializer(serializers.ModelSerializer):
    """An output serializer: every field read-only, so the schema carries no database-dependent
    bounds (integer ranges differ between SQLite and PostgreSQL)."""

    def get_extra_kwargs(self) -> dict[str, Any]:
        extra = super().get_extra_kwargs()
        for name in self.Meta.fields:
            extra.setdefault(name, {})["read_only"] = True
        return extra


class GraphSerializer(ReadOnlyModelSerializer):
    role = serializers.CharField(
        allow_null=True, read_only=True,
        help_text="Your role: viewer, editor or owner; null for a superuser's audit access.")

    class Meta:
        model = Graph
        fields = ["uuid", "slug", "name", "kind", "description", "role", "created_at"]


class GraphCreateInput(serializers.Serializer):
    name = serializers.CharField(max_length=200)
    slug = serializers.SlugField(max_length=80, required=False,
                                 help_text="Made from the name when left out.")
    description = serializers.CharField(required=False, allow_blank=True, default="",
                                        max_length=10_000)


# --- Episodes --------------------------------------------------------------------------------


class EpisodeSerializer(ReadOnlyModelSerializer):
    url = serializers.CharField(read_only=True, help_text="Where it came from (a tracker item's "
                                                          "page); empty when not known.")
    author_role = serializers.CharField(
        read_only=True, help_text="`customer` or `agent` (the vendor's staff) when the source "
                                  "said which side the author speaks for; empty otherwise.")

    class Meta:
        model = Episode
        fields = ["uuid", "external_id", "author", "author_role", "source", "url", "type",
                  "content", "data", "reference_time", "ingested_at", "status", "error",
                  "processed_at", "extractor"]


class SuppliedEntityInput(serializers.Serializer):
    name = serializers.CharField()
    type = serializers.CharField(required=False)


class SuppliedFactInput(serializers.Serializer):
    # A field named like an attribute of Field or Serializer (source, data) is what the API
    # calls it; the serializer's metaclass takes declared fields off the class, so the
    # djangorestframework-stubs' complaint about the attribute's type does not apply.
    source = serializers.CharField()  # type: ignore[assignment]
    relation = serializers.CharField(help_text="An ontology relation, e.g. DEPENDS_ON.")
    target = serializers.CharField()
    fact = serializers.CharField(required=False, help_text="The sentence that says it.")
    valid_at = serializers.DateTimeField(required=False, allow_null=True)
    invalid_at = serializers.DateTimeField(required=False, allow_null=True)
    source_type = serializers.CharField(required=False)
    target_type = serializers.CharField(required=False)


class EpisodeInput(serializers.Serializer):
    """Documents the record format; validation is ``memory.ingestion``'s (field and reason)."""

    reference_time = serializers.DateTimeField(help_text="ISO 8601 with an offset.")
    external_id = serializers.CharField(required=False, max_length=255,
                                        help_text="Idempotency key within the graph.")
    author = serializers.CharField(required=False, max_length=200)
    type = serializers.ChoiceField(choices=Episode.Type.choices, required=False, default="text")
    content = serializers.CharField(required=False, help_text="Text (≤ 64 KB).")
    data = serializers.DictField(  # type: ignore[assignment]
        required=False, help_text="For json episodes.")
    source = serializers.CharField(required=False, max_length=100)  # type: ignore[assignment]
    url = serializers.CharField(required=False, max_length=500,
                                help_text="Its address in the tool it came from (http/https). A "
                                          "customer's message with the address of its ticket or "
                                          "thread belongs to that thread.")
    author_role = serializers.ChoiceField(
        choices=Episode.AuthorRole.choices, required=False,
        help_text="Which side of a support conversation the author speaks for: `customer`, or "
                  "`agent` (the vendor's staff: their message never makes them a customer who "
                  "reported the problem; what they say of the ticket is the vendor's word). "
                  "Left out: read as before. `role` is accepted as another name for it.")
    entities = SuppliedEntityInput(many=True, required=False)
    facts = SuppliedFactInput(many=True, required=False)
    read_text = serializers.BooleanField(
        required=False, help_text="With facts: read the content too (the rules or the model) "
                                  "and record its facts beside the given ones.")


class EpisodeAddedSerializer(serializers.Serializer):
    status = serializers.ChoiceField(choices=["stored", "duplicate"])
    episode = EpisodeSerializer()


class BulkInput(serializers.Serializer):
    episodes = EpisodeInput(many=True)


class BulkItemSerializer(serializers.Serializer):
    index = serializers.IntegerField(source="line")
    status = serializers.ChoiceField(choices=["stored", "duplicate", "rejected"])
    episode_uuid = serializers.UUIDField(allow_null=True, required=False)
    field = serializers.CharField(allow_null=True, required=False)
    reason = serializers.CharField(allow_null=True, required=False)


class BulkResultSerializer(serializers.Serializer):
    stored = serializers.IntegerField()
    duplicates = serializers.IntegerField()
    rejected = serializers.IntegerField()
    results = BulkItemSerializer(many=True)


class EpisodeQuery(PageQuery):
    status = serializers.ChoiceField(choices=Episode.Status.choices, required=False)
    author = serializers.CharField(required=False, max_length=200)


# --- Entities and facts ----------------------------------------------------------------------


class EntityRefSerializer(ReadOnlyModelSerializer):
    class Meta:
        model = Entity
        fields = ["uuid", "name", "type"]


class FactSerializer(ReadOnlyModelSerializer):
    fact = serializers.CharField(source="sentence")
    source = EntityRefSerializer()  # type: ignore[assignment]
    target = EntityRefSerializer()
    current = serializers.BooleanField(source="is_open",
                                       help_text="Neither ended in the world nor expired.")
    close_reason = serializers.ChoiceField(choices=Fact.CloseReason.choices, allow_blank=True,
                                           read_only=True, help_text="Empty while open.")
    episodes = serializers.SerializerMethodField()

    class Meta:
        model = Fact
        fields = ["uuid", "relation", "fact", "source", "target", "valid_at", "invalid_at",
                  "created_at", "expired_at", "current", "close_reason", "extractor", "episodes"]

    @extend_schema_field(serializers.ListField(child=serializers.UUIDField()))
    def get_episodes(self, fact: Fact) -> list[str]:
        return [str(e.episode.uuid) for e in fact.evidence.all()]


class FactQuery(PageQuery):
    as_of = serializers.DateTimeField(required=False,
                                      help_text="What held in the world at this time.")
    known_at = serializers.DateTimeField(required=False,
                                         help_text="What the system believed at this time.")
    include_ended = serializers.BooleanField(required=False, default=False,
                                             help_text="Every fact, ended and expired ones too.")
    relation = serializers.CharField(required=False, max_length=40)
    entity = serializers.UUIDField(required=False, help_text="Facts touching this entity.")


class EntitySerializer(ReadOnlyModelSerializer):
    aliases = serializers.SerializerMethodField()

    class Meta:
        model = Entity
        fields = ["uuid", "name", "type", "summary", "aliases", "created_at"]

    @extend_schema_field(serializers.ListField(child=serializers.CharField()))
    def get_aliases(self, entity: Entity) -> list[str]:
        return [alias.name for alias in entity.aliases.all()]


class EntityDetailSerializer(EntitySerializer):
    current_facts = FactSerializer(many=True)
    ended_facts = FactSerializer(many=True)

    class Meta(EntitySerializer.Meta):
        fields = [*EntitySerializer.Meta.fields, "current_facts", "ended_facts"]


class EntityQuery(PageQuery):
    type = serializers.CharField(required=False, max_length=40)


# --- Observations ----------------------------------------------------------------------------


class RootBlockerSerializer(serializers.Serializer):
    entity = serializers.CharField()
    owner = serializers.CharField(allow_null=True)
    reach_people = serializers.IntegerField()
    reach_work_items = serializers.IntegerField()


class ObservationSerializer(ReadOnlyModelSerializer):
    retired_reason = serializers.ChoiceField(choices=Observation.RetiredReason.choices,
                                             allow_blank=True, read_only=True,
                                             help_text="Empty while active.")
    root_blockers = serializers.SerializerMethodField()
    episodes = serializers.SerializerMethodField()

    class Meta:
        model = Observation
        fields = ["uuid", "lineage", "version", "status", "kind", "name", "summary",
                  "generator", "root_blockers", "window_start", "window_end", "episode_count",
                  "fact_count", "people_count", "reach_people", "reach_work_items", "episodes",
                  "created_at", "retired_at", "retired_reason"]

    @extend_schema_field(RootBlockerSerializer(many=True))
    def get_root_blockers(self, observation: Observation) -> list[dict[str, Any]]:
        return root_blockers(observation)

    @extend_schema_field(serializers.ListField(child=serializers.UUIDField()))
    def get_episodes(self, observation: Observation) -> list[str]:
        return [str(e.uuid) for e in observation.episodes.all()]


class ObservationQuery(PageQuery):
    status = serializers.ChoiceField(choices=["active", "retired", "all"], default="active",
                                     required=False)
    kind = serializers.ChoiceField(choices=Observation.Kind.choices, required=False)
    entity = serializers.UUIDField(required=False, help_text="Observations involving it.")
    q = serializers.CharField(required=False, max_length=200,
                              help_text="Words in the name or summary.")
    since = serializers.DateTimeField(required=False, help_text="New or updated since.")
    sort = serializers.ChoiceField(choices=["latest", "newest", "reach"], default="latest",
                                   required=False)


class RetiredQuery(PageQuery):
    kind = serializers.ChoiceField(choices=Observation.Kind.choices, required=False)


class EpisodeRefSerializer(ReadOnlyModelSerializer):
    class Meta:
        model = Episode
        fields = ["uuid", "external_id", "author", "reference_time", "content"]


class CitedFactSerializer(FactSerializer):
    episodes = serializers.SerializerMethodField()

    class Meta(FactSerializer.Meta):
        fields = [f for f in FactSerializer.Meta.fields if f != "episodes"] + ["episodes"]

    @extend_schema_field(EpisodeRefSerializer(many=True))
    def get_episodes(self, fact: Fact) -> list[dict[str, Any]]:  # type: ignore[override]
        return [
            {**EpisodeRefSerializer(e.episode).data, "sentence": e.sentence}
            for e in fact.evidence.all()
        ]


class ClaimSerializer(serializers.Serializer):
    position = serializers.IntegerField()
    text = serializers.CharField()
    facts = CitedFactSerializer(many=True, source="facts.all")


class VersionSerializer(ReadOnlyModelSerializer):
    retired_reason = serializers.ChoiceField(choices=Observation.RetiredReason.choices,
                                             allow_blank=True, read_only=True)

    class Meta:
        model = Observation
        fields = ["uuid", "version", "status", "created_at", "retired_at", "retired_reason"]


class LineageSerializer(serializers.Serializer):
    lineage = serializers.UUIDField()
    versions = VersionSerializer(many=True)
    predecessors = serializers.ListField(child=serializers.UUIDField())
    successors = serializers.ListField(child=serializers.UUIDField())


class ObservationDetailSerializer(ObservationSerializer):
    claims = ClaimSerializer(many=True, source="claims.all")
    episodes = EpisodeRefSerializer(many=True, source="episodes.all")  # type: ignore[assignment]
    entities = EntityRefSerializer(many=True, source="entities.all")
    structure = serializers.SerializerMethodField()
    retirement = serializers.SerializerMethodField()
    history = serializers.SerializerMethodField()
    run = serializers.UUIDField(source="created_by_run.uuid")

    class Meta(ObservationSerializer.Meta):
        fields = [*ObservationSerializer.Meta.fields, "claims", "entities", "structure",
                  "retirement", "history", "prompt_version", "tokens", "run"]

    @extend_schema_field(serializers.DictField())
    def get_structure(self, observation: Observation) -> dict[str, Any]:
        return api_selectors.structure_with_uuids(observation)

    @extend_schema_field(serializers.DictField())
    def get_retirement(self, observation: Observation) -> dict[str, Any]:
        return api_selectors.retirement_with_uuids(observation)

    @extend_schema_field(LineageSerializer)
    def get_history(self, observation: Observation) -> dict[str, Any]:
        versions = api_selectors.lineage_versions(observation)
        return LineageSerializer({
            "lineage": observation.lineage,
            "versions": versions,
            "predecessors": [o.uuid for o in observation.predecessors.all()],
            "successors": [o.uuid for o in observation.successors.all()],
        }).data


# --- Runs and search -------------------------------------------------------------------------


class RunSerializer(ReadOnlyModelSerializer):
    percent = serializers.SerializerMethodField()

    class Meta:
        model = PipelineRun
        fields = ["uuid", "status", "trigger", "stage", "percent", "progress", "counts",
                  "timings", "error", "llm_calls", "tokens_in", "tokens_out", "created_at",
                  "started_at", "finished_at", "published_at"]

    def get_percent(self, run: PipelineRun) -> int:
        if run.status == PipelineRun.Status.SUCCEEDED:
            return 100
        return int((run.progress or {}).get("percent", 0))


class ImportInput(serializers.Serializer):
    format = serializers.ChoiceField(choices=sorted(FORMATS),
                                     help_text="The export's format.")
    file = serializers.FileField(help_text="The export file (JSON, JSON Lines or CSV).")
    since = serializers.DateTimeField(
        required=False, help_text="Only changes from this time on (ISO 8601 with an offset).")
    base_url = serializers.URLField(
        required=False, help_text="The tracker's address, for links back to each item when "
                                  "the export does not say it (Bugzilla, a Jira CSV, Linear).")
    timezone = serializers.CharField(
        required=False, max_length=64,
        help_text="The IANA zone of times written without an offset (a Jira CSV: the exporting "
                  "user's zone); UTC by default.")
    mapping = serializers.CharField(
        required=False, max_length=2000,
        help_text="`csv`: which column is which field (`reference_time=Created,"
                  "content=Description,customer=Organization,status=Status,...`); `zendesk`: "
                  "which fields name the issue, product and plan (`issue=custom_field:27642,"
                  "plan=organization_field:plan`). Without it, the mapping the graph last "
                  "imported this format with.")
    encoding = serializers.CharField(
        required=False, max_length=40,
        help_text="`csv`: the file's encoding when it is not UTF-8 (`latin-1`, `cp1252`...).")


class ImportProblemSerializer(serializers.Serializer):
    position = serializers.CharField()
    item = serializers.CharField(allow_blank=True)
    reason = serializers.CharField()


class ImportRunSerializer(ReadOnlyModelSerializer):
    percent = serializers.IntegerField(read_only=True)
    problems = ImportProblemSerializer(many=True, read_only=True)

    class Meta:
        model = ImportRun
        fields = ["uuid", "format", "filename", "since", "status", "percent", "items",
                  "episodes", "processed", "stored", "duplicates", "rejected", "problems",
                  "error", "created_at", "started_at", "finished_at"]


class SearchQuerySerializer(PageQuery):
    q = serializers.CharField(max_length=500, help_text="Words; quotes, `or` and `-word` work "
                                                        "on PostgreSQL.")
    types = serializers.MultipleChoiceField(
        choices=["observation", "fact", "episode", "entity"], required=False,
        help_text="Kinds to search (repeat the parameter); all by default.")
    page_size = serializers.IntegerField(required=False, min_value=1, max_value=MAX_PAGE_SIZE,
                                         default=20)


class SearchHitSerializer(serializers.Serializer):
    kind = serializers.ChoiceField(choices=["observation", "fact", "episode", "entity"])
    score = serializers.FloatField()
    uuid = serializers.UUIDField()
    title = serializers.CharField()
    text = serializers.CharField(allow_blank=True)


GraphPage = page_of(GraphSerializer, "GraphPage")
EpisodePage = page_of(EpisodeSerializer, "EpisodePage")
FactPage = page_of(FactSerializer, "FactPage")
EntityPage = page_of(EntitySerializer, "EntityPage")
ObservationPage = page_of(ObservationSerializer, "ObservationPage")
RunPage = page_of(RunSerializer, "RunPage")
SearchPage = page_of(SearchHitSerializer, "SearchPage")
