import { AppError } from "./errors.js";

/**
 * WT-11: a sparse-checkout entry is a directory of the tree, relative to its top (git's cone
 * mode takes directories, not patterns): no absolute path, no `..`, `.` or empty segment, no
 * `.git` segment, no glob or escape character (cone mode would refuse them later, half-way
 * through a launch), no leading `-` (it would read as an option), no duplicates.
 */
export function assertSparseDirs(dirs: readonly string[]): void {
  const seen = new Set<string>();
  for (const d of dirs) {
    const segments = d.split("/");
    const bad =
      d.startsWith("/") || d.startsWith("-") || /[\\*?[\]!\0\n\r\t]/.test(d) || segments.some((s) => s === ".." || s === "." || s === "" || s === ".git");
    if (bad) {
      throw new AppError(
        "invalid_request",
        `sparseCheckout entry ${JSON.stringify(d)} must be a directory relative to the top of the tree (no '..', '.git', leading '/' or '-', no glob characters)`,
        { field: "sparseCheckout" },
      );
    }
    if (seen.has(d)) throw new AppError("invalid_request", `sparseCheckout lists ${JSON.stringify(d)} twice`, { field: "sparseCheckout" });
    seen.add(d);
  }
}
