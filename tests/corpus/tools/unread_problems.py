"""Customers' support messages of the dev split whose problem the rules read nothing of.

For issues #17 / #14: lists, per source, each customer's message (``role`` customer) labelled
with a ``problem`` for which the extraction (``memory.processing.reading.extract_episode``, as
``bench_extraction --path extraction`` runs it) reads no ``REPORTED`` fact of an issue. Dev split
only (original and dev-extra batches): never test or validation.

    .venv/bin/python tests/corpus/tools/unread_problems.py [--batch original|dev-extra] [--full]

What it listed on 5 Dec 2026 (79 messages of 9 sources), by why no problem was read: "same here"
and follow-ups with no statement of their own (8 sources, 36; their thread places them when
recorded, ``memory.processing.support_state``); fixes, workarounds, causes and questions (8
sources, 27); and 16 more: an attempt and its failure ("When trying to login to the app I get
this error": Mullvad, Warp; the shape also occurs in already-read Bitwarden, Signal and
Tailscale messages; a reading of it, branch rtsup3, was not merged: on dev it added two correct
login reports that the labels name otherwise and cost dev-extra's grouping recall); vague
subjects that name no area ("it has not been working properly", "some issues": Bitwarden,
Docker, Postman); a problem named only by its quoted error text (Mullvad, Signal); "trouble
connecting to …" and "the same issue with my self-signed cert" (Postman only); an amount of
memory ("takes up 2GB of RAM", Docker for Mac only).
"""

from __future__ import annotations

import argparse
import os
import sys
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]
sys.path.insert(0, str(ROOT))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "dashboard.settings")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--batch", action="append", choices=("original", "dev-extra"))
    parser.add_argument("--full", action="store_true", help="print whole messages")
    parser.add_argument(
        "--reported",
        action="store_true",
        help="print instead every REPORTED fact read, one a line (to diff)",
    )
    args = parser.parse_args()
    import django

    django.setup()
    from memory.bench.extraction_bench import as_episode, load_corpus, product_extract
    from memory.ingestion import parse_author_role
    from memory.names import normalize_name
    from memory.ontology import build_ontology

    ontology = build_ontology(None)
    episodes = load_corpus(
        ROOT / "tests/corpus/episodes",
        splits=("dev",),
        genres=("support",),
        batches=tuple(args.batch or ("original", "dev-extra")),
        ontology=ontology,
    )
    known: dict[str, dict[str, str]] = defaultdict(dict)
    unread: dict[str, list[tuple[str, str, str]]] = defaultdict(list)
    totals: dict[str, int] = defaultdict(int)
    for item in episodes:
        episode = as_episode(item.record)
        extraction = product_extract(episode, ontology, known[item.file])
        for entity in extraction.all_entities():
            known[item.file].setdefault(normalize_name(entity.name), entity.type)
        if args.reported:
            for fact in extraction.facts:
                if fact.relation == "REPORTED":
                    print(
                        f"{item.record['external_id']}\t{item.record.get('problem')}\t"
                        f"{fact.source} REPORTED {fact.target} ({fact.target_type})"
                    )
            continue
        if parse_author_role(item.record) == "agent" or not item.record.get("problem"):
            continue
        totals[item.file] += 1
        if any(f.relation == "REPORTED" and f.target_type == "Issue" for f in extraction.facts):
            continue
        content = item.record["content"]
        unread[item.file].append(
            (
                item.record["external_id"],
                item.record["problem"],
                content if args.full else content[:300],
            )
        )
    if args.reported:
        return
    for source in sorted(totals):
        print(
            f"== {source}: {len(unread[source])} of {totals[source]} customers' messages "
            "with a problem read no REPORTED"
        )
        for external_id, problem, content in unread[source]:
            print(f"-- {external_id} [{problem}]")
            print("   " + content.replace("\n", "\n   "))


if __name__ == "__main__":
    main()
