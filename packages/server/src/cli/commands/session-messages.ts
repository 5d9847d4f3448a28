import type { Message } from "@grove/protocol";
import { describeTool } from "./session-agent.js";

/**
 * Human lines of one message, as `session show` prints it: `role: text`, continuation lines
 * indented under the text so each message stays one visual block; a tool call as its status line.
 */
export function describeMessage(m: Message): string[] {
  if (m.role === "tool") return [describeTool(m)];
  const prefix = `${m.role}: `;
  const [first = "", ...rest] = m.text.replace(/\n+$/, "").split("\n");
  return [prefix + first, ...rest.map((line) => " ".repeat(prefix.length) + line)];
}
