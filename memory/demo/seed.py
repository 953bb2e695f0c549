"""The seed example: the three updates of DESIGN §1, the first acceptance case.

Alice (Monday), Bob (Wednesday) and Clara (Friday) each report one problem; together they are one
pattern — the auth service refactor is the root blocker of a chain across three people."""

from __future__ import annotations

from memory.demo import DemoGraph, DemoUpdate

UPDATES: tuple[DemoUpdate, ...] = (
    {
        "external_id": "seed-alice", "week": 2, "day": 0, "hour": 9, "minute": 30,
        "author": "Alice", "source": "weekly-status",
        "content": "The API migration is blocked. I'm waiting on the auth service refactor, "
                   "which the backend team owns.",
    },
    {
        "external_id": "seed-bob", "week": 2, "day": 2, "hour": 10, "minute": 15,
        "author": "Bob", "source": "weekly-status",
        "content": "The payments integration is stalled. I'm also waiting on the auth service "
                   "refactor from the backend team.",
    },
    {
        "external_id": "seed-clara", "week": 2, "day": 4, "hour": 16,
        "author": "Clara", "source": "weekly-status",
        "content": "The checkout flow can't move forward because the payments integration isn't "
                   "ready. That work belongs to Bob.",
    },
)

GRAPH = DemoGraph(
    slug="seed",
    name="Seed example",
    description=(
        "Three status updates from last week (Alice on Monday, Bob on Wednesday, Clara on "
        "Friday). Each reports its own problem; together they show one root blocker."
    ),
    updates=UPDATES,
)
