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


if __name__ == "__main__":
    command = sys.argv[1] if len(sys.argv) > 1 else "sample"
    if command == "sample":
        for genre, ids in sample().items():
            print(genre, *ids, sep="\n  ")
    elif command == "show":
        show()
    else:
        sys.exit(f"unknown command {command}")
