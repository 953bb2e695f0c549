"""What the pages show, built from rows the selectors loaded: cards, the structure of an
observation in words, the signatures that hold a cluster together, citation numbers. Plain
Python over loaded rows and ``Observation.structure`` — no queries here."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any

from django.utils import timezone

from dashboard.support_queue import QueueSummary
from memory.engine.item_priority import priority_word, urgency
from memory.engine.stalled import weeks_between
from memory.engine.template_summary import duration, status_words
from memory.engine.types import CHAIN_KEY
from memory.importers.runs import ImportReport
from memory.ingestion import IngestReport, LineResult
from memory.models import (
    Claim,
    Entity,
    Episode,
    Fact,
    FactEvidence,
    MergeSuggestion,
    Observation,
)
from memory.summarize import DEFERRED_PREFIX

# How a relation reads between two names, and how a target-mode signature (what several episodes
# point at) reads on its own: "waits on the Auth Service Refactor".
RELATION_PHRASES: dict[str, str] = {
    "DEPENDS_ON": "waits on",
    "RESPONSIBLE_FOR": "is responsible for",
    "MEMBER_OF": "is a member of",
    "HAS_STATUS": "has status",
    "REPORTED": "reported",
    "AFFECTS": "affects",
    "PRECEDED_BY": "followed",
    "ON_PLAN": "is on plan",
    "USES": "uses",
    "RELATES_TO": "relates to",
}

TEMPLATE_GENERATOR = "template"
BACKFILL_AFTER = timedelta(days=1)
"""An episode that arrived this long after it was written is a backfill."""


def relation_phrase(relation: str) -> str:
    return RELATION_PHRASES.get(relation, relation.replace("_", " ").lower())


def generator_label(generator: str) -> str:
    return "Template summary" if generator == TEMPLATE_GENERATOR else generator


def writer_label(generator: str, fallback: str = "", pending: bool = False) -> str:
    """Who wrote a summary, and why the template did when a model is configured:
    "template (model failed: timeout) — will retry", "template (model output rejected)"."""
    if generator != TEMPLATE_GENERATOR or not fallback:
        return generator_label(generator)
    reason = fallback.split(":", 1)[0] if fallback.startswith("model output rejected") else fallback
    # A summary deferred until the model has read the cluster's updates says when, not "retry".
    deferred = fallback.startswith(DEFERRED_PREFIX)
    return f"template ({reason})" + (" — will retry" if pending and not deferred else "")


def is_backfill(episode: Episode) -> bool:
    return episode.ingested_at - episode.reference_time > BACKFILL_AFTER


def _names(structure: Mapping[str, Any]) -> dict[str, str]:
    return structure.get("names") or {}


def _name(names: Mapping[str, str], entity_id: Any) -> str:
    return names.get(str(entity_id), f"entity {entity_id}")


def _join(items: list[str]) -> str:
    if len(items) <= 1:
        return "".join(items)
    return ", ".join(items[:-1]) + " and " + items[-1]


def _plural(count: int, word: str) -> str:
    return f"{count} {word}" + ("" if count == 1 else "s")


# --- An observation's history ----------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class VersionLine:
    """One version of a lineage in the observation page's history: what changed since the
    version before, and each time later updates restated it in place (no new version)."""

    version: Observation
    change: str
    restated: list[str]


def version_history(versions: list[Observation]) -> list[VersionLine]:
    """The lineage's versions, oldest first, each with what changed since the one before
    ("first seen"; "3 more updates, 1 more fact"; "2 facts fewer" when facts ended)."""
    lines = []
    previous: Observation | None = None
    for version in versions:
        lines.append(VersionLine(version, _change(previous, version), [
            f"restated by {_plural(int(entry.get('episodes', 0)), 'update')} on "
            f"{_day(entry.get('at'))}"
            for entry in (version.restatements or []) if isinstance(entry, dict)
        ]))
        previous = version
    return lines


def _change(previous: Observation | None, version: Observation) -> str:
    if previous is None:
        return "first seen"
    if version.evidence_fingerprint == previous.evidence_fingerprint:
        # Written again over the same evidence: the model's rewrite of a stand-in, or what it
        # holds changed (a stall went quiet inside it).
        return "the same evidence, written again"
    parts = []
    for count, before, word in ((version.episode_count, previous.episode_count, "update"),
                                (version.fact_count, previous.fact_count, "fact")):
        if count > before:
            parts.append(f"{count - before} more {word}" + ("" if count - before == 1 else "s"))
        elif count < before:
            parts.append(f"{_plural(before - count, word)} fewer")
    return ", ".join(parts) if parts else "the same counts, other facts"


def _day(value: Any) -> str:
    moment = _when(value) if isinstance(value, str) else value
    return f"{moment.day} {moment:%b %Y}" if isinstance(moment, datetime) else "an unknown day"


# --- Cards ------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class EntityRef:
    name: str
    uuid: str | None
    """``None`` when the entity is no longer linked (the card then shows the name only)."""


@dataclass(frozen=True, slots=True)
class BlockerSummary:
    blocker: EntityRef
    owners: str
    reach_people: int
    reach_work_items: int

    @property
    def reach_text(self) -> str:
        # No "0 people": a tracker's items and a customer's issue often name no person.
        items = _plural(self.reach_work_items, "work item")
        if not self.reach_people:
            return f"clears {items}"
        people = "1 person" if self.reach_people == 1 else f"{self.reach_people} people"
        return f"clears {people}, {items}"


@dataclass(frozen=True, slots=True)
class IssueSummary:
    issue: EntityRef
    reporters: int
    recurring_events: list[str]
    reporter_types: frozenset[str] = frozenset()

    @property
    def reporters_text(self) -> str:
        """ "7 customers", "2 people", or "3 reporters" for a mix (or types unknown)."""
        if self.reporter_types == {"Customer"}:
            return _plural(self.reporters, "customer")
        if self.reporter_types == {"Person"}:
            return "1 person" if self.reporters == 1 else f"{self.reporters} people"
        return _plural(self.reporters, "reporter")


@dataclass(frozen=True, slots=True)
class ObservationCard:
    observation: Observation
    change: str
    """"new", "updated" or "" relative to the chosen date."""
    blocker: BlockerSummary | None
    issue: IssueSummary | None
    queue: QueueSummary | None = None
    """A recurring issue's customers, plans and tickets (``dashboard.support_queue``)."""
    stall: StallSummary | None = None
    held: tuple[StallSummary, ...] = ()
    """The quiet stalls a pattern holds, oldest first (all of them: the card names
    ``CARD_HELD``)."""

    @property
    def held_named(self) -> tuple[StallSummary, ...]:
        return self.held[:CARD_HELD]

    @property
    def held_more(self) -> int:
        return max(len(self.held) - CARD_HELD, 0)

    @property
    def queue_customers_text(self) -> str:
        """The queue's customers; "in all" when they are more than the issue's reporters (its
        tickets' reporters are counted too: "10 customers" beside the issue, then "11
        customers in all", never two bare counts that disagree)."""
        if self.queue is None:
            return ""
        text = self.queue.customers_text
        if self.issue is not None and len(self.queue.customers) != self.issue.reporters:
            count, _, plans = text.partition(", ")
            text = f"{count} in all" + (f", {plans}" if plans else "")
        return text

    @property
    def generator(self) -> str:
        return generator_label(self.observation.generator)


def change_since(observation: Observation, since: datetime | None) -> str:
    """*new* when its lineage's first version was written after ``since``; *updated* when a later
    version was."""
    if since is None or observation.created_at < since:
        return ""
    started = getattr(observation, "lineage_started_at", None) or observation.created_at
    if observation.version == 1 or started >= since:
        return "new"
    return "updated"


CARD_REPORTERS = 50
CARD_HELD = 3
"""A pattern's card names this many of the quiet stalls it holds (the oldest) and counts the
others."""


def card_entity_ids(observation: Observation) -> list[int]:
    """The entities a card links to: its single root blocker and its top issue, the issue's
    reporters, and the quiet stalls it names (prefetch them with
    ``selectors.with_card_entities`` before ``card``)."""
    structure = observation.structure or {}
    ids = []
    roots = (structure.get("dependency") or {}).get("root_blockers") or []
    if roots and len(roots[0]["members"]) == 1:
        ids.append(int(roots[0]["members"][0]))
    issues = (structure.get("recurring") or {}).get("issues") or []
    if issues:
        ids.append(int(issues[0]["issue"]))
        # Its reporters' types: "7 customers", not "7 reporters" (a bounded few: beyond them the
        # card says "reporters").
        ids += [int(r["reporter"]) for r in issues[0].get("reports", [])[:CARD_REPORTERS]]
    ids += held_stall_ids(observation)
    return ids


def _entity_refs(observation: Observation) -> dict[str, EntityRef]:
    """Entity id → reference, from the prefetched ``entities`` (no query)."""
    return {
        str(e.pk): EntityRef(name=e.name, uuid=str(e.uuid)) for e in observation.entities.all()
    }


def _ref(entity_id: Any, refs: Mapping[str, EntityRef], names: Mapping[str, str]) -> EntityRef:
    return refs.get(str(entity_id)) or EntityRef(name=_name(names, entity_id), uuid=None)


@dataclass(frozen=True, slots=True)
class StallSummary:
    """A stalled item as the board, the weekly review and the exports show it."""

    item: EntityRef
    state: str
    """"blocked", "in status NEW", "in review", "reported and open", "on the agenda"."""
    since: datetime
    weeks: int
    """Whole weeks in the state at the moment it is shown (``stall_summary``'s ``at``)."""
    agenda: str = ""
    """For an item on the agenda: "in 26 of the last 30 weeks" (when its version was
    written)."""
    last_said: datetime | None = None
    """When an update last stated its state, where known (a quiet stall a pattern holds: long
    ago)."""
    priority: str = ""
    """The tracker's priority field ("P3"), where its importer kept it."""
    labels: tuple[str, ...] = ()
    """The tracker's labels, keywords and milestone: what tells one stalled item from another."""

    @property
    def urgency(self) -> tuple[int, int]:
        """(priority rank, severity rank): lower first (``memory.engine.item_priority``)."""
        return urgency(self.priority, self.labels)

    @property
    def priority_word(self) -> str:
        """ "P3", "critical", or "" (none given)."""
        return priority_word(self.priority, self.labels)

    @property
    def marks_text(self) -> str:
        """ "P3 · perf · testcase", "priority-critical · milestone needsdiagnosis": the
        tracker's priority and labels, as it wrote them."""
        return " · ".join((*((f"priority {self.priority}",) if self.priority else ()),
                           *self.labels))

    @property
    def duration_text(self) -> str:
        """ "5 weeks"; "over 5 years" (not "307 weeks")."""
        return duration(self.weeks)

    @property
    def text(self) -> str:
        """ "blocked since 16 Nov 2026 · 5 weeks", "on the agenda in 4 of the last 4 weeks"."""
        if self.agenda:
            return f"on the agenda {self.agenda}"
        return f"{self.state} since {self.since:%-d %b %Y} · {duration(self.weeks)}"


def stall_summary(observation: Observation, at: datetime,
                  refs: Mapping[str, EntityRef] | None = None) -> StallSummary | None:
    """The stalled item of a ``stalled`` observation, its weeks counted up to ``at`` (now on
    the board, the week's end in its review): the summary says how long as of its writing, the
    pages say how long now."""
    structure = observation.structure or {}
    stall = structure.get("stalled")
    if not stall:
        return None
    return _stall_summary(stall, _names(structure), refs or {}, at)


def held_stalls(observation: Observation, at: datetime,
                refs: Mapping[str, EntityRef] | None = None) -> list[StallSummary]:
    """The quiet stalls a pattern holds (``Structure.held_stalls``: gone quiet inside it, so no
    card of their own), oldest first, their weeks counted up to ``at``."""
    structure = observation.structure or {}
    names = _names(structure)
    return [_stall_summary(stall, names, refs or {}, at)
            for stall in structure.get("held_stalls") or []]


def page_refs(structure: Mapping[str, Any], pages: Mapping[int, Any]) -> dict[str, EntityRef]:
    """Entity id → reference, named as observed, for ``pages`` (entity id → uuid,
    ``selectors.entity_pages``)."""
    names = _names(structure)
    return {str(pk): EntityRef(name=_name(names, pk), uuid=str(uuid))
            for pk, uuid in pages.items()}


def held_stall_ids(observation: Observation) -> list[int]:
    """The items of the stalls a pattern's card names (``CARD_HELD``)."""
    return [int(stall["item"]) for stall in
            ((observation.structure or {}).get("held_stalls") or [])[:CARD_HELD]]


def _stall_summary(stall: Mapping[str, Any], names: Mapping[str, str],
                   refs: Mapping[str, EntityRef], at: datetime) -> StallSummary:
    since = datetime.fromisoformat(stall["since"])
    others = stall.get("others") or []
    state = stall["state"]
    words = {"blocked": "blocked", "reported": "reported and open", "agenda": "on the agenda"}
    if state == "status":
        words["status"] = status_words(_name(names, others[0])) if others else "open"
    agenda = (f"in {stall['weeks_mentioned']} of the last {stall['weeks_counted']} weeks"
              if state == "agenda" else "")
    last_said = stall.get("last_said")
    return StallSummary(
        item=_ref(stall["item"], refs, names), state=words.get(state, state), since=since,
        weeks=weeks_between(since, at), agenda=agenda,
        last_said=datetime.fromisoformat(last_said) if last_said else None,
        priority=str(stall.get("priority") or ""),
        labels=tuple(str(label) for label in stall.get("labels") or ()),
    )


def card(observation: Observation, since: datetime | None,
         queue: QueueSummary | None = None) -> ObservationCard:
    structure = observation.structure or {}
    names = _names(structure)
    refs = _entity_refs(observation)
    blocker = issue = None
    roots = (structure.get("dependency") or {}).get("root_blockers") or []
    if roots:
        root = roots[0]
        blocker = BlockerSummary(
            blocker=_ref(root["members"][0], refs, names) if len(root["members"]) == 1
            else EntityRef(" + ".join(_name(names, m) for m in root["members"]), None),
            owners=_join([_name(names, o["entity"]) for o in root.get("owners", [])]),
            reach_people=root["reach"]["people"],
            reach_work_items=root["reach"]["work_items"],
        )
    issues = (structure.get("recurring") or {}).get("issues") or []
    if issues:
        top = issues[0]
        types = {str(e.pk): e.type for e in observation.entities.all()}
        reporters = [str(r["reporter"]) for r in top.get("reports", [])]
        issue = IssueSummary(
            issue=_ref(top["issue"], refs, names),
            reporters=len(reporters),
            reporter_types=frozenset(types.get(r, "") for r in reporters),
            recurring_events=[
                _name(names, e["event"])
                for e in (structure.get("recurring") or {}).get("recurring_events", [])
            ],
        )
    return ObservationCard(
        observation=observation,
        change=change_since(observation, since),
        blocker=blocker,
        issue=issue,
        queue=queue,
        stall=stall_summary(observation, timezone.now(), refs),
        held=tuple(held_stalls(observation, timezone.now(), refs)),
    )


# --- Structure --------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class WaitingItem:
    name: str
    owners: str
    via: str
    uuid: str | None = None
    """The entity's page, when the observation still involves it."""


@dataclass(frozen=True, slots=True)
class RootBlockerView:
    name: str
    uuid: str | None
    """The blocker's page (a single entity the observation involves), else ``None``."""
    owners: str
    cycle: bool
    direct: list[WaitingItem]
    downstream: list[WaitingItem]
    people: list[str]
    reach_people: int
    reach_work_items: int


@dataclass(frozen=True, slots=True)
class IssueView:
    name: str
    reporters: list[tuple[str, datetime | None]]
    """(reporter, first reported)."""
    affected: list[str]
    preceded_by: list[tuple[str, int, bool]]
    """(event, episodes, recurring)."""


def root_blockers(
    structure: Mapping[str, Any], pages: Mapping[int, Any] | None = None
) -> list[RootBlockerView]:
    """The root blockers in words; ``pages`` maps entity ids to uuids, to link the names (which
    come from the structure: what was observed, even if an entity was renamed since)."""
    names = _names(structure)
    pages = pages or {}

    def page(entity_id: int) -> str | None:
        return str(pages[entity_id]) if entity_id in pages else None

    def waiting(items: list[dict[str, Any]]) -> list[WaitingItem]:
        return [
            WaitingItem(
                name=_name(names, d["entity"]),
                owners=_join([_name(names, o["entity"]) for o in d.get("owners", [])]),
                via=_join([_name(names, v) for v in d.get("via", [])]),
                uuid=page(d["entity"]),
            )
            for d in items
        ]

    return [
        RootBlockerView(
            name=" + ".join(_name(names, m) for m in root["members"]),
            uuid=page(root["members"][0]) if len(root["members"]) == 1 else None,
            owners=_join([_name(names, o["entity"]) for o in root.get("owners", [])]),
            cycle=bool(root.get("cycle")),
            direct=waiting(root.get("direct", [])),
            downstream=waiting(root.get("downstream", [])),
            people=[_name(names, p["entity"]) for p in root.get("people", [])],
            reach_people=root["reach"]["people"],
            reach_work_items=root["reach"]["work_items"],
        )
        for root in (structure.get("dependency") or {}).get("root_blockers", [])
    ]


def _when(value: str | None) -> datetime | None:
    try:
        return datetime.fromisoformat(value) if value else None
    except ValueError:
        return None


def recurring_issues(structure: Mapping[str, Any]) -> list[IssueView]:
    names = _names(structure)
    return [
        IssueView(
            name=_name(names, issue["issue"]),
            reporters=[(_name(names, r["reporter"]), _when(r.get("first_reported")))
                       for r in issue.get("reports", [])],
            affected=[_name(names, a["entity"]) for a in issue.get("affected", [])],
            preceded_by=[(_name(names, e["event"]), len(e.get("episodes", [])),
                          bool(e.get("recurring")))
                         for e in issue.get("preceded_by", [])],
        )
        for issue in (structure.get("recurring") or {}).get("issues", [])
    ]


# --- Why these belong together ----------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class SharedSignature:
    """A signature shared by several episodes of the cluster, in words."""

    text: str
    episodes: list[Episode]


def signature_text(signature: Mapping[str, Any], names: Mapping[str, str]) -> str:
    target = _name(names, signature["target"])
    if signature["relation"] == CHAIN_KEY:  # a dependency tree, linked at every item
        return f"… the dependencies of {target}"
    relation = relation_phrase(signature["relation"])
    if signature.get("source") is None:  # target mode: they all point at the same thing
        return f"… {relation} {target}"
    return f"{_name(names, signature['source'])} {relation} {target}"


def shared_signatures(
    structure: Mapping[str, Any], episodes: Iterable[Episode]
) -> list[SharedSignature]:
    names = _names(structure)
    by_id = {e.pk: e for e in episodes}
    return [
        SharedSignature(
            text=signature_text(link["signature"], names),
            episodes=[by_id[e] for e in link.get("episodes", []) if e in by_id],
        )
        for link in structure.get("links", [])
    ]


# --- Claims and citations ---------------------------------------------------------------------


@dataclass(slots=True)
class Citation:
    number: int
    fact: Fact
    evidence: list[FactEvidence] = field(default_factory=list)
    """The episodes supporting the fact, filled in when its claim's trail is open."""


@dataclass(slots=True)
class ClaimView:
    claim: Claim
    citations: list[Citation] = field(default_factory=list)


def number_citations(claims: Iterable[Claim]) -> list[ClaimView]:
    """Number the cited facts like footnotes, by first citation, so the same fact keeps the same
    number in every claim."""
    numbers: dict[int, int] = {}
    views = []
    for claim in claims:
        view = ClaimView(claim=claim)
        for fact in claim.facts.all():
            number = numbers.setdefault(fact.pk, len(numbers) + 1)
            view.citations.append(Citation(number=number, fact=fact))
        view.citations.sort(key=lambda c: c.number)
        views.append(view)
    return views


# --- An upload's report -----------------------------------------------------------------------

LINES_LISTED = 500
"""An upload's report lists at most this many lines of each kind (it counts them all)."""


@dataclass(frozen=True, slots=True)
class UploadResult:
    """What an upload did, line by line, and how far the processing of what it stored is."""

    ingested_at: datetime
    """Shared by every episode the upload stored: the progress poll finds them by it."""
    progress: Mapping[str, int]
    """Episode status → how many of the upload's episodes are in it."""
    filename: str = ""
    report: IngestReport | ImportReport | None = None

    @property
    def imported(self) -> ImportReport | None:
        """The report of a tracker export's import (items and changes, not lines)."""
        return self.report if isinstance(self.report, ImportReport) else None

    @classmethod
    def progress_only(cls, ingested_at: datetime, progress: Mapping[str, int]) -> UploadResult:
        return cls(ingested_at=ingested_at, progress=progress)

    @property
    def problems(self) -> list[LineResult]:
        """Rejected and duplicate lines, in file order."""
        lines = self.report.results if isinstance(self.report, IngestReport) else []
        return [r for r in lines if r.status != "stored"][:LINES_LISTED]

    @property
    def stored_lines(self) -> list[LineResult]:
        lines = self.report.results if isinstance(self.report, IngestReport) else []
        return [r for r in lines if r.status == "stored"][:LINES_LISTED]

    @property
    def lines_cut(self) -> bool:
        report = self.report
        if isinstance(report, ImportReport):
            return len(report.problems) > LINES_LISTED
        return report is not None and max(
            report.stored, report.duplicates + report.rejected) > LINES_LISTED

    @property
    def total(self) -> int:
        return sum(self.progress.values())

    @property
    def finished(self) -> int:
        return self.progress.get(Episode.Status.PROCESSED, 0) + self.progress.get(
            Episode.Status.FAILED, 0)

    @property
    def waiting(self) -> bool:
        return self.finished < self.total

    @property
    def percent(self) -> int:
        return 100 if not self.total else int(100 * self.finished / self.total)


# --- Pipeline runs ----------------------------------------------------------------------------

STAGE_LABELS = {
    "load": "Load the facts",
    "cluster": "Cluster the episodes",
    "reconcile": "Reconcile with the observations",
    "analyse": "Analyse the changed clusters",
    "summarize": "Write the summaries",
    "publish": "Publish",
}


@dataclass(frozen=True, slots=True)
class StageView:
    name: str
    label: str
    status: str
    done: int
    total: int
    seconds: float | None


def run_stages(progress: Mapping[str, Any], timings: Mapping[str, float]) -> list[StageView]:
    """A run's stages in order, from its progress record (a queued run has none yet: every stage
    is pending)."""
    stages = progress.get("stages") or [{"name": name, "status": "pending"}
                                        for name in STAGE_LABELS]
    return [
        StageView(
            name=stage["name"], label=STAGE_LABELS.get(stage["name"], stage["name"]),
            status=stage.get("status", "pending"), done=stage.get("done", 0),
            total=stage.get("total", 0),
            seconds=stage.get("seconds", timings.get(stage["name"])),
        )
        for stage in stages
    ]


def run_seconds(started: datetime | None, finished: datetime | None) -> float | None:
    if started is None or finished is None:
        return None
    return max(0.0, (finished - started).total_seconds())


def first_line(text: str) -> str:
    return text.strip().splitlines()[0] if text.strip() else ""


# --- Merge review -----------------------------------------------------------------------------

MERGE_FACTS_SHOWN = 6


@dataclass(frozen=True, slots=True)
class MergeSide:
    entity: Entity
    facts: list[Fact]
    """Its newest facts, either direction, up to ``MERGE_FACTS_SHOWN``."""
    more: int


@dataclass(frozen=True, slots=True)
class SuggestionView:
    suggestion: MergeSuggestion
    merged: MergeSide
    """The newer entity, which a merge folds into ``kept``."""
    kept: MergeSide

    @property
    def sides(self) -> tuple[MergeSide, MergeSide]:
        return (self.merged, self.kept)


def merge_sides(suggestion: MergeSuggestion, facts: Mapping[int, list[Fact]]) -> SuggestionView:
    def side(entity: Entity) -> MergeSide:
        rows = facts.get(entity.pk, [])
        return MergeSide(entity=entity, facts=rows[:MERGE_FACTS_SHOWN],
                         more=max(0, len(rows) - MERGE_FACTS_SHOWN))

    return SuggestionView(suggestion=suggestion, merged=side(suggestion.entity),
                          kept=side(suggestion.into))
