import type { SessionInfo } from "@gatehouse/protocol";
import type { Store } from "./store.js";

/** The session and every subagent session below it, parents first. */
export async function familyOf(store: Store, sessionId: string): Promise<string[]> {
  const out = [sessionId];
  for (let i = 0; i < out.length; i++) for (const s of await store.listSessions({ parentId: out[i]! })) out.push(s.id);
  return out;
}

/** How many parents a session has. */
export async function depthOf(store: Store, session: SessionInfo): Promise<number> {
  let depth = 0;
  for (let s: SessionInfo | undefined = session; s?.parentId; s = await store.getSession(s.parentId)) depth++;
  return depth;
}
