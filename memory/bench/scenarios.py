"""Seeded scenario generator with ground truth (pure: no database, no Django).

Two scenarios, each as free text (for the rules extractor) or structured (the same episodes with
their facts supplied, to measure clustering alone):

``projects``
    Weekly status updates over ``WEEKS`` weeks. Dependency chains of depth 1–3 and fan-out 1–4:
    a root blocker owned by a team, work items waiting on it directly, and items waiting on those
    (downstream). Chain 0 is the seed's shape (Alice, Bob, Clara and the auth service refactor).
    Every update may carry the organisation's standing ownership ("The release calendar is owned
    by the operations team.") as an aside — the hub trap: it must link nothing. About a third of
    the roots are shipped mid-scenario, after the checkpoint (their chains' observations must
    retire). Some updates are backfilled: said before the checkpoint, delivered after it.
    Distractors: chatter with no facts and one-off status notes.
``support``
    Support tickets. Issue families: several customers report the same issue in different words
    (some after a recurring event, some mentioning their plan, which changes over time); one-off
    tickets are distractors.
``brands``
    A help desk serving several brands (``zendesk:<brand>``, issue #14). Issue families as in
    ``support``, each at one brand, in paraphrased words; about half of the later families reuse
    the very words of an earlier family at **another** brand (the same symptom name at two
    brands: two problems, never one observation). After the checkpoint, in some families one
    customer says the problem is resolved for them: that ends that customer's report only, and
    the family's observation lives on with the others (structured: the report given with its
    end, as an importer records a solved ticket).

Some phrasings are deliberately *outside* the rules extractor's table (marked ``covered: false``
in the ground truth) so that extraction recall is measured honestly, not by construction.

The ground truth, per scenario: the episodes of each expected cluster at the checkpoint (the
first pipeline run sees the episodes said before ``CHECKPOINT_WEEK`` that were not backfilled),
each chain's root blocker, its owner and its reach (work items and people waiting, directly and
transitively), which roots are resolved (their observations must retire in the final run), and
the facts of every episode (for extraction recall).
"""

from __future__ import annotations

import json
import random
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

SCENARIOS = ("projects", "support", "brands")
FORMS = ("text", "structured")
START = datetime(2026, 8, 3, 9, 0, tzinfo=UTC)
"""A Monday, in the past of any run of this harness (facts must be current)."""
WEEKS = 8
CHECKPOINT_WEEK = 4
"""The first pipeline run sees weeks 0–3; resolutions happen in week 4 or later."""
HUB_SENTENCE = "The release calendar is owned by the operations team."
HUB_FACT = ("Operations Team", "RESPONSIBLE_FOR", "Release Calendar")
HUB_SHARE = 0.12
BACKFILL_SHARE = 0.05
RESOLVED_SHARE = 0.3
DISTRACTOR_SHARE = 0.1

FIRST = ["Maya", "Noah", "Iris", "Omar", "Lena", "Ravi", "Tessa", "Hugo", "Nina", "Felix",
         "Sofia", "Jonas", "Priya", "Mateo", "Greta", "Kenji", "Amara", "Lucas", "Ines", "Tomas",
         "Yara", "Elias", "Mira", "Oscar", "Zoe", "Arjun", "Leila", "Victor", "Hana", "Diego",
         "Freya", "Samir", "Anika", "Bruno", "Chloe", "Dmitri", "Esme", "Farid", "Gemma", "Idris"]
LAST = ["Novak", "Okafor", "Lindqvist", "Moreau", "Tanaka", "Silva", "Brennan", "Kowalski",
        "Haddad", "Fischer", "Mendes", "Ivanova", "Castillo", "Nakamura", "Osei", "Petrov",
        "Quinn", "Rossi", "Sandoval", "Thorne", "Ueda", "Varga", "Whitlock", "Xu", "Yilmaz",
        "Zeller", "Abara", "Berg", "Cruz", "Dahl", "Eriksen", "Falk", "Gallo", "Holm", "Ibsen",
        "Jovic", "Kruger", "Laine", "Marsh", "Nyberg"]
COLORS = ["amber", "cobalt", "crimson", "indigo", "jade", "scarlet", "silver", "violet", "ochre",
          "teal", "ivory", "copper", "onyx", "coral", "olive", "maroon", "saffron", "slate",
          "umber", "cerulean"]
BIRDS = ["falcon", "heron", "osprey", "kestrel", "puffin", "condor", "magpie", "pelican",
         "raven", "sparrow", "toucan", "vulture", "albatross", "bittern", "cormorant", "egret",
         "flamingo", "gannet", "hoopoe", "ibis", "jackdaw", "kingfisher", "lapwing", "merlin",
         "nightjar", "oriole", "plover", "quail", "rook", "swift", "tern", "warbler"]
ITEM_KINDS = ["migration", "rollout", "rewrite", "revamp", "launch", "cleanup", "redesign",
              "overhaul"]
ROOT_KINDS = ["service refactor", "platform upgrade", "schema change", "gateway rework"]
TEAMS = ["backend", "platform", "data", "infrastructure", "identity", "payments", "mobile",
         "search", "security", "billing"]
THINGS = ["export", "upload", "backup", "sync", "webhook", "invoice"]
STEMS = ["Zen", "Nor", "Vel", "Tri", "Bright", "Blue", "Quant", "Hexa", "Ocu", "Lumi", "Kora",
         "Dyna", "Stra", "Pyra", "Axio", "Solv", "Mero", "Fyn", "Gala", "Ruba"]
STEM_ENDS = ["tech", "ware", "soft", "data", "works", "logic", "net", "scale", "grid", "forge"]
ORG_SUFFIXES = ["Corp", "Inc", "Ltd", "GmbH"]
PLANS = ["Standard", "Pro", "Business", "Enterprise"]
BRANDS = ["Nimbus", "Cirrus", "Stratus", "Cumulus"]
REUSED_WORDS_SHARE = 0.5
"""Of the families after the first round of brands, the share that take an earlier family's
words at another brand."""
RESOLVED_FOR_ONE_SHARE = 0.5
CHATTER = ["Lunch was great today. See you all on Friday!", "Thanks everyone for the demo.",
           "Reminder: the office is closed on Monday.", "Welcome to the new folks this week!",
           "Great retro yesterday, lots of good ideas."]

Triple = tuple[str, str, str]


def title(name: str) -> str:
    """How the extractor displays a name: each word capitalised (digits kept)."""
    return " ".join(word[:1].upper() + word[1:] for word in name.split())


def norm(name: str) -> str:
    """The comparison key of a name: lower case, no leading article."""
    words = name.lower().replace(",", " ").split()
    if words and words[0] in {"the", "a", "an"}:
        words = words[1:]
    return " ".join(words)


@dataclass
class Episode:
    external_id: str
    author: str
    reference_time: datetime
    source: str
    content: str
    facts: list[Triple]
    covered: bool = True
    """False when the text uses a phrasing outside the rules extractor's table."""
    group: str | None = None
    """The expected cluster (chain or issue family) it belongs to; None: a distractor."""
    late: bool = False
    """Backfilled: said before the checkpoint, delivered after it."""
    ended: list[Triple] = field(default_factory=list)
    """Facts the episode ends (structured: given with ``invalid_at`` at its time)."""

    @property
    def batch(self) -> int:
        before = self.reference_time < START + timedelta(weeks=CHECKPOINT_WEEK)
        return 1 if before and not self.late else 2


@dataclass
class Chain:
    id: str
    root: str
    owner: str
    direct: list[str]
    downstream: list[str]
    people: list[str]
    resolved_week: int | None


@dataclass
class Scenario:
    name: str
    size: int
    seed: int
    form: str
    episodes: list[Episode] = field(default_factory=list)
    chains: list[Chain] = field(default_factory=list)
    types: dict[str, str] = field(default_factory=dict)
    """Entity display name → type (for structured facts)."""

    # --- outputs ---------------------------------------------------------------------------

    def records(self, batch: int | None = None) -> list[dict[str, Any]]:
        """The JSONL records ``ingest`` reads (one batch, or all), in delivery order."""
        chosen = [e for e in self.episodes if batch is None or e.batch == batch]
        return [self.record(e) for e in chosen]

    def record(self, episode: Episode) -> dict[str, Any]:
        record: dict[str, Any] = {
            "external_id": episode.external_id,
            "author": episode.author,
            "reference_time": episode.reference_time.isoformat(),
            "type": "text",
            "source": episode.source,
            "content": episode.content,
        }
        if self.form == "structured" and (episode.facts or episode.ended):
            record["facts"] = [
                {"source": s, "relation": r, "target": t, "fact": episode.content,
                 "source_type": self.types[s], "target_type": self.types[t]}
                for s, r, t in episode.facts
            ] + [
                {"source": s, "relation": r, "target": t, "fact": episode.content,
                 "source_type": self.types[s], "target_type": self.types[t],
                 "invalid_at": episode.reference_time.isoformat()}
                for s, r, t in episode.ended
            ]
        return record

    def truth(self) -> dict[str, Any]:
        groups: dict[str, list[str]] = {}
        for episode in self.episodes:
            if episode.group and episode.batch == 1:
                groups.setdefault(episode.group, []).append(episode.external_id)
        return {
            "scenario": self.name,
            "size": len(self.episodes),
            "seed": self.seed,
            "form": self.form,
            "checkpoint": (START + timedelta(weeks=CHECKPOINT_WEEK)).isoformat(),
            "clusters": {g: ids for g, ids in sorted(groups.items()) if len(ids) >= 2},
            "chains": [
                {
                    "id": c.id, "root": c.root, "owner": c.owner, "direct": c.direct,
                    "downstream": c.downstream, "people": c.people,
                    "reach": {"work_items": len(c.direct) + len(c.downstream),
                              "people": len(c.people)},
                    "resolved_week": c.resolved_week,
                }
                for c in self.chains
            ],
            "hub": {"fact": list(HUB_FACT),
                    "episodes": [e.external_id for e in self.episodes
                                 if HUB_FACT in e.facts]},
            "episodes": {
                e.external_id: {"batch": e.batch, "group": e.group, "covered": e.covered,
                                "late": e.late, "facts": [list(f) for f in e.facts],
                                "source": e.source, "ended": [list(f) for f in e.ended]}
                for e in self.episodes
            },
            "resolutions": [
                {"episode": e.external_id, "group": e.group, "customer": s, "issue": t}
                for e in self.episodes for s, _, t in e.ended
            ],
        }

    def write(self, directory: Path) -> tuple[Path, Path]:
        """``<name>-<form>-<size>.jsonl`` (every episode, in delivery order: batch 1 first)
        and ``….truth.json`` beside it."""
        directory.mkdir(parents=True, exist_ok=True)
        stem = f"{self.name}-{self.form}-{self.size}"
        data = directory / f"{stem}.jsonl"
        truth = directory / f"{stem}.truth.json"
        with data.open("w") as out:
            for batch in (1, 2):
                for record in self.records(batch):
                    out.write(json.dumps(record) + "\n")
        truth.write_text(json.dumps(self.truth(), indent=1))
        return data, truth


# --- names ---------------------------------------------------------------------------------


class Names:
    """Unique names, seeded: numbered once the word lists run out (numbers keep fuzzy entity
    resolution from merging two of them)."""

    def __init__(self, rng: random.Random) -> None:
        self.rng = rng
        self.counters: dict[str, int] = {}
        self.pools: dict[str, list[str]] = {}

    def _take(self, kind: str, pool: list[str]) -> str:
        if kind not in self.pools:
            self.rng.shuffle(pool)
            self.pools[kind] = pool
        n = self.counters.get(kind, 0)
        self.counters[kind] = n + 1
        pool = self.pools[kind]
        base = pool[n % len(pool)]
        return base if n < len(pool) else f"{base} {n // len(pool) + 1}"

    def person(self) -> str:
        return self._take("person", [f"{f} {last}" for f in FIRST for last in LAST])

    def codename(self) -> str:
        return self._take("codename", [f"{c} {b}" for c in COLORS for b in BIRDS])

    def customer(self) -> str:
        stem = self._take("customer", [f"{s}{e}" for s in STEMS for e in STEM_ENDS])
        return f"{stem} {self.rng.choice(ORG_SUFFIXES)}"

    def event(self) -> str:
        return self._take("event", [f"{b} deploy" for b in BIRDS] +
                          [f"{c} maintenance window" for c in COLORS])


def _when(week: int, day: int, hour: int) -> datetime:
    return START + timedelta(weeks=week, days=day, hours=hour)


# --- projects --------------------------------------------------------------------------------


class _Projects:
    def __init__(self, scenario: Scenario, rng: random.Random) -> None:
        self.s = scenario
        self.rng = rng
        self.names = Names(rng)
        self.items_made = 0

    def add(self, author: str, when: datetime, content: str, facts: list[Triple], *,
            group: str | None, covered: bool = True, late: bool = False) -> None:
        s = self.s
        if group and self.rng.random() < HUB_SHARE:
            content = f"{content} {HUB_SENTENCE}"
            facts = [*facts, HUB_FACT]
        s.episodes.append(Episode(f"{s.name}-{len(s.episodes):06d}", author, when,
                                  "weekly-status", content, facts, covered, group, late))

    def item(self) -> str:
        self.items_made += 1
        return f"{self.names.codename()} {self.rng.choice(ITEM_KINDS)}"

    def chain(self, index: int) -> None:
        rng, types = self.rng, self.s.types
        cid = f"chain-{index}"
        if index == 0:  # the seed's shape
            root, team = "auth service refactor", "backend team"
            direct = {"API migration": "Alice", "payments integration": "Bob"}
            below = {"checkout flow": ("Clara", "payments integration")}
            resolved = None
            start = 0
        else:
            root = f"{self.names.codename()} {rng.choice(ROOT_KINDS)}"
            team = f"{rng.choice(TEAMS)} team"
            direct = {self.item(): self.names.person() for _ in range(rng.randint(1, 4))}
            depth = rng.choice([1, 1, 2, 2, 3])
            below = {}
            parents = list(direct)
            for level in range(2, depth + 1):
                children = []
                for parent in parents:
                    for _ in range(rng.randint(1 if level == 2 and parent == parents[0] else 0,
                                               2 if level == 2 else 1)):
                        child = self.item()
                        below[child] = (self.names.person(), parent)
                        children.append(child)
                parents = children or parents
            resolved = (rng.choice([CHECKPOINT_WEEK, CHECKPOINT_WEEK + 1])
                        if index == 1 or rng.random() < RESOLVED_SHARE else None)
            start = rng.randint(0, 2)
        owners = {**direct, **{child: owner for child, (owner, _) in below.items()}}
        types[title(root)] = "WorkItem"
        types[title(team)] = "Team"
        for thing, owner in owners.items():
            types[title(thing)] = "WorkItem"
            types[owner] = "Person"
        self.s.chains.append(Chain(
            cid, title(root), title(team), [title(d) for d in direct],
            [title(b) for b in below], sorted(set(owners.values())), resolved,
        ))
        R, T = title(root), title(team)
        for week in range(start, WEEKS):
            shipped = resolved is not None and week >= resolved
            if resolved is not None and week == resolved:
                lead = self.names.person()
                types[lead] = "Person"
                self.add(lead, _when(week, 0, 0), f"The {team} shipped the {root}.",
                         [(T, "RESPONSIBLE_FOR", R), (R, "HAS_STATUS", "Done")], group=cid)
            for n, (thing, owner) in enumerate(direct.items()):
                X = title(thing)
                when = _when(week, n % 5, 1 + n // 5)
                first = week == start
                late = not first and week < CHECKPOINT_WEEK and rng.random() < BACKFILL_SHARE
                if shipped:
                    if week == resolved:
                        self.add(owner, when, f"The {thing} is back on track. I'm no longer "
                                 f"waiting on the {root}.",
                                 [(owner, "RESPONSIBLE_FOR", X), (X, "HAS_STATUS", "On Track")],
                                 group=cid)
                    else:
                        self.add(owner, when, f"The {thing} is on track.",
                                 [(owner, "RESPONSIBLE_FOR", X), (X, "HAS_STATUS", "On Track")],
                                 group=cid)
                    continue
                form = 0 if first else rng.choice([0, 1, 2, 2, 3])
                if form == 0:
                    text = (f"The {thing} is blocked. I'm waiting on the {root}, which the "
                            f"{team} owns.")
                    facts = [(owner, "RESPONSIBLE_FOR", X), (X, "HAS_STATUS", "Blocked"),
                             (X, "DEPENDS_ON", R), (T, "RESPONSIBLE_FOR", R)]
                elif form == 1:
                    text = f"The {thing} is blocked by the {root}."
                    facts = [(X, "DEPENDS_ON", R), (owner, "RESPONSIBLE_FOR", X),
                             (X, "HAS_STATUS", "Blocked")]
                elif form == 2:
                    text = f"The {thing} is stalled because we're waiting on the {root}."
                    facts = [(owner, "RESPONSIBLE_FOR", X), (X, "HAS_STATUS", "Stalled"),
                             (X, "DEPENDS_ON", R)]
                else:  # outside the rules' table
                    text = f"Still gated on the {root} for the {thing}, ugh."
                    facts = [(X, "DEPENDS_ON", R)]
                self.add(owner, when, text, facts, group=cid, covered=form != 3, late=late)
            for n, (thing, (owner, parent)) in enumerate(below.items()):
                X, Y = title(thing), title(parent)
                parent_owner = owners[parent]
                when = _when(week, (n + 2) % 5, 3 + n // 5)
                first = week == start
                late = not first and week < CHECKPOINT_WEEK and rng.random() < BACKFILL_SHARE
                form = 0 if first else rng.choice([0, 0, 1, 2])
                if form == 0:
                    text = (f"The {thing} can't move forward because the {parent} isn't ready. "
                            f"That work belongs to {parent_owner}.")
                    facts = [(owner, "RESPONSIBLE_FOR", X), (X, "HAS_STATUS", "Blocked"),
                             (X, "DEPENDS_ON", Y), (parent_owner, "RESPONSIBLE_FOR", Y)]
                elif form == 1:
                    text = f"The {thing} needs the {parent}."
                    facts = [(X, "DEPENDS_ON", Y)]
                else:  # outside the rules' table
                    text = f"Can't do much on the {thing} while the {parent} is pending."
                    facts = [(X, "DEPENDS_ON", Y)]
                self.add(owner, when, text, facts, group=cid, covered=form != 2, late=late)

    def distractor(self) -> None:
        rng = self.rng
        author = self.names.person()
        self.s.types[author] = "Person"
        when = _when(rng.randrange(WEEKS), rng.randrange(5), rng.randrange(8))
        if rng.random() < 0.4:
            self.add(author, when, rng.choice(CHATTER), [], group=None)
            return
        thing = self.item()
        self.s.types[title(thing)] = "WorkItem"
        self.add(author, when, f"The {thing} is on track.",
                 [(author, "RESPONSIBLE_FOR", title(thing)),
                  (title(thing), "HAS_STATUS", "On Track")], group=None)


# --- support ---------------------------------------------------------------------------------


class _Support:
    def __init__(self, scenario: Scenario, rng: random.Random) -> None:
        self.s = scenario
        self.rng = rng
        self.names = Names(rng)

    def add(self, author: str, when: datetime, content: str, facts: list[Triple], *,
            group: str | None, covered: bool = True) -> None:
        s = self.s
        s.episodes.append(Episode(f"{s.name}-{len(s.episodes):06d}", author, when, "support",
                                  content, facts, covered, group))

    def family(self, index: int) -> None:
        rng, types = self.rng, self.s.types
        gid = f"issue-{index}"
        code, thing = self.names.codename(), rng.choice(THINGS)
        issue, product = title(f"{code} {thing} failures"), title(f"{code} {thing}s")
        event = self.names.event() if rng.random() < 0.5 else None
        types.update({issue: "Issue", product: "Product"})
        if event:
            types[title(event)] = "Event"
        tickets: list[tuple[datetime, str]] = []
        for _ in range(rng.randint(2, 6)):
            customer = self.names.customer()
            types[customer] = "Customer"
            for _ in range(rng.randint(1, 3)):
                when = _when(rng.randrange(WEEKS), rng.randrange(5), rng.randrange(8))
                tickets.append((when, customer))
        tickets.sort()
        plans: dict[str, str] = {}
        for when, customer in tickets:
            forms = [0, 1, 4] + ([2, 3] if event else [])
            form = rng.choice(forms)
            if form == 0:
                text = f"Our {code} {thing}s keep failing."
                facts = [(customer, "REPORTED", issue), (issue, "AFFECTS", product)]
            elif form == 1:
                text = f"We keep seeing {code} {thing} failures."
                facts = [(customer, "REPORTED", issue)]
            elif form == 2:
                text = f"{title(code)} {thing}s fail since the {event}."
                facts = [(customer, "REPORTED", issue), (issue, "AFFECTS", product),
                         (issue, "PRECEDED_BY", title(str(event)))]
            elif form == 3:
                text = f"Our {code} {thing}s keep failing after the {event}."
                facts = [(customer, "REPORTED", issue), (issue, "AFFECTS", product),
                         (issue, "PRECEDED_BY", title(str(event)))]
            else:  # outside the rules' table
                text = f"Ugh, {code} {thing}s are broken for us again."
                facts = [(customer, "REPORTED", issue)]
            if customer not in plans and rng.random() < 0.3:
                plans[customer] = rng.choice(PLANS[:3])
                text = f"We have the {plans[customer]} plan. {text}"
                facts = [(customer, "ON_PLAN", plans[customer]), *facts]
            elif customer in plans and plans[customer] != "Enterprise" and rng.random() < 0.5:
                plans[customer] = "Enterprise"  # a plan change over time
                text = f"We upgraded to the Enterprise plan. {text}"
                facts = [(customer, "ON_PLAN", "Enterprise"), *facts]
            for plan in PLANS:
                types[plan] = "Plan"
            self.add(customer, when, text, facts, group=gid, covered=form != 4)

    def distractor(self) -> None:
        rng, types = self.rng, self.s.types
        customer = self.names.customer()
        code, thing = self.names.codename(), rng.choice(THINGS)
        issue, product = title(f"{code} {thing} failures"), title(f"{code} {thing}s")
        types.update({customer: "Customer", issue: "Issue", product: "Product"})
        when = _when(rng.randrange(WEEKS), rng.randrange(5), rng.randrange(8))
        self.add(customer, when, f"Our {code} {thing}s keep failing.",
                 [(customer, "REPORTED", issue), (issue, "AFFECTS", product)], group=None)


class _Brands(_Support):
    """Issue families of several brands; the same words at two brands are two problems."""

    def __init__(self, scenario: Scenario, rng: random.Random) -> None:
        super().__init__(scenario, rng)
        self.words: list[tuple[str, str, str]] = []
        """(brand, code, thing) of every family so far."""

    def ticket(self, author: str, when: datetime, content: str, facts: list[Triple], *,
               brand: str, group: str | None, covered: bool = True,
               ended: list[Triple] | None = None) -> None:
        s = self.s
        s.episodes.append(Episode(f"{s.name}-{len(s.episodes):06d}", author, when,
                                  f"zendesk:{brand}", content, facts, covered, group,
                                  ended=ended or []))

    def family(self, index: int) -> None:
        rng, types = self.rng, self.s.types
        gid = f"issue-{index}"
        brand = BRANDS[index % len(BRANDS)]
        mine = {(code, thing) for b, code, thing in self.words if b == brand}
        others = [w for w in self.words if w[0] != brand and (w[1], w[2]) not in mine]
        if index >= len(BRANDS) and others and rng.random() < REUSED_WORDS_SHARE:
            _, code, thing = rng.choice(others)  # the same symptom name at another brand
        else:
            code, thing = self.names.codename(), rng.choice(THINGS)
        self.words.append((brand, code, thing))
        issue = f"{title(f'{code} {thing} failures')} ({brand})"
        product = f"{title(f'{code} {thing}s')} ({brand})"
        types.update({issue: "Issue", product: "Product"})
        tickets: list[tuple[datetime, str]] = []
        for _ in range(rng.randint(2, 6)):
            customer = self.names.customer()
            types[customer] = "Customer"
            for _ in range(rng.randint(1, 3)):
                when = _when(rng.randrange(CHECKPOINT_WEEK), rng.randrange(5),
                             rng.randrange(8))
                tickets.append((when, customer))
        tickets.sort()
        for when, customer in tickets:
            form = rng.choice([0, 1, 2, 3])
            if form == 0:
                text = f"Our {code} {thing}s keep failing."
                facts = [(customer, "REPORTED", issue), (issue, "AFFECTS", product)]
            elif form == 1:
                text = f"We keep seeing {code} {thing} failures."
                facts = [(customer, "REPORTED", issue)]
            elif form == 2:
                text = f"Hi, our {code} {thing}s keep failing again. Can you check?"
                facts = [(customer, "REPORTED", issue), (issue, "AFFECTS", product)]
            else:  # outside the rules' table
                text = f"Ugh, {code} {thing}s are broken for us again."
                facts = [(customer, "REPORTED", issue)]
            self.ticket(customer, when, text, facts, brand=brand, group=gid,
                        covered=form != 3)
        customers = list(dict.fromkeys(c for _, c in tickets))
        if len(customers) >= 3 and rng.random() < RESOLVED_FOR_ONE_SHARE:
            customer = customers[0]
            when = _when(CHECKPOINT_WEEK + 1, rng.randrange(5), rng.randrange(8))
            self.ticket(customer, when,
                        f"The {code} {thing} failures are resolved. Thanks!", [],
                        brand=brand, group=gid, ended=[(customer, "REPORTED", issue)])

    def distractor(self) -> None:
        rng, types = self.rng, self.s.types
        brand = rng.choice(BRANDS)
        customer = self.names.customer()
        code, thing = self.names.codename(), rng.choice(THINGS)
        issue = f"{title(f'{code} {thing} failures')} ({brand})"
        product = f"{title(f'{code} {thing}s')} ({brand})"
        types.update({customer: "Customer", issue: "Issue", product: "Product"})
        when = _when(rng.randrange(WEEKS), rng.randrange(5), rng.randrange(8))
        self.ticket(customer, when, f"Our {code} {thing}s keep failing.",
                    [(customer, "REPORTED", issue), (issue, "AFFECTS", product)],
                    brand=brand, group=None)


# --- entry point -----------------------------------------------------------------------------


def generate(name: str, size: int, *, seed: int = 7, form: str = "text") -> Scenario:
    """A scenario of about ``size`` episodes (chains and families are whole, so it may exceed
    ``size`` by one chain's worth; distractors fill up to ``size``). Same arguments, same
    output."""
    if name not in SCENARIOS:
        raise ValueError(f"unknown scenario {name!r}; choose from {', '.join(SCENARIOS)}")
    if form not in FORMS:
        raise ValueError(f"unknown form {form!r}; choose from {', '.join(FORMS)}")
    rng = random.Random(f"{name}:{size}:{seed}")
    scenario = Scenario(name=name, size=size, seed=seed, form=form)
    builders: dict[str, type[_Projects] | type[_Support]] = {
        "projects": _Projects, "support": _Support, "brands": _Brands}
    builder = builders[name](scenario, rng)
    scenario.types.update({"Blocked": "Status", "Stalled": "Status", "On Track": "Status",
                           "Done": "Status", HUB_FACT[0]: "Team", HUB_FACT[2]: "WorkItem"})
    target = int(size * (1 - DISTRACTOR_SHARE))
    index = 0
    while len(scenario.episodes) < target:
        if isinstance(builder, _Projects):
            builder.chain(index)
        else:
            builder.family(index)
        index += 1
    while len(scenario.episodes) < size:
        builder.distractor()
    # Delivery order: by batch, then as said (backfilled ones come late, in their old order).
    scenario.episodes.sort(key=lambda e: (e.batch, e.reference_time, e.external_id))
    return scenario
