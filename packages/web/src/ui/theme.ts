/**
 * WEB-26: the colour theme. By default the page follows the system's `prefers-color-scheme`
 * (the stylesheet's media query); a person's choice of light or dark is remembered in
 * localStorage and set as `data-theme` on <html>, which the stylesheet ranks above the query.
 */
export type ThemeChoice = "system" | "light" | "dark";

export const THEME_KEY = "grove.theme";

export function storedTheme(): ThemeChoice {
  try {
    const v = localStorage.getItem(THEME_KEY);
    return v === "light" || v === "dark" ? v : "system";
  } catch {
    return "system";
  }
}

/** Sets the choice on the document (and remembers it); "system" hands the choice back to the browser. */
export function applyTheme(choice: ThemeChoice): void {
  const root = document.documentElement;
  if (choice === "system") root.removeAttribute("data-theme");
  else root.setAttribute("data-theme", choice);
  try {
    if (choice === "system") localStorage.removeItem(THEME_KEY);
    else localStorage.setItem(THEME_KEY, choice);
  } catch {
    // Storage may be off (private mode): the choice then lasts for this page only.
  }
}

/** The theme in effect now: the explicit choice, else what the system prefers. */
export function effectiveTheme(choice: ThemeChoice): "light" | "dark" {
  if (choice !== "system") return choice;
  return typeof matchMedia === "function" && matchMedia("(prefers-color-scheme: dark)").matches ? "dark" : "light";
}
