import { describe, expect, it } from "vitest";
import { isRemoteUrl, resolveRepoRef } from "./repo-ref.js";

const repos = [
  { id: "repo_1", name: "app" },
  { id: "repo_2", name: "team@app" },
  { id: "app", name: "confusing" },
];

describe("--repo <repoId|name>[@baseBranch] (UX-3)", () => {
  it("UX-3 prefers an id over a name and takes no base branch without @", () => {
    expect(resolveRepoRef("app", repos)).toEqual({ repositoryId: "app" });
    expect(resolveRepoRef("confusing", repos)).toEqual({ repositoryId: "app" });
  });

  it("UX-3 splits at the first @ whose left side is a repository; branches may contain @", () => {
    expect(resolveRepoRef("repo_1@feature/a@b", repos)).toEqual({ repositoryId: "repo_1", baseBranch: "feature/a@b" });
    expect(resolveRepoRef("team@app@dev", repos)).toEqual({ repositoryId: "repo_2", baseBranch: "dev" });
    expect(resolveRepoRef("team@app", repos)).toEqual({ repositoryId: "repo_2" });
  });

  it("UX-3 rejects unknown repositories and an empty branch", () => {
    expect(() => resolveRepoRef("ghost@main", repos)).toThrow(/no repository with id or name "ghost@main"/);
    expect(() => resolveRepoRef("repo_1@", repos)).toThrow(/empty base branch/);
  });
});

describe("repo add: path or URL", () => {
  it("UX-3 recognises https, ssh and scp-like URLs, and treats everything else as a path", () => {
    for (const url of ["https://github.com/o/r.git", "ssh://git@host/o/r.git", "git@github.com:o/r.git", "http://127.0.0.1:9/r.git"])
      expect(isRemoteUrl(url)).toBe(true);
    for (const path of ["/srv/repo", "repo", "./a:b", "../x", "dir/with:colon"]) expect(isRemoteUrl(path)).toBe(false);
  });
});
