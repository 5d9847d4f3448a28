import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { rm } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { scriptedAgentCommand } from "../../src/agents/profiles.js";
import { runGrove } from "../cli/run-cli.js";
import { ONE_DATABASE, freshDatabase } from "../fixture/db.js";
import { startTestServer, type TestServer } from "../fixture/server.js";
import { personHome } from "./helpers.js";
import { cleanupsAfterEach } from "../fixture/cleanups.js";

/**
 * A real agent's profile whose command first records what it can see, then becomes the scripted
 * agent (which answers `initialize`): what `grove agents check` starts, observed from inside.
 */
const PROBE = [
  'if cat "$PROBE_SECRET" > /dev/null 2>&1; then echo "READ ssh key"; else echo "DENIED ssh key"; fi',
  'if cat "$PROBE_DB" > /dev/null 2>&1; then echo "READ grove.db"; else echo "DENIED grove.db"; fi',
  'if test -e "/proc/$PROBE_SERVER_PID"; then echo "SEES the server"; else echo "NO server"; fi',
  'echo "pid $$"',
].join("\n");

function probeProfile(home: string, sshKey: string): Record<string, unknown> {
  const s = scriptedAgentCommand();
  return {
    name: "probe",
    command: "/bin/sh",
    // The agent's program as positional arguments: absolute paths the sandbox keeps visible.
    args: ["-c", `{\n${PROBE}\n} > "$PROBE_OUT"\nexec "$@"`, "probe", s.command, ...s.args],
    env: {
      PROBE_SECRET: sshKey,
      PROBE_DB: join(home, "grove.db"),
      PROBE_SERVER_PID: String(process.pid),
      PROBE_OUT: join(home, "agents", "probe", "seen.txt"),
      GROVE_SCRIPTED_STATE_DIR: join(home, "agents", "probe"),
    },
    permissionPolicy: "auto_approve",
  };
}

describe.each(ONE_DATABASE)("SBX-1 SBX-3 grove agents check starts the agent in the sandbox a session gets (%s)", (kind) => {
  const cleanups = cleanupsAfterEach();

  async function server(env: Record<string, string> = {}): Promise<{ srv: TestServer; seen: string }> {
    const person = await personHome();
    cleanups.push(() => rm(person.home, { recursive: true, force: true }));
    const db = await freshDatabase(kind);
    writeFileSync(join(db.home, "agents.json"), JSON.stringify({ agents: [probeProfile(db.home, person.sshKey)] }));
    const srv = await startTestServer(kind, db, { HOME: person.home, ...env });
    cleanups.push(async () => {
      await srv.close();
      await db.drop();
      await rm(db.home, { recursive: true, force: true });
    });
    return { srv, seen: join(db.home, "agents", "probe", "seen.txt") };
  }

  it("SBX-1: the checked agent cannot read the person's ~/.ssh key or GROVE_HOME's database, and runs in its own pid namespace (the server's pid is not there)", async () => {
    const { srv, seen } = await server();
    const cli = await runGrove(["agents", "check", "probe", "--server", srv.url]);
    expect(cli.code, cli.stderr).toBe(0);
    const lines = readFileSync(seen, "utf8").trim().split("\n");
    expect(lines.slice(0, 3)).toEqual(["DENIED ssh key", "DENIED grove.db", "NO server"]);
    // Its shell is one of the first processes of a fresh pid namespace.
    expect(Number(/^pid (\d+)$/.exec(lines[3] ?? "")?.[1])).toBeLessThan(10);
    expect((await srv.api("GET", "/agents")).body.find((a: { name: string }) => a.name === "probe").sandbox).toBe("confined");
  });

  it("SBX-3: without a sandbox the check of a real agent is refused with 409 sandbox_unavailable and the agent never starts", async () => {
    const { srv, seen } = await server({ GROVE_BWRAP: "/nonexistent/bwrap" });
    const r = await srv.api("POST", "/agents/probe/check");
    expect(r.status, JSON.stringify(r.body)).toBe(409);
    expect(r.body.error.code).toBe("sandbox_unavailable");
    expect(r.body.error.details.fix).toMatch(/bubblewrap/);
    expect(existsSync(seen)).toBe(false);
  });
});
