"""Processing episodes: extract → resolve entities → apply the time rules → record facts.

Four jobs, one module each:

- ``reading``: which extractor reads an episode and what it is told about known names;
- ``recording``: recording one extraction's facts under the time rules (DESIGN §3);
- ``batches``: applying a batch of one graph's episodes in one transaction under its lock;
- ``queue``: claiming a graph's episodes in ingestion order, processing them batch by batch,
  failures and retries.

The names below are what the rest of the product calls.
"""

from memory.processing.batches import apply_episode, apply_episodes, describe
from memory.processing.queue import (
    BATCH_SIZE,
    DRAIN_SECONDS,
    MAX_ATTEMPTS,
    claim_next,
    mark_failed,
    process_episode,
    process_episodes,
    retry_episode,
    stale_processing_seconds,
)
from memory.processing.reading import NamesRead, episode_text, extract_episode

__all__ = [
    "BATCH_SIZE",
    "DRAIN_SECONDS",
    "MAX_ATTEMPTS",
    "NamesRead",
    "apply_episode",
    "apply_episodes",
    "claim_next",
    "describe",
    "episode_text",
    "extract_episode",
    "mark_failed",
    "process_episode",
    "process_episodes",
    "retry_episode",
    "stale_processing_seconds",
]
