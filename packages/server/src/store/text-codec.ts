/**
 * Faithful storage of arbitrary text (prompts, agent output) on every database (SEC-8):
 * PostgreSQL text cannot hold NUL and any UTF-8 encoder replaces a lone surrogate, so both are
 * written as an escape sequence introduced by U+E000 (a private-use character) and restored on
 * read. U+E000 itself is doubled. Text without these characters is stored unchanged, so rows
 * written before this codec read back as they were (unless they held U+E000 followed by `0`,
 * `u` or U+E000, which no real transcript does).
 */
const ESC = "\uE000";
// eslint-disable-next-line no-control-regex -- NUL is exactly what must be escaped
const NEEDS = /[\u0000\uE000]|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;

/** Text → its stored form (identity for ordinary text). */
export function encodeText(s: string): string {
  if (!s.includes("\u0000") && !s.includes(ESC) && !/[\uD800-\uDFFF]/.test(s)) return s;
  return s.replace(NEEDS, (c) => (c === "\u0000" ? `${ESC}0` : c === ESC ? ESC + ESC : `${ESC}u${c.charCodeAt(0).toString(16).padStart(4, "0")}`));
}

/** The stored form → the original text. */
export function decodeText(s: string): string {
  if (!s.includes(ESC)) return s;
  return s.replace(/\uE000(0|\uE000|u[0-9a-f]{4})/g, (_, c: string) =>
    c === "0" ? "\u0000" : c === ESC ? ESC : String.fromCharCode(parseInt(c.slice(1), 16)),
  );
}
