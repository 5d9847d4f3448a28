import { describe, expect, it } from "vitest";
import { choicesOf, fieldsToAsk, formFields, parseAnswer, type FormField } from "./elicitation.js";

describe("MCP-3 form elicitation fields", () => {
  it("reads the fields of an ACP requested schema in order, with options from enum, oneOf and a multi-select's anyOf", () => {
    const fields = formFields({
      type: "object",
      properties: {
        a: { type: "string", enum: ["x", "y"] },
        b: { type: "string", title: "B", oneOf: [{ const: "1", title: "One" }] },
        c: { type: "array", items: { anyOf: [{ const: "r", title: "Red" }] } },
        d: { type: "number", minimum: 0 },
        e: { type: "boolean", description: "Sure?" },
        f: { type: "string", maxLength: 3 },
      },
      required: ["f"],
    }) as FormField[];
    expect(fields.map((f) => [f.key, f.kind, f.required])).toEqual([
      ["a", "select", false],
      ["b", "select", false],
      ["c", "multi", false],
      ["d", "number", false],
      ["e", "boolean", false],
      ["f", "text", true],
    ]);
    expect(fields[1]!.options).toEqual([{ value: "1", title: "One" }]);
    expect(fields[4]!.label).toBe("Sure?");
    // Choices and required fields are asked; optional free text beside them is not.
    expect(fieldsToAsk(fields).map((f) => f.key)).toEqual(["a", "b", "c", "e", "f"]);
    expect(fieldsToAsk(formFields({ type: "object", properties: { n: { type: "string" }, m: { type: "integer" } } }) as FormField[]).map((f) => f.key)).toEqual(
      ["n", "m"],
    );
  });

  it("refuses what it cannot ask, naming it", () => {
    expect(formFields({ type: "object", properties: {} })).toEqual({ unsupported: "the form has no fields" });
    expect(formFields({ type: "object", properties: { x: { type: "object" } } })).toEqual({ unsupported: 'field x has type "object"' });
    expect(formFields({ type: "object", properties: { x: { type: "string", enum: [] } } })).toEqual({ unsupported: "field x offers no options" });
    expect(formFields("nope")).toEqual({ unsupported: "the requested schema is not an object with properties" });
  });

  it("types an answer as its field wants it, or says why it does not fit", () => {
    const [sel, multi, int, bool, text] = formFields({
      type: "object",
      properties: {
        s: { type: "string", oneOf: [{ const: "pg", title: "PostgreSQL" }] },
        m: { type: "array", items: { enum: ["a", "b"] } },
        i: { type: "integer", minimum: 1, maximum: 9 },
        b: { type: "boolean" },
        t: { type: "string", minLength: 2 },
      },
    }) as FormField[];
    expect(parseAnswer(sel!, "PostgreSQL")).toEqual({ value: "pg" });
    expect(parseAnswer(sel!, "pg")).toEqual({ value: "pg" });
    expect(parseAnswer(sel!, "MySQL")).toEqual({ invalid: "one of: PostgreSQL" });
    expect(parseAnswer(multi!, "b")).toEqual({ value: ["b"] });
    expect(parseAnswer(int!, "3")).toEqual({ value: 3 });
    expect(parseAnswer(int!, "3.5")).toEqual({ invalid: "a whole number" });
    expect(parseAnswer(int!, "10")).toEqual({ invalid: "at most 9" });
    expect(parseAnswer(int!, "")).toEqual({ invalid: "a whole number" });
    expect(parseAnswer(bool!, "No")).toEqual({ value: false });
    expect(choicesOf(bool!)).toEqual(["Yes", "No"]);
    expect(parseAnswer(text!, " a ")).toEqual({ invalid: "at least 2 characters" });
    expect(parseAnswer(text!, "ok")).toEqual({ value: "ok" });
  });
});
