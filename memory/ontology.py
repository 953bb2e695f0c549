"""The ontology: entity types, relations and resolution rules.

The default covers both of our users (project status updates and support queues). A graph may
override it through ``Graph.ontology`` (see ``build_ontology``): add entity types, add relations
or change a relation's phrasings / linking mode, allow the ``RELATES_TO`` fallback, and add
completion or ended statuses.

Two kinds of final status end an item: a **completion** status (done, resolved, merged...) means
the work was done; an **ended** status (won't fix, duplicate, invalid...) means it stopped without
being done. Both apply the resolution rules (nothing waits on an item that is over), only a
completion counts as done.

Each relation declares how it links episodes in the episode graph (DESIGN §4):

* ``pair``   — the exact (source, relation, target) triple must match (ownership, membership);
* ``target`` — episodes whose facts point the relation at the same target link (three customers
  ``REPORTED`` the same error);
* ``chain``  — ``target``, and the source too: episodes link when their facts share an end, so
  two workstreams both ``DEPENDS_ON`` the auth refactor link, and so does the update saying the
  refactor itself waits on a security review (a chain is linked end to end);
* ``none``   — generic relations and shared statuses link nothing.

A ``target`` relation may link **as another** (``Relation.links_as``): its facts link episodes
with that relation's facts at the same target, without being that relation. An agent (the
vendor's staff) ``ANSWERED`` a support thread: their reply joins the thread's episodes, which
link through their customers' ``REPORTED`` of it, yet the agent reported nothing — no customer
is added, no report counted (``memory.engine.structure`` reads ``REPORTED`` only). So does a
customer's message whose problem no rule read and whose words are those of an issue's reports
(``RESEMBLES``, ``memory.support_issues``): it joins the issue's observation, citing the words
it shares, without the graph stating that it reported the issue.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any, Literal

LinkingMode = Literal["pair", "target", "chain", "none"]
Cardinality = Literal["single", "many"]

ENTITY_TYPES: tuple[str, ...] = (
    "Person",
    "Team",
    "WorkItem",
    "Service",
    "Customer",
    "Product",
    "Plan",
    "Issue",
    "Event",
    "Status",
)

# Status names (normalized, lower case) that mean "this work is finished". A work item reaching one
# of them ends the DEPENDS_ON facts that point at it (the resolution rule).
# The defaults cover the common trackers: GitHub (closed, merged), Jira and Linear (done,
# resolved, closed), Bugzilla (RESOLVED / VERIFIED FIXED), help desks (Zendesk's solved).
COMPLETION_STATUSES: frozenset[str] = frozenset(
    {"done", "shipped", "completed", "resolved", "released", "launched", "finished", "merged",
     "closed", "live", "delivered", "verified", "fixed", "solved"}
)

# Status names that end an item without it being done: Bugzilla's and Jira's resolutions, GitHub's
# "not planned" and its default labels, Linear's "canceled". Like a completion they end what waits
# on the item (it will never be delivered); unlike one they are never shown as done.
ENDED_STATUSES: frozenset[str] = frozenset(
    {"won't fix", "wontfix", "wont fix", "won't do", "duplicate", "invalid", "incomplete",
     "worksforme", "works for me", "cannot reproduce", "not planned", "cancelled", "canceled",
     "obsolete", "inactive", "declined", "rejected", "moved", "expired"}
)


@dataclass(frozen=True)
class ResolutionRule:
    """When an entity reaches a completion status, its open ``relation`` facts on ``side`` end
    (``side="target"``: facts pointing at it; ``"source"``: facts from it)."""

    relation: str
    side: Literal["source", "target"]


# A work item done ends what waits on it; an issue resolved ends its reports and what it was seen
# to affect or follow — so its recurring-issue observation retires instead of living on; a
# thread closed ends its reports and its agents' answers in it; both end what only resembles them.
DEFAULT_RESOLUTION_RULES: tuple[ResolutionRule, ...] = (
    ResolutionRule("DEPENDS_ON", "target"),
    ResolutionRule("REPORTED", "target"),
    ResolutionRule("ANSWERED", "target"),
    ResolutionRule("RESEMBLES", "target"),
    ResolutionRule("AFFECTS", "source"),
    ResolutionRule("PRECEDED_BY", "source"),
)


@dataclass(frozen=True)
class Relation:
    name: str
    description: str
    source_types: tuple[str, ...]
    target_types: tuple[str, ...]
    linking: LinkingMode
    cardinality: Cardinality = "many"
    phrasings: tuple[str, ...] = ()
    reverse_names: tuple[str, ...] = ()
    """Names that mean this relation with source and target swapped (``BLOCKS``)."""
    links_as: str = ""
    """For a ``target`` relation: the relation whose signature its facts share (``ANSWERED``
    links as ``REPORTED``: an agent's answer in a thread joins the thread's reports), so that
    it links where that relation links without being it. Empty: its own."""

    @property
    def single_valued(self) -> bool:
        return self.cardinality == "single"


@dataclass(frozen=True)
class Ontology:
    entity_types: tuple[str, ...]
    relations: dict[str, Relation]
    completion_statuses: frozenset[str]
    allow_relates_to: bool = False
    ended_statuses: frozenset[str] = ENDED_STATUSES
    resolution_rules: tuple[ResolutionRule, ...] = DEFAULT_RESOLUTION_RULES

    def relation(self, name: str) -> Relation | None:
        return self.relations.get(name)

    def normalize_relation(self, raw: str) -> tuple[str, bool] | None:
        """Map a relation name as written (``blocks``, ``depends on``, ``DEPENDS_ON``) to its
        canonical name and whether source and target must be swapped. ``None`` if unknown."""
        key = raw.strip().upper().replace("-", "_").replace(" ", "_")
        if key in self.relations:
            return key, False
        for relation in self.relations.values():
            if key in relation.reverse_names:
                return relation.name, True
        phrase = " ".join(raw.strip().lower().replace("_", " ").split())
        for relation in self.relations.values():
            if phrase in relation.phrasings:
                return relation.name, False
        return None

    def linking(self) -> dict[str, str]:
        """Relation name → how it links, as clustering reads it (``cluster_episodes``): its
        mode, or ``target:<RELATION>`` for a ``target`` relation that links as another
        (``Relation.links_as``)."""
        return {
            name: (f"{relation.linking}:{relation.links_as}"
                   if relation.linking == "target" and relation.links_as else relation.linking)
            for name, relation in self.relations.items()
        }

    def linking_mode(self, relation: str) -> LinkingMode:
        rel = self.relations.get(relation)
        return rel.linking if rel else "none"

    def is_completion_status(self, status_name: str) -> bool:
        """The work is done (shown as done; never a root blocker)."""
        return status_name.strip().lower() in self.completion_statuses

    def is_ended_status(self, status_name: str) -> bool:
        """The item stopped without being done (won't fix, duplicate, invalid...)."""
        return status_name.strip().lower() in self.ended_statuses

    def is_final_status(self, status_name: str) -> bool:
        """Done or ended: the resolution rules apply (nothing waits on it any more)."""
        key = status_name.strip().lower()
        return key in self.completion_statuses or key in self.ended_statuses

    def as_dict(self) -> dict[str, Any]:
        return {
            "entity_types": list(self.entity_types),
            "relations": [
                {
                    "name": r.name,
                    "description": r.description,
                    "source_types": list(r.source_types),
                    "target_types": list(r.target_types),
                    "linking": r.linking,
                    "cardinality": r.cardinality,
                    "phrasings": list(r.phrasings),
                    "reverse_names": list(r.reverse_names),
                    "links_as": r.links_as,
                }
                for r in self.relations.values()
            ],
            "completion_statuses": sorted(self.completion_statuses),
            "ended_statuses": sorted(self.ended_statuses),
            "resolution_rules": [
                {"relation": r.relation, "side": r.side} for r in self.resolution_rules
            ],
            "allow_relates_to": self.allow_relates_to,
        }


_WORK = ("WorkItem", "Service", "Product")
_TRACKED = ("WorkItem", "Issue")

DEFAULT_RELATIONS: tuple[Relation, ...] = (
    Relation(
        "RESPONSIBLE_FOR",
        "A person or team works on, owns, leads or is assigned a work item or service.",
        ("Person", "Team"),
        _WORK,
        "pair",
        phrasings=("works on", "owns", "leads", "is assigned to", "is responsible for",
                   "responsible for", "owner of", "drives"),
        reverse_names=("BELONGS_TO", "OWNED_BY", "ASSIGNED_TO", "LED_BY"),
    ),
    Relation(
        "MEMBER_OF",
        "A person belongs to a team.",
        ("Person",),
        ("Team",),
        "pair",
        phrasings=("is a member of", "member of", "is on", "joined", "works in"),
        reverse_names=("HAS_MEMBER",),
    ),
    Relation(
        "DEPENDS_ON",
        "A work item waits on another work item or a service (stored with the waiting item as "
        "the source; BLOCKS is the same relation reversed).",
        ("WorkItem", "Service", "Product"),
        _WORK,
        "chain",
        phrasings=("waiting on", "waiting for", "blocked by", "blocked on", "depends on",
                   "needs", "requires", "can't move until ready"),
        reverse_names=("BLOCKS", "BLOCKING", "IS_BLOCKING"),
    ),
    Relation(
        "HAS_STATUS",
        "The current status of a work item, service, issue or customer (single-valued).",
        ("WorkItem", "Service", "Product", "Issue", "Customer"),
        ("Status",),
        "none",
        cardinality="single",
        phrasings=("is", "status", "has status"),
    ),
    Relation(
        "REPORTED",
        "A customer or person reported an issue (or a tracker item: its reporter).",
        ("Customer", "Person"),
        ("Issue", "WorkItem"),
        "target",
        phrasings=("reported", "reports", "is seeing", "hit", "ran into", "complained about"),
        reverse_names=("REPORTED_BY",),
    ),
    Relation(
        "ANSWERED",
        "A person (the vendor's staff: a support agent) answered in a ticket or thread: a "
        "participant in it, never its reporter. Links with the thread's reports.",
        ("Person", "Team"),
        ("WorkItem",),
        "target",
        phrasings=("answered", "answered in", "replied in", "replied to"),
        links_as="REPORTED",
    ),
    Relation(
        "RESEMBLES",
        "A customer's message whose problem no rule read shares distinctive words with the "
        "reports of an issue (or a thread) of its own brand: it joins their observation, "
        "reporting nothing. Its evidence cites the message's sentence that shares the most and "
        "names the words shared.",
        ("Customer",),
        ("Issue", "WorkItem"),
        "target",
        phrasings=("resembles", "shares words with"),
        links_as="REPORTED",
    ),
    Relation(
        "AFFECTS",
        "An issue affects a product or service.",
        ("Issue",),
        ("Product", "Service", "WorkItem"),
        "target",
        phrasings=("affects", "breaks", "impacts", "on", "in"),
        reverse_names=("AFFECTED_BY",),
    ),
    Relation(
        "PRECEDED_BY",
        "An issue started after an event (co-occurrence, never asserted as the cause).",
        ("Issue",),
        ("Event",),
        "target",
        phrasings=("started after", "since", "following", "after"),
        reverse_names=("PRECEDES", "FOLLOWED_BY"),
    ),
    Relation(
        "ON_PLAN",
        "A customer's current plan (single-valued).",
        ("Customer",),
        ("Plan",),
        "pair",
        cardinality="single",
        phrasings=("is on", "upgraded to", "downgraded to", "moved to", "subscribes to"),
    ),
    Relation(
        "USES",
        "Standing context: someone or something uses a product or service.",
        ("Person", "Team", "Customer", "WorkItem", "Service", "Product"),
        ("Product", "Service", "Plan"),
        "none",
        phrasings=("uses", "is using", "runs on"),
    ),
    Relation(
        "TRACKS",
        "A tracking item (a [meta] bug, an epic, a tracking issue with a task list, a parent "
        "issue) tracks an item: a parent, never something the item waits on (stored with the "
        "tracking item as the source).",
        _TRACKED,
        _TRACKED,
        "chain",
        phrasings=("tracks", "is tracking", "is the parent of", "parent of", "has sub-task",
                   "has subtask"),
        reverse_names=("TRACKED_BY", "CHILD_OF", "SUBTASK_OF", "SUB_ISSUE_OF", "PARENT_IS"),
    ),
    Relation(
        "DUPLICATE_OF",
        "A tracker item was closed as a duplicate of another (the same problem reported twice); "
        "also a merge suggestion for a person to decide.",
        _TRACKED,
        _TRACKED,
        "pair",
        cardinality="single",
        phrasings=("duplicates", "is a duplicate of", "duplicate of"),
        reverse_names=("DUPLICATED_BY", "HAS_DUPLICATE"),
    ),
    Relation(
        "REPLACES",
        "An item replaces (supersedes) an older one: the same line of work continued.",
        _TRACKED,
        _TRACKED,
        "pair",
        phrasings=("replaces", "supersedes"),
        reverse_names=("REPLACED_BY", "SUPERSEDED_BY"),
    ),
    Relation(
        "RELATES_TO",
        "Fallback for a relation the ontology does not know (only where the graph allows it).",
        ENTITY_TYPES,
        ENTITY_TYPES,
        "none",
    ),
)


def default_ontology() -> Ontology:
    return Ontology(
        entity_types=ENTITY_TYPES,
        relations={r.name: r for r in DEFAULT_RELATIONS},
        completion_statuses=COMPLETION_STATUSES,
    )


def build_ontology(overrides: dict[str, Any] | None) -> Ontology:
    """The default ontology with a graph's overrides applied.

    ``overrides`` (``Graph.ontology``) may hold::

        {"entity_types": ["Vendor"],                  # added to the default types
         "relations": {"SUPPLIES": {"linking": "target", "source_types": ["Vendor"],
                                    "target_types": ["Product"], "phrasings": ["supplies"]},
                       "USES": {"linking": "pair"}},  # change a default relation
         "completion_statuses": ["deployed"],        # done (taken out of the ended ones)
         "ended_statuses": ["non-compat"],           # over without done (out of completion)
         "resolution_rules": [{"relation": "DEPENDS_ON", "side": "target"}],
         "allow_relates_to": true}
    """
    ontology = default_ontology()
    if not overrides:
        return ontology
    entity_types = ontology.entity_types + tuple(
        t for t in overrides.get("entity_types", []) if t not in ontology.entity_types
    )
    relations = dict(ontology.relations)
    for name, spec in (overrides.get("relations") or {}).items():
        key = name.strip().upper()
        base = relations.get(key)
        fields_ = {
            "description": spec.get("description"),
            "source_types": tuple(spec["source_types"]) if "source_types" in spec else None,
            "target_types": tuple(spec["target_types"]) if "target_types" in spec else None,
            "linking": spec.get("linking"),
            "cardinality": spec.get("cardinality"),
            "phrasings": tuple(p.lower() for p in spec["phrasings"]) if "phrasings" in spec
            else None,
            "reverse_names": tuple(n.upper() for n in spec["reverse_names"])
            if "reverse_names" in spec else None,
            "links_as": spec["links_as"].strip().upper() if "links_as" in spec else None,
        }
        given = {k: v for k, v in fields_.items() if v is not None}
        if given.get("linking") not in (None, "pair", "target", "chain", "none"):
            raise ValueError(f"relation {key}: linking must be pair, target, chain or none")
        if given.get("cardinality") not in (None, "single", "many"):
            raise ValueError(f"relation {key}: cardinality must be single or many")
        if base is not None:
            relations[key] = replace(base, **given)
        else:
            relations[key] = Relation(
                name=key,
                description=given.get("description", ""),
                source_types=given.get("source_types", entity_types),
                target_types=given.get("target_types", entity_types),
                linking=given.get("linking", "none"),
                cardinality=given.get("cardinality", "many"),
                phrasings=given.get("phrasings", ()),
                reverse_names=given.get("reverse_names", ()),
                links_as=given.get("links_as", ""),
            )
    # A status named in one set leaves the other: a graph may say that "closed" ends its items
    # without their being done, or that "incomplete" is how its team says done.
    added_done = frozenset(s.strip().lower() for s in overrides.get("completion_statuses", []))
    added_ended = frozenset(s.strip().lower() for s in overrides.get("ended_statuses", []))
    completion = (ontology.completion_statuses - added_ended) | added_done
    ended = (ontology.ended_statuses - added_done) | added_ended
    rules = ontology.resolution_rules
    if "resolution_rules" in overrides:
        rules = tuple(
            ResolutionRule(r["relation"].strip().upper(), r["side"])
            for r in overrides["resolution_rules"]
        )
        if any(rule.side not in ("source", "target") for rule in rules):
            raise ValueError("resolution rules: side must be source or target")
    return Ontology(
        entity_types=entity_types,
        relations=relations,
        completion_statuses=completion,
        ended_statuses=ended,
        allow_relates_to=bool(overrides.get("allow_relates_to", False)),
        resolution_rules=rules,
    )
