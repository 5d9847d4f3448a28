// CI set-up of the interop suite: installs the pinned bridges of the four built-in real agents
// (Claude Code, Gemini CLI, Codex, opencode) into the interop cache with npm; a no-op when they
// are cached. Fails (exit 1) when an install fails.
import { ensureBridge, INTEROP_CACHE } from "../test/interop/bridges.js";

const t0 = Date.now();
for (const name of ["claude", "gemini", "codex", "opencode"] as const) await ensureBridge(name);
process.stdout.write(`interop bridges ready in ${INTEROP_CACHE} (${Date.now() - t0} ms)\n`);
