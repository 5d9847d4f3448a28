import { existsSync, readFileSync } from "node:fs";
import { isAbsolute, join } from "node:path";
import { z } from "zod";
import { ENV_NAME, SERVER_SECRETS } from "../domain/child-env.js";
import { parseAllowEntry } from "../domain/allow-list.js";
import { renameProblem } from "../mcp/tool-catalog.js";
import { policyModesOf } from "./bridges.js";
import type { AgentProfileConfig } from "./profiles.js";

const absolutePath = z
  .string()
  .min(1)
  .refine((p) => isAbsolute(p), { message: "an absolute path" });

/** SBX-1..3: `"off"` or the extras of a confined profile (domain/sandbox-profile.ts). */
const SandboxEntry = z.union([
  z.literal("off"),
  z
    .object({
      network: z
        .array(
          z.string().superRefine((v, ctx) => {
            try {
              parseAllowEntry(v);
            } catch (e) {
              ctx.addIssue({ code: "custom", message: (e as Error).message });
            }
          }),
        )
        .max(256)
        .optional(),
      writable: z.array(absolutePath).max(64).optional(),
      readable: z.array(absolutePath).max(64).optional(),
      deny: z.array(absolutePath).max(64).optional(),
    })
    .strict(),
]);

// No defaults here: an entry named like a built-in extends it, so an absent field must stay
// absent (the built-in's value is kept); a new agent gets the defaults in `newProfile`.
const ProfileEntry = z
  .object({
    name: z.string().regex(/^[a-z0-9][a-z0-9._-]{0,63}$/, "lower-case letters, digits, '.', '_' and '-'"),
    command: z.string().min(1).optional(),
    args: z.array(z.string()).optional(),
    env: z.record(z.string(), z.string()).optional(),
    permissionPolicy: z.enum(["auto_approve", "ask"]).optional(),
    // SEC-7: server variables this agent inherits beyond the base allow-list. Grove's own
    // secrets would hand the agent the server itself: refused, not silently dropped.
    inheritEnv: z
      .array(
        z
          .string()
          .regex(ENV_NAME, "an environment variable name (letters, digits, '_'; not starting with a digit)")
          .refine((n) => !SERVER_SECRETS.includes(n), {
            message: "names a secret of the Grove server itself; set a value in env instead if the agent really needs it",
          }),
      )
      .max(256)
      .optional(),
    /** AG-2: pin the agent to one of its modes. */
    mode: z.string().min(1).optional(),
    /** AG-2: the agent's own mode for each permission policy. */
    policyModes: z
      .object({ ask: z.string().min(1).optional(), auto_approve: z.string().min(1).optional() })
      .strict()
      .optional(),
    /** LIVE-3: no agent update for this long (ms) and no running tool call → the turn is stalled. */
    stallAfterMs: z
      .number()
      .int()
      .min(100)
      .max(7 * 24 * 3600 * 1000)
      .optional(),
    sandbox: SandboxEntry.optional(),
    mcp: z.enum(["task", "none", "board"]).optional(),
    /** MCP-1: serve a grove tool under another name (`{"ask_user": "ask_person"}`). */
    mcpToolNames: z
      .record(z.string(), z.string())
      .superRefine((v, ctx) => {
        const why = renameProblem(v);
        if (why) ctx.addIssue({ code: "custom", message: why });
      })
      .optional(),
  })
  .strict();
const ProfilesFile = z.object({ agents: z.array(ProfileEntry) }).strict();
type Entry = z.infer<typeof ProfileEntry>;

export class ProfileConfigError extends Error {}

/** The fields an entry sets, without the absent ones. */
function given(a: Entry): Partial<AgentProfileConfig> {
  const out: Partial<AgentProfileConfig> = {};
  if (a.command !== undefined) out.command = a.command;
  if (a.args !== undefined) out.args = a.args;
  if (a.permissionPolicy !== undefined) out.permissionPolicy = a.permissionPolicy;
  if (a.inheritEnv !== undefined) out.inheritEnv = [...new Set(a.inheritEnv)];
  if (a.mode !== undefined) out.mode = a.mode;
  if (a.policyModes !== undefined) out.policyModes = a.policyModes;
  if (a.sandbox !== undefined) out.sandbox = a.sandbox;
  if (a.stallAfterMs !== undefined) out.stallAfterMs = a.stallAfterMs;
  if (a.mcp !== undefined) out.mcp = a.mcp;
  if (a.mcpToolNames !== undefined) out.mcpToolNames = a.mcpToolNames;
  return out;
}

/**
 * An entry named like a built-in extends it: the fields it sets override, the rest is kept
 * (the Claude profile keeps `IS_SANDBOX` and its `policyModes` when a person adds one variable).
 * `env` merges by variable. A new `command` is another program: the built-in's args and managed
 * install no longer apply to it (its own `args`, default none).
 */
function extend(b: AgentProfileConfig, a: Entry): AgentProfileConfig {
  const base: AgentProfileConfig = { ...b, builtIn: false };
  if (a.command !== undefined) {
    base.args = [];
    delete base.install;
  }
  return { ...base, ...given(a), env: { ...b.env, ...(a.env ?? {}) } };
}

function newProfile(a: Entry, file: string): AgentProfileConfig {
  if (a.command === undefined) throw new ProfileConfigError(`${file} is invalid: agent ${a.name}: command is required (no built-in agent has this name)`);
  return { args: [], permissionPolicy: "ask", inheritEnv: [], ...given(a), name: a.name, command: a.command, env: a.env ?? {}, builtIn: false };
}

/** AG-2: a profile without its own `policyModes` gets its bridge's (keyed by package, agents/bridges.ts). */
function withBridgeModes(p: AgentProfileConfig): AgentProfileConfig {
  const modes = policyModesOf(p);
  return modes && !p.policyModes ? { ...p, policyModes: modes } : p;
}

/**
 * SES-9: agents a person configures in `$GROVE_HOME/agents.json`
 * (`{"agents":[{name, command, args?, env?, permissionPolicy?, inheritEnv?, mode?, policyModes?, sandbox?}]}`).
 * An entry named like a built-in extends it (see {@link extend}). A malformed file stops
 * start-up with a message naming the problem, rather than silently dropping an agent someone
 * relies on.
 */
export function loadProfiles(home: string, builtIns: AgentProfileConfig[]): AgentProfileConfig[] {
  const file = join(home, "agents.json");
  if (!existsSync(file)) return builtIns;
  let parsed: z.infer<typeof ProfilesFile>;
  try {
    parsed = ProfilesFile.parse(JSON.parse(readFileSync(file, "utf8")));
  } catch (e) {
    const why = e instanceof z.ZodError ? e.issues.map((i) => `${i.path.join(".")}: ${i.message}`).join("; ") : (e as Error).message;
    throw new ProfileConfigError(`${file} is invalid: ${why}`);
  }
  const names = new Set<string>();
  const configured = new Map<string, AgentProfileConfig>();
  for (const a of parsed.agents) {
    if (names.has(a.name)) throw new ProfileConfigError(`${file} names agent ${a.name} twice`);
    names.add(a.name);
    const b = builtIns.find((x) => x.name === a.name);
    configured.set(a.name, withBridgeModes(b ? extend(b, a) : newProfile(a, file)));
  }
  // Built-ins keep their place (scripted first); new agents follow in file order.
  return [...builtIns.map((b) => configured.get(b.name) ?? b), ...[...configured.values()].filter((p) => !builtIns.some((b) => b.name === p.name))];
}
