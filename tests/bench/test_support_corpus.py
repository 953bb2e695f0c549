"""The support corpus's side by side: purity and recall as defined, the TF-IDF + k-means baseline
per brand, and the bench part that prints both."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from django.conf import settings
from django.core.management import call_command

from memory.bench.support_corpus import (
    CUSTOMERS_ROW,
    SUPPORT_FILES,
    Message,
    compare,
    compare_small_queues,
    customers_row,
    load_support_corpus,
    score_grouping,
    small_queue,
    tfidf_kmeans_groups,
)

CORPUS = Path(settings.BASE_DIR) / "tests" / "corpus" / "episodes"


def message(ident: str, brand: str, problem: str | None, content: str = "") -> Message:
    return Message(ident, brand, problem, content or ident)


MESSAGES = [
    message("a1", "A", "login"), message("a2", "A", "login"), message("a3", "A", "login"),
    message("a4", "A", "crash"), message("a5", "A", "crash"), message("a6", "A", None),
    message("b1", "B", "login"), message("b2", "B", "login"), message("b3", "B", "once"),
]


def test_purity_is_the_share_of_grouped_messages_in_their_groups_majority_problem() -> None:
    scores = score_grouping(MESSAGES, [["a1", "a2", "a4"], ["a5", "a6"], ["b1", "b2"]])
    # a1, a2 (majority login), b1, b2 are pure; a4 is not; [a5, a6] ties → the class named
    # first, ("", "a6") < ("A", "crash"): a6 is its own class, so a5 is not pure and a6 is.
    assert scores.clustered == 7
    assert scores.purity == pytest.approx(5 / 7)


def test_a_message_without_a_problem_is_never_a_majority_with_others() -> None:
    scores = score_grouping(MESSAGES, [["a6", "a1", "a2"]])
    assert scores.purity == pytest.approx(2 / 3)


def test_recall_counts_messages_of_recurring_problems_grouped_with_one_of_their_own() -> None:
    scores = score_grouping(MESSAGES, [["a1", "a2", "a4"], ["a5", "a6"], ["b1", "b2"]])
    # Recurring: a1–a3 (login A), a4–a5 (crash A), b1–b2 (login B) = 7; b3 and a6 are not.
    # Together with their own: a1, a2, b1, b2.
    assert scores.recurring == 7
    assert scores.recall == pytest.approx(4 / 7)


def test_the_same_problem_name_of_two_brands_is_two_problems() -> None:
    scores = score_grouping(MESSAGES, [["a1", "b1"], ["a2", "b2"]])
    assert scores.recall == 0.0
    assert scores.mixed == 2


def test_singletons_are_no_groups_and_leave_coverage_down() -> None:
    scores = score_grouping(MESSAGES, [["a1"], ["a2", "a3"]])
    assert scores.groups == 1
    assert scores.coverage == pytest.approx(2 / 9)


def test_per_brand_scores_count_that_brands_messages_only() -> None:
    scores = score_grouping(MESSAGES, [["a1", "a2"], ["b1", "b2", "b3"]], brand="B")
    assert (scores.messages, scores.groups, scores.clustered) == (3, 1, 3)
    assert scores.purity == pytest.approx(2 / 3)
    assert scores.recall == 1.0


def test_scoring_a_split_counts_its_messages_only_each_in_its_group_of_the_whole_queue(
        ) -> None:
    # The queue: a thread of login (a1 dev, a2 test "same here", a3 dev), a crash (a4 dev,
    # a5 test), b1 dev alone. Only the test messages a2 and a5 are scored.
    groups = [["a1", "a2", "a3"], ["a4", "a6"], ["b1", "b2"]]
    scores = score_grouping(MESSAGES, groups, scored={"a2", "a5"})
    # a2 shares its group with dev messages of its problem: grouped, pure, recalled; a5 is in
    # no group. Recurring is the queue's: crash has two messages, though one is in the split.
    assert (scores.messages, scores.clustered, scores.recurring) == (2, 1, 2)
    assert scores.purity == 1.0
    assert scores.recall == pytest.approx(1 / 2)
    assert scores.groups == 1  # only groups holding a scored message


def test_without_a_split_every_message_is_scored() -> None:
    groups = [["a1", "a2", "a4"], ["a5", "a6"], ["b1", "b2"]]
    every = {m.external_id for m in MESSAGES}
    assert score_grouping(MESSAGES, groups, scored=every) == score_grouping(MESSAGES, groups)


def test_the_baseline_makes_k_groups_per_brand_from_the_gold_number_of_problems() -> None:
    words = {"login": "cannot sign in password login fails", "crash": "app crashes on start",
             "once": "invoice total wrong"}
    messages = [message(m.external_id, m.brand, m.problem,
                        words.get(m.problem or "", "please send logs") + " " + m.external_id)
                for m in MESSAGES]
    groups = tfidf_kmeans_groups(messages)
    a_groups = [g for g in groups if g[0].startswith("a")]
    b_groups = [g for g in groups if g[0].startswith("b")]
    assert len(a_groups) <= 2 and len(b_groups) <= 2  # k = 2 problems each
    assert sorted(i for g in groups for i in g) == sorted(m.external_id for m in messages)
    assert all(len({i[0] for i in g}) == 1 for g in groups)  # never across brands


def test_the_support_corpus_has_its_175_labelled_messages_of_four_brands() -> None:
    records, messages = load_support_corpus(CORPUS)
    assert len(records) == len(messages) == 175
    assert {m.brand for m in messages} == {"Docker Desktop", "Warp", "Bitwarden", "Tailscale"}
    assert [r["reference_time"] for r in records] == sorted(r["reference_time"] for r in records)


@pytest.mark.parametrize(("split", "batch", "count", "brands"), [
    ("dev", "original", 122, 4), ("test", "original", 53, 4), ("dev", "dev-extra", 110, 4),
    ("test", "dev-extra", 0, 0), ("all", "all", 285, 8), ("dev", "validation", 27, 4),
    ("test", "validation", 0, 0),
])
def test_a_split_and_a_batch_choose_the_messages_scored(split: str, batch: str, count: int,
                                                       brands: int) -> None:
    records, messages = load_support_corpus(CORPUS, split=split, batch=batch)
    assert len(records) == len(messages) == count
    assert len({m.brand for m in messages}) == brands
    assert all(split in ("all", r["split"]) for r in records)


def test_the_validation_messages_are_in_no_other_batch_of_the_grouping_bench() -> None:
    validation = {m.external_id for m in load_support_corpus(CORPUS, batch="validation")[1]}
    assert len(validation) == 27
    for batch in ("original", "dev-extra", "all"):
        for split in ("all", "dev"):
            _, messages = load_support_corpus(CORPUS, split=split, batch=batch)
            assert not validation & {m.external_id for m in messages}


@pytest.mark.slow
@pytest.mark.django_db(transaction=True)
def test_the_bench_prints_ours_and_the_baseline_side_by_side(tmp_path: Path, capsys) -> None:
    call_command("bench", "--parts", "support-corpus", "--out", str(tmp_path), "--no-llm")
    printed = capsys.readouterr().out
    assert "purity ours" in printed and "purity TF-IDF" in printed
    for brand in ("Docker Desktop", "Warp", "Bitwarden", "Tailscale"):
        assert brand in printed
    saved = json.loads((tmp_path / "bench.json").read_text())["support_corpus"]
    assert saved["messages"] == 175
    overall = saved["rows"][0]
    assert overall["brand"] == "all" and overall["gold_problems"] == 14
    assert overall["baseline"]["coverage"] == 1.0  # k-means places every message
    assert 0.0 <= overall["ours"]["purity"] <= 1.0
    assert overall["ours"]["mixed"] == 0  # no group holds two brands' messages
    assert overall["ours_words_only"]["coverage"] <= overall["ours"]["coverage"]
    assert "from the words alone" in printed
    assert (tmp_path / "bench.md").read_text().count("**Support corpus") == 2


@pytest.mark.slow
@pytest.mark.django_db(transaction=True)
def test_the_bench_scores_the_split_and_batch_it_is_given(tmp_path: Path, capsys) -> None:
    call_command("bench", "--parts", "support-corpus", "--out", str(tmp_path), "--no-llm",
                 "--support-split", "dev", "--support-batch", "dev-extra")

    assert "110 real messages (split dev, batch dev-extra)" in capsys.readouterr().out
    saved = json.loads((tmp_path / "bench.json").read_text())["support_corpus"]
    assert (saved["messages"], saved["split"], saved["batch"]) == (110, "dev", "dev-extra")
    assert {row["brand"] for row in saved["rows"]} == {
        "all", "Postman", "Signal Desktop", "Cursor", "Mullvad VPN", CUSTOMERS_ROW}


def thread_record(n: int, author: str, text: str, split: str, problem: str | None,
                  thread: int) -> dict[str, object]:
    return {"external_id": f"m{n}", "author": author, "source": "support:acme/app",
            "reference_time": f"2026-11-{10 + n:02d}T09:00:00+00:00", "type": "text",
            "content": text, "genre": "support", "split": split, "brand": "Acme",
            "problem": problem, "url": f"https://github.com/acme/app/issues/{thread}"}


@pytest.mark.slow
@pytest.mark.django_db(transaction=True)
def test_a_split_is_also_scored_in_the_whole_queue_where_its_threads_arrive_whole(
        tmp_path: Path) -> None:
    records = [
        thread_record(1, "kim", "# Acme won't start #12\n\nThe app won't start since 4.2.",
                      "dev", "start", 12),
        thread_record(2, "lee", "Same here, any update?", "test", "start", 12),
        thread_record(3, "sam", "# Sync fails on save #30\n\nSync fails every time I save.",
                      "dev", "sync", 30),
        thread_record(4, "ann", "Can confirm, any update?", "test", "sync", 30),
    ]
    for name in SUPPORT_FILES:
        (tmp_path / f"{name}.jsonl").write_text("")
    (tmp_path / "docker-for-mac.jsonl").write_text(
        "\n".join(json.dumps(r) for r in records))

    result = compare(tmp_path, split="test")

    alone, whole = result["rows"][0], result["whole_queue"]["rows"][0]
    assert (result["messages"], result["whole_queue"]["messages"]) == (2, 4)
    assert result["whole_queue"]["scored"] == 2
    assert alone["ours"]["clustered"] == 0  # "same here" and "can confirm": nothing to join
    assert whole["ours"]["messages"] == 2  # the dev messages are grouped, not scored
    assert (whole["ours"]["purity"], whole["ours"]["recall"]) == (1.0, 1.0)
    assert whole["baseline"]["coverage"] == 1.0
    assert "whole_queue" not in compare(tmp_path, split="all")


def test_a_small_queue_is_a_random_draw_in_time_order_the_same_for_a_seed() -> None:
    records = [{"url": f"t{i // 3}"} for i in range(30)]
    queue = small_queue(records, 6, seed=4)
    assert queue == sorted(queue) and len(set(queue)) == 6
    assert small_queue(records, 6, seed=4) == queue
    assert small_queue(records, 6, seed=5) != queue


def test_a_small_queue_of_one_message_a_thread_fills_with_others_only_when_it_must() -> None:
    records = [{"url": f"t{i // 3}"} for i in range(30)]  # ten threads of three
    threads = [records[i]["url"] for i in small_queue(records, 10, seed=1, one_a_thread=True)]
    assert sorted(threads) == sorted(f"t{n}" for n in range(10))
    assert len(small_queue(records, 12, seed=1, one_a_thread=True)) == 12


@pytest.mark.django_db
def test_small_dev_queues_score_both_methods_averaged_over_the_seeds() -> None:
    result = compare_small_queues(CORPUS, size=20, seeds=[1, 2], one_a_thread=True)
    assert (result["split"], result["size"], result["queues"]) == ("dev", 20, 2)
    for method in ("ours", "baseline"):
        assert 0.0 < result[method]["purity"] <= 1.0
        assert 0.0 <= result[method]["recall"] <= 1.0


def test_the_customers_row_scores_both_groupings_on_the_customers_messages_alone() -> None:
    # an agent's "please send your logs" in a thread about start failures: the labels give it
    # the thread's problem, the product places it in no group (it reports nothing)
    records = [{"external_id": "m1", "role": "customer"}, {"external_id": "m2"},
               {"external_id": "m3", "role": "agent"}]
    messages = [Message("m1", "Acme", "start", "Acme won't start."),
                Message("m2", "Acme", "start", "Same here, it won't start."),
                Message("m3", "Acme", "start", "Please send us your logs.")]

    row = customers_row(records, messages, ours=[["m1", "m2"]], baseline=[["m1", "m2", "m3"]])

    assert row["brand"] == CUSTOMERS_ROW
    assert (row["ours"]["messages"], row["ours"]["recall"], row["ours"]["coverage"]) == (
        2, 1.0, 1.0)
    assert (row["baseline"]["messages"], row["baseline"]["recall"]) == (2, 1.0)
