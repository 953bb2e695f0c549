"""Collect the ``dev-extra2`` batch: meeting minutes and pull-request descriptions from six public
repositories that no earlier batch took text from, to measure how the extractor generalises to
sources it was never tuned on (and, afterwards, as tuning material).

Usage (run once, 2026-12-05; the output is committed, this script is kept so the selection can be
read and repeated):

    python tests/corpus/tools/collect_extra2.py MIRRORS_DIR OUT_DIR

MIRRORS_DIR holds bare clones named ``owner+name/repo`` (nodejs/TSC, tc39/notes, ossf/tac,
spdx/meetings, bevyengine/bevy, psf/black). The rules are those of ``collect_git.py`` and
``collect_extra.py``: Markdown sections of 250 characters or more, cut at 1,600 characters at a
paragraph boundary, attendance/links/agenda-only sections left out, notes marked as AI-generated
left out, one section per meeting file; pull-request descriptions of 300 characters or more,
cut at 1,500; and the choice among candidates by the sha256 of the candidate's id
(``collect_git.pick``), never by how the text reads. Every episode is ``dev``, batch ``dev-extra2``.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

from collect_extra import write_sets
from collect_git import (
    SKIP_HEADINGS,
    TRACKER_LIMIT,
    git,
    meeting_chunks,
    pick,
    strip_empty_headings,
    trim,
)

COUNTS = {
    "nodejs-tsc": 28,
    "tc39-notes": 20,
    "ossf-tac": 2,
    "spdx-meetings": 25,
    "bevy-prs": 35,
    "black-prs": 10,
}

# --- meeting minutes -----------------------------------------------------------------------------


def dated_path(path: str, text: str) -> str | None:
    """``meetings/2023-01-04.md``, ``minutes/2022-04-19.md``: the meeting's date is the file's."""
    match = re.search(r"(20\d\d)-(\d\d)-(\d\d)\.md$", path)
    return f"{match.group(1)}-{match.group(2)}-{match.group(3)}T00:00:00+00:00" if match else None


_MONTHS = [
    "january",
    "february",
    "march",
    "april",
    "may",
    "june",
    "july",
    "august",
    "september",
    "october",
    "november",
    "december",
]


def tc39_date(path: str, text: str) -> str | None:
    """``meetings/2025-11/november-20.md``: year and month from the folder, day from the file."""
    match = re.search(r"(20\d\d)-(\d\d)/([a-z]+)-(\d\d?)\.md$", path)
    if not match or match.group(3) not in _MONTHS:
        return None
    return f"{match.group(1)}-{match.group(2)}-{int(match.group(4)):02d}T00:00:00+00:00"


def nodejs_tsc(repo: Path) -> list[dict]:
    """Node.js TSC meeting minutes (``meetings/YYYY-MM-DD.md``, 2015-): announcements, the
    ``tsc-agenda`` issues discussed, each with its bullets."""
    paths = [
        p
        for p in git(repo, "ls-tree", "-r", "--name-only", "HEAD", "meetings").split("\n")
        if re.match(r"meetings/20\d\d-\d\d-\d\d\.md$", p)
    ]
    return meeting_chunks(
        repo,
        paths,
        "nodejs-tsc",
        "github:nodejs/TSC",
        "https://github.com/nodejs/TSC",
        "no licence stated (repository has none); © the Node.js TSC members",
        dated_path,
    )


def tc39_notes(repo: Path) -> list[dict]:
    """TC39 plenary notes (``meetings/YYYY-MM/month-DD.md``): one section per agenda item, a
    transcript by speaker abbreviation, often ending in a conclusion. The day's opening section
    (the attendee table) is left out."""
    paths = [
        p
        for p in git(repo, "ls-tree", "-r", "--name-only", "HEAD", "meetings").split("\n")
        if re.match(r"meetings/20\d\d-\d\d/[a-z]+-\d\d?\.md$", p)
    ]
    candidates = meeting_chunks(
        repo,
        paths,
        "tc39",
        "github:tc39/notes",
        "https://github.com/tc39/notes",
        "no licence stated (repository has none); each contribution © "
        "its speaker, notes published by Ecma TC39",
        tc39_date,
    )
    return [
        e
        for e in candidates
        if "**Attendees" not in e["content"]
        and not re.match(r"#+[^\n]*Meeting( Notes)?\s*$", e["content"].split("\n", 1)[0], re.I)
    ]


def ossf_tac(repo: Path) -> list[dict]:
    """OpenSSF Technical Advisory Council minutes, one file per meeting
    (``minutes/YYYY-MM-DD.md``, 2020-2024; the yearly files of later notes are left out). Most
    files are one section whose opening is the attendance list: two candidates remain."""
    paths = [
        p
        for p in git(repo, "ls-tree", "-r", "--name-only", "HEAD", "minutes").split("\n")
        if re.match(r"minutes/20\d\d-\d\d-\d\d\.md$", p)
    ]
    candidates = meeting_chunks(
        repo,
        paths,
        "ossf-tac",
        "github:ossf/tac",
        "https://github.com/ossf/tac",
        "Apache-2.0 before 2023-03-10, CC-BY-4.0 (documentation) from then on (repository LICENSE)",
        dated_path,
    )
    return [e for e in candidates if not _attendance(e["content"])]


def _attendance(content: str) -> bool:
    """An attendance list: under its own heading, or right under the meeting's date heading
    (``# **2022-06-14 Meeting**`` then ``Attendance (please add yourself)``)."""
    opening = "\n\n".join(content.split("\n\n", 2)[:2])
    return re.search(r"attendance|^\W*present\W*$", opening, re.I | re.M) is not None


SPDX_SKIP = re.compile(SKIP_HEADINGS.pattern.replace("|minutes|notes|", "|attending|"), re.I)
"""SPDX files put the meeting's whole record under ``## Minutes`` (or ``## Notes``): those
headings are kept there, and the attendance heading ``## Attending`` is left out."""


def spdx_meetings(repo: Path) -> list[dict]:
    """SPDX team meeting minutes (``<team>/YYYY/YYYY-MM-DD.md``: tech, legal, outreach, general,
    ai, safety, security and the other teams), one section per meeting file."""
    paths = [
        p
        for p in git(repo, "ls-tree", "-r", "--name-only", "HEAD").split("\n")
        if re.match(r"[a-z]+/20\d\d/20\d\d-\d\d-\d\d\.md$", p)
    ]
    return meeting_chunks(
        repo,
        paths,
        "spdx",
        "github:spdx/meetings",
        "https://github.com/spdx/meetings",
        "CC-BY-3.0 (repository LICENSE)",
        dated_path,
        skip=SPDX_SKIP,
    )


# --- pull requests -------------------------------------------------------------------------------

_TRAILER = re.compile(r"^(Co-authored-by|Signed-off-by):", re.I)


def squash_prs(repo: Path, prefix: str, slug: str, licence: str) -> list[dict]:
    """Squash-merge commits (``Title (#N)`` then the body GitHub put there: the pull request's
    description for bevy, the list of the squashed commits for black), trailers and the
    ``---------`` separator dropped; dependency bumps left out."""
    log = git(
        repo, "log", "--no-merges", "--date=iso-strict", "--format=%x1e%H%x1f%ad%x1f%an%x1f%B"
    )
    episodes = []
    for record in log.split("\x1e")[1:]:
        sha, date, author, body = record.split("\x1f", 3)
        first, _, rest = body.partition("\n")
        match = re.match(r"(.*) \(#(\d+)\)\s*$", first)
        if (
            not match
            or "[bot]" in author
            or first.lower().startswith(("bump ", "chore(deps)", "build(deps)"))
        ):
            continue
        title, number = match.groups()
        lines = [
            line
            for line in rest.strip().split("\n")
            if not _TRAILER.match(line) and line.strip() != "---------"
        ]
        content = strip_empty_headings(f"{title} #{number}\n\n" + "\n".join(lines).strip())
        if len(content) < 300:
            continue
        episodes.append(
            {
                "external_id": f"{prefix}-pr-{number}",
                "author": author,
                "reference_time": date,
                "source": f"github:{slug}",
                "content": trim(content, TRACKER_LIMIT),
                "url": f"https://github.com/{slug}/pull/{number}",
                "origin": f"{slug} squash commit {sha}",
                "licence": licence,
            }
        )
    return episodes


def main(mirrors: Path, out: Path) -> None:
    out.mkdir(parents=True, exist_ok=True)
    repo = lambda name: mirrors / name / "repo"  # noqa: E731
    sets = {
        "nodejs-tsc": (
            "meeting",
            pick(nodejs_tsc(repo("nodejs+TSC")), COUNTS["nodejs-tsc"], per_file=1),
        ),
        "tc39-notes": (
            "meeting",
            pick(tc39_notes(repo("tc39+notes")), COUNTS["tc39-notes"], per_file=1),
        ),
        "ossf-tac": ("meeting", pick(ossf_tac(repo("ossf+tac")), COUNTS["ossf-tac"], per_file=1)),
        "spdx-meetings": (
            "meeting",
            pick(spdx_meetings(repo("spdx+meetings")), COUNTS["spdx-meetings"], per_file=1),
        ),
        "bevy-prs": (
            "tracker",
            pick(
                squash_prs(
                    repo("bevyengine+bevy"),
                    "bevy",
                    "bevyengine/bevy",
                    "MIT OR Apache-2.0 (repository LICENSE-MIT, LICENSE-APACHE; "
                    "PR text by its author)",
                ),
                COUNTS["bevy-prs"],
            ),
        ),
        "black-prs": (
            "tracker",
            pick(
                squash_prs(
                    repo("psf+black"),
                    "black",
                    "psf/black",
                    "MIT (repository LICENSE; commit text by its authors)",
                ),
                COUNTS["black-prs"],
            ),
        ),
    }
    write_sets(out, sets, batch="dev-extra2")


if __name__ == "__main__":
    sys.path.insert(0, str(Path(__file__).parent))
    main(Path(sys.argv[1]), Path(sys.argv[2]))
