import { z } from "zod";

/** `online` while the runner's last heartbeat is within 3 × its heartbeat interval. */
export const RunnerState = z.enum(["online", "offline"]);
export type RunnerState = z.infer<typeof RunnerState>;

/** `GET /runners`: one server process identity registered in the shared database. */
export const Runner = z.object({
  id: z.string(),
  host: z.string(),
  /** Advertised internal URL (`GROVE_RUNNER_URL`, default: the runner's own listen URL). */
  url: z.string(),
  labels: z.array(z.string()),
  /** `GROVE_RUNNER_MAX_AGENTS`; null = no limit. */
  maxAgents: z.number().int().nullable(),
  /** Agents running on the runner at its last heartbeat. */
  liveAgents: z.number().int(),
  state: RunnerState,
  version: z.string(),
  lastSeenAt: z.string(),
  /**
   * Public id of the runner's credential key (HMAC of the key, never the key): runners showing the
   * same id can open each other's sealed repository credentials; null before migration 014.
   */
  credentialKeyId: z.string().nullable().optional(),
});
export type Runner = z.infer<typeof Runner>;
