"""The frozen split rule: per source file, episodes sorted by sha256("corpus-split-v1:" + id); the
first round(30%) are ``test``, the rest ``dev``. It reads ids only, never content or labels."""

from __future__ import annotations

import hashlib

SALT = "corpus-split-v1:"
TEST_SHARE = 0.3


def split_of(ids: list[str]) -> dict[str, str]:
    ordered = sorted(ids, key=lambda i: hashlib.sha256((SALT + i).encode()).hexdigest())
    test_count = round(len(ordered) * TEST_SHARE)
    return {i: ("test" if n < test_count else "dev") for n, i in enumerate(ordered)}
