import { API_OPERATIONS } from "../packages/protocol/src/operations/index.ts";
const lines = Object.entries(API_OPERATIONS).map(([id, o]: any) => `  ${id}: { method: "${o.method}", path: "${o.path}" },`);
console.log(lines.join("\n"));
