"""Collect the git-based episodes of the ``dev-extra`` batch (pull-request descriptions, meeting
notes and status reports from five more public repositories), from local snapshots of those
repositories.

Usage (run once, 2026-12-01; the output is committed, this script is kept so the selection can be
read and repeated):

    python tests/corpus/tools/collect_extra.py MIRRORS_DIR OUT_DIR

MIRRORS_DIR holds bare clones named ``owner+name/repo`` (bitcoin-core/secp256k1, astral-sh/uv,
WebAssembly/meetings, python/steering-council, ipfs/team-mgmt). As in ``collect_git.py``: Markdown
sections of 250 characters or more, cut at 1,600 characters at a paragraph boundary,
attendance/links/agenda-only sections left out, and the choice among candidates by the sha256 of
the candidate's id, never by how the text reads. Every episode of this batch is ``dev``: the batch
was added after the split was frozen and never belongs to ``test``. The thread messages of the
batch (support, golang/go) were copied by hand and are not collected here.
"""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path

from collect_git import (
    HEADING,
    MEETING_LIMIT,
    SKIP_HEADINGS,
    TRACKER_LIMIT,
    git,
    meeting_chunks,
    pick,
    strip_empty_headings,
    trim,
)

# --- pull requests -------------------------------------------------------------------------------


def secp256k1_prs(repo: Path) -> list[dict]:
    """bitcoin-core/secp256k1 merge commits (``Merge bitcoin-core/secp256k1#N: title``): the
    title, the pull-request description and the reviewers' ``ACK`` lines as the merge script
    wrote them (the commit list and the tree hash left out). Terse, templated review text."""
    log = git(repo, "log", "--merges", "--grep=^Merge bitcoin-core/secp256k1#",
              "--date=iso-strict", "--format=%x1e%H%x1f%ad%x1f%B")
    episodes = []
    for record in log.split("\x1e")[1:]:
        sha, date, body = record.split("\x1f", 2)
        first, _, rest = body.partition("\n")
        match = re.match(r"Merge bitcoin-core/secp256k1#(\d+): (.*)", first)
        if not match or "Pull request description:" not in rest:
            continue
        number, title = match.groups()
        author = re.search(r"^[0-9a-f]{40} .*\(([^()]+)\)\s*$", rest, re.M)
        description = rest.split("Pull request description:", 1)[1].split("Tree-SHA512:", 1)[0]
        description = "\n".join(line[2:] if line.startswith("  ") else line
                                for line in description.strip("\n").split("\n"))
        content = f"{title} #{number}\n\n{description.strip()}"
        if len(content) < 300:
            continue
        episodes.append({
            "external_id": f"secp-pr-{number}", "author": author.group(1) if author else "",
            "reference_time": date, "source": "github:bitcoin-core/secp256k1",
            "content": trim(content, TRACKER_LIMIT),
            "url": f"https://github.com/bitcoin-core/secp256k1/pull/{number}",
            "origin": f"bitcoin-core/secp256k1 merge commit {sha}",
            "licence": "MIT (repository COPYING; PR text and reviews by their authors)",
        })
    return episodes


def uv_prs(repo: Path) -> list[dict]:
    """astral-sh/uv squash-merge commits (``Title (#N)`` then the pull-request body): templated
    modern PR descriptions (``## Summary``, ``## Test Plan``, ``Closes #N``)."""
    log = git(repo, "log", "--no-merges", "--date=iso-strict",
              "--format=%x1e%H%x1f%ad%x1f%an%x1f%B")
    episodes = []
    for record in log.split("\x1e")[1:]:
        sha, date, author, body = record.split("\x1f", 3)
        first, _, rest = body.partition("\n")
        match = re.match(r"(.*) \(#(\d+)\)\s*$", first)
        if not match or first.lower().startswith(("bump ", "update ", "chore(deps)", "sync ")):
            continue
        title, number = match.groups()
        text = "\n".join(line for line in rest.strip().split("\n")
                         if not line.startswith(("Co-authored-by:", "Signed-off-by:")))
        content = strip_empty_headings(f"{title} #{number}\n\n{text.strip()}")
        if len(content) < 300:
            continue
        episodes.append({
            "external_id": f"uv-pr-{number}", "author": author, "reference_time": date,
            "source": "github:astral-sh/uv", "content": trim(content, TRACKER_LIMIT),
            "url": f"https://github.com/astral-sh/uv/pull/{number}",
            "origin": f"astral-sh/uv squash commit {sha}",
            "licence": "MIT OR Apache-2.0 (repository licence; PR text by its author)",
        })
    return episodes


# --- meeting notes and status reports ------------------------------------------------------------


def wasm_paths(repo: Path) -> list[str]:
    """Community Group meeting notes (``main/YYYY/CG-MM-DD.md``), whose agendas precede the notes:
    only the sections after ``## Meeting Notes`` are kept (see ``wasm_notes``)."""
    return [p for p in git(repo, "ls-tree", "-r", "--name-only", "HEAD", "main").split("\n")
            if re.match(r"main/20\d\d/CG-\d\d-\d\d\.md$", p)]


def wasm_date(path: str, text: str) -> str | None:
    match = re.match(r"main/(20\d\d)/CG-(\d\d)-(\d\d)\.md$", path)
    return f"{match.group(1)}-{match.group(2)}-{match.group(3)}T00:00:00+00:00" if match else None


def python_sc(repo: Path) -> list[dict]:
    """Steering Council updates: one file per month, one ``## YYYY-MM-DD`` section per meeting;
    each section is an episode dated by its heading."""
    head = git(repo, "rev-parse", "HEAD").strip()
    episodes = []
    for path in git(repo, "ls-tree", "-r", "--name-only", "HEAD", "updates").split("\n"):
        if not path.endswith(".md"):
            continue
        text = git(repo, "show", f"HEAD:{path}")
        for block in re.split(r"\n(?=## )", "\n" + text):
            match = re.match(r"## (20\d\d)-(\d\d)-(\d\d)\b", block.strip())
            if not match or len(block.strip()) < 250:
                continue
            date = f"{match.group(1)}-{match.group(2)}-{match.group(3)}"
            episodes.append({
                "external_id": f"pysc-{date}", "author": "",
                "reference_time": f"{date}T00:00:00+00:00",
                "source": "github:python/steering-council",
                "content": trim(block.strip(), MEETING_LIMIT),
                "url": f"https://github.com/python/steering-council/blob/{head}/{path}",
                "origin": f"python/steering-council {head} {path} (section {date})",
                "licence": "no licence stated (repository has none); © the Python Steering "
                           "Council members, published for the Python community",
                "file": path,
            })
    return episodes


_PERSON = re.compile(r"^(?:#{2,5}\s*)?\**@([\w-]+)\**(.*)$")


def ipfs_updates(repo: Path) -> list[dict]:
    """Weekly team syncs of the IPFS project (2018-2020): the round of updates, one episode per
    person (``@handle`` then Done / Blocked / Next), the section heading kept as context."""
    head = git(repo, "rev-parse", "HEAD").strip()
    episodes = []
    paths = [p for p in git(repo, "ls-tree", "-r", "--name-only", "HEAD", "meeting-notes")
             .split("\n") if re.search(r"/20\d\d-\d\d-\d\d--[\w-]*(weekly|sync)[\w-]*\.md$", p)]
    for path in paths:
        text = git(repo, "show", f"HEAD:{path}")
        date = re.search(r"(20\d\d)-(\d\d)-(\d\d)--", path)
        if not date:
            continue
        reference_time = f"{date.group(1)}-{date.group(2)}-{date.group(3)}T00:00:00+00:00"
        heading, person, body = "", None, []
        blocks: list[tuple[str, str, str]] = []
        for line in [*text.split("\n"), "## end"]:
            head_match = HEADING.match(line)
            person_match = _PERSON.match(line.strip()) if not line.startswith((" ", "-")) else None
            if person_match and (person_match.group(2).strip() == ""
                                 or person_match.group(2).strip().startswith(("(", ":"))):
                if person:
                    blocks.append((heading, person, "\n".join(body)))
                person, body = person_match.group(1), [line]
            elif head_match:
                if person:
                    blocks.append((heading, person, "\n".join(body)))
                person, body = None, []
                heading = line.rstrip()
            elif person:
                body.append(line)
        slug = re.sub(r"[^a-z0-9]+", "-", path.lower().rsplit("/", 1)[-1].rsplit(".", 1)[0])
        for index, (section, who, block) in enumerate(blocks):
            if len(block.strip()) < 250 or not re.search(r"done|next|blocked|working on",
                                                          block, re.I):
                continue
            content = trim(f"{section}\n\n{block.strip()}" if section else block, MEETING_LIMIT)
            episodes.append({
                "external_id": f"ipfs-{slug.strip('-')}-{who.lower()}", "author": "",
                "reference_time": reference_time, "source": "github:ipfs/team-mgmt",
                "content": content,
                "url": f"https://github.com/ipfs/team-mgmt/blob/{head}/{path}",
                "origin": f"ipfs/team-mgmt {head} {path} (update {index} of @{who})",
                "licence": "CC-BY-SA-3.0 (repository LICENSE)", "file": path,
            })
    return episodes


def wasm(repo: Path) -> list[dict]:
    candidates = meeting_chunks(
        repo, wasm_paths(repo), "wasm-cg", "github:WebAssembly/meetings",
        "https://github.com/WebAssembly/meetings",
        "no licence stated (W3C Community Group minutes; each contribution © its speaker)",
        wasm_date)
    kept = []
    for episode in candidates:
        text = git(repo, "show", f"HEAD:{episode['file']}")
        notes_at = re.search(r"^#+\s*Meeting Notes", text, re.M | re.I)
        first_line = episode["content"].split("\n", 1)[0]
        if notes_at is None or text.find(first_line) < notes_at.end():
            continue  # agenda sections come before the notes: they state plans, not minutes
        if re.match(r"#+\s*(attendees|opening|find volunteers|adoption of the agenda|closure|"
                    r"proposals and discussions|opening of the meeting|roll call|agenda|"
                    r"introduction of attendees|\s*1?\.?\s*opening)", first_line, re.I):
            continue
        kept.append(episode)
    return kept


def write_sets(out: Path, sets: dict[str, tuple[str, list[dict]]], *, batch: str) -> None:
    """Write each source's chosen episodes to ``OUT_DIR/<source>.jsonl`` in the corpus format:
    the ingest fields, then ``genre``, ``split`` (always ``dev``: a later batch never belongs to
    ``test``), ``batch``, ``url``, ``origin`` and ``licence``. Shared by the collectors of the
    later batches (``collect_validation.py``, ``collect_extra2.py``)."""
    for name, (genre, episodes) in sets.items():
        with (out / f"{name}.jsonl").open("w") as handle:
            for episode in episodes:
                record = {"external_id": episode["external_id"], "author": episode["author"],
                          "reference_time": episode["reference_time"], "type": "text",
                          "source": episode["source"], "content": episode["content"],
                          "genre": genre, "split": "dev", "batch": batch,
                          "url": episode["url"], "origin": episode["origin"],
                          "licence": episode["licence"]}
                handle.write(json.dumps(record, ensure_ascii=False) + "\n")
        print(name, genre, len(episodes))


def main(mirrors: Path, out: Path) -> None:
    out.mkdir(parents=True, exist_ok=True)
    repo = lambda name: mirrors / name / "repo"  # noqa: E731
    sets = {
        "secp256k1-prs": ("tracker", pick(secp256k1_prs(repo("bitcoin-core+secp256k1")), 38)),
        "uv-prs": ("tracker", pick(uv_prs(repo("astral-sh+uv")), 38)),
        "wasm-cg": ("meeting", pick(wasm(repo("WebAssembly+meetings")), 35, per_file=1)),
        "python-sc": ("meeting", pick(python_sc(repo("python+steering-council")), 30,
                                      per_file=2)),
        "ipfs-weekly": ("meeting", pick(ipfs_updates(repo("ipfs+team-mgmt")), 35, per_file=1)),
    }
    assert SKIP_HEADINGS  # the same skip list as the first batch (used by meeting_chunks)
    write_sets(out, sets, batch="dev-extra")

if __name__ == "__main__":
    sys.path.insert(0, str(Path(__file__).parent))
    main(Path(sys.argv[1]), Path(sys.argv[2]))
