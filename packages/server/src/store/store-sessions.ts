import { StoreRecords } from "./store-records.js";
import type { AgentState } from "../domain/agent-state.js";
import type { SessionSandbox } from "../domain/sandbox-profile.js";
import type { AgentProcessRecord, MessageRecord, SessionRecord, SessionState } from "../domain/records.js";
import * as agents from "./agent-processes-repo.js";
import * as messages from "./messages-repo.js";
import * as sessions from "./sessions-repo.js";

/** Sessions, their messages and agent processes (the `Store` facade's second layer; see store.ts). */
export abstract class StoreSessions extends StoreRecords {
  // Sessions ---------------------------------------------------------------------------

  insertSession(s: SessionRecord): Promise<void> {
    return sessions.insertSession(this.q, s);
  }
  getSession(id: string): Promise<SessionRecord | undefined> {
    return sessions.getSession(this.q, id);
  }
  /** Oldest first. */
  listSessions(taskId: string): Promise<SessionRecord[]> {
    return sessions.listSessions(this.q, taskId);
  }
  /** SES-1 compare-and-set; `lastError: null` clears. undefined when the CAS lost. */
  casSessionState(
    id: string,
    from: readonly SessionState[],
    to: SessionState,
    patch: Parameters<typeof sessions.casSessionState>[4],
    now: string,
  ): Promise<SessionRecord | undefined> {
    return sessions.casSessionState(this.q, id, from, to, patch, now);
  }
  /** WEB-37: compare-and-set of a session's queued follow-ups (see sessions-repo). */
  changeQueuedPrompts(
    id: string,
    change: Parameters<typeof sessions.changeQueuedPrompts>[2],
    now: string,
    whileIn?: readonly SessionState[],
  ): Promise<SessionRecord | undefined> {
    return sessions.changeQueuedPrompts(this.q, id, change, now, whileIn);
  }
  setSessionAcpId(id: string, acpSessionId: string, now: string): Promise<void> {
    return sessions.setSessionAcpId(this.q, id, acpSessionId, now);
  }

  /** Ids of the sessions in one of `states` (AG-1: start-up recovery finds the turns a restart cut). */
  listSessionIdsInStates(states: readonly SessionState[]): Promise<string[]> {
    return sessions.listSessionIdsInStates(this.q, states);
  }

  /** AG-2: what the session's agent reported (modes, config options, commands, plan) and what a person chose. */
  setSessionAgentState(id: string, state: AgentState): Promise<void> {
    return sessions.setSessionAgentState(this.q, id, state);
  }
  /** SES-7: messages go with it; the environment does not. */
  setSessionSandbox(id: string, sandbox: SessionSandbox): Promise<void> {
    return sessions.setSessionSandbox(this.q, id, sandbox);
  }

  /** SBX-2: counts one refused connection; returns the session's new total. */
  countBlockedConnection(id: string): Promise<number> {
    return sessions.countBlockedConnection(this.q, id);
  }

  deleteSession(id: string): Promise<void> {
    return sessions.deleteSession(this.q, id);
  }

  // Messages ---------------------------------------------------------------------------

  insertMessage(m: MessageRecord): Promise<void> {
    return messages.insertMessage(this.q, m);
  }
  updateMessage(id: string, patch: { text?: string; data?: unknown }): Promise<void> {
    return messages.updateMessage(this.q, id, patch);
  }
  /** Oldest first (insertion sequence). */
  listMessages(sessionId: string): Promise<MessageRecord[]> {
    return messages.listMessages(this.q, sessionId);
  }
  /** Only the `tool` messages, oldest first (start-up recovery, AG-1). */
  listToolMessages(sessionId: string): Promise<MessageRecord[]> {
    return messages.listToolMessages(this.q, sessionId);
  }

  // Agent processes --------------------------------------------------------------------

  upsertAgentProcess(p: AgentProcessRecord): Promise<void> {
    return agents.upsertAgentProcess(this.q, p);
  }
  deleteAgentProcess(sessionId: string, only?: { pid: number; startTime: string }): Promise<void> {
    return agents.deleteAgentProcess(this.q, sessionId, only);
  }
  listAgentProcesses(runnerId: string): Promise<AgentProcessRecord[]> {
    return agents.listAgentProcesses(this.q, runnerId);
  }
  /** The agent processes of these sessions, of every runner (a task's cleanup stops them all). */
  listAgentProcessesOfSessions(sessionIds: readonly string[]): Promise<AgentProcessRecord[]> {
    return agents.listAgentProcessesOfSessions(this.q, sessionIds);
  }
}
