/**
 * Repository management: the registered repositories and the form that adds one, either a
 * local path or a remote URL (with provider and an optional token for a private host).
 */
import type { CreateRepositoryBody, Repository } from "@grove/protocol";
import { api } from "../api.js";
import { field, h, render } from "../dom.js";
import { act, errorSlot } from "../errors.js";
import type { View } from "../router.js";

function table(repos: Repository[]): HTMLElement {
  if (repos.length === 0) return h("p", { class: "empty" }, "No repositories yet.");
  return h(
    "table",
    { class: "repos" },
    h("thead", null, h("tr", null, h("th", null, "Name"), h("th", null, "Source"), h("th", null, "Provider"), h("th", null, "Default branch"), h("th", null, "Credential"))),
    h(
      "tbody",
      null,
      repos.map((r) =>
        h(
          "tr",
          { dataset: { repositoryId: r.id } },
          h("td", null, r.name),
          h("td", null, h("code", null, r.url ?? r.path), r.url ? h("div", { class: "muted" }, "clone: ", h("code", null, r.path)) : null),
          h("td", null, r.provider),
          h("td", null, h("code", null, r.defaultBranch)),
          h("td", null, r.hasCredential ? `stored (${r.credentialPolicy})` : "—"),
        ),
      ),
    ),
  );
}

export const repositoriesView: View = (root, ctx) => {
  const errors = errorSlot();
  const formErrors = errorSlot();
  const list = h("div");
  const load = async () => {
    try {
      render(list, table(await api.get<Repository[]>("/repositories")));
      errors.clear();
    } catch (e) {
      errors.show(e, "could not load repositories");
    }
  };

  const kind = h("select", { name: "kind" }, h("option", { value: "path" }, "Local path"), h("option", { value: "url" }, "Remote URL"));
  const path = h("input", { name: "path", placeholder: "/home/me/src/project", autocomplete: "off" });
  const url = h("input", { name: "url", placeholder: "https://github.com/owner/name.git", autocomplete: "off" });
  const provider = h("select", { name: "provider" }, ["", "github", "gitlab", "azure-devops"].map((p) => h("option", { value: p }, p || "from the URL's host")));
  const tokenInput = h("input", { name: "token", type: "password", autocomplete: "off" });
  const name = h("input", { name: "name", autocomplete: "off" });
  const defaultBranch = h("input", { name: "defaultBranch", autocomplete: "off" });
  const localFields = h("div", { class: "kind-path" }, field("Path", path, "absolute path of a git repository on this machine"));
  const remoteFields = h("div", { class: "kind-url", hidden: true }, field("URL", url), field("Provider", provider), field("Access token (optional)", tokenInput, "stored encrypted on the server; needed for private repositories"));
  kind.addEventListener("change", () => {
    localFields.hidden = kind.value !== "path";
    remoteFields.hidden = kind.value !== "url";
  });
  const submit = h("button", { type: "submit" }, "Add repository");
  const progress = h("p", { class: "muted", role: "status" });
  const form = h(
    "form",
    { class: "card add-repo", "aria-label": "Add a repository" },
    h("h2", null, "Add a repository"),
    field("Source", kind),
    localFields,
    remoteFields,
    field("Name (optional)", name),
    field("Default branch (optional)", defaultBranch),
    formErrors.el,
    progress,
    submit,
  );
  form.addEventListener("submit", (e) => {
    e.preventDefault();
    const body: CreateRepositoryBody = kind.value === "url" ? { url: url.value.trim() } : { path: path.value.trim() };
    if (kind.value === "url" && provider.value) body.provider = provider.value;
    if (kind.value === "url" && tokenInput.value) body.credential = { token: tokenInput.value };
    if (name.value.trim()) body.name = name.value.trim();
    if (defaultBranch.value.trim()) body.defaultBranch = defaultBranch.value.trim();
    // Cloning a remote can take a while: the button stays disabled until the answer.
    void act(submit, formErrors, async () => {
      await api.post<Repository>("/repositories", body).finally(() => (progress.textContent = ""));
      form.reset();
      kind.dispatchEvent(new Event("change"));
      await load();
    });
  });

  render(root, h("h1", null, "Repositories"), errors.el, list, form);
  const offs = [
    ctx.events.on("reconnected", () => void load()),
    // RR-1: a clone reports its phases while the POST is still running.
    ctx.events.on("repository.clone_progress", (d) => (progress.textContent = `cloning ${d.url}: ${d.phase}${d.percent === null ? "" : ` ${d.percent}%`}`)),
  ];
  void load();
  return () => offs.forEach((off) => off());
};
