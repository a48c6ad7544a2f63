import type { Presentation } from "@gatehouse/protocol";
import type { Leads } from "./real-path-decision.js";

/**
 * What an approval covers: what the person was shown (the diff, the command, the arguments) and,
 * for a call on a path, where its paths led on the worker when they were shown. Null leads: not
 * known (the worker did not say, or the approval was raised by a process that stopped).
 */
export interface Coverage {
  shown: Presentation | null;
  leads: Leads | null;
}

const sameShown = (a: Presentation | null, b: Presentation | null) => JSON.stringify(a) === JSON.stringify(b);

/** A path whose link now leads elsewhere than it did when the person was shown the call. */
function movedLead(approved: Leads, now: Leads): string | null {
  for (const [path, was] of approved) {
    const is = now.get(path);
    if (is !== undefined && is !== was) return `${path} led to ${was} when the call was approved and leads to ${is} now`;
  }
  return null;
}

/** Why the call as it would run now is not what the person approved; null when it is. */
export function uncovered(tool: string, approved: Coverage, now: Coverage): string | null {
  const moved = approved.leads && now.leads ? movedLead(approved.leads, now.leads) : null;
  if (moved) return `what was approved changed before the ${tool} call ran: ${moved}; it asks again`;
  if (!sameShown(approved.shown, now.shown))
    return `what was approved changed before the ${tool} call ran: it would now do something other than what was shown (the file or the change differs); it asks again`;
  return null;
}
