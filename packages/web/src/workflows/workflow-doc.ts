/**
 * WF-1 in the page: the workflow's YAML as the one source of truth for both editors. The
 * columns form reads its fields from the parsed document and writes each change back into the
 * document (comments, triggers and every field the form does not show are kept), so the YAML
 * editor and the form always show the same workflow, and what is saved is the YAML.
 */
import { isMap, isScalar, isSeq, parseDocument } from "yaml";

/** The turn outcomes a step may move on (the server's TRANSITION_OUTCOMES). */
export const OUTCOMES = ["completed", "clean", "failed", "stalled"] as const;
export type Outcome = (typeof OUTCOMES)[number];

/** The board's columns, the only step ids. */
export const STEP_IDS = ["todo", "in_progress", "review", "done", "failed"] as const;

/** One scalar field of an action (`prompt`, `agent`, `to`, `command` …); nested fields are the YAML editor's. */
export interface ActionField {
  key: string;
  value: string;
  type: "string" | "number" | "boolean";
}

export interface ActionModel {
  kind: string;
  fields: ActionField[];
}

export interface StepModel {
  index: number;
  id: string;
  wipLimit: string;
  actions: ActionModel[];
  on: Partial<Record<Outcome, string>>;
}

/** The steps as the form shows them, or the YAML's syntax error (the YAML editor shows it with its line). */
export function readSteps(source: string): { steps: StepModel[] } | { error: string } {
  const doc = parseDocument(source);
  if (doc.errors[0]) return { error: doc.errors[0].message.split("\n")[0] ?? "invalid YAML" };
  const steps = doc.get("steps", true);
  if (!isSeq(steps)) return { steps: [] };
  return {
    steps: steps.items.map((node, index): StepModel => {
      const step = isMap(node) ? node : undefined;
      const scalar = (key: string) => {
        const v = step?.get(key, true);
        return isScalar(v) && v.value !== null && v.value !== undefined ? String(v.value) : "";
      };
      const onEnter = step?.get("onEnter", true);
      const on = step?.get("on", true);
      return {
        index,
        id: scalar("id"),
        wipLimit: scalar("wipLimit"),
        actions: (isSeq(onEnter) ? onEnter.items : []).map((a) => {
          const fields: ActionField[] = [];
          let kind = "";
          if (isMap(a))
            for (const pair of a.items) {
              if (!isScalar(pair.key) || !isScalar(pair.value)) continue;
              const key = String(pair.key.value);
              const v = pair.value.value;
              if (key === "action") kind = String(v);
              else fields.push({ key, value: String(v), type: typeof v === "number" ? "number" : typeof v === "boolean" ? "boolean" : "string" });
            }
          return { kind, fields };
        }),
        on: Object.fromEntries(
          OUTCOMES.flatMap((o) => {
            const v = isMap(on) ? on.get(o, true) : undefined;
            return isScalar(v) && v.value ? [[o, String(v.value)]] : [];
          }),
        ),
      };
    }),
  };
}

/** A value as the person typed it, in the field's type; text that is no number stays text, so the server names the field. */
function typed(value: string, type: ActionField["type"] | "number"): unknown {
  if (type === "number") return value.trim() !== "" && Number.isFinite(Number(value)) ? Number(value) : value;
  if (type === "boolean") return value === "true" ? true : value === "false" ? false : value;
  return value;
}

/** The source with one field set (an empty value removes an optional field: the WIP limit, a transition). */
export function setField(source: string, path: (string | number)[], value: string, type: ActionField["type"] = "string", removeWhenEmpty = false): string {
  const doc = parseDocument(source);
  if (removeWhenEmpty && value.trim() === "") doc.deleteIn(path);
  else doc.setIn(path, typed(value, type));
  return doc.toString();
}

/** The field's path as the server names it in `details.path` (`steps.1.wipLimit`). */
export const pathKey = (path: (string | number)[]) => path.join(".");
