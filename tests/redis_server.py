"""A Redis server of the test's own, for the faults: started, stopped (an outage) and started
again on the same port and data directory. Never the shared Redis on 6379, which other test runs
and engineers use. Its port is ``FAULT_REDIS_PORT`` when set, else a free port chosen per server:
a fixed default port made two test runs on one machine (two checkouts, or a server a killed run
left behind) fail with "something already answers on port 6391"."""

from __future__ import annotations

import os
import shutil

from memory.bench.services import RedisService, free_port
from tests.conftest import require
from tests.worker import ARTIFACTS

PINNED_PORT = int(os.environ["FAULT_REDIS_PORT"]) if os.environ.get("FAULT_REDIS_PORT") else None


class RedisServer(RedisService):
    """``memory.bench.services.RedisService`` on the faults' port, skipped (failed in CI) where
    there is no redis-server. The port is kept across stop and start, so an outage ends on the
    same address the clients know."""

    def __init__(self, port: int | None = None) -> None:
        require(shutil.which("redis-server") is not None, "redis-server is not installed")
        super().__init__(port=port or PINNED_PORT or free_port(), log_dir=ARTIFACTS)
