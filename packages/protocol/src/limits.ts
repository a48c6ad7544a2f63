/** Delay before retry `attempt` (0-based): doubling from `firstMs`, never above `maxMs`. */
export function backoffMs(attempt: number, firstMs: number, maxMs: number): number {
  return Math.min(maxMs, firstMs * 2 ** attempt);
}

/**
 * Text cut to `limit` characters, with `marker(total)` after it when it was cut. The one way
 * results, histories and presentations are kept to a readable size.
 */
export function cutText(text: string, limit: number, marker: (total: number) => string): { text: string; truncated: boolean } {
  if (text.length <= limit) return { text, truncated: false };
  return { text: text.slice(0, limit) + marker(text.length), truncated: true };
}
