// CI set-up of the interop suite (issue 10): installs the pinned bridges (Claude, Gemini CLI) into the interop cache
// with npm; a no-op when they are cached. Fails (exit 1) when an install fails.
import { ensureBridge, INTEROP_CACHE } from "../test/interop/bridges.js";

const t0 = Date.now();
await ensureBridge("claude");
await ensureBridge("gemini");
process.stdout.write(`interop bridges ready in ${INTEROP_CACHE} (${Date.now() - t0} ms)\n`);
