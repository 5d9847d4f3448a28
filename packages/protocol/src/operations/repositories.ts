import { z } from "zod";
import { CreateRepositoryBody, PatchRepositoryBody, Repository } from "../index.js";
import { operation } from "./operation.js";

/** The repositories Grove creates worktrees of. */
export const REPOSITORY_OPERATIONS = {
  addRepository: operation({
    method: "post",
    path: "/repositories",
    summary: "Register a repository",
    body: CreateRepositoryBody,
    response: Repository,
    status: 201,
    errors: [
      "invalid_request",
      "path_not_absolute",
      "path_not_found",
      "not_a_git_repository",
      "path_inside_grove_home",
      "path_is_worktree",
      "repository_exists",
      "refresh_auth_failed",
      "refresh_network_failed",
      "refresh_timeout",
    ],
  }),
  listRepositories: operation({ method: "get", path: "/repositories", summary: "List repositories", response: z.array(Repository) }),
  getRepository: operation({ method: "get", path: "/repositories/{id}", summary: "One repository", response: Repository, errors: ["not_found"] }),
  removeRepository: operation({
    method: "delete",
    path: "/repositories/{id}",
    summary: "Unregister a repository no task refers to; removes Grove's own clone of a remote one, never a local checkout",
    status: 204,
    errors: ["not_found", "repository_in_use"],
  }),
  updateRepositorySettings: operation({
    method: "patch",
    path: "/repositories/{id}",
    summary: "Change checkout settings (WT-9): defaultBranch, branchTemplate, pullBeforeWorktree, copyFiles, setupScript, sparseCheckout (WT-11)",
    body: PatchRepositoryBody,
    bodyOptional: true,
    response: Repository,
    errors: ["invalid_request", "not_found", "base_branch_not_found", "invalid_branch_name"],
  }),
};
