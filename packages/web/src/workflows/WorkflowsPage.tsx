/**
 * WF-1 Workflows (`/workflows`): the stored workflows (and the built-in plain board, read only);
 * the chosen one edited as its columns (WIP limit, onEnter actions, moves) or as YAML, both on
 * the same text. Save is `PUT /workflows/:name?ifVersion=N` (compare-and-set: a workflow changed
 * meanwhile is refused, never overwritten); a `400 invalid_workflow` is shown at the field it
 * names and, in the YAML, at its line.
 */
import type { Workflow } from "@grove/protocol";
import { useQuery, useQueryClient } from "@tanstack/react-query";
import { keys } from "../api/keys.js";
import { listRepositories } from "../api/resources.js";
import { type ReactNode, useEffect, useRef, useState } from "react";
import { ApiError, call } from "../api/client.js";
import { ErrorBox } from "../ui/ErrorBox.js";
import { useAction } from "../ui/use-action.js";
import { CopyWorkflow } from "./CopyWorkflow.js";
import { type FieldError, StepsForm } from "./StepsForm.js";
import { readSteps } from "./workflow-doc.js";

const WORKFLOWS_KEY = ["workflows"] as const;
const listWorkflows = () => call("listWorkflows");

/** The refusal a field or line can carry, else undefined (any other error goes to the ErrorBox). */
function fieldError(e: unknown): FieldError | undefined {
  if (!(e instanceof ApiError) || e.code !== "invalid_workflow") return undefined;
  const line = typeof e.details?.line === "number" ? e.details.line : 1;
  const path = typeof e.details?.path === "string" ? e.details.path : "(document)";
  // The server's message starts with `line N: path:`; the page says both where it shows them.
  const message = e.message.replace(/^line \d+: /, "").replace(`${path}: `, "");
  return { line, path, message };
}

function Editor({ workflow, copy }: { workflow: Workflow; copy: ReactNode }) {
  const qc = useQueryClient();
  const save = useAction();
  const [source, setSource] = useState(workflow.source);
  const [mode, setMode] = useState<"columns" | "yaml">("columns");
  const [saved, setSaved] = useState("");
  const yaml = useRef<HTMLTextAreaElement>(null);
  const err = fieldError(save.error) ?? null;
  const readOnly = workflow.builtIn;
  const parsed = readSteps(source);

  // The refused line is selected in the YAML, so the person lands on it.
  useEffect(() => {
    const el = yaml.current;
    if (!err || mode !== "yaml" || !el) return;
    const lines = source.split("\n");
    const start = lines.slice(0, err.line - 1).reduce((n, l) => n + l.length + 1, 0);
    el.focus();
    el.setSelectionRange(start, start + (lines[err.line - 1]?.length ?? 0));
  }, [err?.line, mode]);

  const edit = (next: string) => {
    setSource(next);
    setSaved("");
  };
  const submit = () =>
    void save.run(async () => {
      const w = await call("putWorkflow", { params: { name: workflow.name }, query: { ifVersion: workflow.version }, body: { source } });
      qc.setQueryData<Workflow[]>(WORKFLOWS_KEY, (list) => list?.map((x) => (x.name === w.name ? w : x)));
      setSource(w.source);
      setSaved(`Saved version ${w.version}.`);
    });

  return (
    <section className="workflow-editor" aria-labelledby="workflow-editing">
      <h2 id="workflow-editing">
        {workflow.name} <span className="muted">version {workflow.version}</span>
      </h2>
      {readOnly ? <p className="muted">The built-in plain board: every column, no automation. It cannot be changed.</p> : null}
      {readOnly ? copy : null}
      <div role="tablist" aria-label="Edit as" className="workflow-modes">
        {(["columns", "yaml"] as const).map((m) => (
          <button key={m} type="button" role="tab" aria-selected={mode === m} className={mode === m ? "" : "secondary"} onClick={() => setMode(m)}>
            {m === "columns" ? "Columns" : "YAML"}
          </button>
        ))}
      </div>
      {err ? (
        <p className="error-box" role="alert" id="workflow-error" data-error-line={err.line} data-error-path={err.path}>
          Not saved: line {err.line}, {err.path}: {err.message}
        </p>
      ) : (
        <ErrorBox error={save.error} context="Saving the workflow" />
      )}
      {mode === "columns" ? (
        "steps" in parsed ? (
          <StepsForm steps={parsed.steps} source={source} readOnly={readOnly} error={err} onChange={edit} />
        ) : (
          <p className="error-box" role="alert">
            The YAML does not parse ({parsed.error}); fix it in the YAML editor.
          </p>
        )
      ) : (
        <>
          <label htmlFor="workflow-yaml">Workflow YAML</label>
          <textarea
            id="workflow-yaml"
            ref={yaml}
            className="workflow-yaml"
            rows={Math.max(12, source.split("\n").length + 2)}
            spellCheck={false}
            value={source}
            readOnly={readOnly}
            aria-invalid={err ? true : undefined}
            aria-describedby={err ? "workflow-error" : undefined}
            onChange={(e) => edit(e.target.value)}
          />
        </>
      )}
      {readOnly ? null : (
        <p>
          <button type="button" onClick={submit} disabled={save.busy}>
            Save
          </button>{" "}
          <span role="status">{saved}</span>
        </p>
      )}
    </section>
  );
}

export function WorkflowsPage() {
  const qc = useQueryClient();
  const list = useQuery({ queryKey: WORKFLOWS_KEY, queryFn: listWorkflows, refetchOnMount: "always" });
  const repos = useQuery({ queryKey: keys.repositories, queryFn: listRepositories });
  const [chosen, setChosen] = useState<string | null>(null);
  // WEB-49.2: a repository by its name, never its id.
  const repoName = (id: string) => repos.data?.find((r) => r.id === id)?.name ?? "a repository";
  const copied = (w: Workflow) => {
    qc.setQueryData<Workflow[]>(WORKFLOWS_KEY, (old) => [...(old ?? []).filter((x) => x.name !== w.name), w]);
    setChosen(w.name);
  };
  const workflows = list.data ?? [];
  const current = workflows.find((w) => w.name === chosen) ?? workflows.find((w) => !w.builtIn) ?? workflows[0];
  return (
    <>
      <h1>Workflows</h1>
      <p className="muted">
        What the board does by itself, per repository: actions on entering a column, moves on a turn's outcome, WIP limits. Also as YAML:{" "}
        <code>grove workflow apply</code>.
      </p>
      <ErrorBox error={list.error} context="Loading the workflows" />
      <ul className="workflow-list" aria-label="Workflows">
        {workflows.map((w) => (
          <li key={w.name}>
            <button
              type="button"
              className={current?.name === w.name ? "" : "secondary"}
              aria-pressed={current?.name === w.name}
              data-workflow={w.name}
              onClick={() => setChosen(w.name)}
            >
              {w.name}
            </button>{" "}
            <span className="muted">
              {w.builtIn ? "built in, read only" : w.repositoryId ? `repository ${repoName(w.repositoryId)}` : "every repository"} · version {w.version}
              {w.stopped ? " · stopped" : ""}
            </span>
          </li>
        ))}
      </ul>
      {/* Keyed by name: a save's new version reaches the open editor without losing what it shows. */}
      {current ? (
        <Editor key={current.name} workflow={current} copy={<CopyWorkflow workflow={current} taken={workflows.map((w) => w.name)} onCopied={copied} />} />
      ) : null}
    </>
  );
}
