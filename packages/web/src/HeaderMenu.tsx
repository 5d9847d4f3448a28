/**
 * WEB-23: what the header keeps out of sight. The server's version, database and runner are
 * internals a person rarely needs: they sit behind the About toggle (for bug reports), never
 * in the header line. WEB-26: the theme toggle sits beside it.
 */
import type { Health } from "@grove/protocol";
import { useState } from "react";
import { applyTheme, effectiveTheme, storedTheme, type ThemeChoice } from "./ui/theme.js";

const DATABASE_WORDS: Record<string, string> = { sqlite: "SQLite", postgres: "PostgreSQL" };

export function About({ health }: { health: Health | undefined }) {
  return (
    <details className="about" id="about">
      <summary>About</summary>
      <div className="about-panel">
        <p id="about-info">
          {health
            ? `Grove ${health.version} · ${DATABASE_WORDS[health.database] ?? health.database} · runner ${health.runnerId}`
            : "Not connected to the server yet."}
        </p>
      </div>
    </details>
  );
}

export function ThemeToggle() {
  const [choice, setChoice] = useState<ThemeChoice>(storedTheme);
  const now = effectiveTheme(choice);
  const next = now === "dark" ? "light" : "dark";
  return (
    <button
      type="button"
      id="theme-toggle"
      className="theme-toggle"
      aria-label={`Switch to the ${next} theme`}
      data-theme={now}
      onClick={() => {
        applyTheme(next);
        setChoice(next);
      }}
    >
      {now === "dark" ? "Light" : "Dark"}
    </button>
  );
}
