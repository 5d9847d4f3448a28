import { describe, expect, it } from "vitest";
import { decodeText, encodeText } from "./text-codec.js";

describe("SEC-8 faithful transcript text", () => {
  it("SEC-8 NUL, lone surrogates and the escape character round-trip; the stored form has no NUL or lone surrogate; plain text is unchanged", () => {
    const samples = [
      "",
      "plain ü 中 😀",
      "a\u0000b",
      "\u0000\u0000",
      "\uE000",
      "\uE0000",
      "\uE000u0000",
      "x\uD800y",
      "\uDFFF",
      "😀\uD83D",
      "\uE000\uE000\u0000\uD800",
    ];
    for (const s of samples) {
      const stored = encodeText(s);
      expect(decodeText(stored), JSON.stringify(s)).toBe(s);
      expect(stored.includes("\u0000")).toBe(false);
      expect(/[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/.test(stored)).toBe(false);
    }
    expect(encodeText("plain ü 中 😀")).toBe("plain ü 中 😀");
  });
});
