// Prints docs/specs/api-errors.md from the protocol's error catalog (checked by test/api/error-catalog.test.ts).
import { ERROR_CATALOG } from "@grove/protocol";

let out =
  '# API error codes\n\nEvery error answer is `{"error": {"code", "message", "details"}}`. The catalog lives in\n' +
  "`packages/protocol/src/errors.ts`; `packages/server/test/api/error-catalog.test.ts` checks that this page lists\n" +
  "every code with its status. Regenerate with `node --import tsx packages/server/scripts/gen-error-doc.ts > docs/specs/api-errors.md`.\n\n" +
  "| code | HTTP | meaning |\n|---|---|---|\n";
for (const [code, v] of Object.entries(ERROR_CATALOG)) out += `| \`${code}\` | ${v.status} | ${v.description} |\n`;
process.stdout.write(out);
