/** Runs the real `grove` launcher as a child process, the way a person or a script does. */
import { execFile } from "node:child_process";
import { fileURLToPath } from "node:url";
import { serverHomeOf } from "../fixture/server-homes.js";

const SERVER_DIR = fileURLToPath(new URL("../../", import.meta.url));

export interface CliRun {
  code: number;
  stdout: string;
  stderr: string;
}

export function runGrove(args: string[], opts: { env?: NodeJS.ProcessEnv; cwd?: string } = {}): Promise<CliRun> {
  // The bundled client, never the TypeScript fallback (see bundle-setup.ts).
  const env: NodeJS.ProcessEnv = { ...process.env, GROVE_CLI_BUNDLE: "require", ...opts.env };
  // SBX-5: against a server a test started, the CLI uses that server's home (its person token).
  const home = serverHomeOf(args);
  if (home !== undefined && !(opts.env && "GROVE_HOME" in opts.env)) env.GROVE_HOME = home;
  // Only what a test passes explicitly: the caller's own token/port must not leak in.
  if (!opts.env || !("GROVE_AUTH_TOKEN" in opts.env)) delete env.GROVE_AUTH_TOKEN;
  if (!opts.env || !("GROVE_PORT" in opts.env)) delete env.GROVE_PORT;
  for (const [k, v] of Object.entries(env)) if (v === undefined) delete env[k];
  return new Promise((resolve) => {
    execFile(process.execPath, [`${SERVER_DIR}bin/grove.mjs`, ...args], { env, cwd: opts.cwd ?? SERVER_DIR, timeout: 30_000 }, (err, stdout, stderr) => {
      const code = err ? (typeof err.code === "number" ? err.code : 1) : 0;
      resolve({ code, stdout, stderr });
    });
  });
}
