import { spawn } from "node:child_process";
import { randomUUID } from "node:crypto";
import { constants as osConstants } from "node:os";
import { resolve } from "node:path";
import type { SessionUpdate, StopReason, ToolCallContent, ToolKind } from "@agentclientprotocol/sdk";
import { appendFileInside, commitAll, deleteFileInside, readFileInside, unescapeText, writeFileInside } from "./scripted-agent-files.js";

/**
 * One prompt turn of the scripted agent (SES-9): runs the script line by line. Each command is a
 * tool call (`pending` → `completed` | `failed`); lines that are not commands are answered with
 * `ok: <line>`. A failed command ends the turn (`end_turn`, after an `error: …` message) and the
 * rest of the script is skipped, like an agent giving up. Part of the scripted agent program.
 */
export interface TurnContext {
  cwd: string;
  /** Aborted by `session/cancel`. */
  signal: AbortSignal;
  /** Sends one `session/update` (and records it in the history). */
  send(update: SessionUpdate): Promise<void>;
  /** `session/request_permission`; resolves the option kind chosen, or "cancelled". */
  askPermission(toolCallId: string, title: string, kind?: ToolKind): Promise<"allowed" | "rejected" | "cancelled">;
  /** Exits the process (the `crash` command). */
  exit(code: number): never;
  /** AG-2: the session's current mode (`ask` asks before every file change) and model. */
  mode(): string;
  model(): string;
  /** MCP-1: calls a tool of the session's `grove` MCP server; its text, and whether it is an error. */
  mcp(tool: string, args: Record<string, unknown>): Promise<{ text: string; isError: boolean }>;
  /**
   * MCP-3 (`elicit <json>`): an ACP `elicitation/create` of this session (mode `form` unless the
   * JSON says otherwise); the client's answer. Throws when the client advertised no form elicitation.
   */
  elicit?(params: Record<string, unknown>): Promise<unknown>;
  /** USE-1 (`usage <in> <out> [cost]`): counts the tokens into the turn's usage and sends a `usage_update`. */
  usage?(tokensIn: number, tokensOut: number, cost: number | undefined): Promise<void>;
}

const KINDS: Record<string, ToolKind> = {
  say: "other",
  think: "think",
  write: "edit",
  append: "edit",
  delete: "delete",
  commit: "execute",
  sleep: "other",
  ask: "other",
  fail: "other",
  crash: "other",
  read: "read",
  dup: "edit",
  open: "other",
  mode: "other",
  run: "execute",
  mcp: "other",
  usage: "other",
  elicit: "other",
};

// Commands that change files: in mode `ask` each asks permission first, like a real agent's asking mode.
const CHANGES_FILES = new Set(["write", "append", "delete", "commit", "run"]);

class Cancelled extends Error {}

function splitCommand(line: string): { cmd: string; rest: string } {
  const m = /^(\S+)\s?(.*)$/.exec(line);
  return { cmd: m?.[1] ?? "", rest: m?.[2] ?? "" };
}

function splitPath(rest: string): { path: string; text: string } {
  const { cmd, rest: text } = splitCommand(rest);
  return { path: cmd, text: unescapeText(text) };
}

function textContent(text: string): ToolCallContent {
  return { type: "content", content: { type: "text", text } };
}

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) return reject(new Cancelled());
    const onAbort = () => {
      clearTimeout(timer);
      reject(new Cancelled());
    };
    const timer = setTimeout(() => {
      signal.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    signal.addEventListener("abort", onAbort, { once: true });
  });
}

const RUN_OUTPUT_BYTES = 64 * 1024;

/** `sh -c command` in `cwd`: exit code (128+n for a signal) and stdout+stderr (bounded); a cancel kills it. */
function runShell(command: string, cwd: string, signal: AbortSignal): Promise<{ code: number; output: string }> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) return reject(new Cancelled());
    const child = spawn("/bin/sh", ["-c", command], { cwd, stdio: ["ignore", "pipe", "pipe"] });
    let out = "";
    const take = (d: Buffer) => {
      if (out.length < RUN_OUTPUT_BYTES) out += d.toString("utf8").slice(0, RUN_OUTPUT_BYTES - out.length);
    };
    child.stdout.on("data", take);
    child.stderr.on("data", take);
    const onAbort = () => child.kill("SIGKILL");
    signal.addEventListener("abort", onAbort, { once: true });
    child.once("error", (e) => {
      signal.removeEventListener("abort", onAbort);
      reject(e);
    });
    child.once("close", (code, sig) => {
      signal.removeEventListener("abort", onAbort);
      if (signal.aborted) return reject(new Cancelled());
      resolve({ code: code ?? 128 + (sig ? (osConstants.signals[sig] ?? 0) : 0), output: out.trimEnd() });
    });
  });
}

/** Runs `script` and returns the turn's stop reason. */
export async function runScript(ctx: TurnContext, script: string): Promise<StopReason> {
  const message = (text: string) => ctx.send({ sessionUpdate: "agent_message_chunk", content: { type: "text", text }, messageId: randomUUID() });

  for (const raw of script.split(/\r?\n/)) {
    const line = raw.trim();
    if (!line) continue;
    if (ctx.signal.aborted) return "cancelled";
    const { cmd, rest } = splitCommand(line);
    if (cmd === "hang") {
      // LIVE-3: an agent gone silent — no tool call, no update at all — for <ms> (a cancel ends it).
      const ms = Number(rest);
      try {
        await sleep(Number.isFinite(ms) && ms >= 0 ? ms : 0, ctx.signal);
      } catch {
        return "cancelled";
      }
      continue;
    }
    const kind = KINDS[cmd];
    if (!kind) {
      await message(`ok: ${line}`);
      continue;
    }
    const toolCallId = `call_${randomUUID()}`;
    const done = (status: "completed" | "failed", extra: Partial<Extract<SessionUpdate, { sessionUpdate: "tool_call_update" }>> = {}) =>
      ctx.send({ sessionUpdate: "tool_call_update", toolCallId, status, ...extra });
    const pathOf = cmd === "write" || cmd === "append" || cmd === "delete" || cmd === "read" ? splitPath(rest).path : undefined;
    const title = line.length > 80 ? `${line.slice(0, 77)}...` : line;
    if (cmd === "dup") {
      // AG-1: like bridges that announce a tool call with empty input, then again in full.
      await ctx.send({ sessionUpdate: "tool_call", toolCallId, title: "dup", kind, status: "pending", rawInput: {} });
    }
    await ctx.send({
      sessionUpdate: "tool_call",
      toolCallId,
      title,
      kind,
      status: "pending",
      rawInput: { command: cmd, argument: rest },
      ...(pathOf ? { locations: [{ path: resolve(ctx.cwd, pathOf) }] } : {}),
    });
    if (cmd === "open") {
      // AG-1: a tool call the agent never closes (Grove closes it when the turn ends).
      await ctx.send({ sessionUpdate: "tool_call_update", toolCallId, status: "in_progress" });
      continue;
    }
    try {
      if (CHANGES_FILES.has(cmd) && ctx.mode() === "ask") {
        const answer = await ctx.askPermission(toolCallId, title, kind);
        if (answer === "cancelled") throw new Cancelled();
        if (answer === "rejected") {
          await done("failed", { content: [textContent("permission rejected")] });
          await message(`permission rejected: ${line}`);
          return "end_turn";
        }
      }
      switch (cmd) {
        case "dup":
          await message(rest);
          await done("completed");
          break;
        case "mode":
          await message(`mode: ${ctx.mode()} model: ${ctx.model()}`);
          await done("completed");
          break;
        case "say":
          await message(rest);
          await done("completed");
          break;
        case "think":
          await ctx.send({ sessionUpdate: "agent_thought_chunk", content: { type: "text", text: rest }, messageId: randomUUID() });
          await done("completed");
          break;
        case "write":
        case "append": {
          const { path, text } = splitPath(rest);
          const r = cmd === "write" ? writeFileInside(ctx.cwd, path, text) : appendFileInside(ctx.cwd, path, text);
          await done("completed", { content: [{ type: "diff", path: r.path, oldText: r.oldText, newText: r.newText }], locations: [{ path: r.path }] });
          break;
        }
        case "read": {
          // An extension of the contract's language: proves what the agent sees in its cwd.
          const r = readFileInside(ctx.cwd, splitPath(rest).path);
          await message(r.text);
          await done("completed", { content: [textContent(r.text)], locations: [{ path: r.path }] });
          break;
        }
        case "delete": {
          const r = deleteFileInside(ctx.cwd, splitPath(rest).path);
          await done("completed", { content: [{ type: "diff", path: r.path, oldText: r.oldText, newText: "" }], locations: [{ path: r.path }] });
          break;
        }
        case "commit": {
          if (!rest) throw new Error("commit needs a message");
          const commits = commitAll(ctx.cwd, rest);
          const summary = commits.map((c) => `${c.commit.slice(0, 12)} in ${c.dir}`).join("\n");
          await done("completed", { content: [textContent(`committed ${summary}`)], rawOutput: { commits } });
          break;
        }
        case "run": {
          // A shell command as an agent's tool runs it: `sh -c` in cwd, in the agent's own
          // environment (inside its sandbox when Grove confined it). A failing command is a
          // failed tool call the turn goes on after, as with a real agent; output is shown.
          if (!rest) throw new Error("run needs a command");
          const r = await runShell(rest, ctx.cwd, ctx.signal);
          const text = `run: exit ${r.code}${r.output ? `\n${r.output}` : ""}`;
          await message(text);
          await done(r.code === 0 ? "completed" : "failed", { content: [textContent(r.output)], rawOutput: { exitCode: r.code, output: r.output } });
          break;
        }
        case "usage": {
          const [tin, tout, cost, ...extra] = rest.split(/\s+/).filter(Boolean).map(Number);
          const count = (x: number | undefined) => x !== undefined && Number.isInteger(x) && x >= 0;
          if (!count(tin) || !count(tout) || extra.length > 0 || (cost !== undefined && !(Number.isFinite(cost) && cost >= 0))) {
            throw new Error(`usage needs <in> <out> [cost]: ${rest}`);
          }
          if (!ctx.usage) throw new Error("usage is not supported here");
          await ctx.usage(tin!, tout!, cost);
          await done("completed");
          break;
        }
        case "sleep": {
          const ms = Number(rest);
          if (!Number.isFinite(ms) || ms < 0) throw new Error(`sleep needs a number of milliseconds: ${rest}`);
          await sleep(ms, ctx.signal);
          await done("completed");
          break;
        }
        case "ask": {
          const answer = await ctx.askPermission(toolCallId, rest || "May I go on?");
          if (answer === "cancelled") throw new Cancelled();
          if (answer === "rejected") {
            await done("failed", { content: [textContent("permission rejected")] });
            await message(`permission rejected: ${rest}`);
            return "end_turn";
          }
          await done("completed", { content: [textContent("permission granted")] });
          break;
        }
        case "mcp": {
          // MCP-1: `mcp <tool> <json>` calls a tool of Grove's MCP server, as a real agent would.
          const { cmd: tool, rest: json } = splitCommand(rest);
          if (!tool) throw new Error("mcp needs a tool name");
          const parsed: unknown = json.trim() === "" ? {} : JSON.parse(json);
          if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed)) throw new Error("mcp needs a JSON object of arguments");
          const r = await ctx.mcp(tool, parsed as Record<string, unknown>);
          await message(`mcp: ${r.text}`);
          await done(r.isError ? "failed" : "completed", { content: [textContent(r.text)] });
          break;
        }
        case "elicit": {
          // MCP-3: asks the client's person a form, as an agent's question tool would.
          if (!ctx.elicit) throw new Error("elicit is not available here");
          const parsed: unknown = JSON.parse(rest);
          if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed))
            throw new Error("elicit needs a JSON object ({message, requestedSchema})");
          const answer = JSON.stringify(await ctx.elicit(parsed as Record<string, unknown>));
          await message(`elicit: ${answer}`);
          await done("completed", { content: [textContent(answer)] });
          break;
        }
        case "fail":
          await message(rest);
          await done("failed", { content: [textContent(rest)] });
          return "refusal";
        case "crash": {
          const code = Number.parseInt(rest, 10);
          ctx.exit(Number.isInteger(code) && code >= 0 && code <= 255 ? code : 1);
        }
      }
    } catch (e) {
      if (e instanceof Cancelled || ctx.signal.aborted) {
        await done("failed", { content: [textContent("cancelled")] });
        return "cancelled";
      }
      const msg = e instanceof Error ? e.message : String(e);
      await done("failed", { content: [textContent(msg)], rawOutput: { error: msg } });
      await message(`error: ${msg}`);
      return "end_turn";
    }
  }
  return ctx.signal.aborted ? "cancelled" : "end_turn";
}
