import type { SessionInfo } from "@gatehouse/protocol";
import type { Store } from "./store.js";

/** The session and every subagent session below it, parents first. */
export function familyOf(store: Store, sessionId: string): string[] {
  const all = store.listSessions();
  const out = [sessionId];
  for (let i = 0; i < out.length; i++) for (const s of all) if (s.parentId === out[i]) out.push(s.id);
  return out;
}

/** Whether `sessionId` is `rootId` or one of its subagents, at any depth. */
export function isWithin(store: Store, sessionId: string, rootId: string): boolean {
  for (let id: string | null | undefined = sessionId; id; id = store.getSession(id)?.parentId) if (id === rootId) return true;
  return false;
}

/** How many parents a session has. */
export function depthOf(store: Store, session: SessionInfo): number {
  let depth = 0;
  for (let s: SessionInfo | undefined = session; s?.parentId; s = store.getSession(s.parentId)) depth++;
  return depth;
}
