"""Write the hand-made labels (``labels/<source>.txt``) into the episodes (``episodes/*.jsonl``).

A label file lists every episode of its source once, in this form::

    @ k8s-95357-harche-2020-10-07-2
    F harche | Person | RESPONSIBLE_FOR | #95357 | WorkItem | I am looking into it
    @ dfm-3357-jy1989-2018-11-22
    brand: Docker Desktop
    problem: startup/stuck-starting
    F jy1989 | Customer | REPORTED | stuck in docker desktop is starting | Issue | it stuck in
    @ cargo-pr-1712
    none

A fact line is ``source | type | RELATION | target | type | fragment``: the fragment is a piece
of the content, and the fact's ``sentence`` is the sentence (or, when the fragment spans
sentences, the line) of the content that contains it — so every gold sentence is exact text.
``none`` says the episode was read and holds no fact. An episode missing from its label file, a
fragment not in the content, or an unknown type or relation is an error.

Usage: ``python tests/corpus/tools/labels.py`` (from the repository root; rewrites the
episodes' ``gold_facts``, ``brand`` and ``problem`` from the label files).
"""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path

CORPUS = Path(__file__).resolve().parent.parent
TYPES = {"Person", "Team", "WorkItem", "Service", "Customer", "Product", "Plan", "Issue", "Event",
         "Status"}
RELATIONS = {"RESPONSIBLE_FOR", "MEMBER_OF", "DEPENDS_ON", "HAS_STATUS", "REPORTED", "AFFECTS",
             "PRECEDED_BY", "ON_PLAN", "USES", "TRACKS", "DUPLICATE_OF"}
_SENTENCE_END = re.compile(r"[.!?](?=\s)")
_BLOCK_START = re.compile(r"\s*([-*+]\s|\d+[.)]\s|#|\||>|```|\*\*)")


def _line_start(content: str, at: int) -> int:
    return content.rfind("\n", 0, at) + 1


def _line_end(content: str, at: int) -> int:
    end = content.find("\n", at)
    return len(content) if end < 0 else end


def sentence_of(content: str, fragment: str) -> str:
    """The sentence of ``content`` holding ``fragment``, as an exact piece of the content: it may
    run over hard-wrapped lines of one paragraph, and stops at a sentence end, a blank line, a
    list item, a heading or a table row."""
    at = content.find(fragment)
    if at < 0:
        raise ValueError(f"fragment not in content: {fragment!r}")
    end = at + len(fragment)
    # Left: back over wrapped lines of the same paragraph, to the last sentence end.
    start = _line_start(content, at)
    while start > 0:
        line = content[start:_line_end(content, start)]
        previous_start = _line_start(content, start - 1)
        previous = content[previous_start:start - 1]
        if (_BLOCK_START.match(line) or not previous.strip() or (_BLOCK_START.match(previous)
                and not previous.lstrip().startswith(("-", "*", "+")))
                or previous.rstrip().endswith((".", "!", "?", ":"))
                or len(previous.rstrip()) < 60):  # a short line is a line of its own
            break
        start = previous_start
    for match in _SENTENCE_END.finditer(content, start, at):
        start = match.end()
    # Right: forward to the sentence end, over wrapped lines of the paragraph.
    stop = _line_end(content, end)
    sentence_end = _SENTENCE_END.search(content, end, stop)
    while sentence_end is None and stop < len(content):
        following = content[stop + 1:_line_end(content, stop + 1)]
        line = content[_line_start(content, end):stop]
        if (not following.strip() or _BLOCK_START.match(following)
                or line.lstrip().startswith(("#", "|")) or len(line.rstrip()) < 60):
            break
        stop = _line_end(content, stop + 1)
        sentence_end = _SENTENCE_END.search(content, end, stop)
    if sentence_end is not None:
        stop = sentence_end.end()
    return content[start:stop].strip()


def parse(path: Path) -> dict[str, dict]:
    labels: dict[str, dict] = {}
    current: dict | None = None
    for number, raw in enumerate(path.read_text().split("\n"), start=1):
        line = raw.strip()
        if not line or line.startswith("//"):
            continue
        where = f"{path.name}:{number}"
        if line.startswith("@ "):
            key = line[2:].strip()
            if key in labels:
                raise ValueError(f"{where}: {key} labelled twice")
            current = labels[key] = {"facts": [], "none": False}
        elif current is None:
            raise ValueError(f"{where}: label before any '@ id' line")
        elif line == "none":
            current["none"] = True
        elif line.startswith("brand:"):
            current["brand"] = line.split(":", 1)[1].strip()
        elif line.startswith("problem:"):
            value = line.split(":", 1)[1].strip()
            current["problem"] = None if value == "null" else value
        elif line.startswith("F "):
            parts = [p.strip() for p in line[2:].split("|")]
            if len(parts) != 6:
                raise ValueError(f"{where}: a fact needs 6 fields, got {len(parts)}")
            source, source_type, relation, target, target_type, fragment = parts
            if source_type not in TYPES or target_type not in TYPES:
                raise ValueError(f"{where}: unknown entity type")
            if relation not in RELATIONS:
                raise ValueError(f"{where}: unknown relation {relation}")
            current["facts"].append((source, source_type, relation, target, target_type,
                                     fragment, where))
        else:
            raise ValueError(f"{where}: cannot read {line!r}")
    return labels


def _words(text: str) -> set[str]:
    return set(re.findall(r"[a-z0-9]+", text.lower()))


def named_in(name: str, content: str, author: str) -> bool:
    """Whether a reader finds the entity in the words given to an extractor (content or author)
    rather than only in the corpus metadata (the thread a comment belongs to)."""
    if name.lower() == author.lower():
        return True
    return _words(name) <= _words(content) | _words(author)


def apply(corpus: Path = CORPUS) -> dict[str, int]:
    counts = {"episodes": 0, "labelled": 0, "facts": 0}
    for episodes_path in sorted((corpus / "episodes").glob("*.jsonl")):
        label_path = corpus / "labels" / f"{episodes_path.stem}.txt"
        records = [json.loads(line) for line in episodes_path.read_text().splitlines() if line]
        labels = parse(label_path) if label_path.exists() else {}
        unknown = set(labels) - {r["external_id"] for r in records}
        if unknown:
            raise ValueError(f"{label_path.name}: labels for unknown episodes {sorted(unknown)}")
        for record in records:
            counts["episodes"] += 1
            label = labels.get(record["external_id"])
            for key in ("gold_facts", "brand", "problem"):
                record.pop(key, None)
            if label is None:
                continue
            if not label["facts"] and not label["none"]:
                raise ValueError(f"{record['external_id']}: no facts and no 'none'")
            counts["labelled"] += 1
            if record["genre"] == "support":
                if "brand" not in label or "problem" not in label:
                    raise ValueError(f"{record['external_id']}: support needs brand and problem")
                record["brand"] = label["brand"]
                record["problem"] = label["problem"]
            gold = []
            for source, stype, relation, target, ttype, fragment, where in label["facts"]:
                try:
                    sentence = sentence_of(record["content"], fragment)
                except ValueError as exc:
                    raise ValueError(f"{where}: {exc}") from None
                fact = {"source": source, "source_type": stype, "relation": relation,
                        "target": target, "target_type": ttype, "sentence": sentence}
                if not (named_in(source, record["content"], record["author"])
                        and named_in(target, record["content"], record["author"])):
                    fact["implicit"] = True
                gold.append(fact)
            record["gold_facts"] = gold
            counts["facts"] += len(gold)
        with episodes_path.open("w") as handle:
            for record in records:
                handle.write(json.dumps(record, ensure_ascii=False) + "\n")
    return counts


if __name__ == "__main__":
    try:
        print(apply())
    except ValueError as exc:
        sys.exit(f"labels: {exc}")
