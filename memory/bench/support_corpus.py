"""Grouping real support messages: the product's observations against a topic-model baseline,
both scored against the labelled corpus's gold problems (``tests/corpus``, issue #14).

The corpus's original batch holds 175 public support messages of four brands (Docker Desktop,
from its Mac and Windows trackers; Warp; Bitwarden; Tailscale), each labelled with its ``brand``
and the ``problem`` it reports (``null`` for a message that reports none: a request for logs, a
closing notice); its dev-extra batch 110 more of four other brands (Postman, Signal Desktop,
Cursor, Mullvad VPN), dev only; its validation batch 27 more messages of the original brands and
problems from other threads, dev only, for measuring (never part of ``all``). By default the
original batch is scored whole (every split);
``split`` and ``batch`` choose part of it, so that work on the product is judged on the dev
messages and the test messages are scored only to report (``tests/corpus/README.md``).

**Ours**: the messages go through the product's real path in a throwaway graph — ingested as
they are (the labels are ignored by ingestion), extracted (the rules extractor with no model
configured), one pipeline run — and each active observation is a group of messages.

The messages carry the address of their thread (``url``: the GitHub issue they belong to), as a
help desk's tickets carry their ticket; the product reads a customer's message as part of its
thread (``memory.support``). So that what the words alone give is seen too, the product also
runs on the same messages without their addresses ("ours, words only").

**Baseline**: per brand, TF-IDF (scikit-learn's ``TfidfVectorizer``: English stop words,
sublinear term frequency, words seen in two messages or more) and k-means (``KMeans``, 10
restarts, a fixed seed) with **k = the gold number of problems of that brand** — an advantage
no real queue gives it — over every message of the brand.

Scores (a message's gold class is its (brand, problem); a message without a problem is a class
of its own, so it is never anyone's majority):

``purity``
    of the clustered messages (those in a group of two or more), the share whose group's
    majority class (the most common class in the group; ties broken by the class's name) is
    their own — Manning, Raghavan & Schütze's purity, restricted to what was grouped, so that
    leaving a message out is not counted as pure.
``recall``
    of the messages of recurring problems (gold classes with two messages or more), the share
    that share a group with at least one other message of their problem.
``coverage``
    the share of all messages in a group of two or more.
``mixed``
    groups holding messages of more than one brand.

Figures are given over all messages and per brand (a group is counted for a brand's purity
through that brand's messages in it, with the group's majority taken over the whole group).
"""

from __future__ import annotations

import json
import random
import secrets
import time
from collections import Counter, defaultdict
from collections.abc import Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, cast

SUPPORT_FILES = ("docker-for-mac", "docker-for-win", "warp", "bitwarden-clients", "tailscale")
EXTRA_SUPPORT_FILES = ("postman", "signal-desktop", "cursor", "mullvad")
"""The dev-extra batch's support sources (dev only)."""
SPLITS = ("all", "dev", "test")
BATCHES = ("original", "dev-extra", "validation", "all")
"""``all`` is the original and dev-extra batches: the validation batch's messages (dev-only, in the
original support files, ``tests/corpus/README.md``) are scored only when asked for by name, so
that they never change the figures of the other batches."""
_BATCH_FILES = {"original": SUPPORT_FILES, "dev-extra": EXTRA_SUPPORT_FILES,
                "validation": SUPPORT_FILES, "all": SUPPORT_FILES + EXTRA_SUPPORT_FILES}
_BATCH_RECORDS = {"original": {"original"}, "dev-extra": {"dev-extra"},
                  "validation": {"validation"}, "all": {"original", "dev-extra"}}
SKLEARN_MISSING = ("the support corpus baseline needs scikit-learn: "
                   "pip install -e '.[bench]'")


@dataclass(frozen=True)
class Message:
    external_id: str
    brand: str
    problem: str | None
    content: str

    @property
    def gold(self) -> tuple[str, str]:
        """The message's class: its (brand, problem), or itself when it reports no problem."""
        if self.problem:
            return (self.brand, self.problem)
        return ("", self.external_id)


def load_support_corpus(directory: Path, *, split: str = "all", batch: str = "original",
                        ) -> tuple[list[dict[str, Any]], list[Message]]:
    """The support files' records (as ``ingest`` reads them, in time order) and their labels:
    those of ``split`` (``dev``, ``test`` or ``all``) in ``batch`` (``original``, ``dev-extra``,
    ``validation`` or ``all`` — the first two; a record without a batch is of the original
    one)."""
    if split not in SPLITS or batch not in BATCHES:
        raise ValueError(f"unknown split {split!r} or batch {batch!r}")
    records: list[dict[str, Any]] = []
    for name in _BATCH_FILES[batch]:
        path = directory / f"{name}.jsonl"
        records += [r for r in (json.loads(line) for line in path.read_text().splitlines()
                                if line.strip())
                    if split in ("all", r.get("split"))
                    and r.get("batch", "original") in _BATCH_RECORDS[batch]]
    records.sort(key=lambda r: (r["reference_time"], r["external_id"]))
    messages = [Message(r["external_id"], r["brand"], r.get("problem"), r["content"])
                for r in records]
    return records, messages


# --- Scores (pure) -----------------------------------------------------------------------------


@dataclass(frozen=True)
class GroupingScores:
    messages: int
    groups: int
    clustered: int
    purity: float
    recall: float
    recurring: int
    """Messages of recurring gold problems (the recall's denominator)."""
    mixed: int
    """Groups holding messages of two brands or more."""

    @property
    def coverage(self) -> float:
        return self.clustered / self.messages if self.messages else 0.0

    def as_dict(self) -> dict[str, Any]:
        return {"messages": self.messages, "groups": self.groups, "clustered": self.clustered,
                "coverage": self.coverage, "purity": self.purity, "recall": self.recall,
                "recurring": self.recurring, "mixed": self.mixed}


def score_grouping(messages: Sequence[Message], groups: Iterable[Iterable[str]],
                   *, brand: str | None = None,
                   scored: Collection[str] | None = None) -> GroupingScores:
    """Purity, recall, coverage and brand mixing of ``groups`` (lists of external ids; groups of
    fewer than two messages are no groups) — over all messages, or those of one ``brand``.

    With ``scored`` (external ids), only those messages are counted, each in its group as it
    stands among all ``messages``: a group's majority, and whether a problem recurs, are the
    whole queue's, so a split's "same here" joined to its thread's earlier messages (of another
    split) is grouped, and pure when the thread's problem is its own."""
    by_id = {m.external_id: m for m in messages}
    real = [[i for i in dict.fromkeys(g) if i in by_id] for g in groups]
    real = [g for g in real if len(g) >= 2]
    group_of = {i: n for n, g in enumerate(real) for i in g}
    majority = {n: _majority(by_id[i].gold for i in g) for n, g in enumerate(real)}
    scope = [m for m in messages if (brand is None or m.brand == brand)
             and (scored is None or m.external_id in scored)]
    clustered = [m for m in scope if m.external_id in group_of]
    pure = sum(1 for m in clustered if majority[group_of[m.external_id]] == m.gold)
    sizes = Counter(m.gold for m in messages if m.problem)
    recurring = [m for m in scope if m.problem and sizes[m.gold] >= 2]
    together = sum(
        1 for m in recurring if m.external_id in group_of and any(
            by_id[i].gold == m.gold for i in real[group_of[m.external_id]]
            if i != m.external_id))
    mine = {m.external_id for m in scope}
    counted = [g for g in real if any(i in mine for i in g)]
    mixed = sum(1 for g in counted if len({by_id[i].brand for i in g}) > 1)
    return GroupingScores(
        messages=len(scope), groups=len(counted), clustered=len(clustered),
        purity=pure / len(clustered) if clustered else 0.0,
        recall=together / len(recurring) if recurring else 0.0,
        recurring=len(recurring), mixed=mixed,
    )


def _majority(classes: Iterable[tuple[str, str]]) -> tuple[str, str]:
    counts = Counter(classes)
    return min(counts, key=lambda c: (-counts[c], c))


def brands(messages: Sequence[Message]) -> list[str]:
    return sorted({m.brand for m in messages})


def gold_problems(messages: Sequence[Message], brand: str) -> int:
    return len({m.problem for m in messages if m.brand == brand and m.problem})


# --- The baseline --------------------------------------------------------------------------------


def tfidf_kmeans_groups(messages: Sequence[Message], *, seed: int = 0) -> list[list[str]]:
    """Per brand, TF-IDF + k-means with k = the brand's gold number of problems."""
    try:
        from sklearn.cluster import KMeans
        from sklearn.feature_extraction.text import TfidfVectorizer
    except ImportError:
        raise RuntimeError(SKLEARN_MISSING) from None
    groups: list[list[str]] = []
    for brand in brands(messages):
        mine = [m for m in messages if m.brand == brand]
        k = min(gold_problems(messages, brand), len(mine))
        if k < 1:
            continue
        vectors = TfidfVectorizer(stop_words="english", sublinear_tf=True,
                                  min_df=2).fit_transform([m.content for m in mine])
        labels = KMeans(n_clusters=k, n_init=10, random_state=seed).fit_predict(vectors)
        by_label: dict[int, list[str]] = defaultdict(list)
        for message, label in zip(mine, labels, strict=True):
            by_label[int(label)].append(message.external_id)
        groups += [by_label[label] for label in sorted(by_label)]
    return groups


# --- Ours ----------------------------------------------------------------------------------------


def product_groups(records: Sequence[dict[str, Any]]) -> tuple[list[list[str]], dict[str, Any]]:
    """The messages through the product in a throwaway graph: ingest, extract, one run. Returns
    each active observation's messages, and what the run did (episodes, facts, seconds)."""
    from memory import processing
    from memory.api.services import delete_graph
    from memory.ingestion import ingest_records
    from memory.models import Graph, Observation
    from memory.pipeline import run_pipeline

    graph = Graph.objects.create(slug=f"bench-support-corpus-{secrets.token_hex(3)}",
                                 name="bench support corpus")
    try:
        started = time.perf_counter()
        report = ingest_records(graph, list(enumerate(records, start=1)), process=False)
        processing.process_episodes(report.stored_ids)
        run = run_pipeline(graph)
        seconds = time.perf_counter() - started
        if run is None:  # None only when another run holds the graph: not this new one's
            raise RuntimeError("the support corpus's graph was held by another run")
        observations = Observation.objects.filter(
            graph=graph, status=Observation.Status.ACTIVE).prefetch_related("episodes")
        # external_id is nullable, but every corpus record has one (the messages' ids)
        groups = [sorted(cast(str, e.external_id) for e in o.episodes.all())
                  for o in observations]
        info = {"episodes": report.stored, "rejected": report.rejected,
                "facts": run.counts.get("facts"), "observations": len(groups),
                "seconds": seconds}
    finally:
        delete_graph(graph)
    return groups, info


def compare(directory: Path, *, seed: int = 0, split: str = "all",
            batch: str = "original") -> dict[str, Any]:
    """Both groupings of the support corpus (the messages of ``split`` in ``batch``), scored
    over all messages and per brand."""
    records, messages = load_support_corpus(directory, split=split, batch=batch)
    ours, info = product_groups(records)
    words_only, _ = product_groups([{k: v for k, v in r.items() if k != "url"}
                                    for r in records])
    started = time.perf_counter()
    baseline = tfidf_kmeans_groups(messages, seed=seed)
    baseline_seconds = time.perf_counter() - started
    rows = []
    for brand in [None, *brands(messages)]:
        rows.append({
            "brand": brand or "all",
            "gold_problems": (sum(gold_problems(messages, b) for b in brands(messages))
                              if brand is None else gold_problems(messages, brand)),
            "ours": score_grouping(messages, ours, brand=brand).as_dict(),
            "ours_words_only": score_grouping(messages, words_only, brand=brand).as_dict(),
            "baseline": score_grouping(messages, baseline, brand=brand).as_dict(),
        })
    rows.append(customers_row(records, messages, ours, baseline))
    result = {"messages": len(messages), "split": split, "batch": batch, "ours": info,
              "baseline": {"seconds": baseline_seconds, "groups": len(baseline),
                           "method": "TF-IDF + k-means per brand, k = gold problems"},
              "rows": rows, "groups": {"ours": ours}}
    whole_records, whole = load_support_corpus(directory, split="all", batch=batch)
    if len(whole) > len(messages):
        result["whole_queue"] = compare_in_whole_queue(whole_records, whole, messages, seed=seed)
    return result


def compare_in_whole_queue(records: Sequence[dict[str, Any]], whole: Sequence[Message],
                           split: Sequence[Message], *, seed: int = 0) -> dict[str, Any]:
    """Both groupings of every message of the batch — as a support lead imports a whole queue,
    a thread arriving whole — scored on the ``split``'s messages only. Ours ingests all of them
    in time order; the baseline clusters all of them per brand, k = the brand's gold number of
    problems over all of them. Scoring, not tuning: the split's labels are read only here."""
    ours, info = product_groups(records)
    baseline = tfidf_kmeans_groups(whole, seed=seed)
    scored = {m.external_id for m in split}
    rows = [{
        "brand": brand or "all",
        "gold_problems": (sum(gold_problems(whole, b) for b in brands(whole))
                          if brand is None else gold_problems(whole, brand)),
        "ours": score_grouping(whole, ours, brand=brand, scored=scored).as_dict(),
        "baseline": score_grouping(whole, baseline, brand=brand, scored=scored).as_dict(),
    } for brand in [None, *brands(split)]]
    split_records = [r for r in records if r["external_id"] in scored]
    rows.append(customers_row(split_records, whole, ours, baseline))
    return {"messages": len(whole), "scored": len(split), "ours": info,
            "baseline": {"groups": len(baseline)}, "rows": rows}


CUSTOMERS_ROW = "all, customers' messages"


def customers_row(records: Sequence[dict[str, Any]], messages: Sequence[Message],
                  ours: Sequence[Sequence[str]], baseline: Sequence[Sequence[str]],
                  ) -> dict[str, Any]:
    """Both groupings scored on the customers' messages of ``records`` only (each grouped as
    it stands among all ``messages``): an agent's reply ("would you mind sending your logs")
    reports no problem, so the product places it in no group (``Episode.author_role``), while
    the labels give it its thread's problem. The rows above count every message; this one
    counts what a support lead groups — reports — for both methods alike."""
    from memory.ingestion import parse_author_role

    customers = {r["external_id"] for r in records if parse_author_role(r) != "agent"}
    return {
        "brand": CUSTOMERS_ROW,
        "gold_problems": sum(gold_problems(messages, b) for b in brands(messages)),
        "ours": score_grouping(messages, ours, scored=customers).as_dict(),
        "baseline": score_grouping(messages, baseline, scored=customers).as_dict(),
    }


def small_queue(records: Sequence[dict[str, Any]], size: int, *, seed: int,
                one_a_thread: bool = False) -> list[int]:
    """The positions (in time order) of ``size`` records drawn at random (``seed``): a small
    queue, as a split standing alone is one. With ``one_a_thread``, one record a thread
    (``url``) first, others only to fill ``size`` — as the test split stands alone, its
    messages' threads mostly in dev."""
    rng = random.Random(seed)
    order = list(range(len(records)))
    rng.shuffle(order)
    if one_a_thread:
        seen: set[str | None] = set()
        first: list[int] = []
        rest: list[int] = []
        for i in order:
            thread = records[i].get("url")
            (rest if thread in seen and thread is not None else first).append(i)
            seen.add(thread)
        order = first + rest
    return sorted(order[:size])


def compare_small_queues(directory: Path, *, split: str = "dev", batch: str = "original",
                         size: int = 53, seeds: Iterable[int] = range(1, 7),
                         one_a_thread: bool = False) -> dict[str, Any]:
    """Both groupings of small queues of ``split`` (``small_queue``), each scored alone: the
    mean purity and recall of each method over the seeds. For work on the product, on dev:
    how it does where a message's thread is rarely in the queue."""
    records, messages = load_support_corpus(directory, split=split, batch=batch)
    runs = []
    for seed in seeds:
        chosen = small_queue(records, size, seed=seed, one_a_thread=one_a_thread)
        queue = [messages[i] for i in chosen]
        ours, _ = product_groups([records[i] for i in chosen])
        runs.append((score_grouping(queue, ours),
                     score_grouping(queue, tfidf_kmeans_groups(queue))))
    return {"split": split, "batch": batch, "size": size, "queues": len(runs),
            "one_a_thread": one_a_thread,
            "ours": {"purity": _mean([o.purity for o, _ in runs]),
                     "recall": _mean([o.recall for o, _ in runs])},
            "baseline": {"purity": _mean([b.purity for _, b in runs]),
                         "recall": _mean([b.recall for _, b in runs])}}


def _mean(values: Sequence[float]) -> float:
    return sum(values) / len(values) if values else 0.0


def comparison_rows(result: Mapping[str, Any]) -> list[list[str]]:
    rows = []
    for row in result["rows"]:
        ours, base = row["ours"], row["baseline"]
        rows.append([
            row["brand"], str(ours["messages"]), str(row["gold_problems"]),
            f"{ours['purity']:.3f}", f"{base['purity']:.3f}",
            f"{ours['recall']:.3f}", f"{base['recall']:.3f}",
            f"{ours['coverage']:.3f}", f"{base['coverage']:.3f}",
            f"{ours['groups']} / {base['groups']}", f"{ours['mixed']} / {base['mixed']}",
        ])
    return rows


def words_only_rows(result: Mapping[str, Any]) -> list[list[str]]:
    rows = []
    for row in result["rows"]:
        ours = row.get("ours_words_only")
        if ours:
            rows.append([row["brand"], f"{ours['purity']:.3f}", f"{ours['recall']:.3f}",
                         f"{ours['coverage']:.3f}", str(ours["groups"]), str(ours["mixed"])])
    return rows


WORDS_ONLY_HEADERS = ["brand", "purity", "recall", "coverage", "groups", "mixed-brand groups"]
COMPARISON_HEADERS = ["brand", "messages", "gold problems", "purity ours", "purity TF-IDF",
                      "recall ours", "recall TF-IDF", "coverage ours", "coverage TF-IDF",
                      "groups ours / TF-IDF", "mixed-brand groups ours / TF-IDF"]
