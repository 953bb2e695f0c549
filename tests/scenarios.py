"""The stories the tests tell, as ingestion records (the ``manage.py ingest`` format). Test
modules import them from here, never from one another.

* ``SEED`` — DESIGN §1's first acceptance case: Alice, Bob and Clara's three updates, one
  pattern (the auth service refactor is the root blocker of all three).
* ``SHIPPED`` — then the backend team ships the refactor: the dependencies on it end, and the
  pattern re-forms around what blocks work now (the payments integration).
* ``TICKETS`` — support: three customers hit the same timeouts after the nightly backfill (one
  recurring issue), and a fourth changes plan (unrelated).
"""

from __future__ import annotations

from typing import Any

Record = dict[str, Any]

SEED: list[Record] = [
    {"external_id": "alice", "author": "Alice", "reference_time": "2026-11-23T09:00:00+00:00",
     "content": "The API migration is blocked. I'm waiting on the auth service refactor, "
                "which the backend team owns."},
    {"external_id": "bob", "author": "Bob", "reference_time": "2026-11-25T09:00:00+00:00",
     "content": "The payments integration is stalled. I'm also waiting on the auth service "
                "refactor from the backend team."},
    {"external_id": "clara", "author": "Clara", "reference_time": "2026-11-27T09:00:00+00:00",
     "content": "The checkout flow can't move forward because the payments integration isn't "
                "ready. That work belongs to Bob."},
]

SHIPPED: Record = {
    "external_id": "ship", "author": "Dana", "reference_time": "2026-12-02T10:00:00+00:00",
    "content": "The backend team shipped the auth service refactor.",
}

TICKETS: list[Record] = [
    {"external_id": "t1", "author": "Acme Corp", "source": "zendesk",
     "reference_time": "2026-11-17T08:10:00+00:00",
     "content": "Our exports fail with timeout errors since the nightly backfill."},
    {"external_id": "t2", "author": "Globex Inc", "source": "zendesk",
     "reference_time": "2026-11-18T07:55:00+00:00",
     "content": "We keep getting timeouts on the export. They started after the nightly "
                "backfill."},
    {"external_id": "t3", "author": "Initech Ltd", "source": "zendesk",
     "reference_time": "2026-11-19T08:30:00+00:00",
     "content": "Requests time out on the export following the nightly backfill."},
    {"external_id": "t4", "author": "Umbrella Corp", "source": "zendesk",
     "reference_time": "2026-11-19T10:00:00+00:00",
     "content": "We upgraded to the Enterprise plan."},
]
