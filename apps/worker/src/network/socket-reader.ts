import type net from "node:net";
import { ProxyProtocolError } from "../errors.js";

/**
 * Reads from a socket until `complete` finds the end of what is wanted in the bytes so far (and
 * returns its length), at most `limit` bytes and `timeoutMs`; what came after is handed back.
 */
export function readUntil(
  socket: net.Socket,
  complete: (buffer: Buffer) => number | null,
  limit: number,
  timeoutMs: number,
  already: Buffer = Buffer.alloc(0),
): Promise<{ head: Buffer; rest: Buffer }> {
  return new Promise((resolve, reject) => {
    let buffer: Buffer = already;
    const finish = (error: Error | null) => {
      clearTimeout(timer);
      socket.off("data", onData);
      socket.off("end", onEnd);
      socket.off("error", onError);
      socket.pause();
      if (error) return reject(error);
      const at = complete(buffer)!;
      resolve({ head: buffer.subarray(0, at), rest: buffer.subarray(at) });
    };
    const check = () => {
      if (complete(buffer) !== null) finish(null);
      else if (buffer.length > limit) finish(new ProxyProtocolError(`the request is longer than ${limit} bytes`));
    };
    const onData = (chunk: Buffer) => {
      buffer = Buffer.concat([buffer, chunk]);
      check();
    };
    const onEnd = () => finish(new ProxyProtocolError("the connection ended before the request was complete"));
    const onError = (err: Error) => finish(err);
    const timer = setTimeout(() => finish(new ProxyProtocolError(`no complete request within ${timeoutMs} ms`)), timeoutMs);
    socket.on("data", onData);
    socket.on("end", onEnd);
    socket.on("error", onError);
    socket.resume();
    check();
  });
}
