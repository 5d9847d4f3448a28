/**
 * BRIEF-1: the task's brief is the first prompt of a session started without one. The brief is
 * the title, a blank line and the description; a task without a description has no brief (its
 * title alone is a label, not instructions), so such a session starts idle as before. Shared so
 * the page pre-fills exactly what the server would send.
 */
export function taskBrief(task: { title: string; description: string }): string | undefined {
  const description = task.description.trim();
  if (description === "") return undefined;
  return `${task.title.trim()}\n\n${description}`;
}
