"""Collect the corpus episodes that come from public git repositories (meeting notes and
pull-request descriptions), from local snapshots of those repositories.

Usage (run once, 2026-12-01; the output is committed, this script is kept so the selection can be
read and repeated):

    python tests/corpus/tools/collect_git.py MIRRORS_DIR OUT_DIR

MIRRORS_DIR holds bare clones named ``owner+name/repo`` (rust-lang/cargo, rust-lang/rust-analyzer,
ethereum/pm, openjs-foundation/cross-project-council, rust-lang/lang-team). Selection is by the
sha256 of each candidate's id (not by how easy the text looks), with length bounds and at most two
sections per meeting file so that many meetings are represented.
"""

from __future__ import annotations

import hashlib
import json
import re
import subprocess
import sys
from pathlib import Path

TRACKER_LIMIT = 1500
MEETING_LIMIT = 1600


def git(repo: Path, *args: str) -> str:
    return subprocess.run(["git", "--git-dir", str(repo), *args], check=True,
                          capture_output=True, text=True).stdout


def digest(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()


def trim(text: str, limit: int) -> str:
    """Cut at the last paragraph (else line, else sentence) boundary before ``limit``."""
    text = text.strip()
    if len(text) <= limit:
        return text
    head = text[:limit]
    for boundary in ("\n\n", "\n", ". "):
        cut = head.rfind(boundary)
        if cut > limit // 2:
            return head[: cut + (1 if boundary == ". " else 0)].rstrip()
    return head.rstrip()


def strip_empty_headings(text: str) -> str:
    """Drop template headings left empty at the end of a PR description."""
    lines = text.rstrip().split("\n")
    while lines and (not lines[-1].strip() or lines[-1].lstrip().startswith("#")):
        lines.pop()
    return "\n".join(lines)


# --- pull-request descriptions (bors merge commits) ---------------------------------------------

def cargo_prs(repo: Path) -> list[dict]:
    log = git(repo, "log", "--merges", "--grep=^Auto merge of #", "--date=iso-strict",
              "--format=%x1e%H%x1f%ad%x1f%B")
    episodes = []
    for record in log.split("\x1e")[1:]:
        sha, date, body = record.split("\x1f", 2)
        first, _, rest = body.partition("\n")
        match = re.match(r"Auto merge of #(\d+) - ([^:]+):\S*, r=(\S+)", first)
        if not match or "Rollup of" in rest[:200] or "submodule" in rest[:200].lower():
            continue
        number, author, _ = match.groups()
        content = strip_empty_headings(rest.strip())
        if len(content) < 300:
            continue
        episodes.append({
            "external_id": f"cargo-pr-{number}", "author": author, "reference_time": date,
            "source": "github:rust-lang/cargo", "content": trim(content, TRACKER_LIMIT),
            "url": f"https://github.com/rust-lang/cargo/pull/{number}",
            "origin": f"rust-lang/cargo merge commit {sha}",
            "licence": "MIT OR Apache-2.0 (repository licence; PR text by its author)",
        })
    return episodes


def rust_analyzer_prs(repo: Path) -> list[dict]:
    log = git(repo, "log", "--merges", "--grep=^Merge #", "--date=iso-strict",
              "--format=%x1e%H%x1f%ad%x1f%B")
    episodes = []
    for record in log.split("\x1e")[1:]:
        sha, date, body = record.split("\x1f", 2)
        # bors-ng: "Merge #N\n\nN: title r=reviewer a=author\n\nbody\n\nCo-authored-by: ..."
        parts = re.split(r"\n(?=\d+: )", body)
        if len(parts) != 2:  # batches of several PRs are skipped
            continue
        match = re.match(r"(\d+): (.*?) r=\S+ a=(\S+)\n", parts[1])
        if not match:
            continue
        number, title, author = match.groups()
        text = parts[1][match.end():]
        text = "\n".join(line for line in text.split("\n")
                         if not line.startswith("Co-authored-by:")
                         and line.strip() not in {"bors r+", "bors r=me"})
        content = strip_empty_headings(f"{title}\n\n{text.strip()}")
        if len(content) < 300:
            continue
        episodes.append({
            "external_id": f"ra-pr-{number}", "author": author, "reference_time": date,
            "source": "github:rust-lang/rust-analyzer", "content": trim(content, TRACKER_LIMIT),
            "url": f"https://github.com/rust-lang/rust-analyzer/pull/{number}",
            "origin": f"rust-lang/rust-analyzer merge commit {sha}",
            "licence": "MIT OR Apache-2.0 (repository licence; PR text by its author)",
        })
    return episodes


# --- meeting notes -------------------------------------------------------------------------------

SKIP_HEADINGS = re.compile(
    r"^(links?|present|attendance|attendees|participants|meeting roles|upcoming meetings?|"
    r"dates and reminders|resources|recording|meeting info|agenda|q&a, other|q&a|"
    r"human-generated notes|ai-generated notes|table of contents|contents|zoom chat.*|"
    r"chat log|next meeting|observers?|minutes|notes|summary <!-- omit in toc -->)\s*:?\s*$", re.I)
HEADING = re.compile(r"^(#{1,6})\s+(.*?)\s*#*\s*$")


def sections(text: str) -> list[tuple[str, str]]:
    """(heading line, body) for each Markdown section; a body runs to the next heading of any
    level."""
    found: list[tuple[str, list[str]]] = []
    heading = ""
    body: list[str] = []
    fence = False
    for line in text.split("\n"):
        if line.strip().startswith("```"):
            fence = not fence
        match = None if fence else HEADING.match(line)
        if match:
            found.append((heading, body))
            heading, body = line.rstrip(), []
        else:
            body.append(line)
    found.append((heading, body))
    return [(h, "\n".join(b).strip()) for h, b in found]


def meeting_chunks(repo: Path, paths: list[str], prefix: str, source: str, url_base: str,
                   licence: str, date_of, skip: re.Pattern[str] = SKIP_HEADINGS) -> list[dict]:
    head = git(repo, "rev-parse", "HEAD").strip()
    episodes = []
    for path in paths:
        text = git(repo, "show", f"HEAD:{path}")
        if re.search(r"AI[- ]generated|generated by AI|LLM-generated", text, re.I):
            continue  # written by a model, not by the meeting's people
        date = date_of(path, text)
        if date is None:
            continue
        for index, (heading, body) in enumerate(sections(text)):
            match = HEADING.match(heading)
            title = match.group(2) if match else ""
            if not title or skip.match(title.strip("*_ ")) or len(body) < 250:
                continue
            content = trim(f"{heading}\n\n{body}", MEETING_LIMIT)
            if len(content) < 250:
                continue
            slug = re.sub(r"[^a-z0-9]+", "-", path.lower().rsplit(".", 1)[0]).strip("-")
            episodes.append({
                "external_id": f"{prefix}-{slug}-s{index}", "author": "",
                "reference_time": date, "source": source, "content": content,
                "url": f"{url_base}/blob/{head}/{path}".replace(" ", "%20"),
                "origin": f"{source.split(':', 1)[1]} {head} {path} (section {index})",
                "licence": licence, "file": path,
            })
    return episodes


def date_from(path: str, text: str) -> str | None:
    for candidate in (path, text[:600]):
        match = re.search(r"(20\d\d)[-/](\d\d?)[-/](\d\d?)", candidate)
        if match:
            y, m, d = (int(g) for g in match.groups())
            return f"{y:04d}-{m:02d}-{d:02d}T00:00:00+00:00"
    months = "january february march april may june july august september october november december"
    match = re.search(r"(" + "|".join(months.split()) + r")\w*\.?\s+(\d{1,2})\w*,?\s+(20\d\d)",
                      text[:800], re.I)
    if match:
        month = months.split().index(match.group(1).lower()) + 1
        return f"{int(match.group(3)):04d}-{month:02d}-{int(match.group(2)):02d}T00:00:00+00:00"
    return None


def pick(candidates: list[dict], count: int, per_file: int | None = None) -> list[dict]:
    chosen: list[dict] = []
    per: dict[str, int] = {}
    for episode in sorted(candidates, key=lambda e: digest(e["external_id"])):
        key = episode.get("file", episode["external_id"])
        if per_file is not None and per.get(key, 0) >= per_file:
            continue
        per[key] = per.get(key, 0) + 1
        chosen.append(episode)
        if len(chosen) == count:
            break
    for episode in chosen:
        episode.pop("file", None)
    return sorted(chosen, key=lambda e: (e["reference_time"], e["external_id"]))


def main(mirrors: Path, out: Path) -> None:
    out.mkdir(parents=True, exist_ok=True)
    repo = lambda name: mirrors / name / "repo"  # noqa: E731
    sets = {
        "cargo-prs": ("tracker", pick(cargo_prs(repo("rust-lang+cargo")), 60)),
        "rust-analyzer-prs": (
            "tracker", pick(rust_analyzer_prs(repo("rust-lang+rust-analyzer")), 55)),
    }
    pm = repo("ethereum+pm")
    pm_paths = [p for p in git(pm, "ls-tree", "-r", "--name-only", "HEAD").split("\n")
                if p.endswith(".md") and p.split("/")[0] in
                {"AllCoreDevs-EL-Meetings", "AllCoreDevs-CL-Meetings", "Breakout-Room-Meetings"}]
    sets["ethereum-pm"] = ("meeting", pick(meeting_chunks(
        pm, pm_paths, "ethpm", "github:ethereum/pm", "https://github.com/ethereum/pm",
        "CC-BY-SA-3.0 (repository LICENSE)", date_from), 55, per_file=1))
    cpc = repo("openjs-foundation+cross-project-council")
    cpc_paths = [p for p in git(cpc, "ls-tree", "-r", "--name-only", "HEAD", "meetings").split("\n")
                 if re.search(r"meetings/20\d\d/.*\.md$", p)]
    sets["openjs-cpc"] = ("meeting", pick(meeting_chunks(
        cpc, cpc_paths, "cpc", "github:openjs-foundation/cross-project-council",
        "https://github.com/openjs-foundation/cross-project-council",
        "MIT (repository LICENSE.md)", date_from), 50, per_file=2))
    lang = repo("rust-lang+lang-team")
    lang_paths = [p for p in git(lang, "ls-tree", "-r", "--name-only", "HEAD").split("\n")
                  if re.match(r"(minutes|design-meeting-minutes)/.*\.md$", p)]
    sets["rust-lang-team"] = ("meeting", pick(meeting_chunks(
        lang, lang_paths, "lang", "github:rust-lang/lang-team",
        "https://github.com/rust-lang/lang-team",
        "MIT OR Apache-2.0 (repository LICENSE-MIT, LICENSE-APACHE)", date_from), 50, per_file=1))
    for name, (genre, episodes) in sets.items():
        with (out / f"{name}.jsonl").open("w") as handle:
            for episode in episodes:
                record = {"external_id": episode["external_id"], "author": episode["author"],
                          "reference_time": episode["reference_time"], "type": "text",
                          "source": episode["source"], "content": episode["content"],
                          "genre": genre, "url": episode["url"], "origin": episode["origin"],
                          "licence": episode["licence"]}
                handle.write(json.dumps(record, ensure_ascii=False) + "\n")
        print(name, genre, len(episodes))


if __name__ == "__main__":
    main(Path(sys.argv[1]), Path(sys.argv[2]))
