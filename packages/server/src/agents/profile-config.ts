import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { z } from "zod";
import { ENV_NAME, SERVER_SECRETS } from "../domain/child-env.js";
import type { AgentProfileConfig } from "./profiles.js";

const ProfileEntry = z
  .object({
    name: z.string().regex(/^[a-z0-9][a-z0-9._-]{0,63}$/, "lower-case letters, digits, '.', '_' and '-'"),
    command: z.string().min(1),
    args: z.array(z.string()).default([]),
    env: z.record(z.string(), z.string()).default({}),
    permissionPolicy: z.enum(["auto_approve", "ask"]).default("ask"),
    // SEC-7: server variables this agent inherits beyond the base allow-list. Grove's own
    // secrets would hand the agent the server itself: refused, not silently dropped.
    inheritEnv: z
      .array(
        z
          .string()
          .regex(ENV_NAME, "an environment variable name (letters, digits, '_'; not starting with a digit)")
          .refine((n) => !SERVER_SECRETS.includes(n), { message: "names a secret of the Grove server itself; set a value in env instead if the agent really needs it" }),
      )
      .max(256)
      .default([]),
    /** AG-2: pin the agent to one of its modes. */
    mode: z.string().min(1).optional(),
    /** AG-2: the agent's own mode for each permission policy. */
    policyModes: z.object({ ask: z.string().min(1).optional(), auto_approve: z.string().min(1).optional() }).strict().optional(),
    /** LIVE-3: no agent update for this long (ms) and no running tool call → the turn is stalled. */
    stallAfterMs: z.number().int().min(100).max(7 * 24 * 3600 * 1000).optional(),
  })
  .strict();
const ProfilesFile = z.object({ agents: z.array(ProfileEntry) }).strict();

export class ProfileConfigError extends Error {}

/**
 * SES-9: agents a person configures in `$GROVE_HOME/agents.json`
 * (`{"agents":[{name, command, args?, env?, permissionPolicy?, inheritEnv?}]}`). An entry named like a
 * built-in replaces it. A malformed file stops start-up with a message naming the problem,
 * rather than silently dropping an agent someone relies on.
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
  const configured: AgentProfileConfig[] = [];
  for (const a of parsed.agents) {
    if (names.has(a.name)) throw new ProfileConfigError(`${file} names agent ${a.name} twice`);
    names.add(a.name);
    const { mode, policyModes, stallAfterMs, ...rest } = a;
    configured.push({
      ...rest,
      inheritEnv: [...new Set(a.inheritEnv)],
      builtIn: false,
      ...(mode ? { mode } : {}),
      ...(policyModes ? { policyModes } : {}),
      ...(stallAfterMs !== undefined ? { stallAfterMs } : {}),
    });
  }
  return [...builtIns.filter((b) => !names.has(b.name)), ...configured];
}
