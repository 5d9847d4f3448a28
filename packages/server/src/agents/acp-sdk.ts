import type * as Acp from "@agentclientprotocol/sdk";

/** The ACP SDK's module. */
export type AcpSdk = typeof Acp;

let loaded: AcpSdk | undefined;

/**
 * The ACP SDK, loaded when the first agent starts rather than with the server: its generated
 * schemas take a noticeable part of start-up, and a server answers requests before any agent runs
 * (`npm start` → listening).
 */
export async function acpSdk(): Promise<AcpSdk> {
  loaded ??= await import("@agentclientprotocol/sdk");
  return loaded;
}

/** The SDK once an agent has started in this process; undefined before (then no SDK error exists yet). */
export function loadedAcpSdk(): AcpSdk | undefined {
  return loaded;
}
