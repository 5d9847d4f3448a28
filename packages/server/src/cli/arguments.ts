import { CliError } from "./client.js";

/**
 * CLI-19: a command's arguments are checked together, so one error names everything to fix
 * (every missing option and every invalid value) instead of one per attempt. Commander's own
 * `requiredOption` stops at the first missing one: commands that need several declare them as
 * plain options and list them here.
 */
export interface ArgumentCheck {
  /** The flags (or `<argument>`s) that were not given, as the person types them: `--repo <repoIdOrName>`. */
  missing: string[];
  /** Each invalid value, said in full: `--line must be a positive whole number, got "x"`. */
  invalid: string[];
}

/** Starts a check: each entry of `required` whose value is undefined (or blank) is missing. */
export function checkArguments(required: readonly (readonly [flag: string, value: unknown])[]): ArgumentCheck {
  return { missing: required.filter(([, v]) => v === undefined || (typeof v === "string" && v.trim() === "")).map(([f]) => f), invalid: [] };
}

/** `a`, `a and b`, `a, b and c`. */
function list(items: readonly string[]): string {
  return items.length <= 1 ? (items[0] ?? "") : `${items.slice(0, -1).join(", ")} and ${items.at(-1)}`;
}

/**
 * Throws one `invalid_arguments` naming all of the check's problems, before any request; does
 * nothing when there are none. `details` lists them for scripts (`missing`, `invalid`).
 */
export function failOnProblems(check: ArgumentCheck): void {
  const { missing, invalid } = check;
  if (missing.length === 0 && invalid.length === 0) return;
  const parts = [...(missing.length > 0 ? [`missing ${list(missing)}`] : []), ...invalid];
  throw new CliError("invalid_arguments", parts.join("; "), { details: { missing, invalid } });
}
