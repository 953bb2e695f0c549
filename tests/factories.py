"""Factories with sane defaults: a test states only what it varies."""

from __future__ import annotations

import uuid
from collections.abc import Sequence
from datetime import UTC, datetime, timedelta

import factory
from django.contrib.auth import get_user_model

from memory.engine.stalled import STATUS, Stall
from memory.models import (
    Entity,
    Episode,
    Fact,
    FactEvidence,
    Graph,
    LLMCall,
    Membership,
    Observation,
    PipelineRun,
)
from memory.names import normalize_name

MONDAY = datetime(2026, 11, 23, 9, 0, tzinfo=UTC)


class UserFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = get_user_model()
        django_get_or_create = ("username",)

    username = factory.Sequence(lambda n: f"user{n}")
    email = factory.LazyAttribute(lambda u: f"{u.username}@example.com")
    password = factory.django.Password("correct horse battery staple")


class GraphFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = Graph
        django_get_or_create = ("slug",)

    slug = factory.Sequence(lambda n: f"graph-{n}")
    name = factory.LazyAttribute(lambda g: g.slug.replace("-", " ").title())


class MembershipFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = Membership

    graph = factory.SubFactory(GraphFactory)
    user = factory.SubFactory(UserFactory)
    role = Membership.Role.VIEWER


class EpisodeFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = Episode

    graph = factory.SubFactory(GraphFactory)
    author = "Alice"
    content = "The API migration is blocked."
    reference_time = factory.Sequence(lambda n: MONDAY + timedelta(hours=n))
    ingested_at = factory.LazyAttribute(lambda e: e.reference_time)
    status = Episode.Status.PROCESSED


class EntityFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = Entity

    graph = factory.SubFactory(GraphFactory)
    name = factory.Sequence(lambda n: f"Work Item {n}")
    normalized_name = factory.LazyAttribute(lambda e: normalize_name(e.name))
    type = "WorkItem"


class FactFactory(factory.django.DjangoModelFactory):
    """A fact with one supporting episode (``episode=`` to choose it, ``episodes=[...]`` for
    several)."""

    class Meta:
        model = Fact
        skip_postgeneration_save = True

    graph = factory.SubFactory(GraphFactory)
    source = factory.SubFactory(EntityFactory, graph=factory.SelfAttribute("..graph"))
    target = factory.SubFactory(EntityFactory, graph=factory.SelfAttribute("..graph"))
    relation = "DEPENDS_ON"
    sentence = factory.LazyAttribute(lambda f: f"{f.source.name} {f.relation} {f.target.name}")
    valid_at = MONDAY
    created_at = factory.LazyAttribute(lambda f: f.valid_at)
    extractor = "structured@1"

    @factory.post_generation
    def episodes(self, create: bool, extracted: list[Episode] | None, **kwargs: object) -> None:
        if not create:
            return
        for episode in extracted if extracted is not None else [
            EpisodeFactory(graph=self.graph, reference_time=self.valid_at)
        ]:
            FactEvidence.objects.create(
                fact=self, episode=episode, sentence=self.sentence, extractor=self.extractor,
                created_at=self.created_at,
            )


def chain_structure(blocker: int = 1, waiting: int = 2, owner: int = 3,
                    names: dict[int, str] | None = None) -> dict[str, object]:
    """An ``Observation.structure`` for a one-link dependency chain: ``waiting`` waits on
    ``blocker``, which ``owner`` owns (entity ids; names default to "Entity <id>")."""
    names = names or {}
    return {
        "kind": "dependency_chain",
        "entities": [blocker, waiting, owner],
        "links": [],
        "dependency": {
            "edges": [{"waiting": waiting, "waited_on": blocker, "facts": []}],
            "root_blockers": [{
                "members": [blocker], "cycle": False,
                "owners": [{"entity": owner, "facts": []}],
                "direct": [{"entity": waiting, "via": [blocker], "facts": [], "owners": []}],
                "downstream": [], "people": [{"entity": owner, "facts": []}],
                "reach": {"work_items": 1, "people": 1, "total": 2}, "facts": [],
            }],
            "cycles": [],
        },
        "recurring": None,
        "names": {str(i): names.get(i, f"Entity {i}") for i in (blocker, waiting, owner)},
    }


class PipelineRunFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = PipelineRun

    graph = factory.SubFactory(GraphFactory)
    status = PipelineRun.Status.SUCCEEDED
    trigger = PipelineRun.Trigger.COMMAND
    created_at = MONDAY
    started_at = MONDAY
    finished_at = MONDAY


class ObservationFactory(factory.django.DjangoModelFactory):
    """An active dependency-chain observation (no evidence rows: add them when a test needs
    them, or build the real thing with the ``ingest`` fixture)."""

    class Meta:
        model = Observation

    graph = factory.SubFactory(GraphFactory)
    lineage = factory.LazyFunction(uuid.uuid4)
    version = 1
    kind = Observation.Kind.DEPENDENCY_CHAIN
    name = factory.Sequence(lambda n: f"Work Item {n} blocking 1 workstream")
    summary = factory.LazyAttribute(lambda o: f"{o.name}. Unblocking it clears one workstream.")
    structure = factory.LazyFunction(chain_structure)
    window_start = MONDAY
    window_end = factory.Sequence(lambda n: MONDAY + timedelta(hours=n))
    evidence_fingerprint = factory.Sequence(lambda n: f"fingerprint-{n}")
    episode_count = 2
    fact_count = 3
    people_count = 1
    reach_people = 1
    reach_work_items = 1
    generator = "template"
    created_by_run = factory.SubFactory(PipelineRunFactory, graph=factory.SelfAttribute("..graph"))
    created_at = MONDAY


class LLMCallFactory(factory.django.DjangoModelFactory):
    """One audited model call (an attempt that answered, by default)."""

    class Meta:
        model = LLMCall

    graph = factory.SubFactory(GraphFactory)
    purpose = LLMCall.Purpose.EXTRACTION
    model = "fake-model-1"
    prompt_version = "extract-2"
    tokens_in = 300
    tokens_out = 60
    outcome = LLMCall.Outcome.OK


def stalled_structure(item: int = 1, status: int = 2, *, since: datetime, as_of: datetime,
                      names: dict[int, str] | None = None, priority: str = "",
                      labels: Sequence[str] = ()) -> dict[str, object]:
    """An ``Observation.structure`` for a stalled item: ``item`` in ``status`` since ``since``,
    found at ``as_of`` (entity ids; names default to "Entity <id>"), with its tracker's
    ``priority`` and ``labels``; the stall stored as the pipeline stores it (``Stall.as_dict``)."""
    names = names or {}
    stall = Stall(item_id=item, state=STATUS, since=since, as_of=as_of, fact_ids=(),
                  episode_ids=(), other_ids=(status,), priority=priority, labels=tuple(labels))
    return {
        "kind": "stalled",
        "entities": [item, status],
        "links": [],
        "dependency": None,
        "recurring": None,
        "stalled": stall.as_dict(),
        "names": {str(i): names.get(i, f"Entity {i}") for i in (item, status)},
    }
