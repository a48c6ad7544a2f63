import type { EventOf } from "./events.js";

/** One line for a person: what a `context_compacted` event did. */
export function compactionNotice(e: EventOf<"context_compacted">): string {
  const what = e.summary === null ? "old tool results trimmed" : `messages before #${e.summarisedThrough + 1} summarised into a checkpoint`;
  const why = e.reason === "refused" ? "the provider refused the request as too long" : "the session neared the model's context window";
  return `context compacted (${why}): ${what}, about ${e.tokensBefore} → ${e.tokensAfter} tokens; the whole history is kept`;
}
