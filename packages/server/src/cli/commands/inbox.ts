import type { Command } from "commander";
import type { InboxItem } from "@grove/protocol";
import { contextOf, withCommonOptions } from "../context.js";
import { formatTable, shortTime } from "../output.js";
import { inboxKindWords } from "../output-words.js";

/** `grove inbox [--all]`, `grove inbox done <itemId>` and `grove inbox answer <itemId> <answer>`: the durable attention inbox (LIVE-4, MCP-3). */
export function registerInboxCommand(program: Command): void {
  const inbox = withCommonOptions(
    program
      .command("inbox")
      .description("what needs you: permission questions, finished and failed turns, stalls, crashes, failing checks")
      .option("--all", "also items already done"),
  ).action(async (opts: { all?: boolean }, cmd: Command) => {
    const { client, out } = contextOf(cmd);
    const items = await client.call("listInbox", { query: { state: opts.all ? "all" : "open" } });
    out.result(items, () => renderInbox(items, opts.all === true));
  });
  withCommonOptions(inbox.command("done <itemId>").description("mark an inbox item done")).action(async (itemId: string, _opts: unknown, cmd: Command) => {
    const { client, out } = contextOf(cmd);
    const item = await client.call("markInboxItemDone", { params: { id: itemId } });
    out.result(item, () => [`done: ${item.title}`]);
  });
  // MCP-3: the person's answer to an agent's ask_user question.
  withCommonOptions(inbox.command("answer <itemId> <answer...>").description("answer an agent's question (one of its choices, if it offered some)")).action(
    async (itemId: string, words: string[], _opts: unknown, cmd: Command) => {
      const { client, out } = contextOf(cmd);
      const item = await client.call("answerInboxQuestion", { params: { id: itemId }, body: { answer: words.join(" ") } });
      out.result(item, () => [`answered: ${item.title} → ${item.answer ?? ""}`]);
    },
  );
}

function titleOf(i: InboxItem): string {
  const base = i.detail && !i.title.endsWith(i.detail) ? `${i.title} (${i.detail})` : i.title;
  // MCP-3: a question shows its choices, or its answer once given.
  if (i.answer !== undefined) return `${base} → ${i.answer}`;
  return i.choices ? `${base} [${i.choices.join(" | ")}]` : base;
}

/** One line per item: id, kind, when, task, title (and state with --all). */
export function renderInbox(items: readonly InboxItem[], all: boolean): string[] {
  if (items.length === 0) return [all ? "the inbox is empty" : "nothing needs you right now"];
  const rows = items.map((i) => [i.id, inboxKindWords(i.kind), ...(all ? [i.state] : []), shortTime(i.createdAt), i.taskId, titleOf(i)]);
  return formatTable(rows, ["ID", "KIND", ...(all ? ["STATE"] : []), "CREATED", "TASK", "TITLE"]);
}
