"""The bench harness: its metrics, its generator, its side-by-side clusterings, and the quick run
(``manage.py bench --quick``) held to the quality thresholds below."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from io import StringIO
from pathlib import Path
from typing import Any

import pytest
from django.core.management import CommandError, call_command

from memory.bench import alternatives, metrics
from memory.bench.scenarios import HUB_FACT, HUB_SENTENCE, generate, norm
from memory.extraction.rules import extract_with_rules
from memory.models import Observation
from memory.ontology import default_ontology
from tests.factories import ObservationFactory
from tests.scenarios import SEED

# --- Quality floors of the quick run ----------------------------------------------------------
# The quick run (150 episodes a case, seed 7) is deterministic: same seed, same code, the same
# figures on SQLite and PostgreSQL. So each floor is the figure measured at the commit that set it
# (``manage.py bench --quick``, 2026-12-01), cut to the three decimals the README reports — any
# regression fails, an improvement passes. Whoever changes a figure on purpose (a new extractor
# phrasing, a clustering change) updates its line here with the new measurement and the reason.
# The full run's figures (1k, 10k, 100k) are in the README's "Performance and quality"; at larger
# sizes quality is lower (more chains meet, more names to tell apart), which 150 cannot show.
THRESHOLDS: dict[tuple[str, str], dict[str, float]] = {
    # Structured facts measure clustering alone: all 8 chains found exactly, their roots and
    # reach right, the 3 resolved chains retired — nothing below 1.000 is acceptable.
    ("projects", "structured"): {"ari": 1.0, "precision": 1.0, "recall": 1.0,
                                 "root_blocker_accuracy": 1.0, "retirement_correctness": 1.0},
    # All 12 issue families found exactly.
    ("support", "structured"): {"ari": 1.0, "precision": 1.0, "recall": 1.0},
    ("projects", "text"): {
        # The updates worded outside the rules' table yield no facts and stay alone, by design
        # of the generator: 7 of 8 chains found, so pairs are missed (ARI 0.7958, pair recall
        # 0.6972) but none is wrong (pair precision 1.000).
        "ari": 0.795, "recall": 0.697, "precision": 1.0,
        # The missed chain's root is the one wrong root of 8 (0.875); retirements all right.
        "root_blocker_accuracy": 0.875, "retirement_correctness": 1.0,
        # Every phrasing of the table read exactly (covered recall and precision 1.000); all
        # phrasings: 495 of 522 expected facts (0.9482).
        "extraction_recall_covered": 1.0, "extraction_precision": 1.0,
        "extraction_recall": 0.948,
    },
    ("support", "text"): {
        # Since issue #17 the rules also read the tickets worded outside the table ("Ugh, X are
        # broken for us again"): all 12 families found exactly (ARI 1.000, was 0.5739).
        "ari": 1.0, "recall": 1.0, "precision": 1.0,
        # All 275 expected facts (was 234). Precision against the generator's truth is 0.8702:
        # the 41 extra facts are all "X Failures AFFECTS Xs" read from "X are broken" — the fact
        # the truth lists for "Our Xs keep failing" but leaves out for the wording it once
        # marked as outside the table (checked one by one, 2026-12-01).
        "extraction_recall_covered": 1.0, "extraction_precision": 0.870,
        "extraction_recall": 1.0,
    },
    # Brands (issue #14): families of four brands, half of the later ones in words an earlier
    # family used at another brand — each its own problem (0 mixed-brand observations, asserted
    # below). Structured: all 16 families found exactly, and each of the 7 customers who say
    # "resolved" ends only their own report (the family's observation lives on).
    ("brands", "structured"): {"ari": 1.0, "precision": 1.0, "recall": 1.0,
                               "per_customer_resolution": 1.0},
    ("brands", "text"): {
        # With issue #17's rules the tickets worded outside the table are read too: all families
        # found exactly (ARI 1.000, was 0.7181 before the merge), none across brands.
        "ari": 1.0, "recall": 1.0, "precision": 1.0,
        # Every expected fact (recall 1.000). Precision against the generator's truth is 0.875:
        # the extra facts are all "X Failures AFFECTS Xs" read from "X are broken", the fact the
        # truth leaves out for that wording, as in the support case (checked one by one with
        # bench --quick --scenarios brands --keep, 2026-12-01).
        "extraction_recall_covered": 1.0, "extraction_precision": 0.875,
        "extraction_recall": 1.0,
        # Each customer's "The … failures are resolved." ends that customer's report only.
        "per_customer_resolution": 1.0,
    },
}
CEILINGS: dict[tuple[str, str], dict[str, float]] = {
    # The reach of each root blocker: exact on structured facts; on text the missed chain's
    # root counts as a reach of zero (1 of 8: 0.125).
    ("projects", "structured"): {"reach_error_relative": 0.0},
    ("projects", "text"): {"reach_error_relative": 0.125},
}
MIXED_BRANDS = 0
"""No observation of the brands scenario may hold two brands' tickets that share no fact."""
CITATION_VALIDITY = 1.0
"""Every claim must cite facts of its own observation's evidence (DESIGN §5): no tolerance."""


@pytest.mark.slow
@pytest.mark.django_db
def test_quick_bench_keeps_quality_above_the_thresholds(tmp_path: Path) -> None:
    call_command("bench", "--quick", "--parts", "scenarios", "--out", str(tmp_path),
                 "--requests", "2")

    report = json.loads((tmp_path / "bench.json").read_text())
    results = {(r["scenario"], r["form"]): r for r in report["results"]}
    assert set(results) == set(THRESHOLDS)
    for case, floors in THRESHOLDS.items():
        quality = results[case]["quality"]
        for metric, floor in floors.items():
            assert quality[metric] >= floor, (case, metric, quality[metric])
        for metric, ceiling in CEILINGS.get(case, {}).items():
            assert quality[metric] <= ceiling, (case, metric, quality[metric])
        assert quality["citation_validity"] == CITATION_VALIDITY, case
        assert quality["claims"] > 0, case
        if case[0] == "brands":
            assert quality["mixed_brand_observations_checkpoint"] == MIXED_BRANDS
            assert quality["mixed_brand_observations_final"] == MIXED_BRANDS
    assert "| case |" in (tmp_path / "bench.md").read_text()
    assert list((tmp_path / "data").glob("*.truth.json"))


@pytest.mark.slow
@pytest.mark.django_db
def test_quick_bench_counts_fewer_model_calls_than_the_naive_pipeline(tmp_path: Path) -> None:
    call_command("bench", "--quick", "--scenarios", "projects", "--forms", "structured",
                 "--out", str(tmp_path), "--requests", "1")

    [result] = json.loads((tmp_path / "bench.json").read_text())["results"]
    llm = result["llm"]
    # Several clusters share a summary call; the naive pipeline asks once per cluster.
    assert 0 < llm["run1"]["calls"] < llm["run1"]["naive_calls"]
    assert llm["incremental"]["calls"] < llm["incremental"]["naive_calls"]
    assert result["alternatives"]["networkx"]["ari_vs_ours"] == 1.0


# --- Metrics ----------------------------------------------------------------------------------


def labels(*groups: str) -> dict[int, str]:
    """labels("aab") → {0: "a", 1: "a", 2: "b"}."""
    return dict(enumerate(groups[0]))


def test_ari_is_one_for_the_same_partition_under_other_names() -> None:
    assert metrics.adjusted_rand_index(labels("aabb"), labels("bbaa")) == 1.0


def test_ari_matches_the_textbook_value_for_a_split_cluster() -> None:
    # The example of scikit-learn's documentation: [0, 0, 1, 1] vs [0, 0, 1, 2] → 0.5714...
    assert metrics.adjusted_rand_index(labels("aabb"), labels("aabc")) == pytest.approx(4 / 7)


def test_ari_is_zero_when_one_side_puts_everything_together() -> None:
    assert metrics.adjusted_rand_index(labels("abcd"), labels("aaaa")) == 0.0


def test_pairwise_precision_and_recall_count_episode_pairs() -> None:
    truth = labels("aaab")  # pairs together: 01, 02, 12
    found = labels("xxyy")  # pairs together: 01, 23
    scores = metrics.pairwise_scores(truth, found)
    assert scores.precision == 0.5
    assert scores.recall == pytest.approx(1 / 3)


def test_labels_make_unclustered_items_singletons() -> None:
    found = metrics.labels_from_clusters(["a", "b", "c"], [["a", "b"]])
    assert found["a"] == found["b"] != found["c"]


def test_reach_error_counts_a_missed_root_as_zero_reach() -> None:
    error = metrics.reach_error([((4, 3), (4, 3)), ((2, 2), (0, 0))])
    assert (error.work_items, error.people, error.relative) == (1.0, 1.0, 0.5)


def test_extraction_recall_compares_triples_per_episode() -> None:
    expected = {"e1": {("a", "R", "b"), ("c", "R", "d")}}
    extracted = {"e1": {("a", "R", "b"), ("x", "R", "y")}}
    assert metrics.recall_of(expected, extracted) == (1, 2, 2)


# --- Generator --------------------------------------------------------------------------------


def test_the_same_seed_generates_the_same_scenario() -> None:
    first, again = generate("projects", 300, seed=3), generate("projects", 300, seed=3)
    assert first.records() == again.records()
    assert first.truth() == again.truth()
    assert generate("projects", 300, seed=4).records() != first.records()


@pytest.mark.parametrize("name", ["projects", "support", "brands"])
def test_ground_truth_is_consistent_with_the_records(name: str) -> None:
    scenario = generate(name, 400, seed=5, form="structured")
    truth = scenario.truth()
    records = {r["external_id"]: r for r in scenario.records()}
    assert len(records) == truth["size"] >= 400
    for group, ids in truth["clusters"].items():
        assert all(truth["episodes"][i]["batch"] == 1 for i in ids)
        assert all(truth["episodes"][i]["group"] == group for i in ids)
    for ext, info in truth["episodes"].items():
        supplied = records[ext].get("facts", [])
        assert [[f["source"], f["relation"], f["target"]] for f in supplied
                if not f.get("invalid_at")] == info["facts"]
        assert [[f["source"], f["relation"], f["target"]] for f in supplied
                if f.get("invalid_at")] == info["ended"]
    for chain in truth["chains"]:
        facts = [tuple(f) for i in truth["clusters"][chain["id"]]
                 for f in truth["episodes"][i]["facts"]]
        waiting = {s for s, r, t in facts if r == "DEPENDS_ON"}
        assert (chain["root"] not in waiting
                and any(t == chain["root"] for _, r, t in facts if r == "DEPENDS_ON"))
        assert waiting == set(chain["direct"]) | set(chain["downstream"])
        assert chain["reach"]["work_items"] == len(waiting)
    for ext in truth["hub"]["episodes"]:
        assert HUB_SENTENCE in records[ext]["content"]
        assert list(HUB_FACT) in truth["episodes"][ext]["facts"]


def test_projects_start_with_the_seed_chain() -> None:
    chain = generate("projects", 200).truth()["chains"][0]
    assert (chain["root"], chain["owner"]) == ("Auth Service Refactor", "Backend Team")
    assert chain["people"] == ["Alice", "Bob", "Clara"]
    assert chain["downstream"] == ["Checkout Flow"]


@pytest.mark.parametrize("name", ["projects", "support"])
def test_covered_phrasings_are_read_by_the_rules_extractor_as_the_truth_says(name: str) -> None:
    scenario = generate(name, 300, seed=9)
    ontology = default_ontology()
    checked = 0
    for episode in scenario.episodes:
        if not episode.covered or not episode.facts:
            continue
        extraction = extract_with_rules(episode.content, author=episode.author,
                                        reference_time=datetime(2026, 11, 1, tzinfo=UTC),
                                        ontology=ontology)
        got = {(norm(f.source), f.relation, norm(f.target)) for f in extraction.facts}
        assert {(norm(s), r, norm(t)) for s, r, t in episode.facts} <= got, episode.content
        checked += 1
    assert checked > 100


def test_brands_reuse_symptom_words_at_other_brands_as_other_problems() -> None:
    scenario = generate("brands", 600, seed=5)
    issues_by_words: dict[str, set[str]] = {}
    for episode in scenario.episodes:
        for _, relation, target in episode.facts:
            if relation == "REPORTED":
                words, _, brand = target.rpartition(" (")
                issues_by_words.setdefault(words, set()).add(brand.rstrip(")"))
                assert episode.source == f"zendesk:{brand.rstrip(')')}"
    assert any(len(brands) > 1 for brands in issues_by_words.values())
    truth = scenario.truth()
    assert truth["resolutions"] and all(r["issue"].endswith(")") for r in truth["resolutions"])


def test_covered_brand_tickets_are_read_as_their_brands_problems() -> None:
    from memory.models import Episode as StoredEpisode
    from memory.processing.reading import extract_episode

    scenario = generate("brands", 300, seed=9)
    checked = 0
    for episode in scenario.episodes:
        if not episode.covered or not episode.facts:
            continue
        stored = StoredEpisode(author=episode.author, source=episode.source,
                               content=episode.content, reference_time=episode.reference_time)
        extraction = extract_episode(stored, default_ontology(), {})
        got = {(norm(f.source), f.relation, norm(f.target)) for f in extraction.facts}
        assert {(norm(s), r, norm(t)) for s, r, t in episode.facts} <= got, episode.content
        checked += 1
    assert checked > 100


# --- Side by side -----------------------------------------------------------------------------

LINKING = {"DEPENDS_ON": "target", "RESPONSIBLE_FOR": "pair", "HAS_STATUS": "none"}
ROWS = [  # (episode, fact, source, relation, target)
    (1, 10, 100, "DEPENDS_ON", 200), (2, 11, 101, "DEPENDS_ON", 200),  # 1–2 wait on 200
    (3, 12, 102, "HAS_STATUS", 300), (4, 13, 103, "HAS_STATUS", 300),  # same status only
    (5, 14, 104, "RESPONSIBLE_FOR", 105), (6, 14, 104, "RESPONSIBLE_FOR", 105),  # restated
    (6, 15, 106, "RESPONSIBLE_FOR", 200),
]


def test_networkx_clusters_link_episodes_sharing_a_signature() -> None:
    assert alternatives.networkx_clusters(ROWS, LINKING, suppressed=()) == [[1, 2], [5, 6]]


def test_networkx_clusters_skip_the_suppressed_signatures() -> None:
    suppressed = {(104, "RESPONSIBLE_FOR", 105)}
    assert alternatives.networkx_clusters(ROWS, LINKING, suppressed) == [[1, 2]]


def test_co_mention_links_any_shared_entity_except_the_ignored_ones() -> None:
    assert alternatives.co_mention_clusters(ROWS) == [[1, 2, 5, 6], [3, 4]]
    assert alternatives.co_mention_clusters(ROWS, ignored_entities={300}) == [[1, 2, 5, 6]]


def test_the_floor_counts_components_of_two_or_more_episodes() -> None:
    assert alternatives.floor_cluster_count(ROWS, LINKING) == 2


# --- bench_pages ------------------------------------------------------------------------------


@pytest.mark.django_db
def test_bench_pages_times_both_pages_and_leaves_the_observations_as_they_were(
    graph: Any, ingest: Any,
) -> None:
    ingest(graph, SEED)  # the seed's observation: 3 episodes
    seed = Observation.objects.get(graph=graph)
    ObservationFactory(graph=graph, created_by_run=seed.created_by_run, episode_count=1)
    before = sorted(Observation.objects.filter(graph=graph).values_list("id", "status"))
    out = StringIO()

    call_command("bench_pages", "--graph", graph.slug, "--active", "1", "--requests", "3",
                 stdout=out)

    lines = out.getvalue().splitlines()
    assert lines[0] == f"{graph.slug}: 1 active observations, 3 episodes"
    assert lines[1].startswith("board: p50 ") and lines[1].endswith(" ms over 3")
    assert lines[2].startswith("observation: p50 ")
    assert sorted(Observation.objects.filter(graph=graph).values_list("id", "status")) == before


@pytest.mark.django_db
def test_bench_pages_refuses_an_unknown_graph() -> None:
    with pytest.raises(CommandError, match="no graph 'nope'"):
        call_command("bench_pages", "--graph", "nope")
