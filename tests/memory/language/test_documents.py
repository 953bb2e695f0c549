"""Documents: headings give context, list items are read one by one, what is not prose (code,
tables, quotations, comments, signatures) is left unread."""

from __future__ import annotations

from memory.language.documents import (
    LABEL_LEVEL,
    MAX_LINE_LENGTH,
    MAX_LINES,
    Passage,
    read_document,
)

AGENDA = """# Weekly triage

## MCPs blocked on unresolved concerns
- "Amend target policy" compiler-team#123
  - waiting on @bob

- "Add hygiene attributes" compiler-team#692

PRs waiting on team:
- #1234 Stabilize foo

Everyone agreed to meet again next week.
"""


def test_list_items_carry_their_headings_and_parents_and_headings_are_no_passages() -> None:
    document = read_document(AGENDA)

    assert document.passages == [
        Passage('"Amend target policy" compiler-team#123',
                ("Weekly triage", "MCPs blocked on unresolved concerns"), (), item=True),
        Passage("waiting on @bob", ("Weekly triage", "MCPs blocked on unresolved concerns"),
                ('"Amend target policy" compiler-team#123',), item=True),
        Passage('"Add hygiene attributes" compiler-team#692',
                ("Weekly triage", "MCPs blocked on unresolved concerns"), (), item=True),
        Passage("#1234 Stabilize foo",
                ("Weekly triage", "MCPs blocked on unresolved concerns", "PRs waiting on team"),
                (), item=True),
        Passage("Everyone agreed to meet again next week.",
                ("Weekly triage", "MCPs blocked on unresolved concerns"), (), item=True),
    ]


def test_code_tables_quotations_and_comments_are_skipped_and_counted() -> None:
    document = read_document(
        "Status:\n```\nblocked_on(x)\n```\n| a | b |\n|---|---|\n| x | y |\n"
        "> Farah wrote that the migration slipped\n<!-- blocked on the auth refactor -->\n"
        "The export is done.\n"
    )

    assert [p.text for p in document.passages] == ["Status:", "The export is done."]
    assert document.skipped == {"code": 1, "table": 3, "quote": 1}


def test_wrapped_lines_and_continued_items_join_their_sentence() -> None:
    document = read_document(
        "This commit moves Cargo onto stable Rust now that the necessary fs features\n"
        "have been stabilized.\n\n"
        "* Michael reports this has been sent to the board, a few comments from Charlie\n"
        "    we have addressed.\n"
    )

    assert [p.text for p in document.passages] == [
        "This commit moves Cargo onto stable Rust now that the necessary fs features have been "
        "stabilized.",
        "Michael reports this has been sent to the board, a few comments from Charlie we have "
        "addressed.",
    ]


def test_a_ticket_header_names_its_sender_and_a_sign_off_its_signature() -> None:
    document = read_document("Ticket from Globex: our exports keep failing.\n\nThanks,\nJane Doe\n")

    assert document.sender == "Globex"
    assert document.signature == "Jane Doe"
    assert [p.text for p in document.passages] == ["our exports keep failing."]


def test_the_first_line_is_kept_as_the_title_line() -> None:
    assert read_document("\n\n# Docker won't start #1089\nIt hangs.").first_line == (
        "# Docker won't start #1089")


def test_a_document_is_read_to_a_bounded_size() -> None:
    document = read_document(("word " * 1000 + "\n") * (MAX_LINES + 10))

    assert len(document.passages) <= MAX_LINES
    assert all(len(p.text) <= MAX_LINE_LENGTH for p in document.passages)


def test_each_heading_keeps_its_level_markdowns_or_a_labels() -> None:
    document = read_document("# Objective\n\n## Solution\n\n**Ben**\n\n* split the flag in two\n")

    (passage,) = document.passages
    assert passage.headings == ("Objective", "Solution", "Ben")
    assert passage.heading_levels == (1, 2, LABEL_LEVEL)


def test_a_task_lists_box_is_kept_beside_the_items_words() -> None:
    """"- [ ] …" is an open task, "- [x] …" a done one (``memory.extraction.task_items``); the
    words are the item's as before."""
    text = "## Plan\n- [ ] @bob review the plan\n- [x] Ship it\n- Notes\n"
    passages = read_document(text).passages
    assert [(p.text, p.task) for p in passages] == [
        ("@bob review the plan", "open"),
        ("Ship it", "done"),
        ("Notes", None),
    ]


def test_the_body_rows_of_a_table_with_a_header_are_kept_as_data_not_passages() -> None:
    document = read_document(
        "## Actions\n\n| Item | Owner |\n|---|---|\n| Update the doc | Alice |\n\n"
        "| no | header |\n| just | rows |\n"
    )
    assert document.passages == []
    assert [(r.header, r.cells, r.line, r.headings) for r in document.rows] == [
        (("Item", "Owner"), ("Update the doc", "Alice"), "| Update the doc | Alice |",
         ("Actions",)),
    ]
