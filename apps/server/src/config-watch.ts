import fs from "node:fs";
import path from "node:path";
import type { ServerConfig } from "./config/index.js";
import type { Log } from "./log.js";
import type { RunningServer } from "./transport/index.js";

/**
 * Reloads tokens and limits when the config file changes or the process gets SIGHUP. A file that
 * no longer loads is reported and the running tokens stay as they were. Returns a stop function.
 */
export function watchConfig(file: string, load: () => ServerConfig, server: Pick<RunningServer, "reloadTokens">, log: Log): () => void {
  let timer: NodeJS.Timeout | undefined;
  const reload = (why: string) => {
    try {
      const next = load();
      server.reloadTokens(next);
    } catch (err) {
      log.error("config not reloaded: it does not load; the tokens in use stay", { why, error: (err as Error).message });
    }
  };
  const soon = (why: string) => {
    clearTimeout(timer);
    timer = setTimeout(() => reload(why), 100);
  };
  // The directory is watched, not the file: editors and `mv` replace the file, which ends a watch on it.
  const base = path.basename(file);
  let watcher: fs.FSWatcher | undefined;
  try {
    watcher = fs.watch(path.dirname(path.resolve(file)), (_event, name) => {
      if (name === null || name.toString() === base) soon("file changed");
    });
    watcher.on("error", (err) => log.warn("config watch failed; SIGHUP still reloads", { error: err.message }));
  } catch (err) {
    log.warn("config watch failed; SIGHUP still reloads", { error: (err as Error).message });
  }
  const onHup = () => reload("SIGHUP");
  process.on("SIGHUP", onHup);
  return () => {
    clearTimeout(timer);
    watcher?.close();
    process.off("SIGHUP", onHup);
  };
}
