import type { NetworkAnswerMessage, NetworkAskMessage, NetworkDecidedMessage } from "@gatehouse/protocol";
import { randomUUID } from "node:crypto";
import type { AskAnswer } from "./egress-gate.js";

/** What the worker asks the server about one connection. */
export interface AskRequest {
  requestId: string;
  command: string;
  host: string;
  port: number;
}

/**
 * The worker's side of network asks: each goes to the server on the worker link, and waits for the
 * answer, the connection's end (the command ended), or the link's loss, whichever comes first.
 */
export class NetworkAskLink {
  private readonly waiting = new Map<string, (answer: AskAnswer) => void>();

  /** `send` puts a message on the link; false when the link is down. */
  constructor(private readonly send: (message: NetworkAskMessage | NetworkDecidedMessage | { type: "network_ask_cancel"; askId: string }) => boolean) {}

  /** What the rules decided without asking, for the server's audit log; lost with the link, as it changes nothing. */
  decided(request: AskRequest, allowed: boolean, reason: string): void {
    this.send({ type: "network_decided", ...request, allowed, reason });
  }

  ask(request: AskRequest, signal: AbortSignal): Promise<AskAnswer> {
    const askId = randomUUID();
    if (signal.aborted) return Promise.resolve({ allow: false, reason: "the command ended" });
    if (!this.send({ type: "network_ask", askId, ...request }))
      return Promise.resolve({ allow: false, reason: "the worker is not connected to its server, so nobody can be asked" });
    return new Promise((resolve) => {
      const onAbort = () => {
        this.settle(askId, { allow: false, reason: "the command ended" });
        this.send({ type: "network_ask_cancel", askId });
      };
      signal.addEventListener("abort", onAbort, { once: true });
      this.waiting.set(askId, (answer) => {
        signal.removeEventListener("abort", onAbort);
        resolve(answer);
      });
    });
  }

  /** The server's answer. */
  answer(message: NetworkAnswerMessage): void {
    this.settle(message.askId, message.allow ? { allow: true } : { allow: false, reason: message.reason });
  }

  /** The link is gone: nobody will answer what is waiting. */
  lost(): void {
    for (const id of [...this.waiting.keys()]) this.settle(id, { allow: false, reason: "the worker lost its server while asking" });
  }

  private settle(askId: string, answer: AskAnswer): void {
    const resolve = this.waiting.get(askId);
    this.waiting.delete(askId);
    resolve?.(answer);
  }
}
