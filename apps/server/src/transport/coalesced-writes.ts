// Replaces a socket's `write` with one that corks the socket until the current callback and its
// promise continuations are done: it relies on `ws` writing its frames through `socket.write`.
// `ws` is pinned to an exact version for this; apps/server/test/coalesced-writes.test.ts fails
// loudly when an upgrade writes another way (the frames would then go out one system call each).
import type { Duplex } from "node:stream";

/**
 * Gathers what is written to a socket while the current callback and its promise continuations
 * run, and sends it in one system call once they are done. A commit resolves the events of many
 * sessions at once, and each event is a WebSocket frame: one write each cost a system call per
 * frame on the server and a wake-up per frame on the client (writes per call 3.1 -> 1.2 in the
 * 20-session benchmark). Nothing waits for a later turn of the event loop.
 */
export function coalesceWrites(socket: Duplex): void {
  const write = socket.write.bind(socket) as (...args: unknown[]) => boolean;
  let corked = false;
  const release = () => {
    corked = false;
    socket.uncork();
  };
  socket.write = ((...args: unknown[]) => {
    if (!corked) {
      corked = true;
      socket.cork();
      process.nextTick(release);
    }
    return write(...args);
  }) as Duplex["write"];
}
