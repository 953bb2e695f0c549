"""Shared engine types: signatures, fingerprints, clusters as JSON, the summary check."""

from __future__ import annotations

import json

from memory.engine.types import (
    ANY_SOURCE,
    MAX_CLAIMS,
    ClaimDraft,
    Cluster,
    Link,
    Signature,
    Summary,
    evidence_fingerprint,
    validate_summary,
)


def test_the_fingerprint_ignores_order_and_duplicates() -> None:
    assert evidence_fingerprint([3, 1, 2], [9, 8]) == evidence_fingerprint((1, 2, 3, 3), (8, 9))


def test_the_fingerprint_changes_with_any_episode_or_fact() -> None:
    base = evidence_fingerprint([1, 2], [10])
    assert evidence_fingerprint([1, 2, 3], [10]) != base
    assert evidence_fingerprint([1, 2], [11]) != base
    assert evidence_fingerprint([10], [1, 2]) != base  # episodes and facts are not mixed up
    assert len(base) == 64


def test_a_target_signature_has_no_source_and_round_trips_through_its_key() -> None:
    signature = Signature("DEPENDS_ON", 7)
    assert signature.key == (ANY_SOURCE, "DEPENDS_ON", 7)
    assert Signature.from_key(signature.key) == signature
    assert signature.as_dict() == {"source": None, "relation": "DEPENDS_ON", "target": 7}


def test_a_cluster_serializes_with_its_key_links_and_fingerprint() -> None:
    link = Link(None, "DEPENDS_ON", 7, (1, 2), (10, 11))
    cluster = Cluster(episode_ids=(1, 2), fact_ids=(10, 11, 12), links=(link,))
    data = json.loads(json.dumps(cluster.as_dict()))
    assert data["key"] == cluster.key == 1
    assert data["links"][0]["signature"]["relation"] == "DEPENDS_ON"
    assert data["fingerprint"] == evidence_fingerprint((1, 2), (10, 11, 12))


def test_a_valid_summary_has_no_problems() -> None:
    summary = Summary("Name", "A claim.", (ClaimDraft("A claim.", (10,)),))
    assert validate_summary(summary, [10, 11]) == []


def test_the_summary_check_names_every_problem() -> None:
    claims = (ClaimDraft("cites nothing", ()), ClaimDraft("x" * 401, (10, 99)))
    problems = validate_summary(Summary("", "", claims), [10])
    assert problems == [
        "name is empty",
        "claim 0 cites no fact",
        "claim 1 is longer than 400 characters",
        "claim 1 cites facts outside the cluster: [99]",
    ]
    many = tuple(ClaimDraft("ok", (10,)) for _ in range(MAX_CLAIMS + 1))
    assert validate_summary(Summary("n" * 121, "", many), [10]) == [
        "name is longer than 120 characters", f"more than {MAX_CLAIMS} claims"]


def test_a_links_dict_carries_its_signatures_dict() -> None:
    for source in (None, 3):
        link = Link(source, "DEPENDS_ON", 7, (1, 2), (10, 11))
        assert link.as_dict() == {
            "signature": link.signature.as_dict(), "episodes": [1, 2], "facts": [10, 11],
        }
