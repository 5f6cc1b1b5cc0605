import type { ConnectionOptions } from '@nats-io/nats-core';

/**
 * How often a connection asks its NATS server for a PONG, and how many may go unanswered before it counts the
 * server as gone and moves to another of `NATS_URL`'s servers. nats.js asks every 2 minutes and gives up after
 * two: a process connected to a node that froze (or hangs behind a partition with its sockets open) stayed on it
 * for minutes, its relay publishing into the silence and its response cache believing it heard every announcement
 * (issue 37: in a 30 s freeze of one node, one relay published nothing for the whole freeze). Here a silent server is
 * left after 10-15 s; a ping every 5 s is one small frame per connection.
 */
export const NATS_PING_INTERVAL_MS = 5_000;
export const NATS_MAX_PINGS_OUT = 2;

/**
 * The options of every connection the project opens (`EventBus`, the gateway's announcements): `NATS_URL`'s
 * comma-separated servers, reconnecting for ever, and the pings above.
 */
export function natsClientOptions(url: string, name: string): ConnectionOptions {
  return {
    servers: url.split(',').map((server) => server.trim()),
    name,
    reconnect: true,
    maxReconnectAttempts: -1,
    reconnectTimeWait: 500,
    waitOnFirstConnect: true,
    pingInterval: NATS_PING_INTERVAL_MS,
    maxPingOut: NATS_MAX_PINGS_OUT,
  };
}
