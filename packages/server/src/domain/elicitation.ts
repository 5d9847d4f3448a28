/**
 * MCP-3: an agent's ACP form elicitation (`elicitation/create`, mode `form`) as questions to the
 * person. Each field Grove asks becomes one inbox question (choices for a select, yes/no for a
 * boolean); the answers are typed back into the form's content. Pure: no I/O.
 */

/** The content value of one field, as ACP's `ElicitationContentValue`. */
export type FieldValue = string | number | boolean | string[];

/** One field of a requested form. */
export interface FormField {
  key: string;
  /** What the person reads: the field's title and description, else its key. */
  label: string;
  kind: "text" | "number" | "integer" | "boolean" | "select" | "multi";
  required: boolean;
  /** A select's (or multi-select's) options: the value sent back and the title shown. */
  options?: { value: string; title: string }[];
  minLength?: number;
  maxLength?: number;
  minimum?: number;
  maximum?: number;
}

type Json = Record<string, unknown>;

const isObject = (v: unknown): v is Json => typeof v === "object" && v !== null && !Array.isArray(v);
const str = (v: unknown): string | undefined => (typeof v === "string" && v.trim() !== "" ? v.trim() : undefined);
const num = (v: unknown): number | undefined => (typeof v === "number" && Number.isFinite(v) ? v : undefined);

/** Options of `enum: [..]` or `oneOf`/`anyOf: [{const, title}]`; undefined when there are none. */
function optionsOf(p: Json): { value: string; title: string }[] | undefined {
  if (Array.isArray(p.enum)) return p.enum.filter((v): v is string => typeof v === "string").map((v) => ({ value: v, title: v }));
  const list = Array.isArray(p.oneOf) ? p.oneOf : Array.isArray(p.anyOf) ? p.anyOf : undefined;
  if (!list) return undefined;
  return list.filter(isObject).flatMap((o) => (typeof o.const === "string" ? [{ value: o.const, title: str(o.title) ?? o.const }] : []));
}

/**
 * The fields of a requested schema, in their order, or an error naming what Grove cannot ask
 * (not an object schema, no fields, a field of an unknown type, a select without options).
 */
export function formFields(schema: unknown): FormField[] | { unsupported: string } {
  if (!isObject(schema) || (schema.type !== undefined && schema.type !== "object") || !isObject(schema.properties))
    return { unsupported: "the requested schema is not an object with properties" };
  const required = new Set(Array.isArray(schema.required) ? schema.required.filter((r): r is string => typeof r === "string") : []);
  const fields: FormField[] = [];
  for (const [key, p] of Object.entries(schema.properties)) {
    if (!isObject(p)) return { unsupported: `field ${key} has no schema` };
    const title = str(p.title);
    const description = str(p.description);
    const label = [title, description].filter(Boolean).join(": ") || key;
    const base = { key, label, required: required.has(key) };
    switch (p.type) {
      case "string": {
        const options = optionsOf(p);
        if (options) {
          if (options.length === 0) return { unsupported: `field ${key} offers no options` };
          fields.push({ ...base, kind: "select", options });
        } else {
          fields.push({
            ...base,
            kind: "text",
            ...(num(p.minLength) !== undefined ? { minLength: num(p.minLength)! } : {}),
            ...(num(p.maxLength) !== undefined ? { maxLength: num(p.maxLength)! } : {}),
          });
        }
        break;
      }
      case "number":
      case "integer":
        fields.push({
          ...base,
          kind: p.type,
          ...(num(p.minimum) !== undefined ? { minimum: num(p.minimum)! } : {}),
          ...(num(p.maximum) !== undefined ? { maximum: num(p.maximum)! } : {}),
        });
        break;
      case "boolean":
        fields.push({
          ...base,
          kind: "boolean",
          options: [
            { value: "true", title: "Yes" },
            { value: "false", title: "No" },
          ],
        });
        break;
      case "array": {
        const options = isObject(p.items) ? optionsOf(p.items) : undefined;
        if (!options || options.length === 0) return { unsupported: `field ${key} is a list without options` };
        fields.push({ ...base, kind: "multi", options });
        break;
      }
      default:
        return { unsupported: `field ${key} has type ${JSON.stringify(p.type)}` };
    }
  }
  if (fields.length === 0) return { unsupported: "the form has no fields" };
  return fields;
}

/**
 * The fields the person is asked: every choice (select, multi-select, yes/no) and every required
 * field; a form of optional free-text fields only is asked whole. Optional free text beside
 * choices (an "other" box) is left out: one click answers the usual question.
 */
export function fieldsToAsk(fields: readonly FormField[]): FormField[] {
  const asked = fields.filter((f) => f.required || f.options !== undefined);
  return asked.length > 0 ? asked : [...fields];
}

/** The question text of a field: the form's message, and the field when the form asks several. */
export function questionOf(message: string, field: FormField, asked: number): string {
  const hint = field.kind === "multi" ? " (pick one)" : "";
  return asked === 1 && field.label === field.key ? `${message}${hint}` : `${message}\n${field.label}${hint}`;
}

/** The choices shown for a field (titles, unique), or undefined for free text. */
export function choicesOf(field: FormField): string[] | undefined {
  return field.options ? [...new Set(field.options.map((o) => o.title))] : undefined;
}

/** The person's answer typed as the field wants it, or the reason it does not fit. */
export function parseAnswer(field: FormField, answer: string): { value: FieldValue } | { invalid: string } {
  const text = answer.trim();
  switch (field.kind) {
    case "select":
    case "multi":
    case "boolean": {
      const o = field.options!.find((x) => x.title === text) ?? field.options!.find((x) => x.value === text);
      if (!o) return { invalid: `one of: ${choicesOf(field)!.join(", ")}` };
      if (field.kind === "boolean") return { value: o.value === "true" };
      return { value: field.kind === "multi" ? [o.value] : o.value };
    }
    case "number":
    case "integer": {
      const n = text === "" ? NaN : Number(text);
      if (!Number.isFinite(n) || (field.kind === "integer" && !Number.isInteger(n)))
        return { invalid: field.kind === "integer" ? "a whole number" : "a number" };
      if (field.minimum !== undefined && n < field.minimum) return { invalid: `at least ${field.minimum}` };
      if (field.maximum !== undefined && n > field.maximum) return { invalid: `at most ${field.maximum}` };
      return { value: n };
    }
    case "text": {
      if (field.minLength !== undefined && text.length < field.minLength) return { invalid: `at least ${field.minLength} characters` };
      if (field.maxLength !== undefined && text.length > field.maxLength) return { invalid: `at most ${field.maxLength} characters` };
      return { value: text };
    }
  }
}
