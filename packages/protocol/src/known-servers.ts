import fs from "node:fs";
import os from "node:os";
import path from "node:path";

/** Where pinned server fingerprints are kept unless told otherwise. */
export function defaultKnownServersFile(env: NodeJS.ProcessEnv = process.env): string {
  return env.GATEHOUSE_KNOWN_SERVERS ?? path.join(os.homedir(), ".gatehouse", "known_servers");
}

/** A fingerprint as uppercase colon-separated hex, however it was written (`sha256:`, no colons, lowercase). */
export function normalizeFingerprint(text: string): string {
  const hex = text
    .trim()
    .replace(/^sha256[:/ ]/i, "")
    .replace(/:/g, "")
    .toUpperCase();
  if (!/^[0-9A-F]{64}$/.test(hex)) throw new Error(`"${text}" is not a SHA-256 fingerprint (64 hex digits)`);
  return hex.match(/../g)!.join(":");
}

export interface KnownServer {
  fingerprint: string;
  line: number;
}

/**
 * The known-servers file: one `host:port fingerprint` a line, `#` comments. A server is added on
 * first use and never changed by a client: a changed certificate is for a person to accept.
 */
export class KnownServers {
  constructor(readonly file: string = defaultKnownServersFile()) {}

  lookup(server: string): KnownServer | undefined {
    let text: string;
    try {
      text = fs.readFileSync(this.file, "utf8");
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === "ENOENT") return undefined;
      throw new Error(`cannot read the known-servers file ${this.file}: ${(err as Error).message}`);
    }
    const lines = text.split("\n");
    for (let i = 0; i < lines.length; i++) {
      const [name, fingerprint] = lines[i]!.replace(/#.*/, "").trim().split(/\s+/);
      if (name === server && fingerprint) {
        try {
          return { fingerprint: normalizeFingerprint(fingerprint), line: i + 1 };
        } catch (err) {
          throw new Error(`${this.file}:${i + 1}: ${(err as Error).message}`);
        }
      }
    }
    return undefined;
  }

  remember(server: string, fingerprint: string): void {
    fs.mkdirSync(path.dirname(this.file), { recursive: true, mode: 0o700 });
    fs.appendFileSync(this.file, `${server} ${normalizeFingerprint(fingerprint)}\n`, { mode: 0o600 });
  }
}
