import type { Console } from "../console.js";
import { ApprovalQueue } from "./approval-queue.js";

/** Every pending approval the token may see, across sessions. */
export function Inbox({ console: c }: { console: Console }) {
  const pending = c.pending();
  return (
    <section aria-labelledby="inbox-title">
      <h1 id="inbox-title">Approvals</h1>
      <p class="sub" aria-live="polite">
        {pending.length === 1 ? "1 call is waiting" : `${pending.length} calls are waiting`} for an answer.
      </p>
      <ApprovalQueue console={c} approvals={pending} />
    </section>
  );
}
