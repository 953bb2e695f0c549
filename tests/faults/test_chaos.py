"""The fault suite: the production stack as local processes (its own Redis on a free port
or FAULT_REDIS_PORT, gunicorn, a Celery worker and beat, short stale timeouts) takes the same
episodes twice — once uninterrupted, once while its worker is killed mid-batch, Redis is stopped
during ingestion and started again, and the web process is killed mid-request. Nobody repairs
anything; the faulty run must end exactly where the clean one did (``memory.bench.chaos``,
``manage.py chaos``)."""

from __future__ import annotations

import pytest

from memory.bench import chaos
from tests.redis_server import PINNED_PORT, RedisServer
from tests.worker import ARTIFACTS, require_worker_services
from tests.worker import test_database_url as worker_database_url

pytestmark = [pytest.mark.worker, pytest.mark.slow, pytest.mark.django_db(transaction=True)]


def test_after_every_fault_each_episode_is_processed_once_and_the_facts_match_a_clean_run(
) -> None:
    require_worker_services()
    RedisServer()  # skips (fails in CI) without redis-server
    report = chaos.run(chaos.Options(
        episodes=400, batch=40, database_url=worker_database_url(), log_dir=ARTIFACTS / "chaos",
        redis_port=PINNED_PORT, stale_seconds=6, outage_seconds=6,
    ), say=lambda line: None)
    (ARTIFACTS / "chaos-table.md").write_text(report.table() + "\n")
    clean, faulty = report.clean, report.faulty

    # Every accepted episode stored and processed exactly once; nothing left waiting.
    assert faulty.accepted == faulty.stored == faulty.processed == faulty.records
    assert (faulty.duplicated, faulty.stuck, faulty.failed) == (0, 0, 0)
    assert faulty.evidence_rows == clean.evidence_rows
    # The pipeline published, and the world as known at the end is the clean run's.
    assert faulty.runs_published >= 1
    assert not any(report.as_of_differences), report.table()
    assert not any(report.known_at_differences), report.table()
    assert report.observation_differences == 0, report.table()
    # Each fault happened, and none of them showed the client a 500.
    faults = {window.fault: window for window in report.windows}
    assert set(faults) == {"none", "worker killed mid-batch", "Redis stopped during ingestion",
                           "web process killed mid-request"}
    assert "killed holding 0 " not in faults["worker killed mid-batch"].notes[0]
    assert faults["Redis stopped during ingestion"].ok >= 1
    assert faults["web process killed mid-request"].connection_errors >= 1
    assert all(window.server_errors == 0 for window in report.windows), report.table()
    assert report.met
