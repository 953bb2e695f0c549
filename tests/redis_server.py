"""A Redis server of the test's own, for the faults: started, stopped (an outage) and started
again on the same port and data directory. Never the shared Redis on 6379, which other test runs
and engineers use. Its port is ``FAULT_REDIS_PORT`` (6391 by default)."""

from __future__ import annotations

import os
import shutil

from memory.bench.services import RedisService
from tests.conftest import require
from tests.worker import ARTIFACTS

PORT = int(os.environ.get("FAULT_REDIS_PORT", "6391"))


class RedisServer(RedisService):
    """``memory.bench.services.RedisService`` on the faults' port, skipped (failed in CI) where
    there is no redis-server."""

    def __init__(self, port: int = PORT) -> None:
        require(shutil.which("redis-server") is not None, "redis-server is not installed")
        super().__init__(port=port, log_dir=ARTIFACTS)
