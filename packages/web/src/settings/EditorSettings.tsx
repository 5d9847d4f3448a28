/**
 * WEB-44: the command "Open in editor" runs with a worktree's path, set on the Settings page
 * (`PUT /settings/editor`, the person only; it wins over GROVE_EDITOR) or dropped (`DELETE`,
 * GROVE_EDITOR again). A refusal (an empty or multi-line command) is said in words.
 */
import type { EditorSetting } from "@grove/protocol";
import { useQuery, useQueryClient } from "@tanstack/react-query";
import { useEffect, useRef, useState, type FormEvent } from "react";
import { ErrorBox } from "../ui/ErrorBox.js";
import { Field } from "../ui/Field.js";
import { useAction } from "../ui/use-action.js";
import { EDITOR_KEY, getEditor, putEditor, resetEditor } from "./settings-api.js";

const SOURCE_WORDS: Record<EditorSetting["source"], string> = {
  person: "Set here.",
  environment: "From the server's GROVE_EDITOR.",
  none: "None yet: Open in editor is refused until one is set.",
};

export function EditorSettings() {
  const qc = useQueryClient();
  const editor = useQuery({ queryKey: EDITOR_KEY, queryFn: getEditor });
  const action = useAction();
  const [command, setCommand] = useState("");
  const [said, setSaid] = useState("");
  useEffect(() => {
    if (editor.data) setCommand(editor.data.command ?? "");
  }, [editor.data]);
  // WEB-49.5: "Settings → Editor" (an Open in editor refusal's link) lands on this field.
  const field = useRef<HTMLInputElement>(null);
  const loaded = editor.data !== undefined;
  useEffect(() => {
    if (!loaded || location.hash !== "#settings-editor") return;
    field.current?.scrollIntoView({ block: "center" });
    field.current?.focus();
  }, [loaded]);
  const done = (next: EditorSetting, words: string) => {
    qc.setQueryData(EDITOR_KEY, next);
    setSaid(words);
  };
  const save = (e: FormEvent) => {
    e.preventDefault();
    void action.run(async () => done(await putEditor(command), "Saved: Open in editor runs it from now on."));
  };
  return (
    <section className="card" aria-labelledby="settings-editor">
      <h2 id="settings-editor">Editor</h2>
      <form className="editor-setting" aria-label="Editor command" onSubmit={save}>
        <Field label="Command Open in editor runs with a worktree's path" hint={editor.data ? SOURCE_WORDS[editor.data.source] : undefined}>
          <input ref={field} name="editorCommand" value={command} placeholder="code" onChange={(e) => setCommand(e.target.value)} />
        </Field>
        <div className="actions">
          <button type="submit" className="secondary" disabled={action.busy || command === (editor.data?.command ?? "")}>
            Save editor
          </button>
          {editor.data?.source === "person" ? (
            <button
              type="button"
              className="secondary"
              disabled={action.busy}
              onClick={() => void action.run(async () => done(await resetEditor(), "Cleared: the server's GROVE_EDITOR applies."))}
            >
              Use GROVE_EDITOR
            </button>
          ) : null}
          {said ? (
            <span role="status" className="muted">
              {said}
            </span>
          ) : null}
        </div>
        <ErrorBox error={action.error ?? editor.error} context="Editor" />
      </form>
    </section>
  );
}
