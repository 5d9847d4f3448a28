import { describe, expect, it } from "vitest";
import { ONE_DATABASE } from "../fixture/db.js";
import { serverPerFile, waitForSession, type TestServer } from "../fixture/server.js";
import { briefTask, messages, waitFor } from "./helpers.js";

type Item = { id: string; kind: string; taskId: string; sessionId?: string; title: string; state: string; choices?: string[]; answer?: string };

/** The JSON of every `elicit: <json>` answer the scripted agent got in the session, in order. */
async function elicitAnswers(srv: TestServer, sessionId: string): Promise<unknown[]> {
  return (await messages(srv, sessionId)).filter((m) => m.role === "agent" && m.text.startsWith("elicit: ")).map((m) => JSON.parse(m.text.slice(8)));
}

/** The session's open question item other than those already seen. */
function nextQuestion(srv: TestServer, sessionId: string, seen: Set<string>): Promise<Item> {
  return waitFor(async () => {
    const item = ((await srv.api("GET", "/inbox")).body as Item[]).find((i) => i.kind === "question" && i.sessionId === sessionId && !seen.has(i.id));
    if (item) seen.add(item.id);
    return item;
  }, "the next question of the session");
}

const elicit = (request: unknown) => `elicit ${JSON.stringify(request)}`;

// MCP-3: an agent's ACP form elicitation (Claude's AskUserQuestion arrives this way) is asked in
// the inbox like ask_user; the person's answers come back typed as the form's content.
describe.each(ONE_DATABASE)("MCP-3 ACP elicitation as inbox questions (%s)", (kind) => {
  const files = serverPerFile(kind);

  it("MCP-3: a one-choice form is one inbox question with the options' titles; the answer returns as the option's value and the turn goes on", async () => {
    const srv = await files.start();
    const { task, repo } = await briefTask(srv, "Store", "pick a database");
    files.track(repo);
    const form = {
      message: "Which database?",
      requestedSchema: {
        type: "object",
        properties: {
          db: {
            type: "string",
            title: "Database",
            oneOf: [
              { const: "pg", title: "PostgreSQL" },
              { const: "lite", title: "SQLite" },
            ],
          },
          // An optional free-text box beside the choice (Claude's "Other") is not asked.
          other: { type: "string", title: "Other", description: "Type your own answer" },
        },
      },
    };
    const s = await srv.api("POST", `/tasks/${task.id}/sessions`, { prompt: `${elicit(form)}\nsay done asking` });
    const item = await nextQuestion(srv, s.body.id, new Set());
    expect(item).toMatchObject({ taskId: task.id, state: "open", title: "Store: Which database?\nDatabase", choices: ["PostgreSQL", "SQLite"] });
    // The session waits for the person: it is not stalled, and it is still running.
    expect((await srv.api("GET", `/sessions/${s.body.id}`)).body.state).toBe("running");
    expect((await srv.api("POST", `/inbox/${item.id}/answer`, { answer: "MySQL" })).status).toBe(400);
    expect((await srv.api("POST", `/inbox/${item.id}/answer`, { answer: "SQLite" })).status).toBe(200);
    await waitForSession(srv.api, s.body.id, ["waiting_for_input"]);
    expect(await elicitAnswers(srv, s.body.id)).toEqual([{ action: "accept", content: { db: "lite" } }]);
    const texts = (await messages(srv, s.body.id)).map((m) => m.text);
    expect(texts).toContain("done asking");
    expect(texts).toContain("question from the agent: Which database?");
    expect(texts).toContain(`question from the agent: answered "SQLite"`);
  });

  it("MCP-3: each asked field is one question in turn; a yes/no is a boolean, a number that does not fit is asked again, and the content is typed", async () => {
    const srv = await files.start();
    const { task, repo } = await briefTask(srv, "Shards", "split it");
    files.track(repo);
    const form = {
      message: "How to split?",
      requestedSchema: {
        type: "object",
        properties: { now: { type: "boolean", title: "Start now" }, shards: { type: "integer", title: "Shards", minimum: 2 } },
        required: ["shards"],
      },
    };
    const s = await srv.api("POST", `/tasks/${task.id}/sessions`, { prompt: elicit(form) });
    const seen = new Set<string>();
    const yesNo = await nextQuestion(srv, s.body.id, seen);
    expect(yesNo).toMatchObject({ title: "Shards: How to split?\nStart now", choices: ["Yes", "No"] });
    await srv.api("POST", `/inbox/${yesNo.id}/answer`, { answer: "Yes" });
    const count = await nextQuestion(srv, s.body.id, seen);
    expect(count.title).toBe("Shards: How to split?\nShards");
    expect(count.choices).toBeUndefined();
    await srv.api("POST", `/inbox/${count.id}/answer`, { answer: "1" });
    const again = await nextQuestion(srv, s.body.id, seen);
    expect(again.title).toContain('(Please answer with at least 2; "1" does not fit.)');
    await srv.api("POST", `/inbox/${again.id}/answer`, { answer: "4" });
    await waitForSession(srv.api, s.body.id, ["waiting_for_input"]);
    expect(await elicitAnswers(srv, s.body.id)).toEqual([{ action: "accept", content: { now: true, shards: 4 } }]);
  });

  it("MCP-3: a form Grove cannot show and a URL elicitation are declined at once, with no inbox item", async () => {
    const srv = await files.start();
    const { task, repo } = await briefTask(srv, "Odd", "odd forms");
    files.track(repo);
    const nested = { message: "Address?", requestedSchema: { type: "object", properties: { address: { type: "object", properties: {} } } } };
    const url = { mode: "url", message: "Sign in", url: "https://example.invalid/login", elicitationId: "e1" };
    const s = await srv.api("POST", `/tasks/${task.id}/sessions`, { prompt: `${elicit(nested)}\n${elicit(url)}` });
    await waitForSession(srv.api, s.body.id, ["waiting_for_input"]);
    expect(await elicitAnswers(srv, s.body.id)).toEqual([{ action: "decline" }, { action: "decline" }]);
    expect(((await srv.api("GET", "/inbox?state=all")).body as Item[]).filter((i) => i.kind === "question" && i.sessionId === s.body.id)).toEqual([]);
  });
});
