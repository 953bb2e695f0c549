"""The traps of issue #13, generated with their ground truth (pure: no database, no Django).

Each trap is a small story that real data told the product and that it once got wrong. A story
comes in *phases*: the episodes of a phase are delivered together and a pipeline run follows
each phase (``memory.bench.runner.run_trap`` plays them and checks the truth). Every trap holds
``instances`` copies of its story in one graph, with their own names, so they must also not
interfere with one another. The facts are supplied (structured episodes): a trap measures what
structure and the lifecycle make of the facts, not what the rules extractor reads.

``upstream_extension``
    A chain (three items wait on a root its team owns); then one update says the root itself
    waits on something upstream that another team owns. Right: the chain's next version names
    the upstream item as its root blocker, with its owner, and holds the new update.
``per_customer_resolution``
    Four customers report one issue; then the first says it is resolved for them and another
    that it still fails. Right: only the first customer's report ends, the issue's observation
    lives on (same lineage) and counts one customer of four reporting it resolved.
``resolved_roots``
    A chain with two roots (items wait on one, the other, or both); then both roots ship. Right:
    the chain's observation retires with ``evidence_ended`` citing the completing facts, and no
    active observation names either root a root blocker.
``boilerplate_heading``
    Weekly agendas whose heading ("Weekly Triage … Unresolved Concerns") is read as a fact in
    most of them, alone in a quarter; beside it, in some agendas, the items of a real backbone
    (many items waiting on one platform upgrade). Right: the heading is in no observation and
    the backbone is one observation with its root.
``oversized_one_structure``
    One root with more waiting items, restated weekly, than ``max_cluster_episodes`` allows in a
    cluster: one structure. Right: one observation names the root, holding the updates, and no
    look-alike copy names it too.
``restatement_trickle``
    A chain; then its items' owners restate their facts, word for word, one update a run. Right:
    no new version (the observation keeps its version, restated in place) and no model call.
``stalled``
    An item blocked, said week after week for six weeks up to the last run; beside it, an item
    blocked only for the last week and one blocked six weeks ago and back on track since. Right:
    a ``stalled`` observation names the first item, none names the other two.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import Any

from memory.bench.scenarios import (
    ITEM_KINDS,
    ROOT_KINDS,
    TEAMS,
    THINGS,
    Episode,
    Names,
    Scenario,
    Triple,
    title,
)

TRAPS = ("upstream_extension", "per_customer_resolution", "resolved_roots",
         "boilerplate_heading", "oversized_one_structure", "restatement_trickle", "stalled")
END = datetime(2026, 9, 28, 9, 0, tzinfo=UTC)
"""The default moment of a trap's last update (the runner passes the present: a stall is
measured up to the run)."""
INSTANCES = 3
HEADING: Triple = ("Weekly Triage", "DEPENDS_ON", "Unresolved Concerns")
HEADING_SHARE = 0.9
HEADING_ALONE_SHARE = 0.25
RESTATEMENTS = 6
STALLED_WEEKS = 6


@dataclass
class Trap:
    name: str
    phases: list[list[Episode]] = field(default_factory=list)
    types: dict[str, str] = field(default_factory=dict)
    truth: list[dict[str, Any]] = field(default_factory=list)
    """One entry per instance: what it is about and what must come out (see the module)."""

    @property
    def episodes(self) -> list[Episode]:
        return [e for phase in self.phases for e in phase]

    def records(self, phase: int) -> list[dict[str, Any]]:
        """The phase's JSONL records, facts supplied."""
        scenario = Scenario(name=self.name, size=0, seed=0, form="structured", types=self.types)
        return [scenario.record(e) for e in self.phases[phase]]


class _Story:
    """Names, types and episodes of one trap graph."""

    def __init__(self, trap: Trap, rng: random.Random, end: datetime) -> None:
        self.trap = trap
        self.rng = rng
        self.end = end
        self.names = Names(rng)

    def phase(self, index: int) -> list[Episode]:
        while len(self.trap.phases) <= index:
            self.trap.phases.append([])
        return self.trap.phases[index]

    def say(self, phase: int, author: str, when: datetime, content: str, facts: list[Triple],
            *, group: str, ended: list[Triple] | None = None) -> str:
        episodes = self.phase(phase)
        external_id = f"{self.trap.name}-{sum(len(p) for p in self.trap.phases):05d}"
        episodes.append(Episode(external_id, author, when, "weekly-status", content, facts,
                                group=group, ended=ended or []))
        return external_id

    def typed(self, kind: str, *names: str) -> None:
        for name in names:
            self.trap.types[name] = kind

    def weeks_ago(self, weeks: float, hours: int = 0) -> datetime:
        """``weeks`` and ``hours`` before the end (never after it: facts said in the future of
        the run are not current)."""
        return self.end - timedelta(weeks=weeks, hours=hours)

    def person(self) -> str:
        name = self.names.person()
        self.typed("Person", name)
        return name

    def item(self) -> str:
        name = title(f"{self.names.codename()} {self.rng.choice(ITEM_KINDS)}")
        self.typed("WorkItem", name)
        return name

    def root(self) -> tuple[str, str]:
        root = title(f"{self.names.codename()} {self.rng.choice(ROOT_KINDS)}")
        team = title(f"{self.rng.choice(TEAMS)} team {self.names.codename()}")
        self.typed("WorkItem", root)
        self.typed("Team", team)
        return root, team

    def blocked(self, phase: int, owner: str, item: str, root: str, team: str,
                when: datetime, group: str) -> str:
        return self.say(phase, owner, when,
                        f"The {item} is blocked. I'm waiting on the {root}, which the {team} "
                        "owns.",
                        [(owner, "RESPONSIBLE_FOR", item), (item, "HAS_STATUS", "Blocked"),
                         (item, "DEPENDS_ON", root), (team, "RESPONSIBLE_FOR", root)],
                        group=group)

    def chain(self, phase: int, group: str, weeks: int, items: int = 3
              ) -> tuple[str, str, dict[str, str]]:
        """A root its team owns and ``items`` items waiting on it, each said once a week for
        ``weeks`` weeks ending a week before the end."""
        root, team = self.root()
        owners = {self.item(): self.person() for _ in range(items)}
        for week in range(weeks, 0, -1):
            for n, (item, owner) in enumerate(owners.items()):
                self.blocked(phase, owner, item, root, team, self.weeks_ago(week, n), group)
        return root, team, owners


# --- the traps --------------------------------------------------------------------------------


def _upstream_extension(story: _Story, index: int) -> None:
    group = f"upstream-{index}"
    root, team, _ = story.chain(0, group, weeks=3)
    upstream = title(f"{story.names.codename()} security review")
    upstream_team = title(f"security team {story.names.codename()}")
    story.typed("WorkItem", upstream)
    story.typed("Team", upstream_team)
    lead = story.person()
    episode = story.say(1, lead, story.weeks_ago(0, index),
                        f"The {root} is blocked on the {upstream}, which the {upstream_team} "
                        "owns.",
                        [(root, "DEPENDS_ON", upstream), (upstream_team, "RESPONSIBLE_FOR",
                                                           upstream)], group=group)
    story.trap.truth.append({"group": group, "root": root, "owner": team,
                             "new_root": upstream, "new_owner": upstream_team,
                             "episode": episode, "reach_work_items": 4})


def _per_customer_resolution(story: _Story, index: int) -> None:
    group = f"issue-{index}"
    code, thing = story.names.codename(), story.rng.choice(THINGS)
    issue, product = title(f"{code} {thing} failures"), title(f"{code} {thing}s")
    story.typed("Issue", issue)
    story.typed("Product", product)
    customers = [story.names.customer() for _ in range(4)]
    story.typed("Customer", *customers)
    for week in (3, 2, 1):
        for n, customer in enumerate(customers):
            if (week + n) % 2:
                continue
            story.say(0, customer, story.weeks_ago(week, n),
                      f"Our {code} {thing}s keep failing.",
                      [(customer, "REPORTED", issue), (issue, "AFFECTS", product)], group=group)
    resolved, still = customers[0], customers[1]
    episode = story.say(1, resolved, story.weeks_ago(0, 1),
                        f"The {code} {thing} failures are resolved for us. Thanks!", [],
                        group=group, ended=[(resolved, "REPORTED", issue)])
    story.say(1, still, story.weeks_ago(0, 2), f"Our {code} {thing}s still fail.",
              [(still, "REPORTED", issue)], group=group)
    story.trap.truth.append({"group": group, "issue": issue, "customers": customers,
                             "resolved": resolved, "episode": episode})


def _resolved_roots(story: _Story, index: int) -> None:
    group = f"roots-{index}"
    first, team = story.root()
    second, _ = story.root()
    waiting = {story.item(): (story.person(), roots) for roots in
               ([first], [first], [second], [first, second])}
    for week in (3, 2, 1):
        for n, (item, (owner, roots)) in enumerate(waiting.items()):
            for root in roots:
                story.blocked(0, owner, item, root, team, story.weeks_ago(week, n), group)
    lead = story.person()
    completions = []
    for n, root in enumerate((first, second)):
        completions.append(story.say(1, lead, story.weeks_ago(0, n),
                                     f"The {team} shipped the {root}.",
                                     [(team, "RESPONSIBLE_FOR", root),
                                      (root, "HAS_STATUS", "Done")], group=group))
    story.trap.truth.append({"group": group, "roots": [first, second],
                             "completions": completions})


def _boilerplate_heading(story: _Story, index: int) -> None:
    """``index`` 0 writes the agendas: one story, however many instances are asked for (the
    heading is one boilerplate of the graph)."""
    if index:
        return
    agendas = 12 * INSTANCES
    backbone_root, backbone_team = story.root()
    waiting = [story.item() for _ in range(6)]
    chair = story.person()
    story.typed("WorkItem", HEADING[0], HEADING[2])
    heading_only = 0
    for week in range(agendas, 0, -1):
        facts: list[Triple] = []
        words = []
        rng = story.rng
        has_heading = rng.random() < HEADING_SHARE
        alone = has_heading and rng.random() < HEADING_ALONE_SHARE
        if not alone:
            if rng.random() < 0.5:
                item = rng.choice(waiting)
                facts += [(item, "DEPENDS_ON", backbone_root),
                          (backbone_team, "RESPONSIBLE_FOR", backbone_root)]
                words.append(f"The {item} waits on the {backbone_root}.")
            else:
                item, owner = story.item(), story.person()
                facts.append((owner, "RESPONSIBLE_FOR", item))
                words.append(f"{owner} owns the {item}.")
        if has_heading:
            facts.insert(0, HEADING)
            words.insert(0, "### Unresolved Concerns")
            heading_only += int(alone)
        story.say(0, chair, story.weeks_ago(week), "\n".join(words) or "No items.", facts,
                  group="agendas")
    story.trap.truth.append({"group": "agendas", "heading": HEADING[2], "agendas": agendas,
                             "heading_only": heading_only, "backbone_root": backbone_root})


def _oversized_one_structure(story: _Story, index: int) -> None:
    group = f"oversized-{index}"
    root, _, _ = story.chain(0, group, weeks=8, items=8)  # 64 updates > 50 a cluster
    story.trap.truth.append({"group": group, "root": root, "updates": 64})


def _restatement_trickle(story: _Story, index: int) -> None:
    group = f"trickle-{index}"
    root, team, owners = story.chain(0, group, weeks=2)
    items = list(owners.items())
    restated = []
    for n in range(RESTATEMENTS):
        item, owner = items[n % len(items)]
        when = story.weeks_ago(0, 6 * (RESTATEMENTS - n) + index)
        restated.append(story.blocked(1 + n, owner, item, root, team, when, group))
    story.trap.truth.append({"group": group, "root": root, "restated": restated})


def _stalled(story: _Story, index: int) -> None:
    group = f"stalled-{index}"
    stuck, recent, recovered = story.item(), story.item(), story.item()
    owner = story.person()
    for week in range(STALLED_WEEKS, -1, -1):
        story.say(0, owner, story.weeks_ago(week, index),
                  f"The {stuck} is still blocked.",
                  [(owner, "RESPONSIBLE_FOR", stuck), (stuck, "HAS_STATUS", "Blocked")],
                  group=group)
    story.say(0, owner, story.weeks_ago(1, index + 1), f"The {recent} is blocked.",
              [(owner, "RESPONSIBLE_FOR", recent), (recent, "HAS_STATUS", "Blocked")],
              group=group)
    for week in (STALLED_WEEKS, STALLED_WEEKS - 1):
        story.say(0, owner, story.weeks_ago(week, index + 2), f"The {recovered} is blocked.",
                  [(owner, "RESPONSIBLE_FOR", recovered), (recovered, "HAS_STATUS", "Blocked")],
                  group=group)
    story.say(0, owner, story.weeks_ago(2, index + 2), f"The {recovered} is on track.",
              [(owner, "RESPONSIBLE_FOR", recovered), (recovered, "HAS_STATUS", "On Track")],
              group=group)
    story.trap.truth.append({"group": group, "stalled": stuck, "weeks": STALLED_WEEKS,
                             "not_stalled": [recent, recovered]})


BUILDERS = {
    "upstream_extension": _upstream_extension,
    "per_customer_resolution": _per_customer_resolution,
    "resolved_roots": _resolved_roots,
    "boilerplate_heading": _boilerplate_heading,
    "oversized_one_structure": _oversized_one_structure,
    "restatement_trickle": _restatement_trickle,
    "stalled": _stalled,
}


def generate_trap(name: str, *, seed: int = 7, instances: int = INSTANCES,
                  end: datetime = END) -> Trap:
    """A trap graph's story: ``instances`` copies (the boilerplate heading is one story of
    ``12 × INSTANCES`` agendas), the last update at ``end``. Same arguments, same output."""
    if name not in BUILDERS:
        raise ValueError(f"unknown trap {name!r}; choose from {', '.join(TRAPS)}")
    trap = Trap(name)
    trap.types.update({"Blocked": "Status", "On Track": "Status", "Done": "Status"})
    story = _Story(trap, random.Random(f"trap:{name}:{seed}"), end)
    for index in range(instances):
        BUILDERS[name](story, index)
    for phase in trap.phases:
        phase.sort(key=lambda e: (e.reference_time, e.external_id))
    return trap
