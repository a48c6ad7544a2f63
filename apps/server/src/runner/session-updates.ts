import type { SessionInfo } from "@gatehouse/protocol";
import type { Store } from "../store/index.js";

const queues = new WeakMap<Store, Promise<unknown>>();

/**
 * Changes some fields of a stored session. Changes are applied one after another (a mode change
 * and a turn's status change cannot undo each other); undefined when the session does not exist.
 */
export function patchSession(store: Store, id: string, patch: Partial<Pick<SessionInfo, "mode" | "status">>): Promise<SessionInfo | undefined> {
  const apply = async () => {
    const current = await store.getSession(id);
    if (!current) return undefined;
    const next = { ...current, ...patch };
    await store.putSession(next);
    return next;
  };
  const done = (queues.get(store) ?? Promise.resolve()).then(apply, apply);
  queues.set(
    store,
    done.catch(() => undefined),
  );
  return done;
}
