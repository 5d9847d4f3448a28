/**
 * WEB-49.3: the built-in plain board cannot be changed, so it offers "Copy to edit": its YAML
 * stored under a name the person picks, as a new workflow (`PUT /workflows/:name?ifVersion=0`,
 * which the server refuses when that name exists, so nothing is overwritten and nothing is
 * half-made). The copy then opens in the editor.
 */
import type { Workflow } from "@grove/protocol";
import { type FormEvent, useState } from "react";
import { call } from "../api/client.js";
import { ErrorBox } from "../ui/ErrorBox.js";
import { Field } from "../ui/Field.js";
import { useAction } from "../ui/use-action.js";

/** A first free name for the copy: `my-board`, else `my-board-2`, `my-board-3` … */
function freeName(taken: readonly string[]): string {
  const names = new Set(taken);
  let name = "my-board";
  for (let n = 2; names.has(name); n++) name = `my-board-${n}`;
  return name;
}

/** The copy's YAML: the built-in's, its first comment saying what the copy is. */
const copySource = (source: string) => source.replace(/^#[^\n]*\n/, "# A copy of the plain board, yours to edit.\n");

export function CopyWorkflow({ workflow, taken, onCopied }: { workflow: Workflow; taken: readonly string[]; onCopied(w: Workflow): void }) {
  const [name, setName] = useState(() => freeName(taken));
  const copy = useAction();
  const submit = (e: FormEvent) => {
    e.preventDefault();
    void copy.run(async () => {
      const w = await call("putWorkflow", { params: { name: name.trim() }, query: { ifVersion: 0 }, body: { source: copySource(workflow.source) } });
      onCopied(w);
    });
  };
  return (
    <form className="card workflow-copy" aria-label="Copy to edit" onSubmit={submit}>
      <p>
        To change it, copy it under a name of your own. The copy applies to every repository until its YAML names one (<code>repositoryId</code>).
      </p>
      <Field label="Name of the copy" hint="Lower-case letters, digits, . _ - (at most 64).">
        <input value={name} onChange={(e) => (setName(e.target.value), copy.clear())} autoComplete="off" spellCheck={false} />
      </Field>
      <button type="submit" disabled={copy.busy || name.trim() === ""}>
        Copy to edit
      </button>
      <ErrorBox error={copy.error} context="Copying the workflow" operation="create_workflow" />
    </form>
  );
}
