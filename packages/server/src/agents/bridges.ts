import type { McpToolNames } from "../mcp/tool-catalog.js";
import type { AgentProfileConfig } from "./profiles.js";

/**
 * What Grove knows about each ACP bridge, keyed by its npm package — not by profile name, so a
 * person's own profile that runs a known bridge (under any name, with its own args or env) gets
 * the same facts as the built-in one:
 * - `policyModes`: the bridge's own mode for each permission policy (AG-2). The Claude bridge
 *   starts in Claude's `auto` mode, which never asks; under `ask` it must be put in `default`.
 * - `asksByDefault`: whether the bridge asks before edits and commands in the mode it starts in
 *   (what `grove agents check` needs to say whether `ask` really asks).
 * - `hosts`: the vendor API hosts its sandbox may reach by default (SBX-2).
 * - `stateDirEnv`: the variables naming the vendor's own state dir (config, logins, sessions).
 *   Where the agent's environment sets one, that directory is its state: writable in its
 *   sandbox like its own HOME (SBX-1), since the bridge cannot even start without it.
 * - `mcpToolNames`: grove MCP tools it must be served under another name (MCP-2.7).
 * - `confined`: how the bridge is started inside the sandbox, on top of its profile. opencode's
 *   ACP side talks HTTP to its own server on loopback; inside, that server listens on
 *   127.0.0.2 — the sandbox's own loopback, reached directly (`NO_PROXY`) — while every other
 *   address, the host's 127.0.0.1 included, still goes through the egress proxy (SBX-2).
 */
export interface BridgeFacts {
  package: string;
  vendor: "claude" | "codex" | "gemini" | "opencode";
  policyModes?: Partial<Record<"ask" | "auto_approve", string>>;
  asksByDefault: boolean;
  /** Modes of the bridge in which it runs edits and commands without asking. */
  nonAskingModes: readonly string[];
  /** Environment settings that make the bridge ask without a mode (opencode's permission config). */
  asksWithEnv?: Record<string, string>;
  hosts: readonly string[];
  stateDirEnv: readonly string[];
  mcpToolNames?: McpToolNames;
  confined?: { args: readonly string[]; env: Record<string, string>; hiddenInWorkspace?: readonly string[] };
}

/** A loopback address of the sandbox's own network namespace that never goes through the proxy. */
export const SANDBOX_OWN_LOOPBACK = "127.0.0.2";

export const BRIDGES: readonly BridgeFacts[] = [
  {
    package: "@agentclientprotocol/claude-agent-acp",
    vendor: "claude",
    policyModes: { ask: "default", auto_approve: "acceptEdits" },
    asksByDefault: false,
    nonAskingModes: ["auto", "bypassPermissions"],
    hosts: ["api.anthropic.com:443", "statsig.anthropic.com:443", "console.anthropic.com:443", "claude.ai:443"],
    stateDirEnv: ["CLAUDE_CONFIG_DIR"],
  },
  {
    package: "@zed-industries/codex-acp",
    vendor: "codex",
    policyModes: { ask: "read-only" },
    asksByDefault: true,
    nonAskingModes: ["full-access"],
    hosts: ["api.openai.com:443", "auth.openai.com:443", "chatgpt.com:443"],
    stateDirEnv: ["CODEX_HOME"],
  },
  {
    package: "@google/gemini-cli",
    vendor: "gemini",
    policyModes: { ask: "default" },
    asksByDefault: true,
    nonAskingModes: ["yolo"],
    hosts: ["generativelanguage.googleapis.com:443", "oauth2.googleapis.com:443", "accounts.google.com:443", "cloudcode-pa.googleapis.com:443"],
    stateDirEnv: ["GEMINI_CLI_HOME"],
    // MCP-2.7: in ACP mode Gemini CLI excludes its own `ask_user` tool (its dialog cannot show over
    // ACP), and the exclusion also matches an MCP tool's bare name: `mcp_grove_ask_user` would
    // never reach the model. Served as `ask_person` it does (the call is the same ask_user).
    mcpToolNames: { ask_user: "ask_person" },
    // MCP-1: Gemini CLI connects no MCP server (session/new's `grove` included) in a folder it does
    // not trust. Confined, Grove trusts the workspace with the CLI's own switch and hides the
    // repository's `.gemini/` (its project settings: hooks, MCP servers, tool commands, allowed
    // tools) behind an empty directory, so the trust lets in Grove's server and nothing the
    // repository brings. Unconfined, Grove cannot hide it, and trusts nothing.
    confined: { args: [], env: { GEMINI_CLI_TRUST_WORKSPACE: "true" }, hiddenInWorkspace: [".gemini"] },
  },
  {
    package: "opencode-ai",
    vendor: "opencode",
    asksByDefault: false,
    nonAskingModes: [],
    asksWithEnv: { OPENCODE_PERMISSION: JSON.stringify({ edit: "ask", bash: "ask", webfetch: "ask" }) },
    hosts: ["api.anthropic.com:443", "api.openai.com:443", "openrouter.ai:443", "models.dev:443", "opencode.ai:443"],
    stateDirEnv: ["OPENCODE_CONFIG_DIR"],
    confined: { args: ["--hostname", SANDBOX_OWN_LOOPBACK], env: { NO_PROXY: SANDBOX_OWN_LOOPBACK, no_proxy: SANDBOX_OWN_LOOPBACK } },
  },
];

/** Whether `arg` names `pkg`: the package itself (`npx pkg@1`) or a path inside its install. */
function names(arg: string, pkg: string): boolean {
  if (arg === pkg || arg.startsWith(`${pkg}@`)) return true;
  const i = arg.indexOf(`node_modules/${pkg}`);
  if (i < 0) return false;
  const after = arg.slice(i + `node_modules/${pkg}`.length);
  return after === "" || after.startsWith("/");
}

/** The bridge a profile runs: its managed install's package, else a command or arg naming one. */
export function bridgeOf(p: Pick<AgentProfileConfig, "command" | "args" | "install">): BridgeFacts | undefined {
  if (p.install) return BRIDGES.find((b) => b.package === p.install!.package);
  return BRIDGES.find((b) => [p.command, ...p.args].some((a) => names(a, b.package)));
}

/** AG-2: the profile's `policyModes`, else its bridge's (a custom Claude-bridge profile under `ask` asks). */
export function policyModesOf(p: AgentProfileConfig): AgentProfileConfig["policyModes"] {
  return p.policyModes ?? bridgeOf(p)?.policyModes;
}

/** MCP-2.7: the profile's own tool renames, else its bridge's. */
export function mcpToolNamesOf(p: AgentProfileConfig): McpToolNames | undefined {
  return p.mcpToolNames ?? bridgeOf(p)?.mcpToolNames;
}

/** SBX-1: the variables naming the profile's vendor state dir (its bridge's). */
export function stateDirEnvOf(p: AgentProfileConfig): readonly string[] {
  return bridgeOf(p)?.stateDirEnv ?? [];
}

/** SBX-2: the profile's bridge's own additions to a confined start (see {@link BridgeFacts.confined}). */
export function confinedStartOf(p: AgentProfileConfig): { args: readonly string[]; env: Record<string, string>; hiddenInWorkspace?: readonly string[] } {
  return bridgeOf(p)?.confined ?? { args: [], env: {} };
}

/** SBX-2: the hosts a confined profile reaches when it names none: its bridge's vendor API hosts. */
export function defaultAllowList(p: AgentProfileConfig): string[] {
  return [...(bridgeOf(p)?.hosts ?? [])];
}

/**
 * `grove agents check`: why a profile with `permissionPolicy: "ask"` would not ask, or
 * undefined when it will (or when Grove cannot tell: an unknown agent is the person's call).
 * A pinned `mode` or `policyModes.ask` naming one of the bridge's non-asking modes, or a bridge
 * that starts in a mode that never asks with no asking mode to switch to, runs unasked.
 */
export function askProblem(p: AgentProfileConfig): string | undefined {
  if (p.permissionPolicy !== "ask") return undefined;
  const bridge = bridgeOf(p);
  if (!bridge) return undefined;
  const askMode = policyModesOf(p)?.ask;
  const runsIn = p.mode ?? askMode;
  if (runsIn !== undefined && bridge.nonAskingModes.includes(runsIn)) {
    return `permissionPolicy is "ask" but the agent runs in ${bridge.package}'s mode ${JSON.stringify(runsIn)}, which never asks${p.mode !== undefined ? " (pinned by mode)" : " (policyModes.ask)"}`;
  }
  if (runsIn !== undefined || bridge.asksByDefault) return undefined;
  if (bridge.asksWithEnv && Object.entries(bridge.asksWithEnv).every(([k, v]) => p.env[k] === v)) return undefined;
  const fix = bridge.asksWithEnv
    ? `set ${Object.keys(bridge.asksWithEnv).join(", ")} as the built-in ${bridge.vendor} profile does`
    : "set policyModes.ask to its asking mode";
  return `permissionPolicy is "ask" but ${bridge.package} never asks in the mode it starts in; ${fix}`;
}
