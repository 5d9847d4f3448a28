import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { waitFor, waitForSession, type TestServer } from "../fixture/server.js";

/**
 * A person's home with planted credentials (SBX-1: none of it may be readable by an agent).
 * Outside /tmp on purpose (the repository's `.grove-test`): the sandbox's private /tmp would
 * hide a home under /tmp anyway, and the credential dirs must be hidden on their own.
 */
export async function personHome(): Promise<{ home: string; sshKey: string; secret: string }> {
  const root = resolve(import.meta.dirname, "..", "..", "..", "..", ".grove-test");
  mkdirSync(root, { recursive: true });
  const home = mkdtempSync(join(root, "person-"));
  const secret = `PERSON-SSH-SECRET-${Math.random().toString(36).slice(2)}`;
  mkdirSync(join(home, ".ssh"), { recursive: true, mode: 0o700 });
  mkdirSync(join(home, ".aws"), { recursive: true });
  writeFileSync(join(home, ".ssh", "id_ed25519"), `${secret}\n`, { mode: 0o600 });
  writeFileSync(join(home, ".aws", "credentials"), `[default]\naws_secret_access_key = ${secret}\n`);
  return { home, sshKey: join(home, ".ssh", "id_ed25519"), secret };
}

/** Sends `script` as a prompt and waits for the turn to end; returns the session's messages. */
export async function turn(srv: TestServer, sessionId: string, script: string, timeoutMs = 60_000): Promise<any[]> {
  const before = (await srv.api("GET", `/sessions/${sessionId}/messages`)).body.length;
  const r = await srv.api("POST", `/sessions/${sessionId}/prompt`, { prompt: script });
  if (r.status !== 202) throw new Error(`prompt: ${r.status} ${JSON.stringify(r.body)}`);
  await waitFor(async () => (await srv.api("GET", `/sessions/${sessionId}`)).body.state !== "running", "turn to start and end", timeoutMs, 100);
  await waitForSession(srv.api, sessionId, ["waiting_for_input", "completed", "failed"], timeoutMs);
  return (await srv.api("GET", `/sessions/${sessionId}/messages`)).body.slice(before);
}

/** The outputs of the scripted agent's `run` commands in `messages`, in order: `{code, output}`. */
export function runResults(messages: any[]): { code: number; output: string }[] {
  return messages
    .filter((m) => m.role === "agent" && m.text.startsWith("run: exit "))
    .map((m) => {
      const [, code, output] = /^run: exit (\d+)\n?([\s\S]*)$/.exec(m.text) ?? [];
      return { code: Number(code), output: output ?? "" };
    });
}

/** The `blocked: host:port` notes of the transcript (SBX-2). */
export function blockedNotes(messages: any[]): string[] {
  return messages.filter((m) => m.role === "system" && m.text.startsWith("blocked: ")).map((m) => m.text.slice("blocked: ".length));
}
