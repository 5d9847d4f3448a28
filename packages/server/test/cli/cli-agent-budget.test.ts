import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestServer, type TestServer } from "../fixture/server.js";
import { runGrove } from "./run-cli.js";

type Profile = { name: string; budget?: { budget: { cost?: number; tokens?: number }; setAt: string | null } };

// USE-2 with the bundled CLI against a real server: an agent profile's daily cap is set, shown
// and cleared from the command line; bad input is refused with its code and writes nothing.
describe("USE-2 CLI-20 grove agents budget", () => {
  let srv: TestServer;
  const grove = (...args: string[]) => runGrove([...args, "--server", srv.url]);
  const capOf = async (name: string) => ((await srv.api("GET", "/agents")).body as Profile[]).find((p) => p.name === name)!.budget!;

  beforeAll(async () => {
    srv = await startTestServer("sqlite");
  });
  afterAll(async () => {
    await srv?.close();
  });

  it("USE-2 CLI-20 --usd sets the cap (in force on the server), agents ls and agents budget show it, --json is the profile", async () => {
    const set = await grove("agents", "budget", "scripted", "--usd", "5");
    expect(set.stderr).toBe("");
    expect(set.code).toBe(0);
    expect(set.stdout).toMatch(/^agent scripted daily cap: 5 USD; spent \d{4}-\d{2}-\d{2}: 0\.0000 USD, 0 tokens\n$/);
    expect((await capOf("scripted")).budget).toEqual({ cost: 5 });

    expect((await grove("agents", "ls")).stdout).toMatch(/^scripted .*daily cap: 5 USD/m);
    expect((await grove("agents", "budget", "scripted")).stdout).toMatch(/^agent scripted daily cap: 5 USD;/);
    const json = JSON.parse((await grove("agents", "budget", "scripted", "--json")).stdout) as Profile;
    expect(json).toMatchObject({ name: "scripted", budget: { budget: { cost: 5 } } });

    // Both limits at once, in the amounts `task budget` reads too: the cap is replaced.
    const both = await grove("agents", "budget", "scripted", "2.5usd", "--tokens", "200000");
    expect(both.code, both.stderr).toBe(0);
    expect(both.stdout).toMatch(/^agent scripted daily cap: 2\.5 USD, 200000 tokens;/);
    expect((await capOf("scripted")).budget).toEqual({ cost: 2.5, tokens: 200000 });
  });

  it("USE-2 CLI-20 --clear (or none) removes the cap; agents ls no longer shows one", async () => {
    expect((await grove("agents", "budget", "scripted", "--usd", "1")).code).toBe(0);
    const cleared = await grove("agents", "budget", "scripted", "--clear");
    expect(cleared.code, cleared.stderr).toBe(0);
    expect(cleared.stdout).toMatch(/^agent scripted daily cap: none;/);
    expect(await capOf("scripted")).toMatchObject({ budget: {}, setAt: null });
    expect((await grove("agents", "ls")).stdout).not.toContain("daily cap");

    expect((await grove("agents", "budget", "scripted", "300tokens")).code).toBe(0);
    expect((await grove("agents", "budget", "scripted", "none")).code).toBe(0);
    expect((await capOf("scripted")).budget).toEqual({});
  });

  it("USE-2 CLI-20 bad input is one coded error naming every problem, exit 1, nothing written", async () => {
    expect((await grove("agents", "budget", "scripted", "--usd", "7")).code).toBe(0);
    const before = await capOf("scripted");
    const cases: [string[], RegExp][] = [
      [["--usd", "-5"], /^error: invalid_arguments: --usd must be a positive amount in USD, got "-5"\n$/],
      [["--usd", "abc"], /^error: invalid_arguments: --usd must be a positive amount in USD, got "abc"\n$/],
      [["--usd", "0"], /^error: invalid_arguments: --usd must be a positive amount in USD, got "0"\n$/],
      [["--tokens", "1.5", "--usd", "x"], /^error: invalid_arguments: --usd must be .*got "x"; --tokens must be a positive whole number, got "1\.5"\n$/],
      [["5usd", "--usd", "3"], /^error: invalid_arguments: the USD cap is given twice \(5usd\)\n$/],
      [["--clear", "--usd", "3"], /^error: invalid_arguments: --clear takes no amount/],
      [["lots"], /^error: invalid_arguments: an amount is <number>usd or <whole number>tokens, got "lots"\n$/],
    ];
    for (const [args, expected] of cases) {
      const r = await grove("agents", "budget", "scripted", ...args);
      expect(r.code, args.join(" ")).toBe(1);
      expect(r.stdout).toBe("");
      expect(r.stderr, args.join(" ")).toMatch(expected);
    }
    const json = await grove("agents", "budget", "scripted", "--usd", "-1", "--json");
    expect(JSON.parse(json.stderr)).toMatchObject({ error: { code: "invalid_arguments", details: { invalid: [expect.stringContaining("--usd")] } } });

    for (const args of [["--usd", "3"], ["--clear"], []]) {
      const unknown = await grove("agents", "budget", "nosuchagent", ...args);
      expect(unknown.code, args.join(" ")).toBe(1);
      expect(unknown.stderr, args.join(" ")).toMatch(/^error: not_found: no agent profile named "nosuchagent"/);
    }
    expect(await capOf("scripted")).toEqual(before);
    expect(((await srv.api("GET", "/agents")).body as Profile[]).map((p) => p.name)).not.toContain("nosuchagent");
  });
});
