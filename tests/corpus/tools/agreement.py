"""Label agreement: a second reader's labels of a sample of dev episodes, compared with the
corpus labels by the bench's own matcher (``memory.bench.extraction_bench``).

The sample rule was written and committed before any sampled episode was read:

* the population is the **original** dev episodes (batch ``original`` in ``split.tsv``, never
  ``test``, never the later ``dev-extra`` batch);
* per genre, episodes are ordered by ``sha256("corpus-agreement-v1:" + external_id)`` and the
  first ``SAMPLE[genre]`` are taken: 13 tracker, 13 meeting, 14 support (40 in all);
* it reads ids, genres and splits only — never content, length or labels.

The second reader labelled the sample from the episodes' ingest fields only (``show``, which
prints no ``gold_facts``, ``brand`` or ``problem``), following ``GUIDE.md``, into
``agreement/second-reader.txt`` (the label-file format of ``tools/labels.py``), and only then
ran ``compare``.

Usage (from the repository root)::

    python tests/corpus/tools/agreement.py sample      # the sampled ids
    python tests/corpus/tools/agreement.py show        # their text, without any label
    python tests/corpus/tools/agreement.py compare     # agreement figures (needs Django)
    python tests/corpus/tools/agreement.py differences # the facts only one reader has
"""

from __future__ import annotations

import hashlib
import json
import sys
from pathlib import Path

CORPUS = Path(__file__).resolve().parent.parent
SALT = "corpus-agreement-v1:"
SAMPLE = {"tracker": 13, "meeting": 13, "support": 14}
SHOWN = ("external_id", "author", "reference_time", "source", "url", "content")


def _split_rows() -> list[dict[str, str]]:
    lines = (CORPUS / "split.tsv").read_text().splitlines()
    header = lines[0].split("\t")
    return [dict(zip(header, line.split("\t"), strict=True)) for line in lines[1:] if line]


def _genres() -> dict[str, str]:
    """external_id → genre, read from the episode files (the genre field only)."""
    genres = {}
    for path in sorted((CORPUS / "episodes").glob("*.jsonl")):
        for line in path.read_text().splitlines():
            if line.strip():
                record = json.loads(line)
                genres[record["external_id"]] = record["genre"]
    return genres


def sample() -> dict[str, list[str]]:
    genres = _genres()
    population: dict[str, list[str]] = {genre: [] for genre in SAMPLE}
    for row in _split_rows():
        if row["split"] == "dev" and row.get("batch", "original") == "original":
            population[genres[row["external_id"]]].append(row["external_id"])
    return {genre: sorted(ids, key=lambda i: hashlib.sha256((SALT + i).encode()).hexdigest())
            [:SAMPLE[genre]] for genre, ids in population.items()}


def show() -> None:
    wanted = {i: genre for genre, ids in sample().items() for i in ids}
    for path in sorted((CORPUS / "episodes").glob("*.jsonl")):
        for line in path.read_text().splitlines():
            if not line.strip():
                continue
            record = json.loads(line)
            if record["external_id"] in wanted:
                print(f"==== {wanted[record['external_id']]} {path.stem} role="
                      f"{record.get('role', '')}")
                for key in SHOWN:
                    print(f"{key}: {record[key]}" if key != "content" else record[key])
                print()


def _second_reader() -> dict[str, dict]:
    from labels import named_in, parse  # the label-file reader of tools/labels.py

    records = {}
    for path in sorted((CORPUS / "episodes").glob("*.jsonl")):
        for line in path.read_text().splitlines():
            if line.strip():
                record = json.loads(line)
                records[record["external_id"]] = record
    labels = parse(CORPUS / "agreement" / "second-reader.txt")
    out = {}
    for external_id, label in labels.items():
        record = records[external_id]
        facts = [{"source": s, "relation": r, "target": t,
                  "implicit": not (named_in(s, record["content"], record["author"])
                                   and named_in(t, record["content"], record["author"]))}
                 for s, _, r, t, _, _, _ in label["facts"]]
        out[external_id] = {"record": record, "facts": facts, "problem": label.get("problem")}
    return out


def compare() -> dict[str, dict]:
    """Per genre and overall: the second reader's facts matched to the corpus labels with the
    bench's matcher (``matched_pairs``: same relation after normalisation, endpoints equal or
    content words contained or the same identifier; each fact used once). Precision is the share
    of the second reader's facts the corpus labels hold, recall the share of the corpus facts the
    second reader found (the matching is symmetric, so the other direction swaps the two)."""
    from memory.bench.extraction_bench import matched_pairs, normalized_fact
    from memory.ontology import build_ontology

    ontology = build_ontology(None)
    wanted = {i: genre for genre, ids in sample().items() for i in ids}
    second = _second_reader()
    if set(second) != set(wanted):
        raise ValueError(f"second reader's labels do not cover the sample: "
                         f"{sorted(set(wanted) ^ set(second))}")

    def facts(items: list[dict]) -> list:
        return [f for item in items if (f := normalized_fact(
            item["source"], item["relation"], item["target"], ontology,
            implicit=bool(item.get("implicit"))))]

    rows: dict[str, dict] = {}
    for external_id, genre in wanted.items():
        record = second[external_id]["record"]
        corpus, mine = facts(record.get("gold_facts", [])), facts(second[external_id]["facts"])
        matched = len(matched_pairs(corpus, mine))
        strict = len(matched_pairs(corpus, mine, strict=True))
        for key in (genre, "all"):
            row = rows.setdefault(key, dict.fromkeys(
                ("episodes", "corpus", "second", "matched", "strict", "same_none",
                 "problems", "same_problem"), 0))
            row["episodes"] += 1
            row["corpus"] += len(corpus)
            row["second"] += len(mine)
            row["matched"] += matched
            row["strict"] += strict
            row["same_none"] += int(bool(corpus) == bool(mine))
            if genre == "support":
                row["problems"] += 1
                row["same_problem"] += int(record.get("problem") == second[external_id]["problem"])
    for row in rows.values():
        row["precision"] = row["matched"] / row["second"] if row["second"] else None
        row["recall"] = row["matched"] / row["corpus"] if row["corpus"] else None
        p, r = row["precision"], row["recall"]
        row["f1"] = 2 * p * r / (p + r) if p and r else None
        row["precision_strict"] = row["strict"] / row["second"] if row["second"] else None
        row["recall_strict"] = row["strict"] / row["corpus"] if row["corpus"] else None
    return rows


def differences() -> None:
    """Each sampled episode whose two label sets differ: the facts only one reader has."""
    from memory.bench.extraction_bench import matched_pairs, normalized_fact
    from memory.ontology import build_ontology

    ontology = build_ontology(None)
    second = _second_reader()
    for genre, ids in sample().items():
        for external_id in ids:
            record = second[external_id]["record"]
            corpus = [f for g in record.get("gold_facts", []) if (f := normalized_fact(
                g["source"], g["relation"], g["target"], ontology))]
            mine = [f for g in second[external_id]["facts"] if (f := normalized_fact(
                g["source"], g["relation"], g["target"], ontology))]
            pairs = matched_pairs(corpus, mine)
            only_corpus = [f for i, f in enumerate(corpus) if i not in {a for a, _ in pairs}]
            only_second = [f for j, f in enumerate(mine) if j not in {b for _, b in pairs}]
            problem = (record.get("problem"), second[external_id]["problem"])
            if only_corpus or only_second or (genre == "support" and problem[0] != problem[1]):
                print(f"{genre} {external_id}")
                for f in only_corpus:
                    print(f"  corpus only: {f.source} {f.relation} {f.target}")
                for f in only_second:
                    print(f"  second only: {f.source} {f.relation} {f.target}")
                if genre == "support" and problem[0] != problem[1]:
                    print(f"  problem: corpus {problem[0]}, second {problem[1]}")


def _django() -> None:
    import os

    import django

    sys.path.insert(0, str(CORPUS.parent.parent))
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "dashboard.settings")
    django.setup()


if __name__ == "__main__":
    command = sys.argv[1] if len(sys.argv) > 1 else "sample"
    if command == "sample":
        for genre, ids in sample().items():
            print(genre, *ids, sep="\n  ")
    elif command == "show":
        show()
    elif command == "compare":
        _django()
        for name, row in compare().items():
            cells = ", ".join(f"{k} {v:.3f}" if isinstance(v, float) else f"{k} {v}"
                              for k, v in row.items())
            print(f"{name}: {cells}")
    elif command == "differences":
        _django()
        differences()
    else:
        sys.exit(f"unknown command {command}")
