"""Factories with sane defaults: a test states only what it varies."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import factory
from django.contrib.auth import get_user_model

from memory.models import Entity, Episode, Fact, FactEvidence, Graph, Membership
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
