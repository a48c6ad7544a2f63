import { createRequire } from "node:module";
import { Worker } from "node:worker_threads";

// The thread's whole program: its own connection to the database, copying committed pages from
// the write-ahead log into the database file as they come, and resting while there are none.
const PROGRAM = `
const { workerData, parentPort } = require("node:worker_threads");
const Database = require(workerData.module);
const db = new Database(workerData.file);
db.pragma("busy_timeout = 5000");
let timer;
const pass = () => {
  const [{ log, checkpointed }] = db.pragma("wal_checkpoint(PASSIVE)");
  timer = setTimeout(pass, checkpointed < log ? 0 : workerData.restMs);
};
timer = setTimeout(pass, workerData.restMs);
parentPort.on("message", () => {
  clearTimeout(timer);
  db.close();
  parentPort.close();
});
`;

/**
 * Checkpoints of a SQLite database in WAL mode, run on a thread of their own. A checkpoint waits
 * for the disk twice (it syncs the log, then the database); done on the server's thread, as SQLite
 * does by default at the commit that fills the log, it stalled every session for that long. The
 * server's own connection still checkpoints, seldom, so that the log starts over: what is left for
 * it then is the few pages committed since this thread's last pass.
 */
export class Checkpoints {
  private readonly worker: Worker;
  private readonly exited: Promise<void>;

  /** `fallBack` is called if the thread fails, so that the connection checkpoints as often as it did. */
  constructor(file: string, fallBack: (err: Error) => void, restMs = 50) {
    const module = createRequire(import.meta.url).resolve("better-sqlite3");
    this.worker = new Worker(PROGRAM, { eval: true, workerData: { file, module, restMs } });
    this.worker.unref();
    this.worker.on("error", fallBack);
    this.exited = new Promise((resolve) => this.worker.once("exit", () => resolve()));
  }

  /** Ends the thread after the checkpoint it may be running. */
  async stop(): Promise<void> {
    this.worker.ref();
    this.worker.postMessage("stop");
    await this.exited;
  }
}
