/**
 * Streamed model text, gathered for a moment before it is published: the event log holds a few
 * phrases a second, not one event per token, and a client still sees the text as it comes.
 */
export class TextDeltas {
  private held = "";
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly publish: (text: string) => void,
    private readonly everyMs = 50,
  ) {}

  push(text: string): void {
    this.held += text;
    this.timer ??= setTimeout(() => this.flush(), this.everyMs);
  }

  /** Publishes what is held now (before the step's whole message). */
  flush(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    if (!this.held) return;
    const text = this.held;
    this.held = "";
    this.publish(text);
  }
}
