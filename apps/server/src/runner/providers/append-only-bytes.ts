/** The smallest buffer made; most conversations' kept text outgrows it within a few steps. */
const FIRST_SIZE = 16 * 1024;

/**
 * Text kept as UTF-8 bytes, only ever added to at its end: a view of its first bytes stays what it
 * was while more is added (a grown buffer is a new one), so a request can send a view without a
 * copy while the next step adds to the text. The bytes are encoded once, when added.
 */
export class AppendOnlyBytes {
  private buffer: Buffer;
  private used = 0;

  constructor(start?: Uint8Array) {
    this.buffer = Buffer.allocUnsafe(Math.max(FIRST_SIZE, 2 * (start?.length ?? 0)));
    if (start) {
      this.buffer.set(start);
      this.used = start.length;
    }
  }

  get length(): number {
    return this.used;
  }

  append(text: string): void {
    const size = Buffer.byteLength(text);
    if (this.used + size > this.buffer.length) {
      const grown = Buffer.allocUnsafe(Math.max(2 * this.buffer.length, this.used + size));
      this.buffer.copy(grown, 0, 0, this.used);
      this.buffer = grown;
    }
    this.buffer.write(text, this.used);
    this.used += size;
  }

  /** The first `end` bytes, as they are now and will stay. */
  view(end: number = this.used): Uint8Array {
    return this.buffer.subarray(0, end);
  }

  /** A copy of the first `end` bytes to add to, leaving every view of these as it is. */
  prefix(end: number): AppendOnlyBytes {
    return new AppendOnlyBytes(this.view(end));
  }
}
