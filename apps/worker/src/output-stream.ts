import { OUTPUT_CHUNK_CHARS } from "@gatehouse/protocol";

/**
 * A call's output on its way to the server as it comes: gathered for a short while so a chatty
 * command makes a message every `intervalMs` rather than one per write, cut to the link's chunk
 * size, and ended after `limit` characters (the result carries the whole, cut to its own limit).
 */
export class OutputStream {
  private buffered = "";
  private sent = 0;
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly send: (text: string) => void,
    private readonly intervalMs = 100,
    private readonly limit = 100_000,
  ) {}

  write(text: string): void {
    const room = this.limit - this.sent - this.buffered.length;
    if (room <= 0) return;
    this.buffered += text.slice(0, room);
    if (this.buffered.length >= OUTPUT_CHUNK_CHARS) this.flush();
    else this.timer ??= setTimeout(() => this.flush(), this.intervalMs);
  }

  /** Sends what is gathered; called before the call's result so that no output arrives after it. */
  flush(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
    while (this.buffered.length > 0) {
      const chunk = this.buffered.slice(0, OUTPUT_CHUNK_CHARS);
      this.buffered = this.buffered.slice(chunk.length);
      this.sent += chunk.length;
      this.send(chunk);
    }
  }
}
