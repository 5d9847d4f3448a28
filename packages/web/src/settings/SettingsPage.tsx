/**
 * WEB-38: Settings (`/settings`): the agents Grove can run — installed or not and why, version,
 * sign-in methods, whether they ask before changes, whether they run in the sandbox — with
 * Install and Check through the API (`POST /agents/:name/install|check`); the browser's
 * notifications; and where the other settings live (repositories, the daily cap).
 */
import type { AgentProfile } from "@grove/protocol";
import { useQuery, useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import { call } from "../api/client.js";
import { keys } from "../api/keys.js";
import { listAgents } from "../api/resources.js";
import { disableNotifications, enableNotifications, notificationsEnabled } from "../live/attention.js";
import { Link } from "../router.js";
import { ErrorBox } from "../ui/ErrorBox.js";
import { useAction } from "../ui/use-action.js";
import { AgentBudget } from "./AgentBudget.js";
import { AgentChoices } from "./AgentChoices.js";
import { EditorSettings } from "./EditorSettings.js";

function AgentRow({ profile }: { profile: AgentProfile }) {
  const qc = useQueryClient();
  const action = useAction();
  const [said, setSaid] = useState("");
  const act = (what: "install" | "check") =>
    void action.run(async () => {
      setSaid("");
      const r: AgentProfile & { installed?: boolean; startMs?: number } = await call(what === "install" ? "installAgent" : "checkAgent", {
        params: { name: profile.name },
      });
      qc.setQueryData<AgentProfile[]>(keys.agents, (list) => list?.map((p) => (p.name === r.name ? { ...p, ...r } : p)));
      setSaid(
        what === "install"
          ? r.installed
            ? "Installed."
            : "Already installed."
          : `Answered in ${r.startMs ?? "?"} ms${r.version ? `, version ${r.version}` : ""}.`,
      );
    });
  const installable = profile.builtIn && profile.package !== undefined && profile.available === false;
  return (
    <li className="card agent-profile" data-agent={profile.name} aria-labelledby={`agent-${profile.name}`}>
      <div className="card-head">
        <h3 id={`agent-${profile.name}`}>{profile.name}</h3>
        <span className={`badge ${profile.available === false ? "state-failed" : "state-done"}`} data-available={String(profile.available !== false)}>
          {profile.available === false ? "Not installed" : "Ready"}
        </span>
      </div>
      <dl className="agent-facts">
        <dt>Command</dt>
        <dd>
          <code>{[profile.command, ...profile.args].join(" ")}</code>
        </dd>
        {profile.version ? (
          <>
            <dt>Version</dt>
            <dd>{profile.version}</dd>
          </>
        ) : null}
        <dt>Permissions</dt>
        <dd data-policy={profile.permissionPolicy}>
          {profile.permissionPolicy === "ask" ? "Asks you before it changes files or runs commands" : "Runs every command without asking"}
        </dd>
        <dt>Sandbox</dt>
        <dd data-sandbox={profile.sandbox ?? "confined"}>
          {profile.sandbox === "off" ? "Off: runs with your user's access" : "Confined to the task's worktree"}
        </dd>
        {profile.authMethods && profile.authMethods.length > 0 ? (
          <>
            <dt>Sign in</dt>
            <dd>{profile.authMethods.map((m) => m.name).join(", ")}</dd>
          </>
        ) : null}
      </dl>
      <AgentChoices profile={profile} />
      <AgentBudget profile={profile} />
      {profile.problem ? <p className="muted agent-problem">{profile.problem}</p> : null}
      {profile.askProblem ? <p className="muted agent-problem">{profile.askProblem}</p> : null}
      <div className="actions">
        {installable ? (
          <button type="button" disabled={action.busy} onClick={() => act("install")}>
            {`Install ${profile.name}`}
          </button>
        ) : null}
        <button type="button" className="secondary" disabled={action.busy} onClick={() => act("check")}>
          {`Check ${profile.name}`}
        </button>
        {said ? (
          <span role="status" className="muted">
            {said}
          </span>
        ) : null}
      </div>
      <ErrorBox error={action.error} context={`Agent ${profile.name}`} />
    </li>
  );
}

export function SettingsPage() {
  const agents = useQuery({ queryKey: keys.agents, queryFn: listAgents });
  const [notify, setNotify] = useState(notificationsEnabled());
  const toggle = async () => setNotify(notify ? (disableNotifications(), false) : await enableNotifications());
  return (
    <>
      <h1>Settings</h1>
      <section aria-labelledby="settings-agents">
        <h2 id="settings-agents">Agents</h2>
        <p className="muted">
          Profiles come from the built-in list and the home's agents.json (read when the server starts); what you choose here is kept by the server and holds
          from the agent's next session.
        </p>
        <ErrorBox error={agents.error} context="Could not load the agents" />
        <ul className="agent-list">
          {(agents.data ?? []).map((p) => (
            <AgentRow key={p.name} profile={p} />
          ))}
        </ul>
      </section>
      <EditorSettings />
      <section className="card" aria-labelledby="settings-notifications">
        <h2 id="settings-notifications">Notifications</h2>
        <p>
          {notify
            ? "This browser notifies you when an agent asks or a turn ends."
            : "This browser does not notify you; the inbox still collects what needs you."}
        </p>
        <button type="button" className="secondary" onClick={() => void toggle()}>
          {notify ? "Turn off browser notifications" : "Turn on browser notifications"}
        </button>
      </section>
      <section className="card" aria-labelledby="settings-more">
        <h2 id="settings-more">Elsewhere</h2>
        <ul>
          <li>
            <Link href="/repositories">Repositories</Link>: default branch, setup script, files copied into worktrees, remove.
          </li>
          <li>
            <Link href="/usage">Usage</Link>: the daily spending cap.
          </li>
          <li>
            <Link href="/workflows">Workflows</Link>: what the board does by itself, its columns' actions, moves and WIP limits.
          </li>
        </ul>
      </section>
    </>
  );
}
