import { execFileSync } from "node:child_process";
import { waitUntil } from "./wait.js";

/** A program running in its own tmux server and window, driven by keys and read from the screen. */
export class Tmux {
  private readonly socket = `gh-test-${process.pid}-${Math.random().toString(36).slice(2, 8)}`;

  /** Runs `command` as a person's terminal would: without CI set, which makes Ink print only its last frame. */
  constructor(command: string, cols = 150, rows = 50) {
    this.tmux("new-session", "-d", "-s", "main", "-x", String(cols), "-y", String(rows), `env -u CI ${command}; echo "EXITED $?"; sleep 60`);
  }

  private tmux(...args: string[]): string {
    return execFileSync("tmux", ["-L", this.socket, ...args], { encoding: "utf8" });
  }

  /** Sends keys as tmux names them (`Enter`, `C-c`, `BSpace`); `-l` text is sent literally. */
  keys(...keys: string[]): void {
    this.tmux("send-keys", "-t", "main", ...keys);
  }

  type(text: string): void {
    this.tmux("send-keys", "-t", "main", "-l", "--", text);
  }

  /** The screen with its scrollback, lines joined. */
  screen(): string {
    return this.tmux("capture-pane", "-p", "-J", "-S", "-1000", "-t", "main");
  }

  /** The visible screen alone, lines joined. */
  visible(): string {
    return this.tmux("capture-pane", "-p", "-J", "-t", "main");
  }

  /** The visible screen with its colours and styles as escape sequences (for a screenshot). */
  styledScreen(): string {
    return this.tmux("capture-pane", "-p", "-e", "-t", "main");
  }

  // Generous: a match returns at once, and a machine shared by many builds can take seconds for a frame.
  async waitFor(pattern: RegExp, what = String(pattern), timeoutMs = 20_000): Promise<string> {
    let last = "";
    try {
      await waitUntil(() => pattern.test((last = this.screen())), timeoutMs, what);
    } catch (err) {
      throw new Error(`${(err as Error).message}\n--- screen ---\n${last}`);
    }
    return last;
  }

  kill(): void {
    try {
      this.tmux("kill-server");
    } catch {
      // already gone
    }
  }
}
