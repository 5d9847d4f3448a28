import { createRequire } from "node:module";
import { readdirSync, statSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import type { AgentProfile } from "@grove/protocol";
import type { SandboxProfile } from "../domain/sandbox-profile.js";
import type { McpToolNames } from "../mcp/tool-catalog.js";

/**
 * How to start one kind of agent (SES-9: real agents are profiles). The agent's environment is
 * the base allow-list of the server's (SEC-7) plus `inheritEnv`, then `env` on top; `env` values
 * may be secrets and never leave the server (see {@link toPublicProfile}).
 */
export interface AgentProfileConfig {
  name: string;
  command: string;
  args: string[];
  env: Record<string, string>;
  /** `auto_approve` answers permission requests itself; `ask` waits for the person (SES-5). */
  permissionPolicy: "auto_approve" | "ask";
  builtIn: boolean;
  /**
   * SEC-7: names of the server's environment variables this agent inherits on top of the base
   * allow-list (`domain/child-env.ts`), e.g. its vendor's API key. Absent = none.
   */
  inheritEnv?: readonly string[];
  /** AG-2: a mode the agent is always put in after `session/new`/`session/load` (wins over `policyModes`). */
  mode?: string;
  /** AG-2: the agent's own mode for each permission policy, so `ask` means the agent asks. */
  policyModes?: Partial<Record<"ask" | "auto_approve", string>>;
  /**
   * AG-3: a bridge Grove installs with npm under `GROVE_HOME/agents/<name>` at a pinned version
   * (`grove agents install <name>`); it is started as its bin (a Node script with node, a native
   * binary directly) with `...args`, never through npx.
   */
  install?: { package: string; version: string; args: string[] };
  /**
   * AG-3: how the agent authenticates: the fix named in `agent_auth_required`, the variables it
   * reads. `firstTurnProgressMs`: for an agent known to hang without credentials (it starts its
   * session, then retries its vendor's hosts in silence), a first turn of a process that brings
   * no `session/update` within this bound is cancelled and fails `agent_auth_required`.
   */
  auth?: { fix: string; env?: string[]; firstTurnProgressMs?: number };
  /**
   * SBX-1..3: absent = confined with the defaults; `"off"` = runs unconfined (visible as such);
   * an object adds network hosts and paths (domain/sandbox-profile.ts).
   */
  sandbox?: SandboxProfile;
  /**
   * MCP-2: what Grove's MCP server lets this agent do: `task` (default: the tools on its own task
   * and subtree), `none` (no `grove` server at all), `board` (also a read-only list of every task).
   */
  mcp?: "task" | "none" | "board";
  /**
   * MCP-1: another name to serve a grove tool under, for an agent that hides a tool of that name
   * (Gemini CLI hides any tool named `ask_user` over ACP). Absent = its bridge's renames
   * (agents/bridges.ts), else the catalog's names.
   */
  mcpToolNames?: McpToolNames;
  /**
   * LIVE-3: a turn with no agent update for this long (and no tool call still running) is
   * `stalled`. Absent = {@link DEFAULT_STALL_AFTER_MS}.
   */
  stallAfterMs?: number;
}

/** LIVE-3: how long a turn may go without progress before it is stalled (10 minutes). */
export const DEFAULT_STALL_AFTER_MS = 10 * 60 * 1000;

/** Name of the default agent of a new install (SES-9). */
export const DEFAULT_AGENT = "scripted";

/** Where `npm run build` puts the scripted agent's plain-JS bundle. */
export const SCRIPTED_AGENT_BUNDLE = fileURLToPath(new URL("../../dist/scripted-agent.mjs", import.meta.url));

/**
 * How to start the scripted agent: the plain-JS bundle `dist/scripted-agent.mjs` (made by
 * `npm run build`) while it is newer than every `scripted-agent*.ts` source, else the
 * TypeScript through tsx (`node --import <tsx loader> <scripted-agent.ts>`; Node 20 has no type
 * stripping). The bundle starts about 3× faster, which matters when many sessions launch at
 * once. Paths are absolute so the agent starts from any cwd (its cwd is the workspace);
 * createRequire resolves the same tsx under vitest and under plain node.
 */
export function scriptedAgentCommand(bundle: string = SCRIPTED_AGENT_BUNDLE): { command: string; args: string[] } {
  const script = fileURLToPath(new URL("./scripted-agent.ts", import.meta.url));
  if (isFresh(bundle, dirname(script))) return { command: process.execPath, args: [bundle] };
  const require = createRequire(import.meta.url);
  return { command: process.execPath, args: ["--import", require.resolve("tsx"), script] };
}

/**
 * The scripted agent is Grove's own program, not a real agent: where no sandbox exists it still
 * runs (unconfined, and marked so), so a fresh install does real work (SBX-3, UX-4).
 */
export function isScriptedAgent(p: Pick<AgentProfileConfig, "name" | "args">): boolean {
  return p.name === DEFAULT_AGENT && p.args.some((a) => /[\\/]scripted-agent\.(ts|mjs)$/.test(a));
}

/** The bundle exists and no scripted-agent source changed after it was built. */
function isFresh(bundle: string, sourceDir: string): boolean {
  let built: number;
  try {
    built = statSync(bundle).mtimeMs;
  } catch {
    return false;
  }
  return readdirSync(sourceDir)
    .filter((f) => f.startsWith("scripted-agent") && f.endsWith(".ts") && !f.endsWith(".test.ts"))
    .every((f) => statSync(join(sourceDir, f)).mtimeMs <= built);
}

/**
 * What every bridge (and `npm install` of one) needs from the server's environment besides the
 * base allow-list: npm's registry/cache/offline settings (a bridge may run npm; opencode's embedded
 * npm honours `npm_config_offline`), a proxy and private CAs to reach the registry and the model's
 * API, and the XDG dirs where these tools keep their configuration and logins.
 */
export const BRIDGE_ENV: readonly string[] = [
  "npm_config_registry",
  "npm_config_cache",
  "npm_config_userconfig",
  "npm_config_offline",
  "npm_config_strict_ssl",
  "npm_config_cafile",
  "NPM_CONFIG_REGISTRY",
  "NPM_CONFIG_CACHE",
  "NPM_CONFIG_USERCONFIG",
  "NPM_CONFIG_OFFLINE",
  "NODE_EXTRA_CA_CERTS",
  "SSL_CERT_FILE",
  "SSL_CERT_DIR",
  "http_proxy",
  "https_proxy",
  "HTTP_PROXY",
  "HTTPS_PROXY",
  "no_proxy",
  "NO_PROXY",
  "all_proxy",
  "ALL_PROXY",
  "XDG_CONFIG_HOME",
  "XDG_DATA_HOME",
  "XDG_CACHE_HOME",
  "XDG_STATE_HOME",
];

/** The vendor credentials and settings each real agent reads from its environment (SEC-7). */
const VENDOR_ENV: Record<string, readonly string[]> = {
  claude: [
    "ANTHROPIC_API_KEY",
    "ANTHROPIC_AUTH_TOKEN",
    "ANTHROPIC_BASE_URL",
    "ANTHROPIC_MODEL",
    "CLAUDE_CODE_OAUTH_TOKEN",
    "CLAUDE_CONFIG_DIR",
    "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC",
    "DISABLE_TELEMETRY",
    "DISABLE_AUTOUPDATER",
  ],
  // OPENAI_BASE_URL does nothing for codex-acp 0.16 (openai_base_url in $CODEX_HOME/config.toml
  // does); it stays for the tools codex runs.
  codex: ["OPENAI_API_KEY", "CODEX_API_KEY", "CODEX_HOME", "OPENAI_BASE_URL", "OPENAI_ORG_ID", "OPENAI_PROJECT_ID", "RUST_LOG"],
  gemini: [
    "GEMINI_API_KEY",
    "GOOGLE_API_KEY",
    "GOOGLE_CLOUD_PROJECT",
    "GOOGLE_CLOUD_LOCATION",
    "GOOGLE_GENAI_USE_VERTEXAI",
    "GOOGLE_GENAI_USE_GCA",
    "GOOGLE_APPLICATION_CREDENTIALS",
    // A gateway or proxy in front of the Gemini API (Gemini CLI then authenticates as `gateway`).
    "GOOGLE_GEMINI_BASE_URL",
    "GOOGLE_VERTEX_BASE_URL",
    "GEMINI_MODEL",
    "GEMINI_CLI_HOME",
  ],
  opencode: [
    // The providers' keys opencode reads (its `{env:NAME}` config references may name others: list them in agents.json).
    "ANTHROPIC_API_KEY",
    "OPENAI_API_KEY",
    "OPENROUTER_API_KEY",
    "GEMINI_API_KEY",
    "GOOGLE_GENERATIVE_AI_API_KEY",
    "GROQ_API_KEY",
    "DEEPSEEK_API_KEY",
    "XAI_API_KEY",
    "MISTRAL_API_KEY",
    "OPENCODE_API_KEY",
    // Its configuration: files, inline JSON, and the switches that keep it off the network.
    "OPENCODE_CONFIG",
    "OPENCODE_CONFIG_DIR",
    "OPENCODE_CONFIG_CONTENT",
    "OPENCODE_DISABLE_MODELS_FETCH",
    "OPENCODE_DISABLE_AUTOUPDATE",
    "OPENCODE_DISABLE_DEFAULT_PLUGINS",
    "OPENCODE_DISABLE_SHARE",
    "OPENCODE_DISABLE_LSP_DOWNLOAD",
  ],
};

/**
 * AG-3: pinned, known-good bridge versions (checked on the npm registry). A pin is changed only
 * after the interop suite passed against the new version.
 */
export const PINNED_BRIDGES = {
  claude: { package: "@agentclientprotocol/claude-agent-acp", version: "0.101.0", args: [] as string[] },
  codex: { package: "@zed-industries/codex-acp", version: "0.16.0", args: [] as string[] },
  // 0.61 names ACP mode `--acp` (`--experimental-acp` is its deprecated alias).
  gemini: { package: "@google/gemini-cli", version: "0.61.0", args: ["--acp"] },
  opencode: { package: "opencode-ai", version: "1.18.33", args: ["acp"] },
} as const;

/**
 * A managed npm bridge: started from its install under `GROVE_HOME/agents/<name>` (see
 * agent-install.ts); `command`/`args` are what `grove agents install` runs it as once installed.
 */
function bridgeProfile(name: keyof typeof PINNED_BRIDGES, extra: Partial<AgentProfileConfig> = {}): AgentProfileConfig {
  const pin = PINNED_BRIDGES[name];
  return {
    name,
    command: "node",
    args: [`<GROVE_HOME>/agents/${name}/node_modules/${pin.package}`, ...pin.args],
    env: {},
    inheritEnv: [...(VENDOR_ENV[name] ?? []), ...BRIDGE_ENV],
    // Real agents run arbitrary tools; a person approves what they ask for unless configured otherwise.
    permissionPolicy: "ask",
    builtIn: true,
    install: { package: pin.package, version: pin.version, args: [...pin.args] },
    ...extra,
  };
}

/**
 * The profiles every install has: `scripted` first (the default: real work without API keys,
 * its history kept under `<home>/agents/scripted`), then the real agents (README "Real agents": Claude Code, Codex, Gemini, opencode).
 */
export function builtInProfiles(opts: { home: string }): AgentProfileConfig[] {
  const scripted = scriptedAgentCommand();
  return [
    {
      name: DEFAULT_AGENT,
      command: scripted.command,
      args: scripted.args,
      env: { GROVE_SCRIPTED_STATE_DIR: join(opts.home, "agents", "scripted") },
      permissionPolicy: "auto_approve",
      builtIn: true,
    },
    bridgeProfile("claude", {
      // As root, the Claude bridge refuses session/new unless it is told it runs in a sandbox.
      env: { IS_SANDBOX: "1" },
      // The bridge starts in Claude's own `auto` mode, which never asks: `default` is its asking mode.
      policyModes: { ask: "default", auto_approve: "acceptEdits" },
      auth: {
        fix: "set ANTHROPIC_API_KEY (or ANTHROPIC_AUTH_TOKEN) for the agent, or log in once with `claude /login`",
        env: ["ANTHROPIC_API_KEY", "ANTHROPIC_AUTH_TOKEN", "CLAUDE_CODE_OAUTH_TOKEN"],
      },
    }),
    bridgeProfile("codex", {
      // codex-acp starts in `read-only`, which asks before every edit and command.
      policyModes: { ask: "read-only" },
      auth: {
        // codex-acp signs in only through ACP `authenticate` (Grove sends it when the variable is
        // set) or `$CODEX_HOME/auth.json`; OPENAI_BASE_URL is ignored.
        fix: 'set OPENAI_API_KEY (or CODEX_API_KEY) for the agent (Grove signs Codex in with it), or log in once with `codex login`; for another endpoint than api.openai.com put `openai_base_url = "https://…/v1"` (or a [model_providers.NAME] with base_url, wire_api = "responses", env_key) in $CODEX_HOME/config.toml — OPENAI_BASE_URL has no effect',
        env: ["OPENAI_API_KEY", "CODEX_API_KEY"],
      },
    }),
    bridgeProfile("gemini", {
      // Gemini CLI starts in `default`, which asks before edits and shell commands. No mode for
      // `auto_approve`: Grove answers every ask itself, and Gemini CLI refuses its approving
      // modes (`autoEdit`, `yolo`) in a folder the person has not trusted — a new worktree.
      policyModes: { ask: "default" },
      auth: { fix: "set GEMINI_API_KEY for the agent, or log in once with `gemini`", env: ["GEMINI_API_KEY", "GOOGLE_API_KEY"] },
    }),
    bridgeProfile("opencode", {
      // opencode has no asking mode (its `build` and `plan` agents reach the client only as a
      // `mode` config option): its permission setting makes every edit, command and fetch ask.
      // Grove answers the asks itself under `auto_approve`, as for Gemini CLI.
      env: { OPENCODE_PERMISSION: JSON.stringify({ edit: "ask", bash: "ask", webfetch: "ask" }) },
      auth: {
        // Without a configured provider opencode starts on its vendor's free model and then retries
        // its hosts in silence: a first turn with no update for this long means no usable provider.
        fix: "give opencode a model provider: run `opencode auth login` once, or set a provider's API key for the agent (ANTHROPIC_API_KEY, OPENAI_API_KEY, …), or configure a provider and `model` in opencode.json (OPENCODE_CONFIG / OPENCODE_CONFIG_CONTENT)",
        firstTurnProgressMs: 30_000,
      },
    }),
  ];
}

/** The API view of a profile: env variable names only, never their values; `extra` adds AG-3 facts. */
export function toPublicProfile(p: AgentProfileConfig, extra: Partial<AgentProfile> = {}): AgentProfile {
  return {
    name: p.name,
    command: p.command,
    args: [...p.args],
    env: Object.keys(p.env).sort(),
    permissionPolicy: p.permissionPolicy,
    builtIn: p.builtIn,
    inheritEnv: [...(p.inheritEnv ?? [])].sort(),
    ...(p.install ? { package: `${p.install.package}@${p.install.version}` } : {}),
    ...extra,
  };
}
