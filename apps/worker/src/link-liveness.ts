/** Of the server's heartbeat time-out, the part after the newest acknowledged beat past which the worker gives the link up. */
const GIVE_UP_FRACTION = 3 / 4;

/** Of the server's heartbeat time-out, the most time between two beats. */
const BEAT_FRACTION = 1 / 4;

/**
 * Whether the server may still count this worker alive, judged on the worker's own monotonic clock.
 *
 * The server gives a worker up when no heartbeat reached it for its heartbeat time-out. Each beat
 * carries the worker's clock reading when it was sent, and the server echoes it once it has counted
 * the beat; so the server cannot give the worker up before the newest echoed reading plus its
 * time-out. The worker gives the link up at three quarters of that: the quarter left covers a late
 * timer and the killing of its calls. A partition (no echo comes) and a freeze (the echoes that
 * waited in the socket are old when the worker wakes) both end there, so the worker drops the link
 * before the server can have failed a call it would still run.
 */
export class LinkLiveness {
  /** When the newest beat the server counted was sent (the registration's, before the first). */
  private confirmed: number;
  private watchdog: NodeJS.Timeout | undefined;
  private readonly giveUpMs: number;

  constructor(
    /** The server's heartbeat time-out. */
    timeoutMs: number,
    /** When the registration the server answered was sent, on `now()`'s clock. */
    registeredAt: number,
    private readonly onSilent: (silentMs: number) => void,
  ) {
    this.giveUpMs = timeoutMs * GIVE_UP_FRACTION;
    this.confirmed = registeredAt;
    this.arm();
  }

  /** The worker's monotonic clock, in milliseconds: never Date.now(), which the wall clock's steps move. */
  static now(): number {
    return performance.now();
  }

  /** How often to beat: the worker's own interval, shortened to fit the server's time-out. */
  static beatMs(ownMs: number, timeoutMs: number): number {
    return Math.max(1, Math.min(ownMs, Math.floor(timeoutMs * BEAT_FRACTION)));
  }

  /** The server counted the beat sent at `beat`; a reading from the future is ignored. */
  acknowledged(beat: number): void {
    if (beat > LinkLiveness.now() || beat <= this.confirmed) return;
    this.confirmed = beat;
    this.arm();
  }

  /** False once the server may have given the worker up: nothing it asked may run. */
  fresh(): boolean {
    return this.silentMs() < this.giveUpMs;
  }

  stop(): void {
    clearTimeout(this.watchdog);
  }

  private silentMs(): number {
    return LinkLiveness.now() - this.confirmed;
  }

  private arm(): void {
    clearTimeout(this.watchdog);
    this.watchdog = setTimeout(() => (this.fresh() ? this.arm() : this.onSilent(this.silentMs())), Math.max(0, this.giveUpMs - this.silentMs()));
  }
}
