import type pg from "pg";
import { loadPg } from "./pg-lazy.js";

/** The PostgreSQL channel every Grove process of one database listens on. */
const CHANNEL = "grove_events";
/** NOTIFY payloads are limited to 8000 bytes; the relay stays well below. */
export const MAX_RELAY_PAYLOAD_BYTES = 7500;

export interface EventRelay {
  /** Sends a payload to every other process listening on the database. */
  publish(payload: string): Promise<void>;
  close(): Promise<void>;
}

/**
 * ST-3: fan-out of event frames between server processes sharing one PostgreSQL database,
 * through LISTEN/NOTIFY on a dedicated connection. Best effort: a frame published while a
 * process is disconnected is not replayed to it (clients re-read state after a reconnect).
 * A lost connection is reopened after a pause.
 */
export async function openPgEventRelay(opts: { databaseUrl: string; onPayload: (payload: string) => void; onError: (e: Error) => void }): Promise<EventRelay> {
  let client: pg.Client | undefined;
  let closed = false;
  let retry: NodeJS.Timeout | undefined;

  const connect = async (): Promise<void> => {
    const c = new (loadPg().Client)({ connectionString: opts.databaseUrl });
    c.on("notification", (n) => {
      if (n.channel === CHANNEL && n.payload !== undefined) opts.onPayload(n.payload);
    });
    c.on("error", (e) => {
      opts.onError(e);
      if (client === c) client = undefined;
      void c.end().catch(() => undefined);
      scheduleReconnect();
    });
    await c.connect();
    await c.query(`LISTEN ${CHANNEL}`);
    if (closed) {
      await c.end();
      return;
    }
    client = c;
  };
  const scheduleReconnect = () => {
    if (closed || retry) return;
    retry = setTimeout(() => {
      retry = undefined;
      connect().catch((e: unknown) => {
        opts.onError(e as Error);
        scheduleReconnect();
      });
    }, 1000);
    retry.unref();
  };

  await connect();
  // One query at a time on the connection (pg deprecates overlapping queries on one client);
  // the chain also keeps frames in publishing order.
  let chain: Promise<void> = Promise.resolve();
  return {
    publish(payload) {
      if (Buffer.byteLength(payload) > MAX_RELAY_PAYLOAD_BYTES)
        return Promise.reject(new Error(`event payload of ${Buffer.byteLength(payload)} bytes exceeds the relay limit`));
      const sent = chain.then(async () => {
        if (client) await client.query("SELECT pg_notify($1, $2)", [CHANNEL, payload]);
      });
      chain = sent.catch(() => undefined);
      return sent;
    },
    async close() {
      closed = true;
      if (retry) clearTimeout(retry);
      const c = client;
      client = undefined;
      await c?.end().catch(() => undefined);
    },
  };
}
