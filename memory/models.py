"""The memory of a graph: episodes in, entities and bi-temporal facts extracted from them, and the
observations the pipeline derives. Every row belongs to exactly one graph (DESIGN §2).

Nothing here is ever deleted by the pipeline: episodes are immutable, facts are closed
(``invalid_at`` / ``expired_at``), observations are retired.
"""

from __future__ import annotations

import uuid
from typing import TYPE_CHECKING

from django.conf import settings
from django.db import models
from django.db.models import F, Q
from django.utils import timezone

if TYPE_CHECKING:
    from django.contrib.auth.models import User

USER_MODEL = settings.AUTH_USER_MODEL


class Graph(models.Model):
    """A scope of memory: a project, a team, a support queue (shared) or one person (user)."""

    class Kind(models.TextChoices):
        SHARED = "shared", "Shared"
        USER = "user", "User"

    uuid = models.UUIDField(default=uuid.uuid4, unique=True, editable=False)
    slug = models.SlugField(max_length=80, unique=True)
    name = models.CharField(max_length=200)
    kind = models.CharField(max_length=10, choices=Kind.choices, default=Kind.SHARED)
    description = models.TextField(blank=True)
    settings = models.JSONField(default=dict, blank=True)
    """Overrides of ``memory.graph_settings.defaults()`` (clustering thresholds, window, debounce,
    the stalled threshold)."""
    ontology = models.JSONField(default=dict, blank=True)
    """Overrides of the default ontology (see ``memory.ontology``)."""
    data_version = models.PositiveBigIntegerField(default=0)
    """Bumped whenever the graph's facts change; a run records the version it clustered."""
    created_at = models.DateTimeField(default=timezone.now)
    members: models.ManyToManyField[User, Membership] = models.ManyToManyField(
        USER_MODEL, through="Membership", related_name="graphs"
    )

    class Meta:
        ordering = ["name"]

    def __str__(self) -> str:
        return self.slug


class Membership(models.Model):
    class Role(models.TextChoices):
        VIEWER = "viewer", "Viewer"
        EDITOR = "editor", "Editor"
        OWNER = "owner", "Owner"

    graph = models.ForeignKey(Graph, on_delete=models.CASCADE, related_name="memberships")
    user = models.ForeignKey(
        USER_MODEL, on_delete=models.CASCADE, related_name="memberships"
    )
    role = models.CharField(max_length=10, choices=Role.choices, default=Role.VIEWER)
    created_at = models.DateTimeField(default=timezone.now)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["graph", "user"], name="membership_one_per_user_graph"),
        ]

    def __str__(self) -> str:
        return f"{self.user} {self.role} of {self.graph}"

    @property
    def can_edit(self) -> bool:
        return self.role in {self.Role.EDITOR, self.Role.OWNER}


class Episode(models.Model):
    """One raw input: a text update, a chat message or a JSON payload. Immutable once stored;
    only its processing state changes."""

    class Type(models.TextChoices):
        TEXT = "text", "Text"
        MESSAGE = "message", "Message"
        JSON = "json", "JSON"

    class Status(models.TextChoices):
        PENDING = "pending", "Pending"
        PROCESSING = "processing", "Processing"
        PROCESSED = "processed", "Processed"
        FAILED = "failed", "Failed"

    class AuthorRole(models.TextChoices):
        CUSTOMER = "customer", "Customer"
        AGENT = "agent", "Agent (the vendor's staff)"

    uuid = models.UUIDField(default=uuid.uuid4, unique=True, editable=False)
    graph = models.ForeignKey(Graph, on_delete=models.CASCADE, related_name="episodes")
    external_id = models.CharField(max_length=255, null=True, blank=True)
    """The sender's idempotency key: the same (graph, external_id) is never stored twice."""
    author = models.CharField(max_length=200, blank=True)
    author_entity = models.ForeignKey(
        "Entity", null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    source = models.CharField(max_length=100, blank=True)
    url = models.URLField(max_length=500, blank=True, default="", db_default="")
    """Where it lives in the tool it came from (a tracker item's page): every page links back."""
    author_role = models.CharField(max_length=10, choices=AuthorRole.choices, blank=True,
                                   default="", db_default="")
    """Which side of a support conversation the author speaks for, when the source says
    (``customer``, ``agent``); empty when it does not (read as today). An agent's message is the
    vendor's voice: it never makes its author a customer who reported the problem."""
    type = models.CharField(max_length=10, choices=Type.choices, default=Type.TEXT)
    content = models.TextField(blank=True)
    data = models.JSONField(null=True, blank=True)
    supplied = models.JSONField(null=True, blank=True)
    """Entities and facts given with the episode (input of the structured extractor)."""
    reference_time = models.DateTimeField()
    """When it was said (world time)."""
    ingested_at = models.DateTimeField(default=timezone.now)
    """When the system received it (system time)."""
    content_hash = models.CharField(max_length=64, blank=True)
    status = models.CharField(max_length=12, choices=Status.choices, default=Status.PENDING)
    attempts = models.PositiveSmallIntegerField(default=0)
    error = models.TextField(blank=True)
    processing_started_at = models.DateTimeField(null=True, blank=True)
    processed_at = models.DateTimeField(null=True, blank=True)
    extractor = models.CharField(max_length=80, blank=True)
    extraction_note = models.CharField(max_length=200, blank=True, default="", db_default="")
    """Why its extractor found no facts at all, when it said ("not understood by the rules
    extractor", "language not supported"); empty otherwise."""
    awaits_model = models.BooleanField(default=False, db_default=False)
    """Its facts are the rules' reading, published at once; the model reads it later with
    others of its graph and its reading replaces the rules' (``memory.processing.revision``)."""

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["graph", "external_id"],
                condition=Q(external_id__isnull=False),
                name="episode_unique_external_id_per_graph",
            ),
            # Without an external id, the same record is the same episode: the database keeps
            # concurrent requests from storing it twice (the ingestion's look-up cannot).
            models.UniqueConstraint(
                fields=["graph", "content_hash"],
                condition=Q(external_id__isnull=True) & ~Q(content_hash=""),
                name="episode_unique_content_per_graph",
            ),
        ]
        indexes = [
            # Episodes of a graph in time order (episode lists, timelines, weekly review).
            models.Index(fields=["graph", "reference_time"], name="episode_graph_time"),
            # Idempotent ingestion of records that carry no external_id.
            models.Index(fields=["graph", "content_hash"], name="episode_content_hash"),
            # The sweep: episodes still waiting for (or stuck in) processing.
            models.Index(
                fields=["status", "ingested_at"],
                condition=~Q(status="processed"),
                name="episode_unfinished",
            ),
            # Updates whose rules reading waits for the model's (memory.processing.model_queue).
            models.Index(
                fields=["graph", "ingested_at"],
                condition=Q(awaits_model=True),
                name="episode_awaits_model",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.author or 'episode'} @ {self.reference_time:%Y-%m-%d %H:%M}"

    @property
    def label(self) -> str:
        """How exports and the API name an episode: its external id, else its uuid."""
        return self.external_id or str(self.uuid)

    @property
    def text(self) -> str:
        return self.content if self.type != self.Type.JSON else ""


class Entity(models.Model):
    """A noun of the graph: person, team, work item, service, customer, product, issue..."""

    uuid = models.UUIDField(default=uuid.uuid4, unique=True, editable=False)
    graph = models.ForeignKey(Graph, on_delete=models.CASCADE, related_name="entities")
    name = models.CharField(max_length=300)
    normalized_name = models.CharField(max_length=300)
    type = models.CharField(max_length=40)
    summary = models.TextField(blank=True)
    summary_fingerprint = models.CharField(max_length=64, blank=True)
    summary_generator = models.CharField(max_length=80, blank=True)
    # A database default too: bulk loads (``memory.publishing.insert_values``) name only the
    # columns they fill.
    summary_fallback = models.CharField(max_length=200, blank=True, default="", db_default="")
    """Why the template stands in for the model's summary ("model failed: timeout"); empty when
    the summary is the intended writer's. A stand-in is pending: the next view or the sweep asks
    the model again."""
    merged_into = models.ForeignKey(
        "self", null=True, blank=True, on_delete=models.PROTECT, related_name="merged_entities"
    )
    """Set while this entity is merged into another (journaled in MergeRecord, reversible)."""
    created_at = models.DateTimeField(default=timezone.now)

    class Meta:
        verbose_name_plural = "entities"
        constraints = [
            models.UniqueConstraint(
                fields=["graph", "normalized_name"],
                condition=Q(merged_into__isnull=True),
                name="entity_unique_name_per_graph",
            ),
        ]
        indexes = [
            models.Index(fields=["graph", "type"], name="entity_graph_type"),
            # Summaries the template wrote because the model failed (the sweep retries them).
            models.Index(fields=["graph"], condition=~Q(summary_fallback=""),
                         name="entity_summary_pending"),
        ]

    def __str__(self) -> str:
        return self.name


class Alias(models.Model):
    """Another name an entity is known by (a merged entity's name, a spelling variant)."""

    graph = models.ForeignKey(Graph, on_delete=models.CASCADE, related_name="aliases")
    entity = models.ForeignKey(Entity, on_delete=models.CASCADE, related_name="aliases")
    name = models.CharField(max_length=300)
    normalized_name = models.CharField(max_length=300)
    created_at = models.DateTimeField(default=timezone.now)

    class Meta:
        verbose_name_plural = "aliases"
        constraints = [
            models.UniqueConstraint(
                fields=["graph", "normalized_name"], name="alias_unique_name_per_graph"
            ),
        ]

    def __str__(self) -> str:
        return self.name


class Fact(models.Model):
    """A claim on an edge, ``source —relation→ target``, with two time axes:

    * ``valid_at`` / ``invalid_at``: when it became / stopped being true in the world;
    * ``created_at`` / ``expired_at``: when the system learned it / stopped believing it.

    A fact is closed, never deleted; closing records what closed it.
    """

    class CloseReason(models.TextChoices):
        SINGLE_VALUED = "single_valued", "Replaced (single-valued relation)"
        RESOLUTION = "resolution", "Resolution rule"
        EXPLICIT = "explicit", "Explicitly ended"
        GIVEN = "given", "End given with the fact"
        REVISED = "revised", "Revised (a backfill showed it began earlier)"
        REREAD = "reread", "Withdrawn (the model read the update otherwise than the rules)"

    uuid = models.UUIDField(default=uuid.uuid4, unique=True, editable=False)
    graph = models.ForeignKey(Graph, on_delete=models.CASCADE, related_name="facts")
    source = models.ForeignKey(Entity, on_delete=models.PROTECT, related_name="facts_out")
    relation = models.CharField(max_length=40)
    target = models.ForeignKey(Entity, on_delete=models.PROTECT, related_name="facts_in")
    sentence = models.TextField()
    valid_at = models.DateTimeField()
    invalid_at = models.DateTimeField(null=True, blank=True)
    created_at = models.DateTimeField()
    expired_at = models.DateTimeField(null=True, blank=True)
    close_reason = models.CharField(max_length=20, choices=CloseReason.choices, blank=True)
    closed_by_fact = models.ForeignKey(
        "self", null=True, blank=True, on_delete=models.PROTECT, related_name="closed_facts"
    )
    closed_by_episode = models.ForeignKey(
        Episode, null=True, blank=True, on_delete=models.PROTECT, related_name="closed_facts"
    )
    extractor = models.CharField(max_length=80)
    episodes = models.ManyToManyField(Episode, through="FactEvidence", related_name="facts")

    class Meta:
        constraints = [
            models.CheckConstraint(condition=~Q(source=F("target")), name="fact_no_self_loop"),
            models.CheckConstraint(
                condition=Q(invalid_at__isnull=True) | Q(invalid_at__gte=F("valid_at")),
                name="fact_invalid_after_valid",
            ),
        ]
        indexes = [
            # Facts by signature; its (graph, source, relation) prefix serves the single-valued
            # supersession look-up.
            models.Index(fields=["graph", "source", "relation", "target"], name="fact_signature"),
            # Target-mode links and resolution rules ("what DEPENDS_ON this work item?").
            models.Index(fields=["graph", "relation", "target"], name="fact_relation_target"),
            # Current facts of a graph: open in both time axes.
            models.Index(
                fields=["graph", "valid_at"],
                condition=Q(invalid_at__isnull=True, expired_at__isnull=True),
                name="fact_open_by_graph",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.source} {self.relation} {self.target}"

    @property
    def is_open(self) -> bool:
        return self.invalid_at is None and self.expired_at is None


class FactEvidence(models.Model):
    """An episode supporting a fact, with the sentence of that episode that says it."""

    fact = models.ForeignKey(Fact, on_delete=models.CASCADE, related_name="evidence")
    episode = models.ForeignKey(Episode, on_delete=models.PROTECT, related_name="evidence")
    sentence = models.TextField()
    extractor = models.CharField(max_length=80)
    created_at = models.DateTimeField()

    class Meta:
        verbose_name_plural = "fact evidence"
        constraints = [
            models.UniqueConstraint(
                fields=["fact", "episode"], name="evidence_one_per_fact_episode"
            ),
        ]

    def __str__(self) -> str:
        return f"{self.episode} supports {self.fact}"


class MergeSuggestion(models.Model):
    """Two entities that are probably the same, waiting for a person to decide."""

    class Status(models.TextChoices):
        OPEN = "open", "Open"
        ACCEPTED = "accepted", "Accepted"
        REJECTED = "rejected", "Rejected"

    graph = models.ForeignKey(Graph, on_delete=models.CASCADE, related_name="merge_suggestions")
    entity = models.ForeignKey(Entity, on_delete=models.CASCADE, related_name="+")
    """The newer entity, which would be merged away."""
    into = models.ForeignKey(Entity, on_delete=models.CASCADE, related_name="+")
    """The existing entity it would be merged into."""
    score = models.FloatField()
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.OPEN)
    created_at = models.DateTimeField(default=timezone.now)
    decided_at = models.DateTimeField(null=True, blank=True)
    decided_by = models.ForeignKey(
        USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["graph", "entity", "into"], name="merge_suggestion_once_per_pair"
            ),
        ]
        indexes = [
            models.Index(
                fields=["graph", "created_at"],
                condition=Q(status="open"),
                name="merge_suggestion_open",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.entity} → {self.into} ({self.score:.0f})"


class MergeRecord(models.Model):
    """The merge journal: what a merge moved, so that undoing it restores every fact and alias."""

    graph = models.ForeignKey(Graph, on_delete=models.CASCADE, related_name="merge_records")
    kept = models.ForeignKey(Entity, on_delete=models.PROTECT, related_name="+")
    merged = models.ForeignKey(Entity, on_delete=models.PROTECT, related_name="+")
    automatic = models.BooleanField(default=False)
    score = models.FloatField(null=True, blank=True)
    suggestion = models.ForeignKey(
        MergeSuggestion, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    moved = models.JSONField(default=dict)
    """Ids moved by the merge: {"source_facts": [...], "target_facts": [...], "aliases": [...],
    "episodes": [...]} — read back by undo."""
    performed_by = models.ForeignKey(
        USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    created_at = models.DateTimeField(default=timezone.now)
    undone_at = models.DateTimeField(null=True, blank=True)
    undone_by = models.ForeignKey(
        USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )

    def __str__(self) -> str:
        return f"{self.merged} merged into {self.kept}"


class PipelineRun(models.Model):
    """One pass of clustering → analysis → reconciliation → summaries → publish over a graph."""

    class Status(models.TextChoices):
        QUEUED = "queued", "Queued"
        RUNNING = "running", "Running"
        SUCCEEDED = "succeeded", "Succeeded"
        FAILED = "failed", "Failed"
        ABANDONED = "abandoned", "Abandoned"

    class Trigger(models.TextChoices):
        SETTLED = "settled", "Graph settled"
        SWEEP = "sweep", "Periodic sweep"
        MANUAL = "manual", "Started by a person"
        COMMAND = "command", "Command line"
        API = "api", "API"

    uuid = models.UUIDField(default=uuid.uuid4, unique=True, editable=False)
    graph = models.ForeignKey(Graph, on_delete=models.CASCADE, related_name="runs")
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.QUEUED)
    trigger = models.CharField(max_length=10, choices=Trigger.choices, default=Trigger.SETTLED)
    as_of = models.DateTimeField(null=True, blank=True)
    settings = models.JSONField(default=dict)
    stage = models.CharField(max_length=30, blank=True)
    progress = models.JSONField(default=dict)
    counts = models.JSONField(default=dict)
    timings = models.JSONField(default=dict)
    audit = models.JSONField(default=dict)
    """What the clustering decided and why (suppressed hub signatures, split components)."""
    llm_calls = models.PositiveIntegerField(default=0)
    llm_cached = models.PositiveIntegerField(default=0)
    tokens_in = models.PositiveIntegerField(default=0)
    tokens_out = models.PositiveIntegerField(default=0)
    error = models.TextField(blank=True)
    data_version = models.PositiveBigIntegerField(default=0)
    requested_by = models.ForeignKey(
        USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    created_at = models.DateTimeField(default=timezone.now)
    started_at = models.DateTimeField(null=True, blank=True)
    heartbeat_at = models.DateTimeField(null=True, blank=True)
    finished_at = models.DateTimeField(null=True, blank=True)
    published_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        constraints = [
            # The lock: never two runs of one graph at once, on SQLite and PostgreSQL alike.
            models.UniqueConstraint(
                fields=["graph"], condition=Q(status="running"), name="run_one_running_per_graph"
            ),
            # One queued run per graph and as-of time (requests made at once share it); two
            # constraints because a NULL as_of would make every row distinct.
            models.UniqueConstraint(
                fields=["graph"], condition=Q(status="queued", as_of__isnull=True),
                name="run_one_queued_per_graph",
            ),
            models.UniqueConstraint(
                fields=["graph", "as_of"], condition=Q(status="queued", as_of__isnull=False),
                name="run_one_queued_per_graph_as_of",
            ),
        ]
        indexes = [models.Index(fields=["graph", "-created_at"], name="run_graph_recent")]

    def __str__(self) -> str:
        return f"run {self.uuid} of {self.graph} ({self.status})"

    @property
    def is_active(self) -> bool:
        return self.status in {self.Status.QUEUED, self.Status.RUNNING}


class StalledItemsMemo(models.Model):
    """What the graph's last run found of its items' states (``memory.engine.stalled_memo``):
    for each item, a digest of its inputs, its stall and when time alone may change it. The next
    run examines only the items whose inputs changed or whose moment came. One per graph,
    written with the run's observations (in the same transaction); without it the next run
    examines every item. Compressed JSON: ~45,000 items at 100,000 updates."""

    graph = models.OneToOneField(Graph, on_delete=models.CASCADE, primary_key=True,
                                 related_name="stalled_items_memo")
    run = models.ForeignKey(PipelineRun, null=True, blank=True, on_delete=models.SET_NULL,
                            related_name="+")
    as_of = models.DateTimeField()
    after_weeks = models.PositiveIntegerField()
    data = models.BinaryField()
    updated_at = models.DateTimeField(default=timezone.now)

    def __str__(self) -> str:
        return f"stalled-items memo of graph {self.graph_id} as of {self.as_of}"


class ImportRun(models.Model):
    """One import of a tracker export into a graph (``memory.importers``): what was asked, its
    progress while it runs, and what it stored, skipped and refused, item by item."""

    class Status(models.TextChoices):
        QUEUED = "queued", "Queued"
        RUNNING = "running", "Running"
        SUCCEEDED = "succeeded", "Succeeded"
        FAILED = "failed", "Failed"

    uuid = models.UUIDField(default=uuid.uuid4, unique=True, editable=False)
    graph = models.ForeignKey(Graph, on_delete=models.CASCADE, related_name="imports")
    format = models.CharField(max_length=20)
    filename = models.CharField(max_length=255, blank=True)
    since = models.DateTimeField(null=True, blank=True)
    """Only changes from then on (an incremental import)."""
    options = models.JSONField(default=dict)
    """What the reader is told (``base_url``, ``timezone``)."""
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.QUEUED)
    payload = models.BinaryField(blank=True, default=b"")
    """The uploaded export until the run has read it (emptied when it ends)."""
    items = models.PositiveIntegerField(default=0)
    """Tracker items read from the export."""
    episodes = models.PositiveIntegerField(default=0)
    """Episodes mapped from them (one per change)."""
    processed = models.PositiveIntegerField(default=0)
    """Episodes handed to ingestion so far (the progress)."""
    stored = models.PositiveIntegerField(default=0)
    duplicates = models.PositiveIntegerField(default=0)
    rejected = models.PositiveIntegerField(default=0)
    problems = models.JSONField(default=list)
    """Each bad item or episode: ``{"position", "item", "reason"}``."""
    error = models.TextField(blank=True)
    """Why the whole import was refused (the wrong format...): nothing was stored."""
    requested_by = models.ForeignKey(
        USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    created_at = models.DateTimeField(default=timezone.now)
    started_at = models.DateTimeField(null=True, blank=True)
    finished_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        indexes = [models.Index(fields=["graph", "created_at"], name="import_graph_created")]

    def __str__(self) -> str:
        return f"{self.format} import into {self.graph_id} ({self.status})"

    @property
    def percent(self) -> int:
        if self.status == self.Status.SUCCEEDED:
            return 100
        return int(100 * self.processed / self.episodes) if self.episodes else 0


class LLMCall(models.Model):
    """Every call to the model, stored for audit: prompt, response, tokens, latency, outcome."""

    class Purpose(models.TextChoices):
        SUMMARY = "summary", "Observation summary"
        EXTRACTION = "extraction", "Extraction"
        ENTITY_SUMMARY = "entity_summary", "Entity summary"

    class Outcome(models.TextChoices):
        OK = "ok", "OK"
        INVALID = "invalid", "Invalid output"
        ERROR = "error", "Error"
        TIMEOUT = "timeout", "Timeout"
        RATE_LIMITED = "rate_limited", "Rate limited"

    graph = models.ForeignKey(Graph, on_delete=models.CASCADE, related_name="llm_calls")
    run = models.ForeignKey(
        PipelineRun, null=True, blank=True, on_delete=models.SET_NULL, related_name="llm_call_rows"
    )
    episode = models.ForeignKey(
        Episode, null=True, blank=True, on_delete=models.SET_NULL, related_name="llm_calls"
    )
    purpose = models.CharField(max_length=20, choices=Purpose.choices)
    model = models.CharField(max_length=200)
    prompt_version = models.CharField(max_length=40)
    request = models.JSONField(default=dict)
    """The request without its texts: ``{"messages": [{"role", "text": <sha256>}],
    "response_format": {"type", "name", "schema": <sha256>}, "attempt", "max_attempts",
    "batch"}``; every text is stored once in ``PromptText`` (a system prompt and a schema are
    the same in thousands of calls). ``messages()`` reads them back."""
    response = models.TextField(blank=True)
    tokens_in = models.PositiveIntegerField(default=0)
    tokens_out = models.PositiveIntegerField(default=0)
    latency_ms = models.PositiveIntegerField(default=0)
    outcome = models.CharField(max_length=15, choices=Outcome.choices)
    error = models.TextField(blank=True)
    cache_key = models.CharField(max_length=64, blank=True)
    created_at = models.DateTimeField(default=timezone.now)

    class Meta:
        verbose_name = "LLM call"
        indexes = [models.Index(fields=["graph", "-created_at"], name="llm_call_graph_recent")]

    def __str__(self) -> str:
        return f"{self.purpose} {self.model} {self.outcome}"

    def messages(self) -> list[dict[str, str]]:
        """The messages as sent, their texts read back from ``PromptText`` (one query)."""
        parts = list(self.request.get("messages") or [])
        texts = PromptText.texts({p["text"] for p in parts if "text" in p})
        return [
            {"role": str(p.get("role", "")),
             "content": texts.get(p["text"], "") if "text" in p else str(p.get("content", ""))}
            for p in parts
        ]

    def schema_text(self) -> str:
        fmt = self.request.get("response_format") or {}
        key = fmt.get("schema")
        return PromptText.texts({key}).get(key, "") if isinstance(key, str) else ""


class PromptText(models.Model):
    """A text sent to the model (a system prompt, a user message, a JSON schema), stored once
    whatever the number of calls that sent it; ``LLMCall.request`` points at it by hash."""

    sha256 = models.CharField(max_length=64, unique=True)
    text = models.TextField()
    created_at = models.DateTimeField(default=timezone.now)

    def __str__(self) -> str:
        return f"{self.sha256[:12]} ({len(self.text)} characters)"

    @classmethod
    def texts(cls, hashes: set[str]) -> dict[str, str]:
        if not hashes:
            return {}
        return dict(cls.objects.filter(sha256__in=hashes).values_list("sha256", "text"))


class ModelEndpoint(models.Model):
    """What the configured model server accepts, found out once per configuration (server and
    model): the strictest response format it takes, or that it is unusable and why. Read by
    every call, by ``manage.py check`` and by the runs page."""

    class Format(models.TextChoices):
        JSON_SCHEMA = "json_schema", "JSON schema (enforced by the server)"
        JSON_OBJECT = "json_object", "JSON object, the schema in the prompt"
        PLAIN = "plain", "Plain text, the schema in the prompt, checked here"

    key = models.CharField(max_length=64, unique=True)
    """sha256 of the base URL and the model."""
    base_url = models.CharField(max_length=500, blank=True)
    model = models.CharField(max_length=200)
    response_format = models.CharField(max_length=12, choices=Format.choices, blank=True)
    """Empty until a call has shown which format works."""
    usable = models.BooleanField(default=True)
    detail = models.TextField(blank=True)
    """Why it is unusable, or what the detection saw."""
    checked_at = models.DateTimeField(default=timezone.now)

    def __str__(self) -> str:
        return f"{self.model} at {self.base_url or 'OpenAI'}: {self.response_format or '?'}"


class SummaryCache(models.Model):
    """A validated model summary, keyed by (evidence fingerprint, model, prompt version): the same
    evidence never costs a second call."""

    key = models.CharField(max_length=64, unique=True)
    graph = models.ForeignKey(Graph, on_delete=models.CASCADE, related_name="+")
    model = models.CharField(max_length=200)
    prompt_version = models.CharField(max_length=40)
    name = models.CharField(max_length=300)
    summary = models.TextField()
    claims = models.JSONField()
    llm_call = models.ForeignKey(LLMCall, null=True, on_delete=models.SET_NULL, related_name="+")
    created_at = models.DateTimeField(default=timezone.now)

    def __str__(self) -> str:
        return self.name


class Observation(models.Model):
    """The named, summarized, evidence-backed description of one cluster. Read-only: rows are
    written and retired only by the pipeline's reconciliation step, never edited or deleted."""

    class Status(models.TextChoices):
        ACTIVE = "active", "Active"
        RETIRED = "retired", "Retired"

    class Kind(models.TextChoices):
        DEPENDENCY_CHAIN = "dependency_chain", "Dependency chain"
        RECURRING_ISSUE = "recurring_issue", "Recurring issue"
        SHARED_CONTEXT = "shared_context", "Shared context"
        STALLED = "stalled", "Stalled"

    class RetiredReason(models.TextChoices):
        SUPERSEDED = "superseded", "Superseded by a new version"
        SPLIT = "split", "Split into several"
        MERGED = "merged", "Merged with others"
        EVIDENCE_ENDED = "evidence_ended", "Evidence ended"

    uuid = models.UUIDField(default=uuid.uuid4, unique=True, editable=False)
    # No single-column indexes on ``graph`` and ``lineage``: the board's indexes start with the
    # graph and the unique (lineage, version) constraint with the lineage, and every index is
    # written once per observation of a run (~10,000 at 100,000 episodes).
    graph = models.ForeignKey(
        Graph, on_delete=models.CASCADE, related_name="observations", db_index=False
    )
    lineage = models.UUIDField()
    version = models.PositiveIntegerField(default=1)
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.ACTIVE)
    kind = models.CharField(max_length=20, choices=Kind.choices)
    name = models.CharField(max_length=300)
    summary = models.TextField()
    structure = models.JSONField(default=dict)
    window_start = models.DateTimeField()
    window_end = models.DateTimeField()
    evidence_fingerprint = models.CharField(max_length=64)
    facts_fingerprint = models.CharField(max_length=64, blank=True)
    """Its facts and which of them ended, whatever updates restate them: a cluster with the same
    facts is a restatement, which updates this version in place instead of making a new one."""
    restatements = models.JSONField(default=list, blank=True)
    """Each time other updates restated it in place: ``{"at", "run", "episodes"}`` (how many
    updates joined). Its history shows them as "restated by N updates"."""
    episode_count = models.PositiveIntegerField(default=0)
    fact_count = models.PositiveIntegerField(default=0)
    people_count = models.PositiveIntegerField(default=0)
    reach_people = models.PositiveIntegerField(default=0)
    reach_work_items = models.PositiveIntegerField(default=0)
    generator = models.CharField(max_length=200)
    """"template" or the model's name."""
    summary_fallback = models.CharField(max_length=200, blank=True, default="", db_default="")
    """Why the template wrote the summary although a model is configured ("model failed:
    timeout", "monthly model budget spent"); empty otherwise."""
    summary_pending = models.BooleanField(default=False, db_default=False)
    """The template stands in until the model answers: the next run (or the sweep) asks again
    and publishes the model's summary as the next version over the same evidence."""
    prompt_version = models.CharField(max_length=40, blank=True)
    llm_call = models.ForeignKey(
        LLMCall, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    tokens = models.PositiveIntegerField(default=0)
    created_by_run = models.ForeignKey(
        PipelineRun, on_delete=models.PROTECT, related_name="created_observations"
    )
    created_at = models.DateTimeField(default=timezone.now)
    retired_at = models.DateTimeField(null=True, blank=True)
    retired_by_run = models.ForeignKey(
        PipelineRun,
        null=True,
        blank=True,
        on_delete=models.PROTECT,
        related_name="retired_observations",
    )
    retired_reason = models.CharField(max_length=20, choices=RetiredReason.choices, blank=True)
    retirement = models.JSONField(default=dict, blank=True)
    """Why it was retired: {"closed_facts": [...], "dropped_episodes": [...], "note": "..."}."""
    predecessors = models.ManyToManyField(
        "self", symmetrical=False, related_name="successors", blank=True
    )
    # The evidence links carry no foreign-key constraints in the database. A full run at 100,000
    # episodes writes ~700,000 of them, and PostgreSQL checking each at commit cost more than the
    # rest of publishing. They are written in one place (``memory.publishing``), from ids the run
    # has just read, between rows that are never deleted except with their whole graph (through
    # the ORM, which deletes these links first); the observation's own foreign key to its graph
    # still fails a run that publishes into a graph deleted meanwhile.
    episodes = models.ManyToManyField(Episode, related_name="observations", db_constraint=False)
    facts = models.ManyToManyField(Fact, related_name="observations", db_constraint=False)
    entities = models.ManyToManyField(Entity, related_name="observations", db_constraint=False)

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["lineage", "version"], name="observation_unique_version_in_lineage"
            ),
        ]
        indexes = [
            # The board: a graph's observations by status, latest evidence first.
            models.Index(
                fields=["graph", "status", "-window_end"], name="observation_board"
            ),
            # The board's default sort (reach, then latest evidence): a top-24 read of the index
            # instead of sorting every active observation of the graph.
            models.Index(
                F("graph"), F("status"), (F("reach_people") + F("reach_work_items")).desc(),
                F("window_end").desc(), F("id").desc(), name="observation_board_reach",
            ),
            # The retired history and the weekly review.
            models.Index(fields=["graph", "-retired_at"], name="observation_retired"),
            # Stand-ins waiting for the model (the next run and the sweep look them up).
            models.Index(fields=["graph"], condition=Q(summary_pending=True, status="active"),
                         name="observation_summary_pending"),
        ]

    def __str__(self) -> str:
        return f"{self.name} (v{self.version}, {self.status})"


class Claim(models.Model):
    """One sentence of an observation's summary with the facts that support it."""

    observation = models.ForeignKey(
        Observation, on_delete=models.CASCADE, related_name="claims", db_index=False
    )
    """Not indexed alone: the unique (observation, position) constraint starts with it."""
    position = models.PositiveSmallIntegerField()
    text = models.TextField()
    facts = models.ManyToManyField(Fact, related_name="claims", db_constraint=False)
    """No database constraint, like an observation's evidence links (see there)."""

    class Meta:
        ordering = ["observation", "position"]
        constraints = [
            models.UniqueConstraint(
                fields=["observation", "position"], name="claim_unique_position"
            ),
        ]

    def __str__(self) -> str:
        return self.text


class ApiKey(models.Model):
    """A key a program uses to call the APIs as its user. Only a hash of the secret is stored; the
    full key (``obs_<prefix>_<secret>``) is shown once, when it is created. A key reaches exactly
    the graphs its user reaches, with the user's role in each."""

    user = models.ForeignKey(USER_MODEL, on_delete=models.CASCADE, related_name="api_keys")
    name = models.CharField(max_length=100)
    prefix = models.CharField(max_length=16, unique=True)
    """The visible start of the key, to tell keys apart on the page and in logs."""
    hashed_key = models.CharField(max_length=64, unique=True)
    """sha256 of the whole key, hex: the key is looked up by it, never stored in clear."""
    created_at = models.DateTimeField(default=timezone.now)
    last_used_at = models.DateTimeField(null=True, blank=True)
    revoked_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        verbose_name = "API key"
        ordering = ["-created_at"]

    def __str__(self) -> str:
        return f"{self.name} ({self.prefix}…)"

    @property
    def is_active(self) -> bool:
        return self.revoked_at is None


class IdempotencyRecord(models.Model):
    """The first response to a write sent with an ``Idempotency-Key`` header, replayed to every
    retry with the same key and the same request within its time to live
    (draft-ietf-httpapi-idempotency-key-header). Keys are scoped to the API key (or the user, for
    browser sessions) that sent them."""

    class State(models.TextChoices):
        IN_FLIGHT = "in_flight", "In flight"
        DONE = "done", "Done"

    scope = models.CharField(max_length=40)
    """``key:<api key id>`` or ``user:<user id>``."""
    key = models.CharField(max_length=255)
    fingerprint = models.CharField(max_length=64)
    """sha256 of method, path and body: the same key with another request is refused (422)."""
    state = models.CharField(max_length=10, choices=State.choices, default=State.IN_FLIGHT)
    locked_until = models.DateTimeField()
    """While in flight, a retry before this time is told to wait (409); after it, the request that
    held it is presumed dead and the retry takes over (on PostgreSQL an advisory lock tells
    precisely, see ``memory.api.idempotency``)."""
    response_status = models.PositiveSmallIntegerField(null=True, blank=True)
    response_body = models.JSONField(null=True, blank=True)
    created_at = models.DateTimeField(default=timezone.now)
    expires_at = models.DateTimeField()

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["scope", "key"], name="idempotency_one_per_scope_key"),
        ]
        indexes = [
            # Purging expired records.
            models.Index(fields=["expires_at"], name="idempotency_expiry"),
        ]

    def __str__(self) -> str:
        return f"{self.scope} {self.key} ({self.state})"


class ImportMapping(models.Model):
    """The column mapping a graph's editors last imported a format with (the CSV form remembers
    it, and ``manage.py import`` and the API use it when none is given)."""

    graph = models.ForeignKey(Graph, on_delete=models.CASCADE, related_name="import_mappings")
    format = models.CharField(max_length=20)
    mapping = models.JSONField(default=dict)
    """Field → column (``{"reference_time": "Created", "content": "Description"}``)."""
    updated_at = models.DateTimeField(default=timezone.now)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["graph", "format"], name="one_mapping_per_format")
        ]

    def __str__(self) -> str:
        return f"{self.graph.slug} {self.format} mapping"
