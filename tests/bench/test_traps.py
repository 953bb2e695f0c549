"""The traps of issue #13 in the bench: each story generated with its ground truth, played
through the product and checked (found / right), and the one-at-a-time trickle's versions per
observation per week."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path

import pytest
from django.core.management import call_command

from memory.bench.report import render_text
from memory.bench.trap_runs import check_upstream_extension, play, run_trap
from memory.bench.traps import END, HEADING, TRAPS, generate_trap
from memory.bench.trickle import run_trickle
from memory.engine.clustering import ClusteringSettings

# The stalled trap needs stalled items on (tests/conftest.py turns them off elsewhere).
pytestmark = pytest.mark.stalled

# --- Generator --------------------------------------------------------------------------------


@pytest.mark.parametrize("name", TRAPS)
def test_the_same_seed_generates_the_same_trap_and_every_update_is_said_by_its_end(
    name: str,
) -> None:
    trap, again = generate_trap(name, seed=3), generate_trap(name, seed=3)

    assert [trap.records(p) for p in range(len(trap.phases))] == [
        again.records(p) for p in range(len(again.phases))]
    assert trap.truth == again.truth and trap.truth
    assert all(e.reference_time <= END for e in trap.episodes)
    assert all(r.get("facts") for p in range(len(trap.phases)) for r in trap.records(p))


def test_the_upstream_update_comes_after_the_chain_and_names_a_new_root_and_owner() -> None:
    trap = generate_trap("upstream_extension", instances=1)
    (truth,) = trap.truth
    (upstream,) = trap.phases[1]

    assert upstream.external_id == truth["episode"]
    assert (truth["root"], "DEPENDS_ON", truth["new_root"]) in upstream.facts
    assert (truth["new_owner"], "RESPONSIBLE_FOR", truth["new_root"]) in upstream.facts


def test_the_boilerplate_heading_is_in_most_agendas_and_alone_in_some() -> None:
    trap = generate_trap("boilerplate_heading")
    (truth,) = trap.truth
    with_heading = [e for e in trap.episodes if HEADING in e.facts]

    assert len(with_heading) > len(trap.episodes) / 2
    assert truth["heading_only"] == sum(1 for e in with_heading if e.facts == [HEADING]) > 0


def test_the_oversized_chain_is_bigger_than_a_cluster_may_be() -> None:
    trap = generate_trap("oversized_one_structure", instances=1)

    assert len(trap.episodes) > ClusteringSettings().max_cluster_episodes


def test_the_trickle_restates_the_facts_of_the_chain_word_for_word() -> None:
    trap = generate_trap("restatement_trickle", instances=1)
    first = {f for e in trap.phases[0] for f in e.facts}

    assert len(trap.phases) > 2
    assert all(len(phase) == 1 and set(phase[0].facts) <= first for phase in trap.phases[1:])


# --- Played and checked -----------------------------------------------------------------------


@pytest.mark.django_db
@pytest.mark.parametrize("name", TRAPS)
def test_every_trap_is_found_and_right(name: str) -> None:
    result = run_trap(name, instances=1)

    assert (result["found"], result["right"], result["wrong"]) == (1, 1, [])


@pytest.mark.django_db
def test_a_check_says_what_was_wrong() -> None:
    trap = generate_trap("upstream_extension", instances=1, end=datetime.now(UTC))
    played = play(trap)
    (truth,) = trap.truth
    # A truth in which the chain kept its old root: the product named the new one.
    kept = {**truth, "new_root": truth["root"], "new_owner": truth["owner"]}

    assert check_upstream_extension(played, truth) == (True, True, "")
    found, right, wrong = check_upstream_extension(played, kept)
    assert (found, right) == (True, False)
    assert wrong.startswith(f"root blocker {truth['new_root']!r}, not {truth['root']!r}")


@pytest.mark.django_db
def test_the_trickle_counts_versions_per_observation_week_over_its_runs() -> None:
    result = run_trickle(60)

    assert result["runs"] == result["updates"] >= 60
    assert result["versions"] >= result["lineages"] > 0
    assert result["observation_weeks"] >= result["lineages"]
    assert result["versions_per_observation_week"] == pytest.approx(
        result["versions"] / result["observation_weeks"])
    assert result["restatements"] > 0
    assert result["met"] == (result["versions_per_observation_week"] <= 1.2)
    # Counted over only the weeks a lineage got a version, the ratio can only be higher.
    assert result["lineages"] <= result["changed_observation_weeks"] <= result[
        "observation_weeks"]
    assert result["versions_per_changed_observation_week"] == pytest.approx(
        result["versions"] / result["changed_observation_weeks"])


@pytest.mark.slow
@pytest.mark.django_db
def test_the_bench_prints_found_and_right_per_trap_and_the_trickle(tmp_path: Path) -> None:
    call_command("bench", "--parts", "traps", "trickle", "--trickle-size", "40", "--no-llm",
                 "--no-imports", "--out", str(tmp_path))

    report = json.loads((tmp_path / "bench.json").read_text())
    assert [t["trap"] for t in report["traps"]] == list(TRAPS)
    assert all(t["right"] == t["instances"] for t in report["traps"])
    assert report["trickle"]["runs"] == report["trickle"]["updates"] >= 40
    text = render_text([], {"traps": report["traps"], "trickle": report["trickle"]})
    assert "upstream extension       3          3      3" in text
    assert "versions / observation / week" in (tmp_path / "bench.md").read_text()
