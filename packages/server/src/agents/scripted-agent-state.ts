import { mkdirSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { SessionUpdate } from "@agentclientprotocol/sdk";

/**
 * The scripted agent's memory of one ACP session, one JSON file per session so that a new agent
 * process can `session/load` it (SES-6, SES-9). Part of the scripted agent program.
 */
export interface ScriptedSessionState {
  sessionId: string;
  /** cwd given to `session/new`. */
  cwd: string;
  createdAt: string;
  /** Every update the agent sent, plus the user's prompts as `user_message_chunk`, in order. */
  history: SessionUpdate[];
  /** One entry per `session/load`, with the cwd the client passed (tests prove resume used the same cwd). */
  loads: { cwd: string; at: string }[];
}

/** `$GROVE_SCRIPTED_STATE_DIR`, else `<os tmpdir>/grove-scripted`. */
export function scriptedStateDir(env: NodeJS.ProcessEnv = process.env): string {
  return env.GROVE_SCRIPTED_STATE_DIR || join(tmpdir(), "grove-scripted");
}

// Session ids come from the client on load: only plain names may become file names.
const SAFE_ID = /^[A-Za-z0-9_-]{1,100}$/;

/** Path of the state file of `sessionId`, or null when the id cannot be a file name. */
export function scriptedStatePath(sessionId: string, dir = scriptedStateDir()): string | null {
  return SAFE_ID.test(sessionId) ? join(dir, `${sessionId}.json`) : null;
}

/** The stored state, or null when this agent never created that session. */
export function readScriptedState(sessionId: string, dir = scriptedStateDir()): ScriptedSessionState | null {
  const file = scriptedStatePath(sessionId, dir);
  if (!file) return null;
  try {
    return JSON.parse(readFileSync(file, "utf8")) as ScriptedSessionState;
  } catch {
    return null;
  }
}

/** Writes the whole state atomically (temp file + rename), so a crash never leaves half a file. */
export function writeScriptedState(state: ScriptedSessionState, dir = scriptedStateDir()): void {
  const file = scriptedStatePath(state.sessionId, dir);
  if (!file) throw new Error(`invalid session id ${state.sessionId}`);
  mkdirSync(dir, { recursive: true });
  const tmp = `${file}.${process.pid}.tmp`;
  writeFileSync(tmp, JSON.stringify(state, null, 1));
  renameSync(tmp, file);
}
