import { loadPg } from "./pg-lazy.js";

/** Whoever holds a runner id on PostgreSQL: its pid (and host) when the database knows them. */
export interface RunnerHolder {
  pid: number | null;
  host: string | null;
  url: string | null;
}

/** A held runner id: kept while this process's claim connection lives. */
export interface RunnerClaim {
  release(): Promise<void>;
}

const PREFIX = "grove-runner:";

/**
 * LIVE-1 on PostgreSQL: a live claim on the runner id, so two processes can never act as one
 * runner (each would recover, clean up and compute Changes for the other's environments). The
 * claim is a session-level advisory lock held by one dedicated connection for the life of the
 * process: the database releases it when that connection ends, a crashed process included. The
 * connection's `application_name` names the holder (`grove-runner:<id>:<pid>@<host>`), so a
 * refused start can say who holds it. Taken before migrations and recovery; runners with their
 * own ids never contend.
 */
export async function claimRunner(
  databaseUrl: string,
  runnerId: string,
  me: { pid: number; host: string },
): Promise<{ claim: RunnerClaim } | { heldBy: RunnerHolder }> {
  // application_name holds at most 63 bytes: the id is what the lookup needs, the rest is a hint.
  const appName = `${PREFIX}${runnerId}:${me.pid}@${me.host}`.slice(0, 63);
  const client = new (loadPg().Client)({ connectionString: databaseUrl, application_name: appName });
  client.on("error", () => undefined);
  await client.connect();
  try {
    const r = await client.query<{ ok: boolean }>("SELECT pg_try_advisory_lock(hashtextextended($1, 0)) AS ok", [`${PREFIX}${runnerId}`]);
    if (r.rows[0]?.ok) {
      return { claim: { release: () => client.end().catch(() => undefined) } };
    }
    const heldBy = await holderOf(client, runnerId);
    await client.end().catch(() => undefined);
    return { heldBy };
  } catch (e) {
    await client.end().catch(() => undefined);
    throw e;
  }
}

async function holderOf(client: InstanceType<ReturnType<typeof loadPg>["Client"]>, runnerId: string): Promise<RunnerHolder> {
  const mine = `${PREFIX}${runnerId}:`;
  const a = await client.query<{ application_name: string }>(
    // Advisory locks belong to one database: a holder of the same id in another database of the
    // same server (another installation) holds nothing here and is not the one to name.
    "SELECT application_name FROM pg_stat_activity WHERE datname = current_database() AND left(application_name, length($1)) = $1 AND pid <> pg_backend_pid() ORDER BY backend_start LIMIT 1",
    [mine],
  );
  const m = /^(\d+)@(.*)$/.exec(a.rows[0]?.application_name.slice(mine.length) ?? "");
  // The runners table exists once any server migrated this database; its URL is the holder's.
  const u = await client
    .query<{ url: string | null }>("SELECT url FROM runners WHERE id = $1", [runnerId])
    .catch(() => ({ rows: [] as { url: string | null }[] }));
  return { pid: m ? Number(m[1]) : null, host: m?.[2] ?? null, url: u.rows[0]?.url ?? null };
}
