"""Support exports whose fields hold anything JSON can: every importer answers with items and
problems, or refuses the whole file with WrongFormat — never another exception (issue #14, Bad
input)."""

from __future__ import annotations

import io
import json
import zipfile

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from memory.importers import slack, table, zendesk
from memory.importers.mappings import MappingError
from memory.importers.model import WrongFormat

ANY_JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=8),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=5), inner,
                                                                max_size=3),
    max_leaves=6)
TICKET_FIELDS = ["id", "url", "created_at", "updated_at", "subject", "description", "status",
                 "priority", "requester_id", "submitter_id", "assignee_id", "organization_id",
                 "tags", "custom_fields", "brand_id"]
FIELD_MAP = "issue=custom_field:1,product=tag:p_,plan=organization_field:plan"


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.fixed_dictionaries({}, optional={k: ANY_JSON for k in TICKET_FIELDS}),
                min_size=1, max_size=4),
       st.lists(st.fixed_dictionaries({"id": st.integers(), "ticket_id": st.integers(1, 3)},
                                      optional={"created_at": ANY_JSON, "author_id": ANY_JSON,
                                                "events": ANY_JSON}), max_size=3))
def test_zendesk_pages_of_any_values_never_crash(tickets: list, audits: list) -> None:
    for n, ticket in enumerate(tickets, start=1):
        ticket.setdefault("id", n)
        ticket.setdefault("subject", "s")
    pages = [{"tickets": tickets, "users": [{"id": 1, "name": ["x"]}],
              "organizations": [{"id": 2, "organization_fields": [1]}]}, {"audits": audits}]
    payload = "\n".join(json.dumps(p) for p in pages).encode()
    try:
        result = zendesk.read(payload, mapping=FIELD_MAP)
    except WrongFormat:
        return
    assert len(result.items) + len(result.problems) >= 1


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.fixed_dictionaries({"ts": st.sampled_from(["1793005200.1", "1793005300.2"])},
                                      optional={k: ANY_JSON for k in (
                                          "type", "subtype", "user", "text", "thread_ts",
                                          "files", "user_profile", "reply_count")}),
                min_size=1, max_size=4))
def test_slack_messages_of_any_values_never_crash(messages: list) -> None:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        archive.writestr("users.json", json.dumps([{"id": "U1", "profile": 3}]))
        archive.writestr("support/2026-11-02.json", json.dumps(messages))
    result = slack.read(buffer.getvalue())
    assert all(problem.reason for problem in result.problems)


@settings(max_examples=100, deadline=None)
@given(st.lists(st.lists(st.text(max_size=12), min_size=3, max_size=3), max_size=5))
def test_csv_rows_of_any_text_never_crash(rows: list) -> None:
    out = io.StringIO()
    import csv

    writer = csv.writer(out)  # rows of any text, quoted as a spreadsheet would
    writer.writerow(["Created", "Body", "Org"])
    writer.writerows(rows)
    try:
        result = table.read(out.getvalue().encode(), mapping="reference_time=Created,"
                                                             "content=Body,customer=Org,"
                                                             "external_id=Org")
    except (WrongFormat, MappingError):
        return  # a file whose sniffed header lost a mapped column is refused as a whole
    assert all(problem.position.startswith("row ") for problem in result.problems)
