"""Headings stand for no one unless written as a speaker's label
(``memory.extraction.headings``, issue #17): a PR template's ``# Objective`` / ``## Solution`` are
parts of the text, "**Ben**" under "### Teku" is who speaks for Teku. Sentences from the corpus's
tuning sources are named by their episode id."""

from __future__ import annotations

from datetime import UTC, datetime

from memory.extraction.headings import under_speaker_label
from memory.extraction.rules import extract_with_rules
from memory.language.documents import read_document

REFERENCE_TIME = datetime(2024, 2, 19, tzinfo=UTC)


def facts(text: str) -> set[tuple[str, str, str]]:
    extraction = extract_with_rules(text, author="Sam Pettersson", reference_time=REFERENCE_TIME)
    return {(f.source, f.relation, f.target) for f in extraction.facts}


def test_a_pr_templates_section_headings_are_no_team_and_no_speaker() -> None:
    """bevy-pr-12052: "Solution MEMBER_OF Objective" was read from the template's headings."""
    text = (
        "FIX: iOS Simulator not rendering due to missing CUBE_ARRAY_TEXTURES #12052\n\n"
        "This PR closes #11978\n\n"
        "# Objective\n\n"
        "Fix rendering on iOS Simulators.\n\n"
        "## Solution\n\n"
        "- Split up NO_ARRAY_TEXTURES_SUPPORT into both NO_ARRAY_TEXTURES_SUPPORT and "
        "NO_CUBE_ARRAY_TEXTURES_SUPPORT\n"
    )
    found = facts(text)
    assert not any(relation == "MEMBER_OF" for _, relation, _ in found)
    assert any(
        source == "#11978" and relation == "DEPENDS_ON" and "#12052" in target
        for source, relation, target in found
    )  # the PR still closes its issue


def test_who_reports_first_in_bold_under_a_teams_heading_is_its_member() -> None:
    """ethpm-allcoredevs-el-meetings-meeting-132-s14, the form the reading was made for."""
    text = (
        "## Besu\n\n**Gary Schulte**\n* Yeah. Basically, we're still working on the bonsai tries.\n"
    )
    assert ("Gary Schulte", "MEMBER_OF", "Besu") in facts(text)


def test_a_markdown_heading_under_a_teams_heading_is_no_speaker() -> None:
    text = "## Besu\n\n### Gary Schulte\n* We are still working on the bonsai tries.\n"
    assert not any(relation == "MEMBER_OF" for _, relation, _ in facts(text))


def test_a_line_in_bold_or_a_handle_is_a_speakers_label_and_a_markdown_heading_is_not() -> None:
    document = read_document(
        "## Teku\n\n**Ben**\n\n* doing some optimisation\n\n"
        "## Solution\n\n- split the flag in two\n"
    )
    under_bold, under_heading = document.passages
    assert under_bold.headings == ("Teku", "Ben") and under_speaker_label(under_bold)
    assert under_heading.headings == ("Solution",) and not under_speaker_label(under_heading)
