import { describe, expect, it } from "vitest";
import { ONE_DATABASE } from "../fixture/db.js";
import { openEvents, serverPerFile, waitFor } from "../fixture/server.js";
import { briefTask, callTool, captureTokens, mcpAnswers, runSession, shimClient } from "./helpers.js";

type Summary = {
  id: string;
  parentId?: string | null;
  progress?: { status: string; plan: { content: string; status: string }[] | null; updatedAt: string } | null;
  subtasks?: { total: number; done: number };
};

/**
 * MCP-2/MCP-3 on the board: the summary list (`GET /tasks?view=summary`, the board's one read)
 * carries each task's latest progress report, its parent and its subtasks' counts, and
 * `task.summary` frames bring every change of them, so the page needs no read per card.
 */
describe.each(ONE_DATABASE)("MCP-2/MCP-3 progress and subtasks in the board's summaries (%s)", (kind) => {
  const perFile = serverPerFile(kind);

  it("MCP-2 MCP-3: a summary carries progress (status and plan), parentId and {total, done} of its subtasks; ?parentId= lists the subtasks' summaries", async () => {
    const srv = await perFile.start();
    const { task: parent } = await briefTask(srv, "Parent of two", "split me");
    const sid = await runSession(
      srv,
      parent.id,
      [
        'mcp report_progress {"status":"1 of 2 done: docs next","plan":[{"content":"code","status":"completed"},{"content":"docs","status":"in_progress"}]}',
        'mcp subtask_create {"title":"Code part"}',
        'mcp subtask_create {"title":"Docs part"}',
      ].join("\n"),
    );
    const [, a, b] = await mcpAnswers(srv, sid);
    const [codeId, docsId] = [a.task.id as string, b.task.id as string];
    expect((await srv.api("PATCH", `/tasks/${codeId}`, { state: "done" })).status).toBe(200);

    const all = (await srv.api("GET", "/tasks?view=summary")).body as Summary[];
    const p = all.find((t) => t.id === parent.id)!;
    expect(p.parentId).toBeNull();
    expect(p.progress).toEqual({
      status: "1 of 2 done: docs next",
      plan: [
        { content: "code", status: "completed" },
        { content: "docs", status: "in_progress" },
      ],
      updatedAt: expect.any(String),
    });
    expect(p.subtasks).toEqual({ total: 2, done: 1 });
    const code = all.find((t) => t.id === codeId)!;
    expect(code).toMatchObject({ parentId: parent.id, progress: null, subtasks: { total: 0, done: 0 } });

    const kids = (await srv.api("GET", `/tasks?view=summary&parentId=${parent.id}`)).body as Summary[];
    expect(kids.map((k) => [k.id, k.parentId])).toEqual([
      [codeId, parent.id],
      [docsId, parent.id],
    ]);
    // The paged form carries the same fields.
    const page = (await srv.api("GET", "/tasks?view=summary&limit=500")).body as { items: Summary[] };
    expect(page.items.find((t) => t.id === parent.id)).toMatchObject({ subtasks: { total: 2, done: 1 }, progress: { status: "1 of 2 done: docs next" } });
  });

  it("MCP-2 MCP-3: task.summary frames follow a new progress report, a subtask created, moved to done and put in the trash, without a list re-read", async () => {
    const srv = await perFile.start();
    const tokens = captureTokens(srv);
    const { task: root } = await briefTask(srv, "Live root", "watch me");
    const ev = await openEvents(srv.url);
    const sid = await runSession(srv, root.id, 'mcp report_progress {"status":"starting","plan":[{"content":"plan","status":"in_progress"}]}');
    const client = await shimClient(srv, sid, tokens.get(sid)![0]!);
    try {
      const latest = (id: string) => ev.frames.filter((f) => f.type === "task.summary" && f.data.summary.id === id).at(-1)?.data.summary as Summary | undefined;
      await waitFor(() => latest(root.id)?.progress?.status === "starting", "a summary frame with the progress");
      expect((await callTool(client, "report_progress", { status: "halfway" })).isError).toBe(false);
      await waitFor(() => latest(root.id)?.progress?.status === "halfway", "a summary frame with the newer progress");
      expect(latest(root.id)?.progress?.plan).toBeNull();

      // The watched parent is a subtask with no session of its own: only its subtasks' changes
      // can bring it a fresh summary (a parent with a live agent gets frames of its own anyway).
      const mid = (await callTool(client, "subtask_create", { title: "Quiet parent" })).json.task.id as string;
      await waitFor(() => latest(root.id)?.subtasks?.total === 1, "the root's summary frame counting its new subtask");
      // The subtask's own frame may come in a later flush than its parent's (the parent can be
      // read in a flush already under way when the subtask is created): wait for it, not assume it.
      expect(await waitFor(() => latest(mid), "the new subtask's own summary frame")).toMatchObject({ parentId: root.id, subtasks: { total: 0, done: 0 } });
      const leaf = (await callTool(client, "subtask_create", { taskId: mid, title: "Leaf" })).json.task.id as string;
      await waitFor(() => latest(mid)?.subtasks?.total === 1, "the parent's summary frame counting the new subtask");
      expect((await waitFor(() => latest(leaf), "the leaf's own summary frame")).parentId).toBe(mid);

      expect((await srv.api("PATCH", `/tasks/${leaf}`, { state: "done" })).status).toBe(200);
      await waitFor(() => latest(mid)?.subtasks?.done === 1, "the parent's summary frame after its subtask is done");
      expect(latest(mid)?.subtasks).toEqual({ total: 1, done: 1 });

      expect((await srv.api("DELETE", `/tasks/${leaf}`)).status).toBeLessThan(300);
      await waitFor(() => latest(mid)?.subtasks?.total === 0, "the parent's summary frame after its subtask went to the trash", 60_000);
    } finally {
      await client.close();
      ev.close();
    }
  });
});
