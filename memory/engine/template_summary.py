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
* stalled items: the item, its state and since when, its length as of the run ("in status NEW
  since 20 Jul 2008 (over 18 years by 5 Dec 2026)"). A pattern holding quiet stalls
  (``Structure.held_stalls``) ends with them, oldest first, the same words: the few oldest
  named, the others counted; its own claims give way to them within ``MAX_CLAIMS``.

Prose rules: names, never ids — a tracker's item, named by its key, reads with its title the
first time the summary mentions it (``Bug 446261 “Clear Private Data should also reset last
directory saved to”``) and by its key after; keys and proper names take no article ("Bug 446261",
never "the Bug 446261") and keep their case at the start of a sentence (``mia@example.com``);
dates as "16 Nov" ("16 Nov 2025" outside the year of the latest evidence); counts agree with their
nouns ("1 workstream", "7 customers"). What a tracker tracks is counted as the updates say it is:
open, done, ended, or with nothing said of it but that it is tracked — never "open" by default.
"""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence
from datetime import datetime

from memory.engine.stalled import AGENDA, BLOCKED, REPORTED_STATE, STALLED, WORK_ITEM, Stall
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
_NUMBERED = re.compile(r"^[A-Za-z]+ #?\d+$")
_TICKET_NUMBER = re.compile(r"\(#\d+\)")
# The keys the importers name items by: Bugzilla, Zendesk, Jira / Linear, GitHub.
_KEY = re.compile(r"^(?:Bug \d+|Ticket #\d+|[A-Z][A-Z0-9_]*-\d+|[\w.-]+/[\w.-]+#\d+)$")
HELD_NAMED = 3
"""A pattern names this many of the quiet stalls it holds (the oldest; one more rather than
"1 more item") and counts the others."""
TITLE_CHARS = 90
"""A title is clipped to this many characters in a claim (a Bugzilla summary runs to 255)."""
NAME_TITLE_CHARS = 60
"""...and to this many in an observation's name."""
# Words the template starts sentences with in lower case; any other start is a name, whose case
# is its own ("mia@example.com reported ENG-1").
_OWN_WORDS = frozenset({"the", "these", "all", "unblocking"})


def looks_like_key(name: str) -> bool:
    """A tracker's key as the importers name items: ``Bug 1388990``, ``Ticket #35436``,
    ``ATL-12``, ``owner/repo#12``. What waits on keys are items, not workstreams; an imported
    one has a title (``memory.snapshot.load_titles``)."""
    return bool(_KEY.match(name))


def title_like(name: str) -> bool:
    """A name that is a ticket's words, not a noun: it starts in lower case or with a mark
    ("your login on the website does not work (#13509)"), or carries its ticket's number
    ("Autofill no longer works on Chrome (#11050)"). It takes no article."""
    return not name[:1].isupper() or bool(_TICKET_NUMBER.search(name))


def numbered(name: str) -> bool:
    """A key or a numbered name ("Phase 2", "Bug 4"): it reads without an article."""
    return bool(_NUMBERED.match(name)) or looks_like_key(name)

# (singular, plural) present-tense verbs for a relation, for the shared-context sentences.
_VERBS: dict[str, tuple[str, str]] = {
    "RESPONSIBLE_FOR": ("is responsible for", "are responsible for"),
    "MEMBER_OF": ("is a member of", "are members of"),
    "DEPENDS_ON": ("depends on", "depend on"),
    "REPORTED": ("reported", "reported"),
    "ANSWERED": ("answered in", "answered in"),
    "RESEMBLES": ("resembles the reports of", "resemble the reports of"),
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
        if structure.trackers:  # a tracking item is the parent: it names the pattern
            name, tracked = writer.trackers()  # first: items are introduced in reading order
            claims = [*tracked, *writer.dependency_chain()[1]]
        else:
            name, claims = writer.dependency_chain()
    elif structure.kind == RECURRING_ISSUE and structure.recurring and structure.recurring.issues:
        name, claims = writer.recurring_issue()
    elif structure.kind == STALLED and structure.stalled is not None:
        name, claims = writer.stalled(structure.stalled)
    elif structure.trackers:
        name, claims = writer.trackers()
    else:
        name, claims = writer.shared_context()
    # The quiet stalls the pattern holds come last, and always fit: the pattern's own claims
    # give way to them ("Bug 446261 has been in status NEW since 20 Jul 2008 …").
    held = [claim for claim in writer.held_stalls(structure.held_stalls) if claim is not None] \
        if structure.held_stalls and structure.kind != STALLED else []
    kept = [claim for claim in claims if claim is not None][:MAX_CLAIMS - len(held)] + held
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
        self.introduced: set[int] = set()
        """Titled items the summary has named already: later mentions use the key alone."""

    # -- words ---------------------------------------------------------------------------

    def name(self, entity_id: int) -> str:
        entity = self.entities.get(entity_id)
        return entity.name if entity else f"entity {entity_id}"

    def title(self, entity_id: int) -> str:
        entity = self.entities.get(entity_id)
        return " ".join(entity.title.split()) if entity else ""

    def titled(self, entity_id: int, limit: int = NAME_TITLE_CHARS) -> str:
        """ "Bug 446261 “Clear Private Data should also…”": the key and its title, for names."""
        title = self.title(entity_id)
        name = self.name(entity_id)
        return f"{name} “{clip(title, limit)}”" if title else name

    def label(self, entity_id: int) -> str:
        """The name, with its title the first time the summary mentions a titled item."""
        if entity_id in self.introduced or not self.title(entity_id):
            return self.name(entity_id)
        self.introduced.add(entity_id)
        return self.titled(entity_id, TITLE_CHARS)

    def ref(self, entity_id: int) -> str:
        """The entity as it reads mid-sentence: "the Backend Team", "Alice", "Bug 446261"."""
        entity = self.entities.get(entity_id)
        name = self.label(entity_id)
        plain = self.name(entity_id)
        if entity is None or entity.type not in _ARTICLE_TYPES or plain.lower().startswith("the "):
            return name
        # "Release 4.2" and "iOS 18" are proper names; "the Nightly Backfill" is not; nor is a
        # tracker's key ("Bug 446261", "ATL-12").
        if entity.type in _NAMED_WHEN_NUMBERED and any(c.isdigit() for c in plain):
            return name
        if numbered(plain) or self.title(entity_id) or title_like(plain):
            return name
        return f"the {name}"

    def possessive(self, entity_id: int) -> str:
        return f"{self.ref(entity_id)}'s"

    def work(self, dependent: Dependent) -> str:
        """ "Alice's API Migration", or "the API Migration" when nobody owns it."""
        if dependent.owners:
            owner = self.possessive(dependent.owners[0].entity_id)
            return f"{owner} {self.label(dependent.entity_id)}"
        return self.ref(dependent.entity_id)

    def unit(self, root: RootBlocker) -> str:
        """What waits: "workstream", or "item" when everything waiting is a tracker's item."""
        waiting = [d.entity_id for d in (*root.direct, *root.downstream)]
        if waiting and all(looks_like_key(self.name(e)) or self.title(e) for e in waiting):
            return "item"
        return "workstream"

    def since(self, fact_ids: Iterable[int]) -> str:
        """The day the first update of the cluster stating these facts was written."""
        times = [self.episodes[e].reference_time for f in fact_ids if f in self.facts
                 for e in self.facts[f].episode_ids if e in self.episodes]
        return self.day(min(times)) if times else ""

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
        unit = self.unit(top)
        if top.is_cycle:
            members = self.listing([self.name(m) for m in top.members])
            subject = f"Dependency cycle of {members}"
            if not n:
                return subject
        else:
            subject = self.titled(top.members[0])
        if not others:
            if n == 1 and not top.is_cycle and self.titled_waiting(top):
                (only,) = top.direct
                return f"{subject} blocking {self.titled(only.entity_id)}"
            return f"{subject} blocking {count(n, unit)}"
        waiting = {d.entity_id for root in (top, *others) for d in (*root.direct, *root.downstream)}
        blockers = count(len(others), "other blocker")
        return f"{subject} and {blockers} holding up {count(len(waiting), unit)}"

    def titled_waiting(self, root: RootBlocker) -> bool:
        """One tracker item waiting on the root: the name says which."""
        return len(root.direct) == 1 and not root.downstream and bool(
            looks_like_key(self.name(root.direct[0].entity_id))
            or self.title(root.direct[0].entity_id))

    def subject(self, root: RootBlocker) -> str:
        return self.listing([self.ref(m) for m in root.members])

    def owned(self, root: RootBlocker) -> str:
        if not root.owners:
            return "with no owner named in these updates"
        return "owned by " + self.listing([self.ref(o.entity_id) for o in root.owners])

    def root_claims(self, root: RootBlocker) -> list[ClaimDraft | None]:
        n = root.reach_work_items
        owner_facts = [f for owner in root.owners for f in owner.fact_ids]
        if n == 1 and not root.is_cycle and root.direct:
            return self.single_wait_claims(root, owner_facts)
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
                f"across {count(n, self.unit(root))}"
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

    def single_wait_claims(self, root: RootBlocker, owner_facts: Sequence[int]
                           ) -> list[ClaimDraft | None]:
        """One item waits on the root: "Bug 528988 “…” waits on Bug 370886, with no owner
        named in these updates, since 11 Feb 2010." — no chain, no "1 workstream"."""
        (waiting,) = root.direct
        facts = dependent_facts(root.direct)
        text = f"{self.work(waiting)} waits on {self.subject(root)}, {self.owned(root)}"
        since = self.since(waiting.fact_ids)
        if since:
            text += f", since {since}"
        claims = [self.claim(text, [*facts, *owner_facts])]
        if root.people:
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
        unit = self.unit(root)
        cleared = f"all {n} {unit}s" if n > 1 else f"the one {unit} waiting on it"
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
        text = f"{self.subject(root)}, {self.owned(root)}, {verb} {count(n, self.unit(root))}"
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
        shown = analysis.issues[:3]
        # "A recurring pattern worth investigating" is said once: by the claims of an event
        # before the issues when there is one, else by the first issue's reports (not after
        # every issue's reports: "…reported #1780, a recurring pattern worth investigating.
        # …reported #6305, a recurring pattern worth investigating.").
        co_occurs = any(p.recurring for issue in shown for p in issue.preceded_by) or any(
            sum(1 for i in analysis.issues if any(p.event_id == event.event_id
                                                  for p in i.preceded_by)) >= 2
            for event in analysis.recurring_events)
        for index, issue in enumerate(shown):
            claims.extend(self.issue_claims(issue, worth_saying=index == 0 and not co_occurs))
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

    def issue_claims(self, issue: IssuePattern, worth_saying: bool = True
                     ) -> list[ClaimDraft | None]:
        """``worth_saying``: its reports' claim may call them a recurring pattern worth
        investigating (the summary says it once)."""
        claims: list[ClaimDraft | None] = []
        subject = self.ref(issue.issue_id)
        recurring_events = [p for p in issue.preceded_by if p.recurring]
        if issue.reports:
            reporters = self.listing(
                [f"{self.name(r.reporter_id)} ({self.day(r.first_reported)})"
                 for r in issue.reports]
            )
            text = f"{reporters} reported {subject}"
            if len(issue.reports) >= 2 and not recurring_events and worth_saying:
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
            # Each source with its own relation: an agent who answered in a thread shares its
            # signature with the customers who reported it (``Relation.links_as``), and is no
            # reporter.
            by_relation: dict[str, set[int]] = defaultdict(set)
            for f in link.fact_ids:
                if f in self.facts:
                    by_relation[self.facts[f].relation].add(self.facts[f].source_id)
            parts = []
            for relation in sorted(by_relation, key=lambda r: (r != link.relation, r)):
                sources = sorted(by_relation[relation],
                                 key=lambda e: (self.name(e).casefold(), e))
                one, many = _VERBS.get(relation) or verb_forms(relation)
                who = self.listing([self.ref(s) for s in sources])
                parts.append(f"{who} {one if len(sources) == 1 else many} {target}")
            if not parts:
                parts = [f"{plural} {target}"]
            text = f"{n} say that " + " and that ".join(parts)
        return self.claim(text, link.fact_ids)

    def listing(self, phrases: Sequence[str]) -> str:
        return and_list(phrases, limit=LIST_LIMIT)

    def day(self, moment: datetime) -> str:
        """ "16 Nov"; with the year when the evidence spans years, or ends in another year than
        the one the summary is written in (``Structure.as_of``: a pattern of last January reads
        "31 Jan 2025" in December 2026, not "31 Jan"), or the day is in another year than the
        latest evidence (an old tracker's "since 9 Dec 2019")."""
        start, end = self.structure.window_start, self.structure.window_end
        written = self.structure.as_of or (
            self.structure.stalled.as_of if self.structure.stalled is not None else None)
        other_year = written is not None and written.year != end.year
        return day(moment, end, always_year=start.year != end.year or other_year)

    # -- stalled items -------------------------------------------------------------------

    def stalled(self, stall: Stall) -> tuple[str, list[ClaimDraft | None]]:
        """ "Bug 4 “…” blocked since 16 Nov": how long the item has been in its state, the
        length as of the run that found it ("5 weeks by 21 Dec": the summary is written once
        per version, the weeks keep growing)."""
        subject = self.titled(stall.item_id)
        since = day(stall.since, stall.as_of)
        label = self.label(stall.item_id)
        if stall.state == AGENDA:
            name = f"{subject} on the agenda {agenda_share(stall)}"
        elif stall.state == BLOCKED:
            name = f"{subject} blocked since {since}"
        elif stall.state == REPORTED_STATE:
            name = f"{subject} reported and open since {since}"
        else:
            name = f"{subject} {self.stall_state(stall)} since {since}"
        text = f"{label} has been {self.stall_words(stall)}"
        if stall.state == REPORTED_STATE:
            text += f"; reported by {self.listing([self.ref(e) for e in stall.other_ids])}"
        # One message, its ticket and the problem it reports (or the other tickets it names):
        # one stall, the others named inside.
        problems = [e for e in stall.also_ids if self.entity_type(e) != WORK_ITEM]
        tickets = [e for e in stall.also_ids if self.entity_type(e) == WORK_ITEM]
        if problems:
            said = self.listing([self.ref(e) for e in problems])
            name = name.replace(f"{subject} ", f"{subject} reports {said}, ", 1).replace(
                ", reported and open since", ", open since", 1)
            text += f"; it reports {said}"
        elif tickets:
            said = self.listing([self.name(e) for e in tickets])
            name = name.replace(f"{subject} ", f"{subject} and {said} ", 1)
        if tickets:
            names = "update names" if len(stall.episode_ids) == 1 else "updates name"
            text += f"; the same {names} {self.listing([self.ref(e) for e in tickets])}"
        return name, [self.claim(text, stall.fact_ids)]

    def entity_type(self, entity_id: int) -> str:
        entity = self.entities.get(entity_id)
        return entity.type if entity is not None else ""

    def stall_state(self, stall: Stall) -> str:
        """ "in status NEW", "in review", "open" (a status stall's state)."""
        return status_words(self.name(stall.other_ids[0])) if stall.other_ids else "open"

    def stall_words(self, stall: Stall) -> str:
        """What follows "has been": "blocked since 16 Nov (5 weeks by 21 Dec), waiting on the
        Security Review", "in status NEW since 20 Jul 2008 (over 18 years by 5 Dec 2026)"."""
        since = day(stall.since, stall.as_of)
        lasted = f"({duration(stall.weeks)} by {day(stall.as_of, stall.since)})"
        if stall.state == AGENDA:
            return (f"on the agenda {agenda_share(stall)}: "
                    f"{count(len(stall.episode_ids), 'update')} mention it since {since}")
        if stall.state == BLOCKED:
            waits = self.listing([self.ref(e) for e in stall.other_ids])
            return f"blocked since {since} {lasted}, waiting on {waits}"
        if stall.state == REPORTED_STATE:
            return f"reported and open since {since} {lasted}, with no status in these updates"
        return f"{self.stall_state(stall)} since {since} {lasted}"

    def held_stalls(self, stalls: Sequence[Stall]) -> list[ClaimDraft | None]:
        """The quiet stalls a pattern holds (``memory.engine.stalled.held_by_patterns``), oldest
        first: items in the same state since the same day in one sentence ("Bug 1556846 and Bug
        1572869 have been in status NEW since …"), the ``HELD_NAMED`` oldest such sentences,
        then the others counted in one ("4 more items here have not moved for 5 weeks or
        more: …")."""
        groups: dict[tuple[object, ...], list[Stall]] = {}
        for stall in sorted(stalls, key=lambda s: (s.since, s.item_id)):
            key: tuple[object, ...] = (stall.item_id,) if stall.state == AGENDA else (
                stall.state, stall.other_ids, day(stall.since, stall.as_of, always_year=True))
            groups.setdefault(key, []).append(stall)
        ordered = list(groups.values())
        named = ordered if len(ordered) <= HELD_NAMED + 1 else ordered[:HELD_NAMED]
        claims = [self.held_claim(group) for group in named]
        rest = [stall for group in ordered[len(named):] for stall in group]
        if rest:
            weeks = min(stall.weeks for stall in rest)
            verb = "has" if len(rest) == 1 else "have"
            items = self.listing([self.ref(stall.item_id) for stall in rest])
            claims.append(self.claim(
                f"{count(len(rest), 'more item')} here {verb} not moved for {duration(weeks)} "
                f"or more: {items}",
                [f for stall in rest for f in stall.fact_ids]))
        return claims

    def held_claim(self, group: Sequence[Stall]) -> ClaimDraft | None:
        subject = self.listing([self.ref(stall.item_id) for stall in group])
        words = self.stall_words(group[0])
        if len(group) > 1:
            words = words.replace("mention it", "mention them")
        verb = "has" if len(group) == 1 else "have"
        return self.claim(f"{subject} {verb} been {words}",
                          [f for stall in group for f in stall.fact_ids])

    # -- tracking items ------------------------------------------------------------------

    def trackers(self) -> tuple[str, list[ClaimDraft | None]]:
        top = self.structure.trackers[0]
        claims: list[ClaimDraft | None] = []
        for position, tracker in enumerate(self.structure.trackers):
            same = next((earlier for earlier in self.structure.trackers[:position]
                         if items_of(earlier) == items_of(tracker)), None)
            claims.append(self.same_items_claim(tracker, same) if same
                          else self.tracker_claim(tracker))
        if len(top.items) == 1:  # "ATL-1 “Checkout redesign” tracking ATL-2 “Payments…”"
            tracked = top.items[0].entity_id
            return f"{self.titled(top.tracker_id, 40)} tracking {self.titled(tracked, 40)}", claims
        name = f"{self.titled(top.tracker_id)} tracking {count(len(top.items), 'item')}"
        known_open = sum(1 for item in top.items if item.state == "open")
        if known_open or len(top.items) > sum(1 for i in top.items if i.state == "unknown"):
            name += f", {known_open} open"
        return name, claims

    def tracker_claim(self, tracker: Tracker) -> ClaimDraft | None:
        n = len(tracker.items)
        by_state = {state: [i for i in tracker.items if i.state == state]
                    for state in ("open", "done", "ended", "unknown")}
        subject = self.ref(tracker.tracker_id)
        if n == 1:
            (item,) = tracker.items
            state = state_words(item.state)
            text = f"{subject} tracks {self.ref(item.entity_id)}, " + (
                state if item.state == "unknown" else f"which {state}" if item.state == "ended"
                else f"which is {state}")
            return self.claim(text, tracker.fact_ids)
        parts = [f"{len(items)} {state_words(state)}"
                 for state, items in by_state.items() if items]
        if len(parts) == 1:  # all in one state
            state = next(state for state, items in by_state.items() if items)
            text = f"{subject} tracks {count(n, 'item')}, " + (
                "none of them with a status in these updates" if state == "unknown"
                else f"all {state_words(state)}")
        else:
            text = f"{subject} tracks {count(n, 'item')}: {and_list(parts)}"
        still = by_state["open"]
        if (still and len(parts) > 1) or len(still) > 1:
            if any(i.reach for i in still):
                ranked = [
                    f"{self.ref(i.entity_id)} ({count(i.reach, 'item')} waiting)" if i.reach
                    else self.ref(i.entity_id)
                    for i in still
                ]
                text += f"; the most waited on first: {self.listing(ranked)}"
            else:
                text += f"; open: {self.listing([self.ref(i.entity_id) for i in still])}"
        return self.claim(text, tracker.fact_ids)

    def same_items_claim(self, tracker: Tracker, earlier: Tracker) -> ClaimDraft | None:
        """A second tracker of exactly the same items: most likely a duplicate to close."""
        title = self.title(tracker.tracker_id)
        same_title = title and title == self.title(earlier.tracker_id)
        subject = self.name(tracker.tracker_id) if same_title else self.ref(tracker.tracker_id)
        if same_title:  # "with the same title" has introduced it: its key alone after
            self.introduced.add(tracker.tracker_id)
        text = f"{subject}{', with the same title,' if same_title else ''} tracks the same "
        text += f"{count(len(tracker.items), 'item')} as {self.name(earlier.tracker_id)}"
        return self.claim(text, tracker.fact_ids)


def agenda_share(stall: Stall) -> str:
    """ "in 26 of the last 30 weeks"."""
    return f"in {stall.weeks_mentioned} of the last {count(stall.weeks_counted, 'week')}"


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


def items_of(tracker: Tracker) -> frozenset[int]:
    return frozenset(item.entity_id for item in tracker.items)


def state_words(state: str) -> str:
    """ "open", "done", "ended without being done", "with no status in these updates"."""
    return {
        "done": "done",
        "ended": "ended without being done",
        "unknown": "with no status in these updates",
    }.get(state, "open")


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
    """ "Timeout Errors affect", "the Outage affects": a name ending in a plural noun; a brand
    in parentheses after it does not count ("MagicDNS Failures (tailscale/tailscale) affect")."""
    words = re.sub(r"\s*\([^()]*\)\s*$", "", name).split()
    last = words[-1].lower() if words else ""
    return len(last) > 3 and last.endswith("s") and not last.endswith(("ss", "us", "is"))


_STATE_WORDS = frozenset({
    "blocked", "stalled", "stuck", "on hold", "at risk", "delayed", "waiting", "in review",
    "in progress", "provisional", "open", "triaged", "deferred", "postponed", "unconfirmed",
    "reopened", "pending", "in triage",
})


def status_words(status: str) -> str:
    """ "blocked", "in review", "provisional" — a status that reads as a state; any other
    status is named: "in status Needs Diagnosis"."""
    if status.casefold() in _STATE_WORDS:
        return status.casefold()
    return f"in status {status}"


def duration(weeks: int) -> str:
    """ "5 weeks"; "over 2 years" past two years (a 16-year-old bug is not "850 weeks")."""
    if weeks >= 104:
        return f"over {count(weeks * 7 // 365, 'year')}"
    return count(weeks, "week")


def count(n: int, singular: str, plural: str | None = None) -> str:
    return f"{n} {singular if n == 1 else (plural or singular + 's')}"


def day(moment: datetime, reference: datetime | None = None, *, always_year: bool = False
        ) -> str:
    """ "16 Nov", or "16 Nov 2025" when ``reference`` (the latest evidence) is in another year
    or ``always_year``."""
    text = f"{moment.day} {moment:%b}"
    if always_year or (reference is not None and reference.year != moment.year):
        text += f" {moment.year}"
    return text


def capitalized(text: str) -> str:
    """The template's own first word capitalized; a name keeps its case ("mia@example.com")."""
    first = text.split(" ", 1)[0]
    if first.islower() and first not in _OWN_WORDS:
        return text
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
