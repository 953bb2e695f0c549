"""API keys: created and revoked by their user (on the API keys page or with
``manage.py create_api_key``), stored as a sha256 hash, shown in full only once.

A key looks like ``obs_1a2b3c4d_<43 random characters>``: ``obs_1a2b3c4d`` is its visible prefix,
the rest a 256-bit secret."""

from __future__ import annotations

import hashlib
import secrets
from datetime import datetime, timedelta

from django.contrib.auth.models import User
from django.db.models import Q
from django.utils import timezone

from memory.models import ApiKey

KEY_PREFIX = "obs"
TOUCH_EVERY = timedelta(seconds=60)
"""``last_used_at`` is written at most this often per key (one cheap conditional UPDATE)."""
MAX_KEY_LENGTH = 200


def hash_key(raw: str) -> str:
    return hashlib.sha256(raw.encode()).hexdigest()


def create_api_key(user: User, name: str = "") -> tuple[ApiKey, str]:
    """A new key for ``user``; returns the row and the full key (never stored, show it once)."""
    prefix = f"{KEY_PREFIX}_{secrets.token_hex(4)}"
    while ApiKey.objects.filter(prefix=prefix).exists():
        prefix = f"{KEY_PREFIX}_{secrets.token_hex(4)}"
    raw = f"{prefix}_{secrets.token_urlsafe(32)}"
    key = ApiKey.objects.create(
        user=user, name=(name or "API key").strip()[:100], prefix=prefix, hashed_key=hash_key(raw)
    )
    return key, raw


def revoke_api_key(key: ApiKey, *, now: datetime | None = None) -> bool:
    """Revoke a key (idempotent); it stops working at once."""
    revoked = ApiKey.objects.filter(pk=key.pk, revoked_at__isnull=True).update(
        revoked_at=now or timezone.now()
    )
    key.refresh_from_db(fields=["revoked_at"])
    return bool(revoked)


def authenticate_key(raw: str, *, now: datetime | None = None) -> ApiKey | None:
    """The active key ``raw`` is, with its user (one query), and its last use recorded (one
    conditional UPDATE). ``None`` for an unknown or revoked key or an inactive user."""
    if not raw or len(raw) > MAX_KEY_LENGTH:
        return None
    key = (
        ApiKey.objects.select_related("user")
        .filter(hashed_key=hash_key(raw), revoked_at__isnull=True, user__is_active=True)
        .first()
    )
    if key is None:
        return None
    now = now or timezone.now()
    ApiKey.objects.filter(pk=key.pk).filter(
        Q(last_used_at__isnull=True) | Q(last_used_at__lt=now - TOUCH_EVERY)
    ).update(last_used_at=now)
    return key


def keys_of(user: User) -> list[ApiKey]:
    return list(ApiKey.objects.filter(user=user).order_by("revoked_at", "-created_at"))
