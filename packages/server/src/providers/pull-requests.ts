import type { CredentialInput, RemoteUrl, RepoLocation } from "./provider.js";

/**
 * A provider's pull-request REST API as pure computation — requests to send and how to
 * read the answers. The orchestrator executes them (review-pr-http.ts); a provider plugin adds
 * its own by registering one more `PullRequestApi` under its id.
 */

/** One HTTP request to a provider's REST API. The Authorization header is added by the caller. */
export interface ApiRequest {
  method: "GET" | "POST" | "PATCH" | "PUT";
  url: string;
  body?: unknown;
}

/** What Grove keeps of a pull request. */
export interface PullRequestStatus {
  number: number;
  url: string;
  state: "open" | "merged" | "closed";
  draft: boolean;
  checks: "pending" | "success" | "failure" | "none";
  reviewDecision: string | null;
  headCommit: string;
}

/** Failed checks and unresolved review comments, for the feedback prompt. */
export interface PullRequestFeedback {
  failedChecks: { name: string; summary: string }[];
  /** `id`: the provider's id of the comment (null when it names none), unique within the pull request. */
  comments: { id: string | null; path: string | null; line: number | null; author: string | null; body: string }[];
}

/** Where a repository's pull requests live. */
export interface PullRequestTarget {
  apiUrl: string;
  loc: RepoLocation;
  url: RemoteUrl;
}

export interface PullRequestApi {
  /** The provider's public API base for a repository URL (used when the repository has no apiUrl). */
  defaultApiUrl(url: RemoteUrl): string;
  /** The Authorization header value for a stored credential (bearer or basic, per provider). */
  authorization(cred: CredentialInput): string;
  createRequest(t: PullRequestTarget, input: { title: string; body: string; draft: boolean; head: string; base: string }): ApiRequest;
  /** Reads the created pull request (checks start as `none` until the first refresh). */
  parseCreated(t: PullRequestTarget, json: unknown): Omit<PullRequestStatus, "checks" | "reviewDecision">;
  /**
   * The open pull request from `head` into `base`, asked before creating one: a create whose
   * answer was lost (a crash after the provider's 201, a dropped connection) is found and adopted
   * on the retry instead of failing as a duplicate (REV-PR idempotent create).
   */
  findOpenRequest(t: PullRequestTarget, input: { head: string; base: string }): ApiRequest;
  /** The answer of `findOpenRequest` → the pull request, or null when there is none. */
  parseFound(t: PullRequestTarget, json: unknown): Omit<PullRequestStatus, "checks" | "reviewDecision"> | null;
  /** Requests whose answers make up the status, in order. */
  statusRequests(t: PullRequestTarget, number: number, headCommit: string): ApiRequest[];
  /** Answers of `statusRequests` (same order) → status. */
  parseStatus(t: PullRequestTarget, number: number, answers: unknown[]): PullRequestStatus;
  /** Requests for failed checks and review comments, and how to read them. */
  feedbackRequests(t: PullRequestTarget, number: number, headCommit: string): ApiRequest[];
  parseFeedback(answers: unknown[]): PullRequestFeedback;
}

/** JSON object access without trusting the provider's shape. */
export function obj(v: unknown): Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v) ? (v as Record<string, unknown>) : {};
}
export function arr(v: unknown): unknown[] {
  return Array.isArray(v) ? v : [];
}
export function str(v: unknown): string {
  return typeof v === "string" ? v : typeof v === "number" ? String(v) : "";
}
