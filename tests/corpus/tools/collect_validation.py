"""Collect the git-based episodes of the ``validation`` batch: new pull-request descriptions and
meeting sections from the same repositories, at the same snapshots, as the original batch (the
frozen split), none of them already in the corpus.

Usage (run once, 2026-12-05; the output is committed, this script is kept so the selection can be
read and repeated):

    python tests/corpus/tools/collect_validation.py MIRRORS_DIR OUT_DIR

MIRRORS_DIR holds bare clones named ``owner+name/repo`` (rust-lang/cargo, rust-lang/rust-analyzer,
ethereum/pm, openjs-foundation/cross-project-council, rust-lang/lang-team). The candidates are
exactly those of ``collect_git.py`` (same length bounds, cut, skipped sections and AI-notes rule),
less every candidate whose id is in ``split.tsv`` or whose text is the text of a corpus episode,
and — for meeting notes — less every meeting file a corpus episode comes from, so that no
validation section shares a meeting with a dev or test episode. Among the rest, the choice is by
``sha256("corpus-validation-v1:" + id)`` (one section per meeting file), never by how the text
reads. The comparison with the corpus reads ids, texts and origins by program only: no test
episode is shown. Every episode of this batch is ``dev`` with batch ``validation``.
"""

from __future__ import annotations

import hashlib
import json
import re
import sys
from pathlib import Path

from collect_extra import write_sets
from collect_git import cargo_prs, date_from, git, meeting_chunks, rust_analyzer_prs

CORPUS = Path(__file__).resolve().parent.parent
SALT = "corpus-validation-v1:"
COUNTS = {"cargo-prs": 7, "rust-analyzer-prs": 7, "ethereum-pm": 7, "openjs-cpc": 7,
          "rust-lang-team": 7}


def _order(episode: dict) -> str:
    return hashlib.sha256((SALT + episode["external_id"]).encode()).hexdigest()


def _normal(text: str) -> str:
    return " ".join(text.split()).lower()


def corpus_taken(source: str) -> tuple[set[str], set[str], set[str]]:
    """Ids, normalised texts and meeting files of the source's corpus episodes (every split)."""
    ids = {line.split("\t")[1] for line in (CORPUS / "split.tsv").read_text().splitlines()[1:]
           if line.startswith(source + "\t")}
    texts: set[str] = set()
    files: set[str] = set()
    for line in (CORPUS / "episodes" / f"{source}.jsonl").read_text().splitlines():
        record = json.loads(line)
        ids.add(record["external_id"])
        texts.add(_normal(record["content"]))
        match = re.match(r"\S+ [0-9a-f]{40} (.*) \(section \d+\)$", record["origin"])
        if match:
            files.add(match.group(1))
    return ids, texts, files


def pick_new(source: str, candidates: list[dict], count: int, *, per_file: bool) -> list[dict]:
    ids, texts, files = corpus_taken(source)
    chosen: list[dict] = []
    used: set[str] = set()
    for episode in sorted(candidates, key=_order):
        path = episode.get("file")
        if episode["external_id"] in ids or _normal(episode["content"]) in texts:
            continue
        if per_file and (path in files or path in used):
            continue
        used.add(path or "")
        chosen.append(episode)
        if len(chosen) == count:
            break
    return sorted(chosen, key=lambda e: (e["reference_time"], e["external_id"]))


def main(mirrors: Path, out: Path) -> None:
    out.mkdir(parents=True, exist_ok=True)
    repo = lambda name: mirrors / name / "repo"  # noqa: E731
    sets = {
        "cargo-prs": ("tracker", pick_new("cargo-prs", cargo_prs(repo("rust-lang+cargo")),
                                          COUNTS["cargo-prs"], per_file=False)),
        "rust-analyzer-prs": ("tracker", pick_new(
            "rust-analyzer-prs", rust_analyzer_prs(repo("rust-lang+rust-analyzer")),
            COUNTS["rust-analyzer-prs"], per_file=False)),
    }
    pm = repo("ethereum+pm")
    pm_paths = [p for p in git(pm, "ls-tree", "-r", "--name-only", "HEAD").split("\n")
                if p.endswith(".md") and p.split("/")[0] in
                {"AllCoreDevs-EL-Meetings", "AllCoreDevs-CL-Meetings", "Breakout-Room-Meetings"}]
    sets["ethereum-pm"] = ("meeting", pick_new("ethereum-pm", meeting_chunks(
        pm, pm_paths, "ethpm", "github:ethereum/pm", "https://github.com/ethereum/pm",
        "CC-BY-SA-3.0 (repository LICENSE)", date_from), COUNTS["ethereum-pm"], per_file=True))
    cpc = repo("openjs-foundation+cross-project-council")
    cpc_paths = [p for p in git(cpc, "ls-tree", "-r", "--name-only", "HEAD", "meetings").split("\n")
                 if re.search(r"meetings/20\d\d/.*\.md$", p)]
    sets["openjs-cpc"] = ("meeting", pick_new("openjs-cpc", meeting_chunks(
        cpc, cpc_paths, "cpc", "github:openjs-foundation/cross-project-council",
        "https://github.com/openjs-foundation/cross-project-council",
        "MIT (repository LICENSE.md)", date_from), COUNTS["openjs-cpc"], per_file=True))
    lang = repo("rust-lang+lang-team")
    lang_paths = [p for p in git(lang, "ls-tree", "-r", "--name-only", "HEAD").split("\n")
                  if re.match(r"(minutes|design-meeting-minutes)/.*\.md$", p)]
    sets["rust-lang-team"] = ("meeting", pick_new("rust-lang-team", meeting_chunks(
        lang, lang_paths, "lang", "github:rust-lang/lang-team",
        "https://github.com/rust-lang/lang-team",
        "MIT OR Apache-2.0 (repository LICENSE-MIT, LICENSE-APACHE)", date_from),
        COUNTS["rust-lang-team"], per_file=True))
    write_sets(out, sets, batch="validation")

if __name__ == "__main__":
    main(Path(sys.argv[1]), Path(sys.argv[2]))
