import fs from "node:fs";
import { readRegularFile } from "./regular-file.js";
import path from "node:path";
import { DEFAULT_RULES_TEXT } from "../defaults.js";
import { RulesFileError } from "../errors.js";
import { parseRulesOrThrow } from "../rules-file.js";
import { Ruleset } from "../ruleset.js";

/**
 * Writes rules (the defaults unless given) to `file` unless it exists; never overwrites. A write
 * that fails (a full disk) removes the file and folders it made: left empty or torn, the file
 * would never be seeded again, and every call it decides would ask for ever.
 */
export function seedRulesFile(file: string, text = DEFAULT_RULES_TEXT): boolean {
  const made = fs.mkdirSync(path.dirname(file), { recursive: true });
  let fd: number;
  try {
    fd = fs.openSync(file, "wx");
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === "EEXIST") return false;
    throw err;
  }
  try {
    fs.writeFileSync(fd, text);
  } catch (err) {
    // The folders this call made go too: a worker whose folder exists is not seeded again.
    fs.rmSync(made ?? file, { recursive: true, force: true });
    throw err;
  } finally {
    fs.closeSync(fd);
  }
  return true;
}

/** Reads a rules file that must be a regular file (see readRegularFile: a FIFO cannot stall it). */
export function readRulesText(file: string): string {
  try {
    return readRegularFile(file);
  } catch (err) {
    const message = (err as Error).message;
    throw new RulesFileError(
      "RULES_IO",
      file,
      1,
      1,
      message.startsWith("it is ") ? `the rules file ${message.slice(3)}` : `cannot read the rules file: ${message}`,
    );
  }
}

interface CacheEntry {
  key: string;
  ruleset?: Ruleset;
  error?: RulesFileError;
}

export interface LoadOptions {
  home: string;
  /** Write the default rules when the file does not exist (the worker's file on first use). */
  seed?: boolean;
}

/**
 * Loads rules files, keyed by the file's identity and modification time: an unchanged file is
 * never re-read or re-parsed; an edited or replaced one is picked up on the next call.
 */
export class RulesFileCache {
  private readonly entries = new Map<string, CacheEntry>();

  load(file: string, opts: LoadOptions): Ruleset {
    const stat = this.stat(file, opts);
    // The home is part of the key: `~/` in the file expands to it.
    const key = `${opts.home}:${stat.dev}:${stat.ino}:${stat.mtimeMs}:${stat.ctimeMs}:${stat.size}`;
    let entry = this.entries.get(file);
    if (entry?.key !== key) {
      entry = this.read(file, key, opts.home);
      this.entries.set(file, entry);
    }
    if (entry.error) throw entry.error;
    return entry.ruleset!;
  }

  private stat(file: string, opts: LoadOptions): fs.Stats {
    try {
      return fs.statSync(file);
    } catch (err) {
      const missing = (err as NodeJS.ErrnoException).code === "ENOENT";
      if (missing && opts.seed) {
        try {
          seedRulesFile(file);
        } catch (failed) {
          throw new RulesFileError("RULES_IO", file, 1, 1, `cannot write the default rules: ${(failed as Error).message}`);
        }
        return fs.statSync(file);
      }
      if (missing)
        throw new RulesFileError(
          "RULES_IO",
          file,
          1,
          1,
          "cannot read the rules file: it does not exist (it is not re-created with the defaults: restore it or write the rules you want)",
        );
      throw new RulesFileError("RULES_IO", file, 1, 1, `cannot read the rules file: ${(err as Error).message}`);
    }
  }

  private read(file: string, key: string, home: string): CacheEntry {
    try {
      return { key, ruleset: new Ruleset(parseRulesOrThrow(readRulesText(file), { file, home })) };
    } catch (err) {
      return { key, error: err as RulesFileError };
    }
  }
}
