"""Small hand-written update streams for the engine tests, written by name, handed out as the
plain data the engine takes (rows, authors, FactInfo / EntityInfo / EpisodeInfo)."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta

from memory.engine.types import EntityInfo, EpisodeInfo, FactInfo, Row
from memory.ontology import default_ontology

LINKING: dict[str, str] = default_ontology().linking()
MONDAY = datetime(2026, 3, 2, 9, 0, tzinfo=UTC)

Triple = tuple[str, str, str]


@dataclass
class Story:
    """Entities are created on first mention (``WorkItem`` unless declared); one fact per
    (source, relation, target), shared by every episode that states it."""

    entity_ids: dict[str, int] = field(default_factory=dict)
    types: dict[str, str] = field(default_factory=dict)
    fact_ids: dict[tuple[int, str, int], int] = field(default_factory=dict)
    episode_facts: dict[int, list[int]] = field(default_factory=dict)
    episode_meta: dict[int, tuple[str, datetime]] = field(default_factory=dict)
    titles: dict[str, str] = field(default_factory=dict)
    """A tracker item's title, by its key (what an importer gives with the item)."""

    def declare(self, type_: str, *names: str) -> Story:
        for name in names:
            self.types[name] = type_
            self.entity(name)
        return self

    def title(self, name: str, title: str) -> Story:
        self.titles[name] = title
        self.entity(name)
        return self

    def entity(self, name: str) -> int:
        if name not in self.entity_ids:
            self.entity_ids[name] = 100 + len(self.entity_ids)
        return self.entity_ids[name]

    def fact(self, source: str, relation: str, target: str) -> int:
        key = (self.entity(source), relation, self.entity(target))
        if key not in self.fact_ids:
            self.fact_ids[key] = 1000 + len(self.fact_ids)
        return self.fact_ids[key]

    def episode(self, author: str, *facts: Triple, day: float = 0,
                at: datetime | None = None) -> int:
        """``day``: days after ``MONDAY``; ``at``: the exact time instead."""
        episode_id = len(self.episode_meta) + 1
        if author and author not in self.types:
            self.declare("Person", author)
        self.episode_meta[episode_id] = (author, at or MONDAY + timedelta(days=day))
        self.episode_facts[episode_id] = [self.fact(*triple) for triple in facts]
        return episode_id

    # -- the engine's inputs -------------------------------------------------------------

    @property
    def rows(self) -> list[Row]:
        by_id = {fact_id: key for key, fact_id in self.fact_ids.items()}
        return [
            (episode, fact, by_id[fact][0], by_id[fact][1], by_id[fact][2])
            for episode, facts in self.episode_facts.items()
            for fact in facts
        ]

    @property
    def authors(self) -> dict[int, int | None]:
        return {
            episode: self.entity_ids.get(author) if author else None
            for episode, (author, _) in self.episode_meta.items()
        }

    @property
    def facts(self) -> dict[int, FactInfo]:
        supported: dict[int, list[int]] = {}
        for episode, facts in self.episode_facts.items():
            for fact in facts:
                supported.setdefault(fact, []).append(episode)
        infos = {}
        for (source, relation, target), fact_id in self.fact_ids.items():
            episodes = tuple(supported.get(fact_id, ()))
            first = min((self.episode_meta[e][1] for e in episodes), default=MONDAY)
            infos[fact_id] = FactInfo(fact_id, source, relation, target, episodes, first)
        return infos

    @property
    def entities(self) -> dict[int, EntityInfo]:
        return {
            entity_id: EntityInfo(entity_id, name, self.types.get(name, "WorkItem"),
                                  self.titles.get(name, ""))
            for name, entity_id in self.entity_ids.items()
        }

    @property
    def episodes(self) -> dict[int, EpisodeInfo]:
        return {
            episode: EpisodeInfo(episode, when, author, self.entity_ids.get(author))
            for episode, (author, when) in self.episode_meta.items()
        }

    def id(self, name: str) -> int:
        return self.entity_ids[name]


def seed_story() -> Story:
    """DESIGN §1's acceptance case: Alice (Mon), Bob (Wed), Clara (Fri)."""
    story = Story().declare("Person", "Alice", "Bob", "Clara").declare("Team", "Backend Team")
    story.declare("Status", "Blocked", "Stalled")
    story.episode(
        "Alice",
        ("Alice", "RESPONSIBLE_FOR", "API Migration"),
        ("API Migration", "DEPENDS_ON", "Auth Service Refactor"),
        ("Backend Team", "RESPONSIBLE_FOR", "Auth Service Refactor"),
        ("API Migration", "HAS_STATUS", "Blocked"),
        day=0,
    )
    story.episode(
        "Bob",
        ("Bob", "RESPONSIBLE_FOR", "Payments Integration"),
        ("Payments Integration", "DEPENDS_ON", "Auth Service Refactor"),
        ("Backend Team", "RESPONSIBLE_FOR", "Auth Service Refactor"),
        ("Payments Integration", "HAS_STATUS", "Stalled"),
        day=2,
    )
    story.episode(
        "Clara",
        ("Clara", "RESPONSIBLE_FOR", "Checkout Flow"),
        ("Checkout Flow", "DEPENDS_ON", "Payments Integration"),
        ("Bob", "RESPONSIBLE_FOR", "Payments Integration"),
        ("Checkout Flow", "HAS_STATUS", "Blocked"),
        day=4,
    )
    return story
