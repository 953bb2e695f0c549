"""What a heading may stand for, by how it is written (issue #17: headings are never entities
unless their form says so).

A PR template's ``# Objective`` / ``## Solution`` or a minutes file's ``## Notes`` are Markdown
section headings: they name a part of the text. Minutes write who speaks as a line in bold alone
or a label ("**Ben**", "Ben:"), under the team's heading ("### Teku"). Only that form makes a
heading a speaker.
"""

from __future__ import annotations

from memory.language.documents import LABEL_LEVEL, Passage


def under_speaker_label(passage: Passage) -> bool:
    """Whether the innermost heading above ``passage`` is written as a speaker's label (a line in
    bold alone, a handle or a label), not as a Markdown section heading."""
    levels = passage.heading_levels
    return bool(levels) and len(levels) == len(passage.headings) and levels[-1] >= LABEL_LEVEL
