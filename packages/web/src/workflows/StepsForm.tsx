/**
 * WF-1: a workflow's columns as a form: per column its WIP limit, the fields of its onEnter
 * actions and its transitions. Each change is written into the YAML (workflow-doc.ts); a
 * refused save marks the field the server named (`details.path`) with its message.
 */
import { taskStateWords } from "../ui/words.js";
import { OUTCOMES, STEP_IDS, type StepModel, pathKey, setField } from "./workflow-doc.js";

const OUTCOME_WORDS: Record<(typeof OUTCOMES)[number], string> = {
  completed: "When its turn completes",
  clean: "When a review finds nothing",
  failed: "When its turn fails",
  stalled: "When its turn stalls",
};

/** WEB-49.2: what each action does, in words; the raw kind stays in `data-action` and the YAML. */
const ACTION_WORDS: Record<string, string> = {
  start_session: "Start an agent session",
  send_comments: "Send the review comments to the agent",
  send_checks: "Send the failed checks to the agent",
  move: "Move the task",
  run: "Run a command",
  pr: "Open a pull request",
};

/** An action's field names in words (`timeoutSeconds` → "timeout (seconds)"). */
const FIELD_WORDS: Record<string, string> = {
  agent: "agent",
  prompt: "prompt",
  to: "to column",
  command: "command",
  timeoutSeconds: "timeout (seconds)",
};

/** The server's refusal, placed at a field: its path and words. */
export interface FieldError {
  path: string;
  line: number;
  message: string;
}

export function StepsForm({
  steps,
  source,
  readOnly,
  error,
  onChange,
}: {
  steps: StepModel[];
  source: string;
  readOnly: boolean;
  error: FieldError | null;
  onChange(source: string): void;
}) {
  const stepFields = new Set(steps.flatMap((s) => [pathKey(["steps", s.index, "wipLimit"]), ...OUTCOMES.map((o) => pathKey(["steps", s.index, "on", o]))]));
  const actionFields = new Set(steps.flatMap((s) => s.actions.flatMap((a, j) => a.fields.map((f) => pathKey(["steps", s.index, "onEnter", j, f.key])))));
  const placed = error !== null && (stepFields.has(error.path) || actionFields.has(error.path));
  const errorAt = (path: (string | number)[]) => (error && error.path === pathKey(path) ? error : null);
  const fieldProps = (path: (string | number)[]) => {
    const e = errorAt(path);
    const key = pathKey(path);
    return {
      id: `field-${key}`,
      "data-path": key,
      disabled: readOnly,
      ...(e ? { "aria-invalid": true, "aria-describedby": `error-${key}` } : {}),
    };
  };
  const fieldMessage = (path: (string | number)[]) => {
    const e = errorAt(path);
    return e ? (
      <p className="field-error" id={`error-${pathKey(path)}`} role="alert" data-error-line={e.line}>
        Line {e.line}: {e.message}
      </p>
    ) : null;
  };
  return (
    <div className="workflow-steps">
      {steps.map((s) => (
        <fieldset key={s.index} className="card workflow-step" data-step={s.id}>
          <legend>
            {/* WEB-49.2: a column by its name; its id is the YAML's. */}
            <h3>{s.id ? taskStateWords(s.id) : `Column ${s.index + 1}`}</h3>
          </legend>
          {error && !placed && error.path.startsWith(`steps.${s.index}.`) ? (
            <p className="field-error" role="alert" data-error-line={error.line}>
              Line {error.line}: {error.message}
            </p>
          ) : null}
          <label htmlFor={`field-steps.${s.index}.wipLimit`}>WIP limit</label>
          <input
            type="text"
            inputMode="numeric"
            placeholder="none"
            value={s.wipLimit}
            onChange={(e) => onChange(setField(source, ["steps", s.index, "wipLimit"], e.target.value, "number", true))}
            {...fieldProps(["steps", s.index, "wipLimit"])}
          />
          {fieldMessage(["steps", s.index, "wipLimit"])}
          <h4>On entering</h4>
          {s.actions.length === 0 ? <p className="muted">No actions.</p> : null}
          <ol className="workflow-actions">
            {s.actions.map((a, j) => (
              <li key={j} data-action={a.kind}>
                <strong>{a.kind ? (ACTION_WORDS[a.kind] ?? a.kind.replace(/_/g, " ")) : "(no action)"}</strong>
                {a.fields.map((f) => {
                  const path = ["steps", s.index, "onEnter", j, f.key];
                  return (
                    <div key={f.key} className="workflow-action-field">
                      <label htmlFor={`field-${pathKey(path)}`}>{FIELD_WORDS[f.key] ?? f.key}</label>
                      {a.kind === "move" && f.key === "to" ? (
                        // The column to move to, by its name (the id is the YAML's).
                        <select value={f.value} onChange={(e) => onChange(setField(source, path, e.target.value))} {...fieldProps(path)}>
                          {(STEP_IDS as readonly string[]).includes(f.value) ? null : <option value={f.value}>{f.value}</option>}
                          {STEP_IDS.map((id) => (
                            <option key={id} value={id}>
                              {taskStateWords(id)}
                            </option>
                          ))}
                        </select>
                      ) : (
                        <input type="text" value={f.value} onChange={(e) => onChange(setField(source, path, e.target.value, f.type))} {...fieldProps(path)} />
                      )}
                      {fieldMessage(path)}
                    </div>
                  );
                })}
              </li>
            ))}
          </ol>
          <h4>Moves</h4>
          {OUTCOMES.map((o) => {
            const path = ["steps", s.index, "on", o];
            return (
              <div key={o} className="workflow-transition">
                <label htmlFor={`field-${pathKey(path)}`}>{OUTCOME_WORDS[o]}</label>
                <select value={s.on[o] ?? ""} onChange={(e) => onChange(setField(source, path, e.target.value, "string", true))} {...fieldProps(path)}>
                  <option value="">stay</option>
                  {STEP_IDS.map((id) => (
                    <option key={id} value={id}>
                      move to {taskStateWords(id)}
                    </option>
                  ))}
                </select>
                {fieldMessage(path)}
              </div>
            );
          })}
        </fieldset>
      ))}
    </div>
  );
}
