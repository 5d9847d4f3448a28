/**
 * SBX-1..3: what a profile says about its sandbox. `"off"` is the explicit, visible opt-out
 * (the session is `unconfined`); otherwise the agent runs confined with these extras on top of
 * the fixed mount plan (sandbox/mount-plan.ts):
 * - `network`: `host`, `host:port` or `*.domain[:port]` entries the egress proxy lets through
 *   (default: the vendor's API hosts, see agents/bridges.ts); Grove's own port never.
 * - `writable` / `readable`: extra absolute paths bound read-write / read-only.
 * - `deny`: extra absolute paths hidden (an empty directory or an empty file in their place).
 */
export type SandboxProfile = "off" | SandboxOptions;

export interface SandboxOptions {
  network?: readonly string[];
  writable?: readonly string[];
  readable?: readonly string[];
  deny?: readonly string[];
}

/** CONTRACT `Session.sandbox`: whether the session's agent runs inside the OS sandbox. */
export type SessionSandbox = "confined" | "unconfined";

/** The options of a confined profile (none for `"off"` or absent). */
export function sandboxOptions(p: SandboxProfile | undefined): SandboxOptions {
  return p === undefined || p === "off" ? {} : p;
}
