import { describe, expect, it } from "vitest";
import { ONE_DATABASE } from "../fixture/db.js";
import { openEvents, serverPerFile, waitFor, waitForSession } from "../fixture/server.js";
import { briefTask } from "./helpers.js";

type Agent = { state: string; sessionId?: string; asks?: string };
type Summary = { id: string; agent: Agent };
type Item = { id: string; kind: string; taskId: string };

/**
 * MCP-3 on the board: while an agent's question (`ask_user`, a form elicitation) waits for the
 * person, the task's summary says so like a permission request — `needs_permission` with
 * `asks: "question"` — in `GET /tasks?view=summary` and in a `task.summary` frame; once answered
 * the card is back to the agent's own state.
 */
describe.each(ONE_DATABASE)("MCP-3 an agent's question on the board's summary (%s)", (kind) => {
  const perFile = serverPerFile(kind);

  it("MCP-3 BOARD-4: an open ask_user question makes the summary needs_permission (asks: question), live by task.summary; answered, it is working/idle again", async () => {
    const srv = await perFile.start();
    const events = await openEvents(srv.url);
    try {
      const { task } = await briefTask(srv, "Paint the shed", "ask first");
      const summaryOf = async () => ((await srv.api("GET", "/tasks?view=summary")).body as Summary[]).find((t) => t.id === task.id)!;
      const framesOf = () => events.frames.filter((f) => f.type === "task.summary" && f.data.summary.id === task.id).map((f) => f.data.summary as Summary);
      const s = await srv.api("POST", `/tasks/${task.id}/sessions`, {
        prompt: 'mcp ask_user {"question":"Blue or red?","choices":["blue","red"]}\nsay painting it',
      });
      expect(s.status).toBe(201);
      const item = await waitFor(
        async () => ((await srv.api("GET", "/inbox")).body as Item[]).find((i) => i.kind === "question" && i.taskId === task.id),
        "the question",
      );

      const asking = { state: "needs_permission", sessionId: s.body.id, asks: "question" };
      // The session is running (its tool call waits): the question outranks "working".
      expect((await srv.api("GET", `/sessions/${s.body.id}`)).body.state).toBe("running");
      expect((await summaryOf()).agent).toEqual(asking);
      await waitFor(
        () => framesOf().some((f) => f.agent.state === "needs_permission" && f.agent.asks === "question"),
        "a task.summary frame that needs the person",
      );

      const seen = framesOf().length;
      expect((await srv.api("POST", `/inbox/${item.id}/answer`, { answer: "blue" })).status).toBe(200);
      await waitForSession(srv.api, s.body.id, ["waiting_for_input"]);
      expect((await summaryOf()).agent).toEqual({ state: "waiting", sessionId: s.body.id });
      // The last frame is idle, and once a frame has said the person is no longer needed none
      // says so again. A summary read before the answer may still arrive after it (flushes
      // publish in order, each its own read), so frames before the first such one may still ask.
      await waitFor(() => framesOf().at(-1)?.agent.state === "waiting", "a task.summary frame back to waiting");
      const after = framesOf().slice(seen);
      const back = after.findIndex((f) => f.agent.state !== "needs_permission");
      expect(back).toBeGreaterThanOrEqual(0);
      expect(after.slice(back).every((f) => f.agent.state !== "needs_permission")).toBe(true);
    } finally {
      events.close();
    }
  });
});
