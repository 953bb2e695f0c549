"""Counting tokens as OpenAI's recent models do: the ``o200k_base`` encoding, with ``tiktoken``.

``tiktoken`` downloads its encoding files at run time, which this project may not do, so the
encoding file ships here (``data/o200k_base.tiktoken.gz``): OpenAI's ``o200k_base.tiktoken``,
rebuilt byte for byte from the BPE ranks the ``js-tiktoken`` npm package carries, and checked
against the sha256 OpenAI publishes for the file (the same hash ``tiktoken`` itself checks). The
split pattern and special tokens are ``tiktoken_ext.openai_public.o200k_base``'s.

The fake model server uses ``count`` for the ``usage`` of its answers, so the audit rows of a
bench carry real token counts. Without ``tiktoken`` installed (it is in the ``bench`` and ``test``
extras) ``count`` falls back to an approximation, one token per four characters, and
``COUNTER`` says which one counted.
"""

from __future__ import annotations

import base64
import functools
import gzip
import hashlib
import json
import math
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

ENCODING_FILE = Path(__file__).with_name("data") / "o200k_base.tiktoken.gz"
OPENAI_SHA256 = "446a9538cb6c348e3516120d7c08b09f57c36495e2acfffe59a5bf8b0cfb1a2d"
"""``expected_hash`` of ``o200k_base.tiktoken`` in ``tiktoken_ext/openai_public.py``."""
PATTERN = "|".join([
    r"""[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]*[\p{Ll}\p{Lm}\p{Lo}\p{M}]+(?i:'s|'t|'re|'ve|'m|'ll|'d)?""",
    r"""[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]+[\p{Ll}\p{Lm}\p{Lo}\p{M}]*(?i:'s|'t|'re|'ve|'m|'ll|'d)?""",
    r"""\p{N}{1,3}""",
    r""" ?[^\s\p{L}\p{N}]+[\r\n/]*""",
    r"""\s*[\r\n]+""",
    r"""\s+(?!\S)""",
    r"""\s+""",
])
SPECIAL_TOKENS = {"<|endoftext|>": 199999, "<|endofprompt|>": 200018}
MESSAGE_OVERHEAD = 3
"""Tokens OpenAI's chat format adds per message (role and separators), and once more to prime
the reply: its published way of counting a chat prompt."""


@functools.cache
def encoding() -> Any | None:
    """The ``o200k_base`` encoding, or ``None`` without ``tiktoken``."""
    try:
        import tiktoken
    except ImportError:
        return None
    data = gzip.decompress(ENCODING_FILE.read_bytes())
    if hashlib.sha256(data).hexdigest() != OPENAI_SHA256:
        raise ValueError(f"{ENCODING_FILE} is not OpenAI's o200k_base.tiktoken (hash differs)")
    ranks = {
        base64.b64decode(token): int(rank)
        for token, rank in (line.split() for line in data.splitlines() if line)
    }
    return tiktoken.Encoding(name="o200k_base", pat_str=PATTERN, mergeable_ranks=ranks,
                             special_tokens=SPECIAL_TOKENS)


def counter() -> str:
    """Which counter ``count`` uses (printed with the figures it produced)."""
    if encoding() is None:
        return "an approximation: one token per four characters (tiktoken is not installed)"
    import tiktoken

    return f"tiktoken {tiktoken.__version__}, o200k_base (vendored, sha256-checked)"


def count(text: str) -> int:
    enc = encoding()
    if enc is None:
        return math.ceil(len(text) / 4)
    return len(enc.encode(text, disallowed_special=()))


def chat_prompt_tokens(messages: Sequence[Mapping[str, Any]],
                       response_format: Mapping[str, Any] | None = None) -> int:
    """A chat request's prompt tokens: each message's content and overhead, the reply's
    priming, and a JSON schema sent as ``response_format`` (the server puts it in the prompt;
    counted as its compact JSON text)."""
    total = MESSAGE_OVERHEAD
    for message in messages:
        total += MESSAGE_OVERHEAD + count(str(message.get("content") or ""))
    schema = ((response_format or {}).get("json_schema") or {}).get("schema")
    if schema is not None:
        total += count(json.dumps(schema, separators=(",", ":")))
    return total
