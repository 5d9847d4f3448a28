// Entry of dist/scripted-agent.mjs (scripts/build-agent.mjs): the scripted agent's own code is a
// CommonJS function body carried in this file as text, compiled with V8's code cache
// (scripts/code-cache.mjs). Hundreds of agent processes start in a test run, each compiled the
// whole bundle anew. The build saves the cache once (`GROVE_SCRIPTED_CODE_CACHE=write`: at exit,
// with the functions an ACP start-up compiled); agents only read it, as a sandboxed agent sees
// this directory read-only. `GROVE_SCRIPTED_CODE_CACHE=report` says on stderr whether the cache
// was used. One file, so a copy of it still runs (without a cache next to it, compiled as before).
import { createRequire } from "node:module";
import { dirname } from "node:path";
import { fileURLToPath } from "node:url";
import body from "grove:scripted-agent-body";
import { compileWithCodeCache } from "../../../scripts/code-cache.mjs";

const self = fileURLToPath(import.meta.url);
const { fn, cache, save } = compileWithCodeCache(body, { filename: self, stem: "scripted-agent" });
const mode = process.env.GROVE_SCRIPTED_CODE_CACHE;
if (mode === "report") process.stderr.write(`[scripted-agent] code cache: ${cache}\n`);
if (mode === "write") process.on("exit", save);
const module = { exports: {} };
fn(module.exports, createRequire(self), module, self, dirname(self));
