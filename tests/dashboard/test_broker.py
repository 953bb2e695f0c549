"""The broker transport on a Redis server of the test's own: a channel closed after Celery
detached its connection (what a Redis outage mid-wait leads to) leaves its unacknowledged
messages in Redis for redelivery instead of failing with an error that stopped the worker."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
import redis as redis_py
from kombu import Connection, Exchange, Queue

from dashboard.broker import Transport
from tests.redis_server import RedisServer


@pytest.fixture
def redis_server() -> Iterator[RedisServer]:
    server = RedisServer().start()
    try:
        yield server
    finally:
        server.close()


def delivered_but_unacknowledged(connection: Connection) -> list[object]:
    queue = Queue("work", Exchange("work"), "work")
    with connection.Producer() as producer:
        producer.publish({"episode": 1}, exchange=queue.exchange, routing_key="work",
                         declare=[queue])
    received: list[object] = []
    consumer = connection.Consumer([queue], callbacks=[lambda body, message: received.append(
        message)], accept=["json"])
    consumer.consume()
    connection.drain_events(timeout=5)
    return received


def test_closing_a_channel_whose_connection_was_detached_keeps_its_messages_in_redis(
    redis_server: RedisServer,
) -> None:
    connection = Connection(redis_server.url(0), transport=Transport)
    assert len(delivered_but_unacknowledged(connection)) == 1
    channel = connection.default_channel
    # Celery's reconnection collected the connection (detaching its transport) while closing
    # this channel had failed: the channel is closed afterwards, with its message unacked.
    channel.connection.client = None

    channel.close()  # kombu's own transport: AttributeError 'NoneType' ... 'hostname'

    unacked = redis_py.Redis.from_url(redis_server.url(0)).hlen("unacked")
    assert unacked == 1  # redelivered by Redis after the visibility timeout


def test_acknowledging_on_a_channel_whose_connection_was_detached_leaves_it_to_redelivery(
    redis_server: RedisServer,
) -> None:
    connection = Connection(redis_server.url(0), transport=Transport)
    (message,) = delivered_but_unacknowledged(connection)
    # The task ran through an outage; the worker reconnected on a new connection, and the task's
    # acknowledgement reaches its old channel, whose connection Celery collected.
    message.channel._disconnect_pools()  # as closing the old connection did
    message.channel.connection = None

    message.ack()  # kombu's own transport: AttributeError 'NoneType' ... 'client'

    assert not message.channel.qos._delivered  # forgotten here,
    assert redis_py.Redis.from_url(redis_server.url(0)).hlen("unacked") == 1  # kept in Redis


def test_the_transport_is_celerys_redis_transport_when_redis_is_configured(settings) -> None:
    from dashboard.celery import app

    if not settings.REDIS_URL:
        assert settings.CELERY_BROKER_TRANSPORT is None
    else:
        assert app.conf.broker_transport == "dashboard.broker:Transport"
