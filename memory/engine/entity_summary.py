"""The template summary of one entity: deterministic prose from its current facts, in the voice of
the observation template (``memory.engine.template_summary``). Plain data in, a string out.

Contract
--------
``summarize_entity(name, entity_type, facts) -> str``

``facts`` are the entity's current facts seen from the entity: for each, the relation, whether
the entity is its source (``outgoing``), the other entity's name and type, and since when it
holds. The summary says what holds now — status, ownership, what it waits on and what waits on
it, membership, reports, plan — one sentence per relation and direction, most telling first,
long lists cut to a few names and a count. Co-occurrence (``PRECEDED_BY``) reads "came after",
never as a cause. No facts: it says so.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime

from memory.engine.template_summary import and_list, clip, count, sentence, verb_forms

MAX_SUMMARY_CHARS = 600
LIST_LIMIT = 3
ARTICLE_TYPES = frozenset({"WorkItem", "Team", "Service", "Issue", "Event", "Product"})
"""Types that read with "the" mid-sentence — the same rule as the observation template."""
NAMED_WHEN_NUMBERED = frozenset({"Event", "Product"})


@dataclass(frozen=True, slots=True)
class EntityFact:
    relation: str
    outgoing: bool
    """True when the entity is the fact's source."""
    other: str
    other_type: str
    since: datetime


def ref(name: str, entity_type: str) -> str:
    """The entity as it reads mid-sentence: "the Backend Team", "Alice", "Release 4.2"."""
    if entity_type not in ARTICLE_TYPES or name.lower().startswith("the "):
        return name
    if entity_type in NAMED_WHEN_NUMBERED and any(c.isdigit() for c in name):
        return name
    return f"the {name}"


def summarize_entity(name: str, entity_type: str, facts: Sequence[EntityFact]) -> str:
    me = ref(name, entity_type)
    if not facts:
        return sentence(f"{me} has no current facts")
    writer = _Writer(me, facts)
    sentences = [s for s in (
        writer.status(),
        writer.others("RESPONSIBLE_FOR", incoming="{them} {is} responsible for {me}",
                      outgoing="{me} is responsible for {them}"),
        writer.others("DEPENDS_ON", outgoing="{me} waits on {them}",
                      incoming="{n_them} {wait} on {me}: {them}", counted=True),
        writer.others("MEMBER_OF", outgoing="{me} is a member of {them}",
                      incoming="{them} {is} members of {me}"),
        writer.others("REPORTED", outgoing="{me} reported {them}",
                      incoming="{me} was reported by {them}"),
        writer.others("AFFECTS", outgoing="{me} affects {them}",
                      incoming="{me} is affected by {them}"),
        writer.others("PRECEDED_BY", outgoing="{me} came after {them}",
                      incoming="{them} came after {me}"),
        writer.others("ON_PLAN", outgoing="{me} is on {them}",
                      incoming="{them} {is} on {me}"),
        writer.others("USES", outgoing="{me} uses {them}", incoming="{them} {use} {me}"),
        *writer.remaining(),
    ) if s]
    return clip(" ".join(sentences), MAX_SUMMARY_CHARS)


class _Writer:
    KNOWN = frozenset({"HAS_STATUS", "RESPONSIBLE_FOR", "DEPENDS_ON", "MEMBER_OF", "REPORTED",
                       "AFFECTS", "PRECEDED_BY", "ON_PLAN", "USES"})

    def __init__(self, me: str, facts: Sequence[EntityFact]) -> None:
        self.me = me
        self.facts = sorted(facts, key=lambda f: (f.since, f.other))

    def _of(self, relation: str, outgoing: bool) -> list[EntityFact]:
        return [f for f in self.facts if f.relation == relation and f.outgoing == outgoing]

    def status(self) -> str:
        statuses = self._of("HAS_STATUS", True)
        if not statuses:
            return ""
        latest = statuses[-1]
        return sentence(f"{self.me}'s status is {latest.other}, since {latest.since:%-d %b %Y}")

    def others(self, relation: str, *, outgoing: str, incoming: str,
               counted: bool = False) -> str:
        parts = []
        for direction, template in ((True, outgoing), (False, incoming)):
            facts = self._of(relation, direction)
            if not facts:
                continue
            names = list(dict.fromkeys(ref(f.other, f.other_type) for f in facts))
            plural = len(names) > 1
            noun = "work item" if all(f.other_type == "WorkItem" for f in facts) else "item"
            parts.append(sentence(template.format(
                me=self.me, them=and_list(names, limit=LIST_LIMIT),
                n_them=count(len(names), noun) if counted else "",
                **{"is": "are" if plural else "is", "wait": "wait" if plural else "waits",
                   "use": "use" if plural else "uses"},
            )))
        return " ".join(parts)

    def remaining(self) -> list[str]:
        """Relations the template has no words for, in the ontology's own verb."""
        lines = []
        for relation in sorted({f.relation for f in self.facts} - self.KNOWN):
            singular, _ = verb_forms(relation)
            outgoing = self._of(relation, True)
            incoming = self._of(relation, False)
            if outgoing:
                names = and_list([ref(f.other, f.other_type) for f in outgoing], LIST_LIMIT)
                lines.append(sentence(f"{self.me} {singular} {names}"))
            if incoming:
                names = and_list([ref(f.other, f.other_type) for f in incoming], LIST_LIMIT)
                lines.append(sentence(f"{names} {singular} {self.me}"))
        return lines
