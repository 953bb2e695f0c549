"""Import throughput of the support formats: tickets (or threads) parsed from an export file and
mapped to episode records per second — ``read_export`` + ``map_items``, no database (what is
stored after that is ingestion's speed, measured by the scenarios).

The exports are generated in the shapes the importers' fixtures document (Zendesk's incremental
ticket page with users and organizations side-loaded and three audits per ticket; a Slack zip of
threads; a CSV of one row per ticket), seeded, so the same arguments give the same files.
"""

from __future__ import annotations

import csv
import io
import json
import random
import time
import zipfile
from datetime import UTC, datetime, timedelta
from typing import Any

from memory.importers import read_export
from memory.importers.mapping import map_items

START = datetime(2026, 9, 1, 8, tzinfo=UTC)
SYMPTOMS = ["Our exports fail with timeout errors after the nightly backfill.",
            "We can't log in to the mobile app.", "The checkout page returns 502 errors.",
            "Webhooks keep failing since the deploy.", "Dashboards are slow every morning."]


def _iso(moment: datetime) -> str:
    return moment.strftime("%Y-%m-%dT%H:%M:%SZ")


def zendesk_export(tickets: int, seed: int = 7) -> bytes:
    rng = random.Random(seed)
    orgs = [{"id": 1000 + n, "name": f"Customer {n}", "organization_fields": {
        "plan": rng.choice(["Pro", "Business", "Enterprise"])}} for n in range(200)]
    users = [{"id": 5000 + n, "name": f"Requester {n}", "role": "end-user",
              "organization_id": 1000 + n % 200} for n in range(1000)]
    users += [{"id": 90, "name": "Dana Agent", "role": "agent"}]
    page_tickets, audits = [], []
    for n in range(tickets):
        created = START + timedelta(minutes=7 * n)
        requester = 5000 + rng.randrange(1000)
        page_tickets.append({
            "id": 10_000 + n, "url": f"https://acme.zendesk.com/api/v2/tickets/{10_000 + n}.json",
            "created_at": _iso(created), "updated_at": _iso(created + timedelta(days=2)),
            "subject": f"Ticket {n}", "description": rng.choice(SYMPTOMS),
            "status": "solved", "priority": "normal", "requester_id": requester,
            "submitter_id": requester, "assignee_id": 90,
            "organization_id": 1000 + (requester - 5000) % 200, "tags": ["api"],
            "custom_fields": [{"id": 1, "value": f"issue_{n % 40}"}]})
        for k, (status, hours) in enumerate([("new", 0), ("open", 3), ("solved", 48)]):
            audits.append({"id": n * 3 + k, "ticket_id": 10_000 + n,
                           "created_at": _iso(created + timedelta(hours=hours)),
                           "author_id": requester if k == 0 else 90, "events": [
                               {"type": "Create" if k == 0 else "Change",
                                "field_name": "status", "value": status},
                               {"type": "Comment", "public": True,
                                "body": rng.choice(SYMPTOMS) if k == 0 else "Thanks."}]})
    pages = [{"tickets": page_tickets, "users": users, "organizations": orgs,
              "end_of_stream": True}, {"audits": audits}]
    return "\n".join(json.dumps(p) for p in pages).encode()


def csv_export(tickets: int, seed: int = 7) -> bytes:
    rng = random.Random(seed)
    out = io.StringIO(newline="")
    writer = csv.writer(out)
    writer.writerow(["Ticket ID", "Created", "Requester", "Company", "Subject", "Description",
                     "Status", "Plan"])
    for n in range(tickets):
        writer.writerow([n, (START + timedelta(minutes=7 * n)).strftime("%Y-%m-%d %H:%M"),
                         f"Requester {n % 1000}", f"Customer {n % 200}", f"Ticket {n}",
                         rng.choice(SYMPTOMS), rng.choice(["Open", "Pending", "Solved"]),
                         rng.choice(["Pro", "Enterprise"])])
    return out.getvalue().encode()


CSV_MAP = ("external_id=Ticket ID,reference_time=Created,author=Requester,customer=Company,"
           "subject=Subject,content=Description,status=Status,plan=Plan")


def slack_export(threads: int, seed: int = 7) -> bytes:
    rng = random.Random(seed)
    buffer = io.BytesIO()
    days: dict[str, list[dict[str, Any]]] = {}
    for n in range(threads):
        ts = (START + timedelta(minutes=11 * n)).timestamp()
        thread = f"{ts:.6f}"
        day = datetime.fromtimestamp(ts, tz=UTC).strftime("%Y-%m-%d")
        messages = days.setdefault(day, [])
        messages.append({"type": "message", "user": f"U{n % 50}", "ts": thread,
                         "thread_ts": thread, "reply_count": 2, "text": rng.choice(SYMPTOMS)})
        for k in (1, 2):
            messages.append({"type": "message", "user": f"U{(n + k) % 50}",
                             "ts": f"{ts + 60 * k:.6f}", "thread_ts": thread,
                             "text": "Same here, <@U1> can you look?"})
    with zipfile.ZipFile(buffer, "w") as archive:
        archive.writestr("users.json", json.dumps(
            [{"id": f"U{n}", "name": f"user{n}", "real_name": f"User {n}"} for n in range(50)]))
        archive.writestr("channels.json", json.dumps([{"id": "C1", "name": "support"}]))
        for day, messages in days.items():
            archive.writestr(f"support/{day}.json", json.dumps(messages))
    return buffer.getvalue()


def measure(fmt: str, payload: bytes, options: dict[str, Any]) -> dict[str, Any]:
    """Wall time, and the process's CPU time: on a shared machine the wall time also counts
    the other processes' turns."""
    started, cpu = time.perf_counter(), time.process_time()
    result = read_export(fmt, payload, **options)
    mapped = map_items(result.items)
    seconds, cpu_seconds = time.perf_counter() - started, time.process_time() - cpu
    items = len(result.items)
    return {"format": fmt, "items": items, "episodes": len(mapped),
            "problems": len(result.problems), "seconds": seconds, "cpu_seconds": cpu_seconds,
            "items_per_second": items / seconds if seconds else 0.0,
            "items_per_cpu_second": items / cpu_seconds if cpu_seconds else 0.0,
            "episodes_per_second": len(mapped) / seconds if seconds else 0.0,
            "bytes": len(payload)}


def measure_imports(tickets: int = 20_000, seed: int = 7) -> list[dict[str, Any]]:
    """Throughput of each support format on ``tickets`` tickets (Slack: threads)."""
    return [
        measure("zendesk", zendesk_export(tickets, seed),
                {"mapping": "issue=custom_field:1,plan=organization_field:plan"}),
        measure("csv", csv_export(tickets, seed), {"mapping": CSV_MAP}),
        measure("slack", slack_export(tickets, seed), {}),
    ]
