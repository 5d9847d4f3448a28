/**
 * Human and machine output of the CLI. The rule the contract sets: with `--json`, stdout holds
 * exactly one JSON document; progress and errors always go to stderr, so a script can pipe
 * stdout into a JSON parser while a person still sees what a long operation is doing.
 */

/** Where a command writes. Streams are injectable so formatting can be tested without a process. */
export class Output {
  readonly json: boolean;
  readonly #stdout: NodeJS.WritableStream;
  readonly #stderr: NodeJS.WritableStream;

  constructor(opts: { json: boolean; stdout?: NodeJS.WritableStream; stderr?: NodeJS.WritableStream }) {
    this.json = opts.json;
    this.#stdout = opts.stdout ?? process.stdout;
    this.#stderr = opts.stderr ?? process.stderr;
  }

  /**
   * The result of a command: `value` as one JSON document with `--json`, otherwise the lines
   * `human` returns (an empty array prints nothing).
   */
  result(value: unknown, human: () => string[]): void {
    if (this.json) this.#stdout.write(JSON.stringify(value ?? null, null, 2) + "\n");
    else for (const line of human()) this.#stdout.write(line + "\n");
  }

  /**
   * CLI-15: part of a result that streams (`session show --follow`), written as it comes. With
   * `--json` nothing streams: the command's one document comes from {@link result} at the end.
   */
  stream(text: string): void {
    if (!this.json) this.#stdout.write(text);
  }

  /** A progress line on stderr ("materializing workspace…"); never part of the result. */
  progress(line: string): void {
    this.#stderr.write(line + "\n");
  }
}

/** The contract's one-line failure text: `error: CODE: message` (newlines folded). */
export function formatError(code: string, message: string): string {
  return `error: ${code}: ${oneLine(message)}`;
}

/** Folds whitespace runs (including newlines) into single spaces. */
export function oneLine(s: string): string {
  return s.replace(/\s*[\r\n]+\s*/g, " ").trim();
}

/**
 * A compact left-aligned table: columns separated by two spaces, the last column not padded.
 * With `headers`, they form the first row. An empty `rows` yields just the header (or nothing).
 */
export function formatTable(rows: readonly (readonly string[])[], headers?: readonly string[]): string[] {
  const all = headers ? [headers, ...rows] : [...rows];
  if (all.length === 0) return [];
  const widths: number[] = [];
  for (const row of all) row.forEach((cell, i) => (widths[i] = Math.max(widths[i] ?? 0, cell.length)));
  return all.map((row) =>
    row
      .map((cell, i) => (i === row.length - 1 ? cell : cell.padEnd(widths[i] ?? 0)))
      .join("  ")
      .trimEnd(),
  );
}

/** Short relative-free timestamp for human output: `2026-01-02 03:04:05`. */
export function shortTime(iso: string | null | undefined): string {
  if (!iso) return "-";
  const d = new Date(iso);
  if (Number.isNaN(d.getTime())) return iso;
  return d.toISOString().slice(0, 19).replace("T", " ");
}

/** AG-3: an agent's own stderr (an API error's `details.stderr`), indented under the error line. */
export function agentStderr(text: unknown): string {
  if (typeof text !== "string" || text.trim() === "") return "";
  const lines = text.trimEnd().split("\n").slice(-40);
  return `\nagent stderr:\n${lines.map((l) => `  ${l}`).join("\n")}`;
}
