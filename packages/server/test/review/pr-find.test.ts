import { describe, expect, it } from "vitest";
import { parseRemoteUrl } from "../../src/providers/url.js";
import { pullRequestApi } from "../../src/providers/pull-request-registry.js";
import { startFakeProvider, type FakeKind } from "./fake-provider.js";

const LOCS: Record<FakeKind, { owner: string; name: string }> = {
  github: { owner: "acme", name: "widget" },
  gitlab: { owner: "grp/sub", name: "widget" },
  "azure-devops": { owner: "org/proj", name: "widget" },
};

/**
 * REV-3: the lookup that makes pull-request creation idempotent asks each provider for the open
 * pull request from the task branch into its base, in that provider's query form, and reads only
 * that one (another branch's, or a closed one, is not adopted).
 */
describe.each(["github", "gitlab", "azure-devops"] as FakeKind[])("open pull request lookup (%s)", (kind) => {
  it("REV-3 finds the open pull request from the branch into the base; none for another branch or once it is closed", async () => {
    const fake = await startFakeProvider(kind, "t0ken", "http://web.invalid");
    try {
      const api = pullRequestApi(kind)!;
      const target = {
        apiUrl: fake.apiUrl,
        loc: { host: "127.0.0.1", ...LOCS[kind] },
        url: parseRemoteUrl(`${fake.url}/${LOCS[kind].owner}/${LOCS[kind].name}`),
      };
      fake.prs.push({ number: 7, title: "x", body: "", draft: false, head: "other", base: "main", state: "open", sha: "s1" });
      fake.prs.push({ number: 9, title: "y", body: "", draft: true, head: "grove/task-1", base: "main", state: "open", sha: "s2" });
      const find = async (head: string) => {
        const req = api.findOpenRequest(target, { head, base: "main" });
        const res = await fetch(req.url, { headers: { authorization: api.authorization({ token: "t0ken" }) } });
        expect(res.status).toBe(200);
        return api.parseFound(target, await res.json());
      };
      expect(await find("grove/task-1")).toMatchObject({ number: 9, state: "open", draft: true });
      expect(await find("grove/task-2")).toBeNull();
      fake.prs[1]!.state = "closed";
      expect(await find("grove/task-1")).toBeNull();
    } finally {
      await fake.close();
    }
  });
});
