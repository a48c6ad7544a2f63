/** The problem in a Gatehouse or Telegram error, in one line. */
export function describeProblem(err: unknown): string {
  const e = err as { message?: string; data?: { code?: string } };
  const code = e.data?.code;
  if (code === "UNAUTHORIZED" || code === "FORBIDDEN") return `the Gatehouse server refused this user's token (${e.message})`;
  return e.message ?? String(err);
}
