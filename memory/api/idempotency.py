"""``Idempotency-Key`` on writes (draft-ietf-httpapi-idempotency-key-header):

* the same key with the same request → the first response, replayed (``Idempotent-Replayed:
  true``), nothing done twice;
* the same key with another request (method, path or body differ) → 422;
* the same key while the first request is still being processed → 409 with ``Retry-After``;
* keys are scoped to the API key that sent them (the user, for browser sessions) and expire after
  ``IDEMPOTENCY_TTL_SECONDS`` (24 h).

"Still being processed" is decided precisely on PostgreSQL: the request holds a session advisory
lock for its key, which PostgreSQL releases the moment the server holding it dies, so a client that
retries after a crash takes over at once. On SQLite (one machine, the embedded default) a lease
(``IDEMPOTENCY_LEASE_SECONDS``) stands in for it.

Only 2xx and 400 responses are stored; any other outcome releases the key, so a retry runs the
request again — which the ingestion's own idempotency (external ids, content hashes) makes safe.
"""

from __future__ import annotations

import functools
import hashlib
import json
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from datetime import timedelta
from typing import Any

from django.conf import settings
from django.db import IntegrityError, connection, transaction
from django.utils import timezone
from rest_framework import status
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.utils.encoders import JSONEncoder

from memory.api.errors import ApiError
from memory.models import ApiKey, IdempotencyRecord

HEADER = "Idempotency-Key"
MAX_KEY_LENGTH = 255
STORED_STATUSES = range(200, 300)


def ttl() -> timedelta:
    # The defaults (24 h, 60 s) are the settings' own: one place, not a second fallback here.
    return timedelta(seconds=settings.IDEMPOTENCY_TTL_SECONDS)


def lease() -> timedelta:
    return timedelta(seconds=settings.IDEMPOTENCY_LEASE_SECONDS)


def scope_of(request: Request) -> str:
    if isinstance(request.auth, ApiKey):
        return f"key:{request.auth.pk}"
    return f"user:{request.user.pk}"


def fingerprint(request: Request) -> str:
    digest = hashlib.sha256()
    digest.update((request.method or "").encode())
    digest.update(b"\n")
    digest.update(request.get_full_path().encode())
    digest.update(b"\n")
    digest.update(request.body)
    return digest.hexdigest()


def idempotent(handler: Callable[..., Response]) -> Callable[..., Response]:
    """Decorate a DRF view's write handler (``post``, ``delete``) to honour Idempotency-Key."""

    @functools.wraps(handler)
    def wrapper(view: Any, request: Request, *args: Any, **kwargs: Any) -> Response:
        key = request.headers.get(HEADER)
        if key is None:
            return handler(view, request, *args, **kwargs)
        return run_once(request, key, lambda: handler(view, request, *args, **kwargs))

    return wrapper


def run_once(request: Request, key: str, execute: Callable[[], Response]) -> Response:
    key = key.strip()
    if not key or len(key) > MAX_KEY_LENGTH:
        raise ApiError(status.HTTP_400_BAD_REQUEST, "invalid_idempotency_key",
                       f"{HEADER} must be 1 to {MAX_KEY_LENGTH} characters.", param=HEADER)
    scope, print_ = scope_of(request), fingerprint(request)
    with _advisory_lock(scope, key) as locked:
        if not locked:
            raise _in_flight(1)
        record = _claim(scope, key, print_)
        if record.state == IdempotencyRecord.State.DONE:
            return Response(record.response_body, status=record.response_status,
                            headers={"Idempotent-Replayed": "true"})
        try:
            response = execute()
        except BaseException:
            IdempotencyRecord.objects.filter(pk=record.pk).delete()
            raise
        if response.status_code in STORED_STATUSES:
            body = json.loads(json.dumps(response.data, cls=JSONEncoder))
            IdempotencyRecord.objects.filter(pk=record.pk).update(
                state=IdempotencyRecord.State.DONE, response_status=response.status_code,
                response_body=body,
            )
        else:
            IdempotencyRecord.objects.filter(pk=record.pk).delete()
        return response


def _claim(scope: str, key: str, print_: str) -> IdempotencyRecord:
    """The record this request owns (new, or taken over from a dead request), or a finished one
    to replay. Raises 422 for another request under the key, 409 while one is in flight."""
    for _ in range(3):
        now = timezone.now()
        try:
            with transaction.atomic():
                return IdempotencyRecord.objects.create(
                    scope=scope, key=key, fingerprint=print_, locked_until=now + lease(),
                    expires_at=now + ttl(),
                )
        except IntegrityError:
            pass
        record = IdempotencyRecord.objects.filter(scope=scope, key=key).first()
        if record is None:
            continue
        if record.expires_at <= now:
            IdempotencyRecord.objects.filter(pk=record.pk, expires_at__lte=now).delete()
            continue
        if record.fingerprint != print_:
            raise ApiError(
                status.HTTP_422_UNPROCESSABLE_ENTITY, "idempotency_key_reused",
                f"This {HEADER} was already used for a different request; use a new key for a "
                "new request.", param=HEADER,
            )
        if record.state == IdempotencyRecord.State.DONE:
            return record
        if _holds_precise_lock():
            # We hold the advisory lock, so whoever created the record is gone: take it over.
            IdempotencyRecord.objects.filter(pk=record.pk).update(locked_until=now + lease())
            return record
        taken = IdempotencyRecord.objects.filter(
            pk=record.pk, state=IdempotencyRecord.State.IN_FLIGHT, locked_until__lte=now
        ).update(locked_until=now + lease())
        if taken:
            return record
        raise _in_flight(max(1, int((record.locked_until - now).total_seconds()) + 1))
    raise _in_flight(1)


def _in_flight(retry_after: int) -> ApiError:
    return ApiError(
        status.HTTP_409_CONFLICT, "idempotency_key_in_flight",
        f"A request with this {HEADER} is still being processed; retry later.", param=HEADER,
        headers={"Retry-After": str(retry_after)},
    )


def _holds_precise_lock() -> bool:
    return connection.vendor == "postgresql"


def _lock_id(scope: str, key: str) -> int:
    digest = hashlib.sha256(f"idempotency:{scope}:{key}".encode()).digest()
    return int.from_bytes(digest[:8], "big", signed=True)


@contextmanager
def _advisory_lock(scope: str, key: str) -> Iterator[bool]:
    """On PostgreSQL, a session advisory lock for the key for the whole request (released by
    PostgreSQL itself if this process dies). Elsewhere, always ``True`` (the lease decides)."""
    if not _holds_precise_lock():
        yield True
        return
    lock = _lock_id(scope, key)
    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_try_advisory_lock(%s)", [lock])
        acquired = bool(cursor.fetchone()[0])
    try:
        yield acquired
    finally:
        if acquired:
            with connection.cursor() as cursor:
                cursor.execute("SELECT pg_advisory_unlock(%s)", [lock])


def purge_expired(*, now: Any = None) -> int:
    """Delete expired records (by the periodic sweep; cheap, indexed)."""
    deleted, _ = IdempotencyRecord.objects.filter(expires_at__lte=now or timezone.now()).delete()
    return deleted
