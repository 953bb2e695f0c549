"""Celery's Redis transport, with one failure made survivable.

When the broker connection drops while the worker waits on Redis (it nearly always does), Celery
collects the connection and then closes it. The close reaches a channel that still holds
delivered, unacknowledged messages and tries to put them back — through a connection whose
transport the collection already detached, so kombu fails with ``AttributeError: 'NoneType'
object has no attribute 'hostname'``, which is not a connection error: the worker logged
"Unrecoverable error" and exited (issue #15, 1 Redis stop in 3), and its queue waited for a
person to restart it.

The same detached channel fails a second way: a task that was running through the outage (it is
allowed to finish) is acknowledged once the worker has reconnected — on its old channel, whose
connection is gone — and kombu failed with ``AttributeError: 'NoneType' object has no attribute
'client'``, again "Unrecoverable error", and the worker exited (seen in the fault suite: the
graph never settled).

Here a channel whose connection is gone leaves those messages where they are, and its
acknowledgements and rejections with them: Redis keeps every delivered message in its "unacked"
set until it is acknowledged, and redelivers it once the visibility timeout passes — as it does
for a worker killed outright; our tasks are idempotent (a processed episode is skipped, a settle
check finds nothing new). The work they stand for is recovered sooner by the sweep: stale
episodes, queued runs and settle checks.

Selected by ``CELERY_BROKER_TRANSPORT`` whenever ``REDIS_URL`` is set.
"""

from __future__ import annotations

import logging
from typing import Any

from kombu.transport import redis

logger = logging.getLogger(__name__)


class QoS(redis.QoS):
    def _connection_gone(self) -> bool:
        return getattr(self.channel.connection, "client", None) is None

    def ack(self, delivery_tag: Any) -> None:
        if self._connection_gone():
            self._left_for_redelivery(delivery_tag, "acknowledged")
            return
        super().ack(delivery_tag)

    def reject(self, delivery_tag: Any, requeue: bool = False) -> None:
        if self._connection_gone():
            self._left_for_redelivery(delivery_tag, "rejected")
            return
        super().reject(delivery_tag, requeue=requeue)

    def _left_for_redelivery(self, delivery_tag: Any, what: str) -> None:
        logger.warning(
            "a message %s after its broker connection closed: left in Redis for redelivery "
            "after the visibility timeout (its task is idempotent)", what)
        if self._delivered is not None:  # set in QoS.__init__
            self._delivered.pop(delivery_tag, None)

    def restore_unacked(self, client: Any = None) -> Any:
        if client is None and self._connection_gone():
            delivered = self._delivered
            if delivered:
                logger.warning(
                    "broker connection closed with %d unacknowledged message(s): left in Redis "
                    "for redelivery after the visibility timeout", len(delivered))
                delivered.clear()
            return None
        return super().restore_unacked(client)


class Channel(redis.Channel):
    QoS = QoS


class Transport(redis.Transport):
    Channel = Channel
