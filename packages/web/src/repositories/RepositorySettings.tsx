/**
 * WEB-32: one repository's settings and its removal, through the API (`PATCH /repositories/:id`
 * validates: an unknown default branch is refused and nothing changes; `DELETE` refuses while a
 * task refers to it). A local checkout is never touched by a removal; the page says so first.
 */
import type { PatchRepositoryBody, Repository } from "@grove/protocol";
import { useQueryClient } from "@tanstack/react-query";
import { useState, type FormEvent } from "react";
import { call } from "../api/client.js";
import { keys } from "../api/keys.js";
import { ErrorBox } from "../ui/ErrorBox.js";
import { Field } from "../ui/Field.js";
import { useAction } from "../ui/use-action.js";

/** Copy files: one path per line in the box, a list in the API (blank lines dropped). */
const lines = (text: string) =>
  text
    .split("\n")
    .map((l) => l.trim())
    .filter(Boolean);

export function RepositorySettings({ repo, onClose }: { repo: Repository; onClose(): void }) {
  const qc = useQueryClient();
  const save = useAction();
  const remove = useAction();
  const [defaultBranch, setDefaultBranch] = useState(repo.defaultBranch);
  const [setupScript, setSetupScript] = useState(repo.setupScript ?? "");
  const [copyFiles, setCopyFiles] = useState((repo.copyFiles ?? []).join("\n"));
  const [pull, setPull] = useState(repo.pullBeforeWorktree);
  const [saved, setSaved] = useState("");
  const [asking, setAsking] = useState(false);

  const submit = (e: FormEvent) => {
    e.preventDefault();
    setSaved("");
    // Only what changed is sent, so a field the person left alone is never rewritten.
    const body: PatchRepositoryBody = {};
    if (defaultBranch.trim() !== repo.defaultBranch) body.defaultBranch = defaultBranch.trim();
    if ((setupScript.trim() || null) !== (repo.setupScript ?? null)) body.setupScript = setupScript.trim() ? setupScript : null;
    if (lines(copyFiles).join("\n") !== (repo.copyFiles ?? []).join("\n")) body.copyFiles = lines(copyFiles);
    if (pull !== repo.pullBeforeWorktree) body.pullBeforeWorktree = pull;
    if (Object.keys(body).length === 0) return setSaved("Nothing changed.");
    void save.run(async () => {
      const next = await call("updateRepositorySettings", { params: { id: repo.id }, body });
      qc.setQueryData<Repository[]>(keys.repositories, (list) => list?.map((r) => (r.id === next.id ? next : r)));
      setSaved("Saved.");
    });
  };
  const doRemove = () =>
    void remove.run(async () => {
      await call("removeRepository", { params: { id: repo.id } });
      qc.setQueryData<Repository[]>(keys.repositories, (list) => list?.filter((r) => r.id !== repo.id));
      onClose();
    });

  return (
    <section className="card repo-settings" aria-label={`Settings of ${repo.name}`}>
      <div className="card-head">
        <h2>{repo.name}</h2>
        <button type="button" className="secondary small" onClick={onClose}>
          Close
        </button>
      </div>
      <form aria-label={`Edit ${repo.name}`} onSubmit={submit}>
        <Field label="Default branch" hint="the branch new tasks start from and merge into">
          <input name="defaultBranch" autoComplete="off" value={defaultBranch} onChange={(e) => setDefaultBranch(e.target.value)} />
        </Field>
        <Field label="Setup script" hint="runs in each new worktree before the agent starts (e.g. npm ci); empty for none">
          <textarea name="setupScript" rows={3} value={setupScript} onChange={(e) => setSetupScript(e.target.value)} />
        </Field>
        <Field label="Copy files" hint="files copied from the checkout into each new worktree (e.g. .env), one path per line">
          <textarea name="copyFiles" rows={3} value={copyFiles} onChange={(e) => setCopyFiles(e.target.value)} />
        </Field>
        <label className="check">
          <input type="checkbox" checked={pull} onChange={(e) => setPull(e.target.checked)} /> Pull the default branch before creating a worktree
        </label>
        <ErrorBox error={save.error} />
        <div className="actions">
          <button type="submit" disabled={save.busy}>
            Save
          </button>
          {saved ? (
            <span className="notice" role="status">
              {saved}
            </span>
          ) : null}
        </div>
      </form>
      <div className="danger-zone">
        {asking ? (
          <div className="confirm" role="alertdialog" aria-label={`Remove ${repo.name}`}>
            <p>
              <strong>{`Remove ${repo.name} from Grove?`}</strong>
            </p>
            <p className="muted">
              {repo.url
                ? "Grove's own clone of it is deleted; the remote is not touched."
                : `Your checkout at ${repo.path} stays as it is; only Grove forgets it.`}
            </p>
            <ErrorBox error={remove.error} />
            <div className="actions">
              <button type="button" className="danger" disabled={remove.busy} onClick={doRemove}>
                Remove repository
              </button>
              <button type="button" className="secondary" onClick={() => (setAsking(false), remove.clear())}>
                Keep it
              </button>
            </div>
          </div>
        ) : (
          <button type="button" className="secondary" onClick={() => setAsking(true)}>
            Remove…
          </button>
        )}
      </div>
    </section>
  );
}
