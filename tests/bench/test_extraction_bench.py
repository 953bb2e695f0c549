"""The extraction bench (``manage.py bench_extraction``): how predicted facts are matched to the
labels, the figures it prints on a tiny corpus, and the labelled corpus itself (its frozen split,
its exact sentences, that ``ingest`` takes it)."""

from __future__ import annotations

import io
import json
import sys
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
from django.core.management import CommandError, call_command

from memory.bench.extraction_bench import (
    Fact,
    facts_match,
    load_corpus,
    matched_pairs,
    names_match,
    normalized_fact,
    run_extraction_bench,
)
from memory.bench.recorded_facts import predicted_facts, record_source, run_recorded_bench
from memory.models import Episode, Graph
from memory.ontology import default_ontology

CORPUS = Path(__file__).resolve().parent.parent / "corpus"
sys.path.insert(0, str(CORPUS / "tools"))

import agreement  # noqa: E402
from labels import parse  # noqa: E402
from split import split_of  # noqa: E402

# --- Matching names ------------------------------------------------------------------------------


@pytest.mark.parametrize(("gold", "predicted"), [
    ("auth service refactor", "Auth Service Refactor"),
    ("The API migrations", "api migration"),
    ("payments integration", "the Payments-Integration."),
    ("stuck on starting", "Docker Desktop Stuck on Starting"),  # content words contain the gold's
    ("Docker Desktop stuck in starting state", "stuck starting"),  # ... or the gold's contain them
    ("#14039", "Document Execs assertions #14039"),
    ("#8331", "https://github.com/rust-analyzer/rust-analyzer/issues/8331"),
    ("kubernetes/contrib#2389", "#2389"),
    ("rust#80988", "https://github.com/rust-lang/rust/issues/80988"),
    ("bug 1234567", "Bug 1234567 – crash on start"),
    ("PROJ-123", "proj-123 login page"),
    ("RFC 2316", "rfc-2316"),
])
def test_names_that_name_the_same_thing_match(gold: str, predicted: str) -> None:
    assert names_match(gold, predicted)


@pytest.mark.parametrize(("gold", "predicted"), [
    ("#123", "#1234"),
    ("rust-lang/rust#5", "rust-lang/cargo#5"),
    ("rust#5", "cargo#5"),
    ("login failure", "logout failure"),
    ("Docker Desktop", "Docker Hub"),
    ("auth service", "the"),
    ("PROJ-123", "PROJ-124"),
    ("RFC 2316", "PEP 2316"),
    ("high CPU usage", "high memory usage"),
])
def test_near_misses_do_not_match(gold: str, predicted: str) -> None:
    assert not names_match(gold, predicted)


def test_strict_matching_needs_equal_normalised_names() -> None:
    assert names_match("The Auth-Service refactor.", "auth service refactor", strict=True)
    assert not names_match("stuck on starting", "Docker Desktop Stuck on Starting", strict=True)
    assert not names_match("#8331", "https://github.com/o/r/issues/8331", strict=True)


# --- Matching facts -------------------------------------------------------------------------------


def test_a_blocks_fact_is_read_as_the_reversed_dependency() -> None:
    ontology = default_ontology()
    gold = normalized_fact("checkout flow", "DEPENDS_ON", "payments integration", ontology)
    predicted = normalized_fact("Payments Integration", "BLOCKS", "Checkout Flow", ontology)
    assert gold is not None and predicted is not None
    assert facts_match(gold, predicted)


def test_the_proposed_relations_are_kept_by_name_and_unknown_ones_dropped() -> None:
    ontology = default_ontology()
    assert normalized_fact("#1", "duplicate of", "#2", ontology) == Fact("#1", "DUPLICATE_OF", "#2")
    assert normalized_fact("#1", "TRACKS", "#2", ontology) == Fact("#1", "TRACKS", "#2")
    assert normalized_fact("a", "LIKES", "b", ontology) is None


def test_a_fact_in_the_other_direction_or_with_another_relation_does_not_match() -> None:
    gold = Fact("checkout flow", "DEPENDS_ON", "payments integration")
    assert not facts_match(gold, Fact("payments integration", "DEPENDS_ON", "checkout flow"))
    assert not facts_match(gold, Fact("checkout flow", "RESPONSIBLE_FOR",
                                      "payments integration"))


def test_each_gold_fact_matches_at_most_one_prediction() -> None:
    gold = [Fact("Bob", "RESPONSIBLE_FOR", "billing service")]
    predicted = [Fact("Bob", "RESPONSIBLE_FOR", "Billing Service")] * 2
    assert matched_pairs(gold, predicted) == [(0, 0)]


def test_the_matching_is_maximum_not_first_come() -> None:
    # The first gold fact could take either prediction; taking the first would leave the second
    # gold fact unmatched.
    gold = [Fact("auth", "DEPENDS_ON", "#5"), Fact("auth service", "DEPENDS_ON", "#5")]
    predicted = [Fact("auth service", "DEPENDS_ON", "#5"), Fact("auth", "DEPENDS_ON", "#5")]
    assert len(matched_pairs(gold, predicted)) == 2
    assert len(matched_pairs(gold, predicted, strict=True)) == 2


# --- The command on a tiny corpus ---------------------------------------------------------------


def _record(external_id: str, content: str, genre: str, split: str,
            gold: list[dict[str, Any]], **extra: Any) -> dict[str, Any]:
    return {"external_id": external_id, "author": "Alice", "type": "text",
            "reference_time": "2026-11-23T09:00:00+00:00", "source": "weekly-status",
            "content": content, "genre": genre, "split": split, "gold_facts": gold, **extra}


def _gold(source: str, relation: str, target: str, sentence: str) -> dict[str, Any]:
    return {"source": source, "source_type": "WorkItem", "relation": relation,
            "target": target, "target_type": "WorkItem", "sentence": sentence}


@pytest.fixture
def tiny_corpus(tmp_path: Path) -> Path:
    directory = tmp_path / "episodes"
    directory.mkdir()
    depends = "The checkout flow depends on the payments integration."
    tracker = [
        _record("t1", depends, "tracker", "dev", [
            _gold("checkout flow", "DEPENDS_ON", "payments integration", depends),
            _gold("#7", "TRACKS", "checkout flow", depends),
        ]),
        _record("t2", "Bob owns the billing service.", "tracker", "test", [
            _gold("Bob", "RESPONSIBLE_FOR", "billing service", "Bob owns the billing service."),
        ]),
        _record("t3", "Not labelled yet.", "tracker", "dev", []) | {"gold_facts": None},
    ]
    tracker[2].pop("gold_facts")
    waiting = "The search page is waiting on the index rebuild."
    support = [
        _record("s1", "Hello, nothing to report today.", "support", "dev", [],
                brand="Acme", problem=None),
        _record("s2", waiting, "support", "dev",
                [_gold("search page", "DEPENDS_ON", "index rebuild work", waiting)],
                brand="Acme", problem="search/slow"),
    ]
    for name, records in (("tracker", tracker), ("support", support)):
        (directory / f"{name}.jsonl").write_text(
            "".join(json.dumps(r) + "\n" for r in records))
    return directory


def _run(*args: str) -> str:
    out = io.StringIO()
    call_command("bench_extraction", *args, stdout=out)
    return out.getvalue()


def _row(output: str, heading: str, first_cell: str) -> list[str]:
    section = output.split(heading, 1)[1]
    for line in section.splitlines():
        cells = line.split()
        if cells and cells[0] == first_cell:
            return cells
    raise AssertionError(f"no row {first_cell!r} under {heading!r}")


@pytest.mark.django_db  # the report names the database server
def test_the_command_prints_precision_and_recall_per_genre_and_relation(
        tiny_corpus: Path, tmp_path: Path) -> None:
    output = _run("--corpus", str(tiny_corpus), "--out", str(tmp_path / "out"))

    # episodes, with gold, with facts, gold, predicted, matched, P, R, R explicit, P/R strict
    assert _row(output, "dev split, per genre", "tracker")[1:] == [
        "1", "1", "1", "2", "1", "1", "1.000", "0.500", "0.500", "1.000", "0.500"]
    assert _row(output, "dev split, per genre", "support")[1:] == [
        "2", "1", "1", "1", "1", "1", "1.000", "1.000", "1.000", "0.000", "0.000"]
    assert _row(output, "dev split, per genre", "all")[1:] == [
        "3", "2", "2", "3", "2", "2", "1.000", "0.667", "0.667", "0.500", "0.333"]
    assert _row(output, "test split, per genre", "all")[1:] == [
        "1", "1", "1", "1", "1", "1", "1.000", "1.000", "1.000", "1.000", "1.000"]
    # relation: gold, predicted, matched, P, R, P strict, R strict
    assert _row(output, "dev split, per relation", "TRACKS")[1:] == [
        "1", "0", "0", "–", "0.000", "–", "0.000"]
    assert _row(output, "dev split, per relation", "DEPENDS_ON")[1:] == [
        "2", "2", "2", "1.000", "1.000", "0.500", "0.500"]
    assert "extraction: 4 episodes in" in output and "rules@1 ×4" in output
    written = json.loads((tmp_path / "out" / "bench-extraction.json").read_text())
    assert written["splits"]["dev"]["overall"]["matched"] == 2
    assert written["episodes_per_second"] > 0


def test_a_support_brands_scope_is_not_compared(tmp_path: Path) -> None:
    sentence = "I can't log in to the app."
    record = _record("w1", sentence, "support", "dev",
                     [_gold("Alice", "REPORTED", "login failures", sentence)],
                     source="support:Warp")
    (tmp_path / "warp.jsonl").write_text(json.dumps(record) + "\n")

    result = run_extraction_bench(load_corpus(tmp_path))

    # the graph reads "Login Failures (Warp)"; the text said "Login Failures"
    assert [(f.source, f.target) for f in result.scores[0].predicted if
            f.relation == "REPORTED"] == [("Alice", "Login Failures")]
    assert result.scores[0].matched_strict == [(0, 0)]


def test_an_episode_is_read_with_its_address_as_ingestion_stores_it(tmp_path: Path) -> None:
    # k8s-63752-dims-2018-05-13: "/close" closes the thread its address names
    record = _record("k1", "/close", "tracker", "dev",
                     [_gold("#63752", "HAS_STATUS", "closed", "/close")],
                     url="https://github.com/kubernetes/kubernetes/issues/63752")
    (tmp_path / "k8s.jsonl").write_text(json.dumps(record) + "\n")

    result = run_extraction_bench(load_corpus(tmp_path))

    assert result.scores[0].matched == [(0, 0)]


def test_that_a_customer_wrote_in_their_thread_is_metadata_the_labels_leave_out(
        tmp_path: Path) -> None:
    sentence = "I can't log in to the app."
    record = _record("w1", sentence, "support", "dev",
                     [_gold("Alice", "REPORTED", "login failures", sentence)],
                     source="support:Warp", url="https://github.com/warpdotdev/warp/issues/5")
    (tmp_path / "warp.jsonl").write_text(json.dumps(record) + "\n")

    result = run_extraction_bench(load_corpus(tmp_path))

    assert [f.target for f in result.scores[0].predicted if f.relation == "REPORTED"] == [
        "Login Failures"]


def test_that_an_agent_answered_in_their_thread_is_metadata_the_labels_leave_out(
        tmp_path: Path) -> None:
    record = _record("w2", "Would you mind sending your logs?", "support", "dev", [],
                     source="support:Warp", role="agent",
                     url="https://github.com/warpdotdev/warp/issues/5#issuecomment-1")
    (tmp_path / "warp.jsonl").write_text(json.dumps(record) + "\n")

    result = run_extraction_bench(load_corpus(tmp_path))

    assert not [f for f in result.scores[0].predicted if f.relation == "ANSWERED"]


@pytest.mark.django_db  # the report names the database server
def test_the_command_lists_the_missed_gold_facts_with_their_sentences_when_asked(
        tiny_corpus: Path, tmp_path: Path) -> None:
    output = _run("--corpus", str(tiny_corpus), "--split", "dev", "--misses",
                  "--out", str(tmp_path / "out"))

    listing = output.split("dev split, per genre", 1)[0]
    assert "== t1 (tracker, dev, original; author Alice)" in listing
    assert ("  - #7 TRACKS checkout flow  «The checkout flow depends on the payments "
            "integration.»") in listing
    assert "== s1" not in listing  # nothing missed, nothing extra: not listed
    assert "== t1" not in _run("--corpus", str(tiny_corpus), "--split", "dev",
                                "--out", str(tmp_path / "b"))


@pytest.mark.django_db  # the report names the database server
def test_the_command_counts_each_readings_true_and_false_positives_per_batch_when_asked(
        tiny_corpus: Path, tmp_path: Path) -> None:
    wrong = "The search page is blocked by the index rebuild."
    (tiny_corpus / "extra.jsonl").write_text(json.dumps(_record(
        "x1", wrong, "tracker", "dev", [], batch="dev-extra")) + "\n")
    output = _run("--corpus", str(tiny_corpus), "--split", "dev", "--by-reading",
                  "--out", str(tmp_path / "out"))

    readings = output.split("dev split, per genre", 1)[0]
    # reading, relation, TP, FP, P, TP episodes, TP sources, sources
    # "depends on" and "is waiting on" are one reading (the rules' ``waiting`` pattern)
    assert _row(readings, "dev original, per reading", "waiting") == [
        "waiting", "DEPENDS_ON", "2", "0", "1.000", "2", "2", "support,", "tracker"]
    extra = readings.split("dev dev-extra, per reading", 1)[1].split("dev original", 1)[0]
    assert _row(extra, "reading", "blocked_by")[:5] == [
        "blocked_by", "DEPENDS_ON", "0", "1", "0.000"]
    assert _row(extra, "reading", "blocked_by>implied_owner")[:5] == [
        "blocked_by>implied_owner", "RESPONSIBLE_FOR", "0", "1", "0.000"]
    assert _row(extra, "reading", "all")[1:4] == ["0", "3", "0.000"]
    assert "per reading" not in _run("--corpus", str(tiny_corpus), "--split", "dev",
                                     "--out", str(tmp_path / "b"))


@pytest.mark.django_db  # the report names the database server
def test_the_command_reads_one_split_and_one_genre_when_asked(
        tiny_corpus: Path, tmp_path: Path) -> None:
    output = _run("--corpus", str(tiny_corpus), "--split", "dev", "--genre", "support",
                  "--out", str(tmp_path / "out"))
    assert "test split" not in output
    assert "tracker" not in output
    assert _row(output, "dev split, per genre", "all")[1] == "2"


@pytest.mark.django_db  # the report names the database server
def test_the_command_reads_one_batch_when_asked(tiny_corpus: Path, tmp_path: Path) -> None:
    extra = _record("x1", "The search page is blocked on the index rebuild.", "tracker", "dev",
                    [_gold("search page", "DEPENDS_ON", "index rebuild",
                           "The search page is blocked on the index rebuild.")],
                    batch="dev-extra")
    (tiny_corpus / "extra.jsonl").write_text(json.dumps(extra) + "\n")

    only_extra = _run("--corpus", str(tiny_corpus), "--split", "dev", "--batch", "dev-extra",
                      "--out", str(tmp_path / "a"))
    assert _row(only_extra, "dev split, per genre", "all")[1:3] == ["1", "1"]
    assert "support" not in only_extra
    # Episodes without a batch are the original batch.
    original = _run("--corpus", str(tiny_corpus), "--split", "dev", "--batch", "original",
                    "--out", str(tmp_path / "b"))
    assert _row(original, "dev split, per genre", "all")[1] == "3"
    both = _run("--corpus", str(tiny_corpus), "--split", "dev", "--out", str(tmp_path / "c"))
    assert _row(both, "dev split, per genre", "all")[1] == "4"
    with pytest.raises(CommandError, match="in dev-extra"):
        _run("--corpus", str(tiny_corpus), "--split", "test", "--batch", "dev-extra",
             "--out", str(tmp_path / "d"))


@pytest.mark.django_db  # the report names the database server
def test_the_validation_batch_is_scored_only_when_asked_and_never_with_its_misses(
        tiny_corpus: Path, tmp_path: Path) -> None:
    held = _record("v1", "The search page is blocked on the index rebuild.", "tracker", "dev",
                   [_gold("search page", "DEPENDS_ON", "index rebuild",
                          "The search page is blocked on the index rebuild.")],
                   batch="validation")
    tracker = tiny_corpus / "tracker.jsonl"  # a batch of the original sources, in their file
    tracker.write_text(tracker.read_text() + json.dumps(held) + "\n")

    by_default = _run("--corpus", str(tiny_corpus), "--split", "dev", "--out", str(tmp_path / "a"))
    assert _row(by_default, "dev split, per genre", "all")[1] == "3"  # as without it
    validation = _run("--corpus", str(tiny_corpus), "--split", "dev", "--batch", "validation",
                      "--out", str(tmp_path / "b"))
    assert _row(validation, "dev split, per genre", "all")[1:3] == ["1", "1"]
    assert "support" not in validation
    with pytest.raises(CommandError, match="validation batch is for measuring"):
        _run("--corpus", str(tiny_corpus), "--split", "dev", "--batch", "validation",
             "--misses", "--out", str(tmp_path / "c"))


@pytest.mark.django_db  # the report names the database server
def test_the_dev_extra2_batch_is_scored_only_when_asked_and_its_misses_can_be_read(
        tiny_corpus: Path, tmp_path: Path) -> None:
    new = _record("n1", "The search page is blocked on the index rebuild.", "meeting", "dev",
                  [_gold("search page", "DEPENDS_ON", "index rebuild",
                         "The search page is blocked on the index rebuild.")],
                  batch="dev-extra2")
    (tiny_corpus / "minutes.jsonl").write_text(json.dumps(new) + "\n")

    by_default = _run("--corpus", str(tiny_corpus), "--split", "dev", "--out", str(tmp_path / "a"))
    assert _row(by_default, "dev split, per genre", "all")[1] == "3"  # as without it
    only_new = _run("--corpus", str(tiny_corpus), "--split", "dev", "--batch", "dev-extra2",
                    "--misses", "--out", str(tmp_path / "b"))
    assert _row(only_new, "dev split, per genre", "all")[1:3] == ["1", "1"]
    assert "support" not in only_new


@pytest.mark.django_db  # the report names the database server
def test_the_command_reads_one_source_when_asked(tiny_corpus: Path, tmp_path: Path) -> None:
    held_out = _record("h1", "The search page is blocked on the index rebuild.", "meeting", "dev",
                       [_gold("search page", "DEPENDS_ON", "index rebuild",
                              "The search page is blocked on the index rebuild.")],
                       batch="dev-extra2")
    (tiny_corpus / "held-out-minutes.jsonl").write_text(json.dumps(held_out) + "\n")

    only_tracker = _run("--corpus", str(tiny_corpus), "--split", "dev", "--source", "tracker",
                        "--out", str(tmp_path / "a"))
    assert _row(only_tracker, "dev split, per genre", "all")[1:3] == ["1", "1"]
    assert "support" not in only_tracker
    two = _run("--corpus", str(tiny_corpus), "--split", "dev", "--source", "tracker",
               "--source", "support", "--out", str(tmp_path / "b"))
    assert _row(two, "dev split, per genre", "all")[1] == "3"
    held = _run("--corpus", str(tiny_corpus), "--split", "dev", "--batch", "dev-extra2",
                "--source", "held-out-minutes", "--out", str(tmp_path / "c"))
    assert _row(held, "dev split, per genre", "all")[1:3] == ["1", "1"]
    with pytest.raises(CommandError, match="from held-out-minutes"):
        _run("--corpus", str(tiny_corpus), "--split", "dev", "--source", "held-out-minutes",
             "--out", str(tmp_path / "d"))  # not in the default batches


@pytest.mark.django_db  # the report names the database server
def test_the_command_refuses_a_corpus_with_nothing_labelled(tmp_path: Path) -> None:
    (tmp_path / "empty.jsonl").write_text(json.dumps(
        _record("x", "text", "tracker", "dev", []) | {"gold_facts": None}).replace(
        ', "gold_facts": null', "") + "\n")
    with pytest.raises(CommandError, match="no labelled episodes"):
        _run("--corpus", str(tmp_path), "--out", str(tmp_path / "out"))


def test_each_source_is_read_as_one_graph_that_learns_names_in_time_order(
        tiny_corpus: Path) -> None:
    asked: list[dict[str, str]] = []

    def extract(episode: Episode, ontology: Any, known: dict[str, str]) -> Any:
        from memory.bench.extraction_bench import product_extract

        asked.append(dict(known))
        return product_extract(episode, ontology, known)

    episodes = load_corpus(tiny_corpus)
    result = run_extraction_bench(episodes, extract=extract)
    assert [s.episode.record["external_id"] for s in result.scores] == ["s1", "s2", "t1", "t2"]
    assert asked[0] == {} and asked[2] == {}  # each source starts as a new graph
    assert "checkout flow" in asked[3]  # t2 knows what t1 introduced


# --- The recorded path ---------------------------------------------------------------------------


def _thread(tmp_path: Path) -> Path:
    """A support thread: Alice reports that she cannot log in, Bob says "same issue here"."""
    directory = tmp_path / "thread"
    directory.mkdir()
    thread = "https://github.com/warpdotdev/warp/issues/5"
    report = "I can't log in to the app."
    records = [
        _record("w1", f"# Login broken #5\n{report}", "support", "dev",
                [_gold("Alice", "REPORTED", "login broken", "# Login broken #5")],
                source="support:Warp", url=thread),
        _record("w2", "Same issue here.", "support", "dev",
                [_gold("Bob", "REPORTED", "login broken", "Same issue here.")
                 | {"implicit": True}],
                source="support:Warp", url=f"{thread}#issuecomment-1", author="Bob",
                reference_time="2026-11-24T09:00:00+00:00"),
    ]
    (directory / "warp.jsonl").write_text("".join(json.dumps(r) + "\n" for r in records))
    return directory


@pytest.mark.django_db
def test_the_recorded_path_gives_the_report_a_same_here_message_makes_in_its_thread(
        tmp_path: Path) -> None:
    episodes = load_corpus(_thread(tmp_path))

    extracted = run_extraction_bench(episodes)
    recorded = run_recorded_bench(episodes)

    # "Same issue here." names no problem: the extractor reads none; recorded, Bob is one more
    # customer with the thread's problem, under its brand's canonical name (which "login
    # broken" is resolved to)
    assert [(f.source, f.relation, f.target) for f in extracted.scores[1].predicted] == []
    assert [(f.source, f.relation, f.target) for f in recorded.scores[1].predicted] == [
        ("Bob", "REPORTED", "Login Failures")]
    assert recorded.scores[1].matched == [(0, 0)]
    assert recorded.scores[0].matched == [(0, 0)]
    assert recorded.scores[0].matched_strict == []  # strict: equal names only
    figures = recorded.figures()
    assert figures["path"] == "recorded"
    assert figures["splits"]["dev"]["overall"]["recall"] == 1.0
    assert extracted.figures()["splits"]["dev"]["overall"]["recall"] == 0.5


@pytest.mark.django_db
def test_a_threads_messages_of_one_day_are_recorded_in_the_files_order_not_by_id(
        tmp_path: Path) -> None:
    directory = _thread(tmp_path)
    path = directory / "warp.jsonl"
    report, reply = (json.loads(line) for line in path.read_text().splitlines())
    # the reply's id sorts first, and both carry the same date
    reply |= {"external_id": "a-reply", "reference_time": report["reference_time"]}
    path.write_text(json.dumps(report) + "\n" + json.dumps(reply) + "\n")

    recorded = run_recorded_bench(load_corpus(directory))

    by_id = {s.episode.record["external_id"]: s for s in recorded.scores}
    assert [(f.source, f.target) for f in by_id["a-reply"].predicted] == [
        ("Bob", "Login Failures")]  # "Same issue here." answers the report before it
    assert by_id["w1"].matched == [(0, 0)]


@pytest.mark.django_db
def test_the_recorded_path_leaves_no_graph_behind(tmp_path: Path) -> None:
    run_recorded_bench(load_corpus(_thread(tmp_path)))

    assert not Graph.objects.exists() and not Episode.objects.exists()


@pytest.mark.django_db
def test_a_recorded_fact_closed_by_a_later_episode_still_counts_for_the_one_that_said_it(
        tmp_path: Path) -> None:
    said = "The checkout flow depends on the payments integration."
    ended = "The checkout flow no longer depends on the payments integration."
    records = [
        _record("t1", said, "tracker", "dev",
                [_gold("checkout flow", "DEPENDS_ON", "payments integration", said)]),
        _record("t2", ended, "tracker", "dev", [],
                reference_time="2026-11-30T09:00:00+00:00"),
    ]
    (tmp_path / "tracker.jsonl").write_text("".join(json.dumps(r) + "\n" for r in records))

    recorded = run_recorded_bench(load_corpus(tmp_path))

    # the labels say what the text states, not what is current
    [fact] = recorded.scores[0].predicted
    assert (fact.source, fact.relation, fact.target) == (
        "Checkout Flow", "DEPENDS_ON", "Payments Integration")
    assert fact.reading == "recorded, closed (explicit)"
    assert recorded.scores[0].matched == [(0, 0)]
    assert recorded.scores[1].predicted == []  # the ending is no fact of its own


@pytest.mark.django_db
def test_a_customers_membership_of_their_thread_is_left_out_of_the_recorded_facts(
        tmp_path: Path) -> None:
    episodes = load_corpus(_thread(tmp_path))
    facts, readers = record_source(episodes)

    assert ("Bob", "REPORTED", "warpdotdev/warp#5") in {
        (f.source, f.relation, f.target) for f in facts["w2"]}  # stored, as metadata
    assert [(f.source, f.target) for f in predicted_facts(episodes[1], facts["w2"],
                                                          default_ontology())] == [
        ("Bob", "Login Failures")]
    assert readers == {"rules@1": 2}


@pytest.mark.django_db
def test_the_command_prints_both_paths_side_by_side_when_asked(tmp_path: Path) -> None:
    output = _run("--corpus", str(_thread(tmp_path)), "--path", "both", "--misses",
                  "--out", str(tmp_path / "out"))

    # gold, then predicted, matched, P, R, R explicit: extraction then recorded
    assert _row(output, "extraction (ext) and recorded (rec) paths", "support")[1:] == [
        "2", "1", "2", "1", "2", "1.000", "1.000", "0.500", "1.000", "1.000", "1.000"]
    assert "recording: 2 episodes in" in output
    assert ("  >*Bob REPORTED login broken  ~ Bob REPORTED Login Failures  [recorded]"
            in output)
    assert (tmp_path / "out" / "bench-extraction-recorded.json").exists()


# --- The corpus -----------------------------------------------------------------------------------

EPISODE_FILES = sorted((CORPUS / "episodes").glob("*.jsonl"))


def _corpus_records() -> list[tuple[str, dict[str, Any]]]:
    return [(path.stem, json.loads(line)) for path in EPISODE_FILES
            for line in path.read_text().splitlines() if line.strip()]


def test_the_corpus_has_450_episodes_from_6_sources_in_3_genres() -> None:
    records = _corpus_records()
    assert len(records) >= 450
    assert len({source for source, _ in records}) >= 6
    assert Counter(r["genre"] for _, r in records).keys() == {"tracker", "meeting", "support"}
    assert all(r["url"].startswith("https://") and r["licence"] for _, r in records)


def _split_rows() -> list[dict[str, str]]:
    lines = (CORPUS / "split.tsv").read_text().splitlines()
    header = lines[0].split("\t")
    return [dict(zip(header, line.split("\t"), strict=True)) for line in lines[1:] if line]


def test_the_split_is_the_frozen_rule_of_the_ids() -> None:
    by_source: dict[str, list[dict[str, Any]]] = {}
    for source, record in _corpus_records():
        if record.get("batch", "original") == "original":
            by_source.setdefault(source, []).append(record)
    frozen = {(row["source"], row["external_id"]): row["split"] for row in _split_rows()
              if row["batch"] == "original"}
    assert len(frozen) == sum(len(records) for records in by_source.values())
    for source, records in by_source.items():
        rule = split_of([r["external_id"] for r in records])
        for record in records:
            assert record["split"] == rule[record["external_id"]] == frozen[
                (source, record["external_id"])]


def test_the_later_dev_extra_batch_is_dev_only_and_from_sources_of_its_own() -> None:
    rows = _split_rows()
    original_sources = {row["source"] for row in rows if row["batch"] == "original"}
    extra = {(row["source"], row["external_id"]): row["split"] for row in rows
             if row["batch"] == "dev-extra"}
    assert extra and set(extra.values()) == {"dev"}
    assert not original_sources & {source for source, _ in extra}
    assert {row["batch"] for row in rows} == {"original", "dev-extra", "validation", "dev-extra2"}
    for source, record in _corpus_records():
        if record.get("batch") == "dev-extra":
            assert record["split"] == extra.pop((source, record["external_id"])) == "dev"
    assert not extra  # every dev-extra row of split.tsv is an episode


def _normal(text: str) -> str:
    return " ".join(text.split()).lower()


def test_the_validation_batch_is_dev_only_new_text_from_the_original_sources() -> None:
    rows = _split_rows()
    original_sources = {row["source"] for row in rows if row["batch"] == "original"}
    held = {(row["source"], row["external_id"]): row["split"] for row in rows
            if row["batch"] == "validation"}
    assert held and set(held.values()) == {"dev"}
    assert {source for source, _ in held} <= original_sources
    assert len({row["external_id"] for row in rows}) == len(rows)  # no id twice
    records = _corpus_records()
    others = [r for _, r in records if r.get("batch") != "validation"]
    other_texts = {_normal(r["content"]) for r in others}
    other_meetings = {r["origin"].rsplit(" (section", 1)[0] for r in others
                      if r["genre"] == "meeting"}
    genres: Counter[str] = Counter()
    for source, record in records:
        if record.get("batch") != "validation":
            continue
        assert record["split"] == held.pop((source, record["external_id"])) == "dev"
        assert "gold_facts" in record  # labelled
        assert _normal(record["content"]) not in other_texts, record["external_id"]
        if record["genre"] == "meeting":  # no meeting shared with a dev or test episode
            assert record["origin"].rsplit(" (section", 1)[0] not in other_meetings
        genres[record["genre"]] += 1
    assert not held  # every validation row of split.tsv is an episode
    assert genres == {"tracker": 20, "meeting": 21, "support": 27}


def test_the_dev_extra2_batch_is_dev_only_labelled_new_text_from_sources_of_its_own() -> None:
    rows = _split_rows()
    earlier_sources = {row["source"] for row in rows if row["batch"] != "dev-extra2"}
    new = {(row["source"], row["external_id"]): row["split"] for row in rows
           if row["batch"] == "dev-extra2"}
    assert new and set(new.values()) == {"dev"}
    assert not earlier_sources & {source for source, _ in new}
    records = _corpus_records()
    other_texts = {_normal(r["content"]) for _, r in records if r.get("batch") != "dev-extra2"}
    genres: Counter[str] = Counter()
    for source, record in records:
        if record.get("batch") != "dev-extra2":
            continue
        assert record["split"] == new.pop((source, record["external_id"])) == "dev"
        assert "gold_facts" in record  # labelled
        assert _normal(record["content"]) not in other_texts, record["external_id"]
        genres[record["genre"]] += 1
    assert not new  # every dev-extra2 row of split.tsv is an episode
    assert genres == {"meeting": 75, "tracker": 45}


def test_the_agreement_sample_is_its_rule_over_original_dev_episodes_all_labelled_twice() -> None:
    chosen = agreement.sample()
    assert {genre: len(ids) for genre, ids in chosen.items()} == agreement.SAMPLE
    rows = {row["external_id"]: row for row in _split_rows()}
    sampled = {i for ids in chosen.values() for i in ids}
    assert all(rows[i]["split"] == "dev" and rows[i]["batch"] == "original" for i in sampled)
    assert set(parse(CORPUS / "agreement" / "second-reader.txt")) == sampled


def test_the_agreement_figures_of_the_corpus_readme_are_what_the_comparison_computes() -> None:
    figures = agreement.compare()
    overall = figures["all"]
    assert (overall["episodes"], overall["corpus"], overall["second"], overall["matched"],
            overall["strict"], overall["same_none"]) == (40, 34, 37, 27, 20, 38)
    assert f"{overall['precision']:.3f} {overall['recall']:.3f}" == "0.730 0.794"
    assert [figures[g]["matched"] for g in ("tracker", "meeting", "support")] == [7, 2, 18]
    readme = (CORPUS / "README.md").read_text()
    assert "34 corpus facts, P 0.730,\nR 0.794" in readme


def test_every_gold_sentence_is_text_of_its_episode() -> None:
    for _, record in _corpus_records():
        for fact in record.get("gold_facts", []):
            assert fact["sentence"] and fact["sentence"] in record["content"], record[
                "external_id"]


def test_labelled_support_messages_carry_brand_and_problem() -> None:
    for _, record in _corpus_records():
        if record["genre"] == "support" and "gold_facts" in record:
            assert record["brand"] and "problem" in record


@pytest.mark.django_db
def test_ingest_accepts_a_corpus_file_as_it_is() -> None:
    path = CORPUS / "episodes" / "tailscale.jsonl"
    out = io.StringIO()
    call_command("ingest", str(path), "--graph", "corpus", "--create", "--no-process", stdout=out)
    count = len(path.read_text().splitlines())
    assert out.getvalue().strip() == f"stored {count}, duplicates 0, rejected 0"
