// Reaches into `ws`'s private receiver: `ws` has no public way to change a connection's largest
// frame after the upgrade, and the server needs two limits on one WebSocketServer: a small one
// until a token is shown, the configured one after. `ws` is pinned to an exact version for this;
// apps/server/test/frame-limit.test.ts fails loudly when an upgrade of `ws` moves the field.
import type { WebSocket } from "ws";

/** Raises a connection's frame limit once its token is known (the pre-authentication limit is small). */
export function allowFrames(ws: WebSocket, bytes: number): void {
  const receiver = (ws as unknown as { _receiver?: { _maxPayload?: number } })._receiver;
  if (receiver && typeof receiver._maxPayload === "number") receiver._maxPayload = bytes;
}
