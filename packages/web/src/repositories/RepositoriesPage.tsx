/**
 * Repository management: the registered repositories (each with Edit: its settings and Remove,
 * WEB-32) and the form that adds one, a local path or a remote URL (provider and an optional
 * token for a private host).
 */
import type { CreateRepositoryBody, Repository } from "@grove/protocol";
import { useQuery, useQueryClient } from "@tanstack/react-query";
import { useEffect, useState, type FormEvent } from "react";
import { call } from "../api/client.js";
import { keys } from "../api/keys.js";
import { listRepositories } from "../api/resources.js";
import { events } from "../live/events.js";
import { ErrorBox } from "../ui/ErrorBox.js";
import { Field } from "../ui/Field.js";
import { useAction } from "../ui/use-action.js";
import { RepositorySettings } from "./RepositorySettings.js";

function Table({ repos, onEdit }: { repos: Repository[]; onEdit(id: string): void }) {
  if (repos.length === 0) return <p className="empty">No repositories yet.</p>;
  return (
    <table className="repos">
      <thead>
        <tr>
          <th>Name</th>
          <th>Source</th>
          <th>Provider</th>
          <th>Default branch</th>
          <th>Credential</th>
          <th>
            <span className="sr-only">Actions</span>
          </th>
        </tr>
      </thead>
      <tbody>
        {repos.map((r) => (
          <tr key={r.id} data-repository-id={r.id}>
            <td>{r.name}</td>
            <td>
              <code>{r.url ?? r.path}</code>
              {r.url ? (
                <div className="muted">
                  clone: <code>{r.path}</code>
                </div>
              ) : null}
            </td>
            <td>{r.provider}</td>
            <td>
              <code>{r.defaultBranch}</code>
            </td>
            <td>{r.hasCredential ? `stored (${r.credentialPolicy})` : "—"}</td>
            <td>
              <button type="button" className="secondary small" aria-label={`Edit ${r.name}`} onClick={() => onEdit(r.id)}>
                Edit
              </button>
            </td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

export function RepositoriesPage() {
  const qc = useQueryClient();
  const repos = useQuery({ queryKey: keys.repositories, queryFn: listRepositories });
  const [kind, setKind] = useState<"path" | "url">("path");
  const [f, setF] = useState({ path: "", url: "", provider: "", token: "", name: "", defaultBranch: "" });
  const [progress, setProgress] = useState("");
  const [editing, setEditing] = useState<string | null>(null);
  const editingRepo = repos.data?.find((r) => r.id === editing);
  const action = useAction();
  const set = (k: keyof typeof f) => (e: { target: { value: string } }) => setF({ ...f, [k]: e.target.value });

  // RR-1: a clone reports its phases while the POST is still running.
  useEffect(() => events.on("repository.clone_progress", (d) => setProgress(`cloning ${d.url}: ${d.phase}${d.percent === null ? "" : ` ${d.percent}%`}`)), []);

  const submit = (e: FormEvent) => {
    e.preventDefault();
    const body: CreateRepositoryBody = kind === "url" ? { url: f.url.trim() } : { path: f.path.trim() };
    if (kind === "url" && f.provider) body.provider = f.provider;
    if (kind === "url" && f.token) body.credential = { token: f.token };
    if (f.name.trim()) body.name = f.name.trim();
    if (f.defaultBranch.trim()) body.defaultBranch = f.defaultBranch.trim();
    void action.run(async () => {
      await call("addRepository", { body }).finally(() => setProgress(""));
      setF({ path: "", url: "", provider: "", token: "", name: "", defaultBranch: "" });
      await qc.invalidateQueries({ queryKey: keys.repositories });
    });
  };

  return (
    <>
      <h1>Repositories</h1>
      <ErrorBox error={repos.error} context="Could not load repositories" />
      <Table repos={repos.data ?? []} onEdit={setEditing} />
      {editingRepo ? <RepositorySettings key={editingRepo.id} repo={editingRepo} onClose={() => setEditing(null)} /> : null}
      <form className="card add-repo" aria-label="Add a repository" onSubmit={submit}>
        <h2>Add a repository</h2>
        <Field label="Source">
          <select name="kind" value={kind} onChange={(e) => setKind(e.target.value as "path" | "url")}>
            <option value="path">Local path</option>
            <option value="url">Remote URL</option>
          </select>
        </Field>
        {kind === "path" ? (
          <Field label="Path" hint="absolute path of a git repository on this machine">
            <input name="path" required placeholder="/home/me/src/project" autoComplete="off" value={f.path} onChange={set("path")} />
          </Field>
        ) : (
          <>
            <Field label="URL">
              <input name="url" required placeholder="https://github.com/owner/name.git" autoComplete="off" value={f.url} onChange={set("url")} />
            </Field>
            <Field label="Provider">
              <select name="provider" value={f.provider} onChange={set("provider")}>
                {["", "github", "gitlab", "azure-devops"].map((p) => (
                  <option key={p} value={p}>
                    {p || "from the URL's host"}
                  </option>
                ))}
              </select>
            </Field>
            <Field label="Access token (optional)" hint="stored encrypted on the server; needed for private repositories">
              <input name="token" type="password" autoComplete="off" value={f.token} onChange={set("token")} />
            </Field>
          </>
        )}
        <Field label="Name (optional)">
          <input name="name" autoComplete="off" value={f.name} onChange={set("name")} />
        </Field>
        <Field label="Default branch (optional)">
          <input name="defaultBranch" autoComplete="off" value={f.defaultBranch} onChange={set("defaultBranch")} />
        </Field>
        <ErrorBox error={action.error} />
        <p className="muted" role="status">
          {progress}
        </p>
        <button type="submit" disabled={action.busy}>
          Add repository
        </button>
      </form>
    </>
  );
}
