"""The template summarizer: deterministic prose from a cluster's structure (DESIGN §4 step 7).

It is the embedded default (no model configured) and the fallback when a model's output fails
validation twice, so it must always produce a valid summary.

Contract
--------
``summarize_with_template(structure, facts, entities, episodes) -> Summary``

Takes the ``Structure`` of a cluster and the same fact / entity / episode mappings structure
analysis took. Returns a ``Summary``: a short name, the summary (its claims joined by spaces) and
the claims, each one sentence citing the facts that support it. Guarantees (``validate_summary``
passes): every claim cites at least one fact and only facts of the cluster, the name is at most
``MAX_NAME_CHARS`` characters, each claim at most ``MAX_CLAIM_CHARS``, at most ``MAX_CLAIMS``.

What it says
------------
* dependency chains: the root blocker and its owner, what waits on it directly, what is blocked
  downstream and through what, and what unblocking it clears (work items and people); other root
  blockers and cycles briefly. Long lists name a few and count the others.
* recurring issues: who reported what and when, who among them reports it resolved for them,
  what it affects and which events it followed, as a pattern *worth investigating*. It never
  asserts a cause: the relation is ``PRECEDED_BY`` (co-occurrence) and the prose says
  "followed", never "because", "caused by" or "due to".
* tracking items: what each tracks and how much of it is still open, the open items ranked by
  how much work waits on them.
* shared context: a neutral account of the signatures the updates share.

Prose rules: names, never ids; dates as "16 Nov" ("16 Nov 2025" outside the year of the latest
evidence); counts agree with their nouns ("1 workstream", "7 customers").
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from datetime import datetime

from memory.engine.structure import (
    CUSTOMER,
    DEPENDENCY_CHAIN,
    PERSON,
    RECURRING_ISSUE,
    Dependent,
    IssuePattern,
    RootBlocker,
    Structure,
    Tracker,
)
from memory.engine.types import (
    CHAIN_KEY,
    MAX_CLAIM_CHARS,
    MAX_CLAIMS,
    MAX_NAME_CHARS,
    ClaimDraft,
    EntityInfo,
    EpisodeInfo,
    FactInfo,
    Link,
    Summary,
)

GENERATOR = "template"
LIST_LIMIT = 3
"""Lists longer than this many names plus one show this many and count the others."""

# Types that read naturally with "the" in running prose ("the Backend Team", "the Nightly
# Backfill"); people, customers and plans are proper names.
_ARTICLE_TYPES = frozenset({"WorkItem", "Team", "Service", "Issue", "Event", "Product"})
_NAMED_WHEN_NUMBERED = frozenset({"Event", "Product"})

# (singular, plural) present-tense verbs for a relation, for the shared-context sentences.
_VERBS: dict[str, tuple[str, str]] = {
    "RESPONSIBLE_FOR": ("is responsible for", "are responsible for"),
    "MEMBER_OF": ("is a member of", "are members of"),
    "DEPENDS_ON": ("depends on", "depend on"),
    "REPORTED": ("reported", "reported"),
    "AFFECTS": ("affects", "affect"),
    "PRECEDED_BY": ("came after", "came after"),
    "ON_PLAN": ("is on", "are on"),
    "USES": ("uses", "use"),
    "HAS_STATUS": ("has status", "have status"),
}


def summarize_with_template(
    structure: Structure,
    facts: Mapping[int, FactInfo],
    entities: Mapping[int, EntityInfo],
    episodes: Mapping[int, EpisodeInfo],
) -> Summary:
    writer = _Writer(structure, facts, entities, episodes)
    if structure.kind == DEPENDENCY_CHAIN and structure.top_blocker is not None:
        name, claims = writer.dependency_chain()
        if structure.trackers:  # a tracking item is the parent: it names the pattern
            name, tracked = writer.trackers()
            claims = [*tracked, *claims]
    elif structure.kind == RECURRING_ISSUE and structure.recurring and structure.recurring.issues:
        name, claims = writer.recurring_issue()
    elif structure.trackers:
        name, claims = writer.trackers()
    else:
        name, claims = writer.shared_context()
    kept = [claim for claim in claims if claim is not None][:MAX_CLAIMS]
    if not kept:
        kept = [writer.fallback_claim()]
    return Summary(
        name=clip(name, MAX_NAME_CHARS),
        summary=" ".join(claim.text for claim in kept),
        claims=tuple(kept),
    )


class _Writer:
    def __init__(
        self,
        structure: Structure,
        facts: Mapping[int, FactInfo],
        entities: Mapping[int, EntityInfo],
        episodes: Mapping[int, EpisodeInfo],
    ) -> None:
        self.structure = structure
        self.facts = facts
        self.entities = entities
        self.episodes = episodes
        self.allowed = set(structure.fact_ids)

    # -- words ---------------------------------------------------------------------------

    def name(self, entity_id: int) -> str:
        entity = self.entities.get(entity_id)
        return entity.name if entity else f"entity {entity_id}"

    def ref(self, entity_id: int) -> str:
        """The entity as it reads mid-sentence: "the Backend Team", "Alice"."""
        entity = self.entities.get(entity_id)
        name = self.name(entity_id)
        if entity is None or entity.type not in _ARTICLE_TYPES or name.lower().startswith("the "):
            return name
        # "Release 4.2" and "iOS 18" are proper names; "the Nightly Backfill" is not.
        if entity.type in _NAMED_WHEN_NUMBERED and any(c.isdigit() for c in name):
            return name
        return f"the {name}"

    def possessive(self, entity_id: int) -> str:
        return f"{self.ref(entity_id)}'s"

    def work(self, dependent: Dependent) -> str:
        """ "Alice's API Migration", or "the API Migration" when nobody owns it."""
        if dependent.owners:
            owner = self.possessive(dependent.owners[0].entity_id)
            return f"{owner} {self.name(dependent.entity_id)}"
        return self.ref(dependent.entity_id)

    def claim(self, text: str, fact_ids: Iterable[int]) -> ClaimDraft | None:
        """A claim citing only facts of the cluster, or nothing if none supports it."""
        cited = tuple(sorted({f for f in fact_ids if f in self.allowed}))
        if not cited:
            return None
        return ClaimDraft(text=clip(sentence(text), MAX_CLAIM_CHARS), fact_ids=cited)

    def fallback_claim(self) -> ClaimDraft:
        text = f"These {count(len(self.structure.episode_ids), 'update')} share facts."
        return ClaimDraft(text=text, fact_ids=self.structure.fact_ids[:1])

    # -- dependency chains ---------------------------------------------------------------

    def dependency_chain(self) -> tuple[str, list[ClaimDraft | None]]:
        analysis = self.structure.dependency
        assert analysis is not None and analysis.root_blockers
        top, others = analysis.root_blockers[0], analysis.root_blockers[1:]
        claims = self.root_claims(top)
        for root in others:
            claims.append(self.other_root_claim(root))
        root_members = {m for root in analysis.root_blockers for m in root.members}
        for cycle in analysis.cycles:
            if not set(cycle) & root_members:
                claims.append(self.cycle_claim(cycle))
        return self.chain_name(top, others), claims

    def chain_name(self, top: RootBlocker, others: Sequence[RootBlocker]) -> str:
        n = top.reach_work_items
        if top.is_cycle:
            members = self.listing([self.name(m) for m in top.members])
            subject = f"Dependency cycle of {members}"
            if not n:
                return subject
        else:
            subject = self.name(top.members[0])
        if not others:
            return f"{subject} blocking {count(n, 'workstream')}"
        waiting = {d.entity_id for root in (top, *others) for d in (*root.direct, *root.downstream)}
        blockers = count(len(others), "other blocker")
        return f"{subject} and {blockers} holding up {count(len(waiting), 'workstream')}"

    def subject(self, root: RootBlocker) -> str:
        return self.listing([self.ref(m) for m in root.members])

    def owned(self, root: RootBlocker) -> str:
        if not root.owners:
            return "with no owner named in these updates"
        return "owned by " + self.listing([self.ref(o.entity_id) for o in root.owners])

    def root_claims(self, root: RootBlocker) -> list[ClaimDraft | None]:
        n = root.reach_work_items
        owner_facts = [f for owner in root.owners for f in owner.fact_ids]
        subject = self.subject(root)
        if root.is_cycle:
            text = (
                f"{subject} wait on each other in a dependency cycle ({self.owned(root)}), and "
                "nothing outside the cycle unblocks them"
            )
            if n:
                text += f"; together they are the root blocker of {count(n, 'workstream')}"
        else:
            text = (
                f"{subject}, {self.owned(root)}, is the root blocker of a dependency chain "
                f"across {count(n, 'workstream')}"
            )
        claims = [self.claim(text, [*owner_facts, *root.chain_fact_ids])]
        target = "the cycle" if root.is_cycle else "it"
        if root.direct:
            verb = "waits" if len(root.direct) == 1 else "wait"
            items = self.listing([self.work(d) for d in root.direct])
            claims.append(
                self.claim(f"{items} {verb} on {target} directly", dependent_facts(root.direct))
            )
        if root.downstream:
            claims.append(self.downstream_claim(root))
        if n:
            claims.append(self.unblock_claim(root))
        return claims

    def downstream_claim(self, root: RootBlocker) -> ClaimDraft | None:
        members = set(root.members)
        vias = sorted(
            {v for d in root.downstream for v in d.via if v not in members},
            key=lambda e: (self.name(e).casefold(), e),
        )
        verb = "is" if len(root.downstream) == 1 else "are"
        items = self.listing([self.work(d) for d in root.downstream])
        through = self.listing([self.ref(v) for v in vias])
        return self.claim(
            f"{items} {verb} blocked downstream, through {through}",
            dependent_facts(root.downstream),
        )

    def unblock_claim(self, root: RootBlocker) -> ClaimDraft | None:
        n = root.reach_work_items
        cleared = f"all {n} workstreams" if n > 1 else "the one workstream waiting on it"
        text = f"Unblocking {self.subject(root)} clears {cleared}"
        if len(root.people) == 1:
            text += f" and unblocks {self.name(root.people[0].entity_id)}"
        elif root.people:
            them = "them" if n > 1 else "it"
            names = self.listing([self.name(p.entity_id) for p in root.people])
            text += f" and the {count(len(root.people), 'person', 'people')} waiting on {them}: "
            text += names
        person_facts = [f for person in root.people for f in person.fact_ids]
        return self.claim(text, [*root.chain_fact_ids, *person_facts])

    def other_root_claim(self, root: RootBlocker) -> ClaimDraft | None:
        waiting = self.listing([self.work(d) for d in (*root.direct, *root.downstream)])
        n = root.reach_work_items
        verb = "separately block" if root.is_cycle else "separately blocks"
        text = f"{self.subject(root)}, {self.owned(root)}, {verb} {count(n, 'workstream')}"
        if n:
            text += f": {waiting}"
        return self.claim(text, root.fact_ids)

    def cycle_claim(self, cycle: Sequence[int]) -> ClaimDraft | None:
        analysis = self.structure.dependency
        assert analysis is not None
        members = set(cycle)
        facts = [
            f for edge in analysis.edges
            if edge.waiting in members and edge.waited_on in members for f in edge.fact_ids
        ]
        names = and_list([self.ref(m) for m in cycle])
        return self.claim(f"{names} also wait on each other in a cycle", facts)

    # -- recurring issues ----------------------------------------------------------------

    def recurring_issue(self) -> tuple[str, list[ClaimDraft | None]]:
        analysis = self.structure.recurring
        assert analysis is not None
        top = analysis.issues[0]
        claims: list[ClaimDraft | None] = []
        for issue in analysis.issues[:3]:
            claims.extend(self.issue_claims(issue))
        for event in analysis.recurring_events:
            issues = [i for i in analysis.issues if any(
                p.event_id == event.event_id for p in i.preceded_by)]
            if len(issues) >= 2:
                names = self.listing([self.ref(i.issue_id) for i in issues])
                claims.append(self.claim(
                    f"{self.ref(event.event_id)} came before {names} in "
                    f"{count(len(event.episode_ids), 'update')}, a recurring pattern worth "
                    "investigating",
                    event.fact_ids,
                ))
        return self.issue_name(top), claims

    def issue_name(self, issue: IssuePattern) -> str:
        reporters = [r.reporter_id for r in issue.reports]
        if len(reporters) < 2:
            updates = count(len(issue.episode_ids), "update")
            return f"{self.name(issue.issue_id)} recurring in {updates}"
        name = f"{self.name(issue.issue_id)} reported by {self.reporters(reporters)}"
        resolved = len(issue.resolved_reports)
        if resolved:
            name += f", {resolved} {'reports' if resolved == 1 else 'report'} it resolved"
        return name

    def reporters(self, reporters: Sequence[int]) -> str:
        """ "7 customers", "2 people", "3 reporters" (a mix)."""
        types = {self.entities[r].type if r in self.entities else "" for r in reporters}
        noun = ("customer", "customers") if types == {CUSTOMER} else (
            ("person", "people") if types == {PERSON} else ("reporter", "reporters"))
        return count(len(reporters), *noun)

    def issue_claims(self, issue: IssuePattern) -> list[ClaimDraft | None]:
        claims: list[ClaimDraft | None] = []
        subject = self.ref(issue.issue_id)
        recurring_events = [p for p in issue.preceded_by if p.recurring]
        if issue.reports:
            reporters = self.listing(
                [f"{self.name(r.reporter_id)} ({self.day(r.first_reported)})"
                 for r in issue.reports]
            )
            text = f"{reporters} reported {subject}"
            if len(issue.reports) >= 2 and not recurring_events:
                text += ", a recurring pattern worth investigating"
            claims.append(self.claim(text, [f for r in issue.reports for f in r.fact_ids]))
        resolved = issue.resolved_reports
        if resolved:
            said = self.listing([f"{self.name(r.reporter_id)} ({self.day(r.resolved_at)})"
                                 for r in resolved if r.resolved_at])
            verb = "reports" if len(resolved) == 1 else "report"
            text = f"{said} {verb} it resolved for them"
            others = [r for r in issue.reports if not r.resolved]
            if others:
                still = self.listing([self.name(r.reporter_id) for r in others])
                text += f"; {still} {'has' if len(others) == 1 else 'have'} not said so"
            claims.append(self.claim(text, [f for r in resolved for f in r.fact_ids]))
        if issue.affected:
            targets = self.listing([self.ref(a.entity_id) for a in issue.affected])
            verb = "affect" if reads_plural(self.name(issue.issue_id)) else "affects"
            claims.append(self.claim(
                f"{capitalized(subject)} {verb} {targets}",
                [f for a in issue.affected for f in a.fact_ids],
            ))
        if issue.preceded_by:
            events = self.listing([
                f"{self.ref(p.event_id)} (in {count(len(p.episode_ids), 'update')})"
                for p in issue.preceded_by
            ])
            text = f"{capitalized(subject)} followed {events}"
            if recurring_events:
                text += ", a recurring pattern worth investigating"
            claims.append(self.claim(text, [f for p in issue.preceded_by for f in p.fact_ids]))
        return claims

    # -- shared context ------------------------------------------------------------------

    def shared_context(self) -> tuple[str, list[ClaimDraft | None]]:
        links = sorted(
            self.structure.links,
            key=lambda link: (-len(link.episode_ids), link.relation, link.target_id,
                              link.source_id or 0),
        )
        n = len(self.structure.episode_ids)
        claims: list[ClaimDraft | None] = [self.window_claim(links)]
        claims.extend(self.link_claim(link) for link in links[: MAX_CLAIMS - 1])
        if not links:
            return f"{count(n, 'related update')}", claims
        top = links[0]
        about = (
            f"{self.name(top.source_id)} and {self.name(top.target_id)}"
            if top.source_id is not None else self.name(top.target_id)
        )
        return f"{count(n, 'update')} about {about}", claims

    def window_claim(self, links: Sequence[Link]) -> ClaimDraft | None:
        authors = []
        for episode_id in self.structure.episode_ids:
            author = self.author(self.episodes[episode_id])
            if author and author not in authors:
                authors.append(author)
        n = count(len(self.structure.episode_ids), "related update")
        start, end = self.day(self.structure.window_start), self.day(self.structure.window_end)
        when = f"on {start}" if start == end else f"between {start} and {end}"
        who = self.listing(authors) if authors else "Their authors"
        facts = [f for link in links for f in link.fact_ids]
        return self.claim(f"{who} wrote these {n} {when}", facts)

    def author(self, episode: EpisodeInfo) -> str:
        if episode.author:
            return episode.author
        if episode.author_entity_id is not None and episode.author_entity_id in self.entities:
            return self.name(episode.author_entity_id)
        return ""

    def link_claim(self, link: Link) -> ClaimDraft | None:
        n = count(len(link.episode_ids), "update")
        target = self.ref(link.target_id)
        if link.relation == CHAIN_KEY:
            verb = "is" if len(link.episode_ids) == 1 else "are"
            return self.claim(f"{n} {verb} about what {target} waits on, tracks or holds up",
                              link.fact_ids)
        singular, plural = _VERBS.get(link.relation) or verb_forms(link.relation)
        if link.source_id is not None:
            text = f"{n} state that {self.ref(link.source_id)} {singular} {target}"
        else:
            sources = sorted(
                {self.facts[f].source_id for f in link.fact_ids if f in self.facts},
                key=lambda e: (self.name(e).casefold(), e),
            )
            verb = singular if len(sources) == 1 else plural
            who = self.listing([self.ref(s) for s in sources])
            text = f"{n} say that {who} {verb} {target}"
        return self.claim(text, link.fact_ids)

    def listing(self, phrases: Sequence[str]) -> str:
        return and_list(phrases, limit=LIST_LIMIT)

    def day(self, moment: datetime) -> str:
        return day(moment, self.structure.window_end)

    # -- tracking items ------------------------------------------------------------------

    def trackers(self) -> tuple[str, list[ClaimDraft | None]]:
        top = self.structure.trackers[0]
        claims = [self.tracker_claim(t) for t in self.structure.trackers]
        n, still = len(top.items), len(top.open_items)
        return f"{self.name(top.tracker_id)} tracking {count(n, 'item')}, {still} open", claims

    def tracker_claim(self, tracker: Tracker) -> ClaimDraft | None:
        n, still = len(tracker.items), tracker.open_items
        text = f"{self.ref(tracker.tracker_id)} tracks {count(n, 'item')}, {len(still)} open"
        if still:
            ranked = [
                f"{self.ref(i.entity_id)} ({count(i.reach, 'item')} waiting)" if i.reach
                else self.ref(i.entity_id)
                for i in still
            ]
            text += f"; the most waited on first: {self.listing(ranked)}"
        return self.claim(text, tracker.fact_ids)


def verb_forms(relation: str) -> tuple[str, str]:
    """(singular, plural) for a relation the template has no words for: ``SUPPLIES`` →
    ("supplies", "supply"), ``OWNS_SHARE_IN`` → ("owns share in", "own share in")."""
    words = relation.lower().replace("_", " ").split()
    if not words:
        return ("relates to", "relate to")
    first = words[0]
    irregular = {"is": "are", "has": "have", "was": "were"}
    if first in irregular:
        plural = irregular[first]
    elif first.endswith("ies"):
        plural = first[:-3] + "y"
    elif first.endswith(("ches", "shes", "sses", "xes")):
        plural = first[:-2]
    elif first.endswith("s") and not first.endswith("ss"):
        plural = first[:-1]
    else:
        plural = first
    rest = " ".join(words[1:])
    return (" ".join(words), f"{plural} {rest}".strip())


def dependent_facts(dependents: Iterable[Dependent]) -> list[int]:
    """The facts that a dependent waits (``DEPENDS_ON``) and whose it is (``RESPONSIBLE_FOR``)."""
    return [
        f for d in dependents for f in (*d.fact_ids, *(f for o in d.owners for f in o.fact_ids))
    ]


def and_list(phrases: Sequence[str], limit: int | None = None) -> str:
    """ "A", "A and B", "A, B and C"; beyond ``limit + 1`` items, "A, B, C and 4 others"."""
    items = list(phrases)
    if limit is not None and len(items) > limit + 1:
        items = [*items[:limit], f"{len(items) - limit} others"]
    if len(items) <= 1:
        return "".join(items)
    return ", ".join(items[:-1]) + " and " + items[-1]


def reads_plural(name: str) -> bool:
    """ "Timeout Errors affect", "the Outage affects": a name ending in a plural noun."""
    last = name.split()[-1].lower() if name.split() else ""
    return len(last) > 3 and last.endswith("s") and not last.endswith(("ss", "us", "is"))


def count(n: int, singular: str, plural: str | None = None) -> str:
    return f"{n} {singular if n == 1 else (plural or singular + 's')}"


def day(moment: datetime, reference: datetime | None = None) -> str:
    """ "16 Nov", or "16 Nov 2025" when ``reference`` (the latest evidence) is in another year."""
    text = f"{moment.day} {moment:%b}"
    if reference is not None and reference.year != moment.year:
        text += f" {moment.year}"
    return text


def capitalized(text: str) -> str:
    return text[:1].upper() + text[1:]


def sentence(text: str) -> str:
    text = capitalized(text.strip())
    return text if text.endswith((".", "!", "?")) else text + "."


def clip(text: str, limit: int) -> str:
    """At most ``limit`` characters, cut at a word boundary with an ellipsis."""
    if len(text) <= limit:
        return text
    cut = text[: limit - 1].rsplit(" ", 1)[0].rstrip(",;:")
    return cut + "…"
