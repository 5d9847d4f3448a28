import { z } from "zod";

/**
 * CFG-1: every `GROVE_*` variable, declared once. The server reads its variables from here at
 * start-up (config.ts, runner-config.ts) and hands the typed values down; README's
 * configuration table is generated from the `server` and `cli` entries (a test holds the two
 * together). An environment variable is a string: "" counts as unset, everything else is parsed
 * by the entry's schema, and a value it refuses stops the start-up naming the variable.
 */
export interface VariableSpec {
  /** Who reads it: the server (start-up), the `grove` CLI, both, a program Grove starts, or the test/bench harness. */
  readBy: "server" | "cli" | "server+cli" | "child" | "harness";
  /** README's default column (Markdown). */
  default: string;
  /** README's meaning column (Markdown). */
  doc: string;
  /** Parses the raw text; absent = taken as it is (a name, a path, a list checked by its reader). */
  schema?: z.ZodType;
  /** Its value is never echoed in an error (a token, a secret, a URL that may carry a password). */
  secret?: true;
}

/** A whole number from `min` to `max`, written in decimal digits only; `unit` is named in the error. */
function whole(unit: string, min: number, max = Number.MAX_SAFE_INTEGER): z.ZodType<number> {
  const message = `must be an integer ${max === Number.MAX_SAFE_INTEGER ? `≥ ${min}` : `from ${min} to ${max}`}${unit ? ` (${unit})` : ""}`;
  return z.string().trim().regex(/^\d+$/, message).transform(Number).pipe(z.number().int().min(min, message).max(max, message));
}

const ms = (min: number, max?: number) => whole("milliseconds", min, max);
/** SBX-3 / TERM-6: the bubblewrap used when `GROVE_BWRAP` is unset, a name looked up in `PATH`. */
export const DEFAULT_BWRAP = "bwrap";

const flag = z.enum(["1", "0", "true", "false"], "must be true, false, 1 or 0").transform((v) => v === "1" || v === "true");

export const VARIABLES = {
  GROVE_HOME: { readBy: "server+cli", default: "`~/.grove`", doc: "data dir: `grove.db`, `tasks/` (worktrees), `clones/`, `logs/`" },
  GROVE_HOST: { readBy: "server", default: "`127.0.0.1`", doc: "listen address" },
  GROVE_PORT: {
    readBy: "server+cli",
    default: "`7420`",
    doc: "listen port (`0` = any free port; the chosen port is printed); the CLI finds the server by it",
    schema: whole("a port number", 0, 65535),
  },
  GROVE_DATABASE_URL: {
    readBy: "server",
    default: "unset",
    doc: "`postgres://…` selects PostgreSQL; unset = SQLite in `GROVE_HOME`",
    schema: z.string().regex(/^postgres(ql)?:\/\//, "must be a postgres:// URL"),
    secret: true,
  },
  GROVE_AUTH_TOKEN: {
    readBy: "server+cli",
    default: "unset",
    doc: "when set, every `/api` request needs `Authorization: Bearer <token>`, the page's `grove_token` cookie, or `?token=` (at least 16 characters for a non-loopback bind); Grove removes it from its own start-time environment once read",
    secret: true,
  },
  GROVE_AUTH_TOKEN_FILE: {
    readBy: "server+cli",
    default: "unset",
    doc: "instead of `GROVE_AUTH_TOKEN`: a `0600` file whose first line is the token, so it is in no process environment (recommended; the CLI reads it too)",
  },
  GROVE_GIT_AUTHOR_NAME: {
    readBy: "server",
    default: "unset",
    doc: "with `GROVE_GIT_AUTHOR_EMAIL`: the identity of commits Grove makes for you (commit, update from base, merge) when git has no `user.name`/`user.email`; both or neither",
  },
  GROVE_GIT_AUTHOR_EMAIL: { readBy: "server", default: "unset", doc: "see `GROVE_GIT_AUTHOR_NAME`" },
  GROVE_ALLOWED_HOSTS: {
    readBy: "server",
    default: "unset",
    doc: "extra `Host` names (comma-separated, `name` or `name:port`) beyond `localhost`, `127.0.0.1`, `[::1]` and the listen address; a bare name is accepted without a port too (a tunnel on HTTPS's port); a name beyond loopback needs `GROVE_AUTH_TOKEN` (see `docs/operators/remote-access.md`)",
  },
  GROVE_ALLOWED_ORIGINS: {
    readBy: "server",
    default: "unset",
    doc: "extra browser origins (comma-separated, e.g. `https://grove.example`) beyond the server's own",
  },
  GROVE_MAX_WS_CLIENTS: { readBy: "server", default: "64", doc: "concurrent WebSocket clients; one more gets `503 too_many_clients`", schema: whole("", 1) },
  GROVE_WS_MAX_BUFFERED_BYTES: { readBy: "server", default: "1 MiB", doc: "unread bytes after which a WebSocket client is dropped", schema: whole("bytes", 1) },
  GROVE_RUNNER_ID: { readBy: "server", default: "derived and stored in `GROVE_HOME`", doc: "this process's runner identity (PostgreSQL multi-process)" },
  GROVE_PROVIDER_PLUGINS: { readBy: "server", default: "unset", doc: "`:`-separated absolute paths of provider plugin modules (see `docs/specs/remote.md`)" },
  GROVE_REFRESH_TIMEOUT_MS: { readBy: "server", default: "120 s", doc: "timeout of one remote refresh", schema: ms(1) },
  GROVE_CLONE_TIMEOUT_MS: { readBy: "server", default: "30 min", doc: "timeout of a remote repository's clone", schema: ms(1) },
  GROVE_GIT_MAX_CONCURRENCY: { readBy: "server", default: "8", doc: "cap on concurrent git processes", schema: whole("", 1) },
  GROVE_DAILY_BUDGET: {
    readBy: "server",
    default: "unset",
    doc: "USE-2: the global cap per UTC day over every runner, `<amount>[usd|tokens]` or both comma-separated (`20usd,5000000tokens`); past it running turns are cancelled and new prompts refused (`409 budget_exceeded`) until the next day, a raised cap, or a person's continue-once (see `docs/specs/usage.md`)",
    schema: z
      .string()
      .trim()
      .regex(/^\d+(\.\d+)?(usd|tokens)?(,\d+(\.\d+)?(usd|tokens)?)?$/i, "must be <amount>[usd|tokens], or both comma-separated"),
  },
  GROVE_TRASH_RETENTION_MS: {
    readBy: "server",
    default: "7 days",
    doc: "how long a deleted task stays in the trash (`grove task trash`, `grove task restore-deleted <id>`, the page's Trash) before its purge job removes it; `0` purges at once",
    schema: ms(0),
  },
  GROVE_LOG_LEVEL: {
    readBy: "server",
    default: "`info`",
    doc: "server log level: `fatal`, `error`, `warn`, `info`, `debug`, `trace` or `silent` (the log is `GROVE_HOME/logs/server.log`; raw ACP frames per session in `logs/<sessionId>.acp.jsonl`)",
    schema: z.enum(["fatal", "error", "warn", "info", "debug", "trace", "silent"], "must be fatal, error, warn, info, debug, trace or silent"),
  },
  GROVE_PR_REFRESH_MS: { readBy: "server", default: "60 s", doc: "interval of the background pull-request status refresh; `0` turns it off", schema: ms(0) },
  GROVE_REVIEW_DONE_ON_MERGE: { readBy: "server", default: "`true`", doc: "`false` (or `0`) keeps a merged task out of `done`", schema: flag },
  GROVE_SETUP_SCRIPT_TIMEOUT_MS: { readBy: "server", default: "10 min", doc: "timeout of a repository's setup script in a new worktree (WT-9)", schema: ms(1) },
  GROVE_WATCH_MAX_DIRS: { readBy: "server", default: "4000", doc: "directories watched per worktree for live Changes (CHG-3.1)", schema: whole("", 1) },
  GROVE_WORKTREE_POOL_SIZE: {
    readBy: "server",
    default: "0 (off)",
    doc: "WT-10: prepared worktrees kept warm per repository and base branch, so a task start is a claim, a branch and the checkout of the difference to the refreshed base instead of a full checkout; `0` turns the pool off",
    schema: whole("", 0, 64),
  },
  GROVE_WORKTREE_POOL_MAX_MB: {
    readBy: "server",
    default: "4096",
    doc: "WT-10: the pool's disk budget over all repositories (the checked-out files' sizes, MiB); a fill past it is skipped",
    schema: whole("MiB", 0),
  },
  GROVE_MCP_CALLS_PER_MINUTE: {
    readBy: "server",
    default: "120",
    doc: "MCP calls one agent session may make per minute through Grove's MCP server; past it a call is `mcp_rate_limited` (MCP-2.4)",
    schema: whole("", 1),
  },
  GROVE_EDITOR: {
    readBy: "server",
    default: "unset",
    doc: 'the command "open in editor" starts on a worktree (e.g. `code`); one set on the Settings page (`PUT /settings/editor`) wins over it',
  },
  GROVE_BWRAP: {
    readBy: "server",
    default: `\`${DEFAULT_BWRAP}\` in \`PATH\``,
    doc: "the bubblewrap binary that confines agents and terminals: an absolute path or a name looked up in `PATH`; where it is missing or cannot run, real agents are refused (`409 sandbox_unavailable`) and terminals run unconfined",
    // A relative path would depend on the directory the server was started from.
    schema: z.string().regex(/^(\/[^\0\n]*|[^/\0\n]+)$/, "must be an absolute path or a command name looked up in PATH"),
  },
  GROVE_RUNNER_URL: {
    readBy: "server",
    default: "the listen URL",
    doc: "the URL other runners reach this one at (`http(s)://`, no credentials; plain `http://` beyond loopback needs `GROVE_RUNNER_ALLOW_HTTP=1`)",
  },
  GROVE_RUNNER_ALLOW_HTTP: {
    readBy: "server",
    default: "unset",
    doc: "`1`: accept a plain `http://` `GROVE_RUNNER_URL` beyond loopback (a private network you trust)",
  },
  GROVE_RUNNER_LABELS: { readBy: "server", default: "unset", doc: "comma-separated labels of this runner (a task's `runnerLabels` select runners by them)" },
  GROVE_RUNNER_MAX_AGENTS: { readBy: "server", default: "no limit", doc: "live agents this runner takes at most", schema: whole("", 1, 10_000) },
  GROVE_RUNNER_HEARTBEAT_MS: {
    readBy: "server",
    default: "5 s",
    doc: "this runner's heartbeat; it counts as offline after three missed",
    schema: ms(50, 600_000),
  }, // below 50 ms heartbeats load the database for nothing
  GROVE_CLUSTER_SECRET: {
    readBy: "server",
    default: "unset",
    doc: "signs runner-to-runner requests (the same value on every runner, at least 16 characters); removed from the start-time environment once read",
    secret: true,
  },
  GROVE_CLUSTER_SECRET_FILE: { readBy: "server", default: "unset", doc: "instead of `GROVE_CLUSTER_SECRET`: a `0600` file whose first line is the secret" },
  GROVE_FORWARD_TIMEOUT_MS: {
    readBy: "server",
    default: "120 s",
    doc: "a request forwarded to another runner without an answer by then fails `runner_unreachable`",
    schema: ms(100, 3_600_000),
  },
  GROVE_FAULT: {
    readBy: "server",
    default: "unset",
    doc: "crash-test hook of the test suite (`<point>:exit` or `<point>:hang`, comma-separated); never set it in production",
  },
  GROVE_CLI_BUNDLE: { readBy: "cli", default: "unset", doc: "the CLI's tests: `require` loads the bundled CLI the way the launcher does" },
  // Set by Grove for the programs it starts; harmless (and ignored) in the server's own environment.
  GROVE_SCRIPTED_STATE_DIR: { readBy: "child", default: "", doc: "the scripted agent's state dir (its profile's `env`)" },
  GROVE_SCRIPTED_CODE_CACHE: {
    readBy: "child",
    default: "",
    doc: "the scripted agent's V8 code cache: `write` saves it as the agent exits (the build does), `report` says on stderr whether it was used",
  },
  GROVE_SOURCE_PATH: { readBy: "child", default: "", doc: "a setup script's source repository (WT-9)" },
  GROVE_WORKTREE_PATH: { readBy: "child", default: "", doc: "a setup script's new worktree (WT-9)" },
  GROVE_TASK_ID: { readBy: "child", default: "", doc: "a setup script's task (WT-9)" },
  GROVE_MCP_SOCKET: { readBy: "child", default: "", doc: "the MCP shim's gateway socket (the `grove` MCP server's env, MCP-1)" },
  GROVE_MCP_SESSION: { readBy: "child", default: "", doc: "the session the MCP shim speaks for (MCP-1)" },
  GROVE_MCP_TOKEN: { readBy: "child", default: "", doc: "the MCP shim's capability token (MCP-1)", secret: true },
  // The test suite, the benchmarks and CI read these; a server started by them inherits them.
  GROVE_INTEROP_CACHE: { readBy: "harness", default: "", doc: "where the interop tests install the real bridges" },
  GROVE_CHROMIUM: { readBy: "harness", default: "", doc: "the page tests' full browser (web notifications)" },
  GROVE_CHROMIUM_SHELL: { readBy: "harness", default: "", doc: "the page tests' browser: Chromium's headless shell" },
  GROVE_FUZZ_SEED: { readBy: "harness", default: "", doc: "a property test's seed" },
} as const satisfies Record<string, VariableSpec>;

export type VariableName = keyof typeof VARIABLES;

/** Families of harness variables (benchmarks, model checks, CI, test databases). */
export const HARNESS_PREFIXES = ["GROVE_BENCH_", "GROVE_MODEL_", "GROVE_CI_", "GROVE_TEST_"] as const;

/** The variable's raw text, or undefined when unset or empty. */
export function raw(env: NodeJS.ProcessEnv, name: VariableName): string | undefined {
  const v = env[name];
  return v === undefined || v === "" ? undefined : v;
}

export class ConfigError extends Error {}

/** The parsed value of a variable with a schema, or undefined when unset; a refused value throws ConfigError naming it. */
export function parsed<N extends VariableName>(env: NodeJS.ProcessEnv, name: N): ParsedOf<N> | undefined {
  const text = raw(env, name);
  const spec: VariableSpec = VARIABLES[name];
  if (text === undefined || !spec.schema) return text as ParsedOf<N> | undefined;
  const r = spec.schema.safeParse(text);
  if (r.success) return r.data as ParsedOf<N>;
  const why = r.error.issues[0]?.message ?? "is not valid";
  throw new ConfigError(spec.secret ? `${name} ${why}` : `${name} ${why}, got ${JSON.stringify(text)}`);
}

type ParsedOf<N extends VariableName> = (typeof VARIABLES)[N] extends { schema: z.ZodType<infer T> } ? T : string;

/**
 * CFG-2: a `GROVE_*` name nobody reads is a typo or a leftover: the start-up stops naming it (and
 * the nearest known name). `alsoKnown`: names an agent profile passes on with `inheritEnv`.
 */
export function refuseUnknownVariables(env: NodeJS.ProcessEnv, alsoKnown: readonly string[] = []): void {
  const known = new Set<string>([...Object.keys(VARIABLES), ...alsoKnown]);
  for (const name of Object.keys(env).sort()) {
    if (!name.startsWith("GROVE_") || known.has(name) || HARNESS_PREFIXES.some((p) => name.startsWith(p))) continue;
    const near = nearest(name, [...Object.keys(VARIABLES)]);
    throw new ConfigError(
      `${name} is not a Grove variable${near ? ` (did you mean ${near}?)` : ""}: README.md "Configuration" lists them; a new one is declared in packages/server/src/config-schema.ts`,
    );
  }
}

function nearest(name: string, names: readonly string[]): string | undefined {
  let best: { name: string; d: number } | undefined;
  for (const n of names) {
    const d = distance(name, n);
    if (!best || d < best.d) best = { name: n, d };
  }
  return best && best.d <= Math.max(2, Math.floor(name.length / 4)) ? best.name : undefined;
}

function distance(a: string, b: string): number {
  let prev = Array.from({ length: b.length + 1 }, (_, i) => i);
  for (let i = 1; i <= a.length; i++) {
    const row = [i];
    for (let j = 1; j <= b.length; j++) row.push(Math.min(prev[j]! + 1, row[j - 1]! + 1, prev[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1)));
    prev = row;
  }
  return prev[b.length]!;
}

/** README.md's generated table stands between these two lines (scripts/gen-config-table.ts writes it). */
export const CONFIG_TABLE_START = "<!-- configuration table: generated from packages/server/src/config-schema.ts -->";
export const CONFIG_TABLE_END = "<!-- end of the configuration table -->";

/** README's configuration table: every variable the server or the CLI reads, in declaration order. */
export function configurationTable(): string {
  const rows = Object.entries(VARIABLES as Record<string, VariableSpec>)
    .filter(([, v]) => v.readBy === "server" || v.readBy === "cli" || v.readBy === "server+cli")
    .map(([name, v]) => `| \`${name}\` | ${v.readBy === "server+cli" ? "server, CLI" : v.readBy === "cli" ? "CLI" : "server"} | ${v.default} | ${v.doc} |`);
  return ["| variable | read by | default | meaning |", "|---|---|---|---|", ...rows].join("\n");
}
