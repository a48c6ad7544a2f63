/**
 * The streams a CLI command reads and writes. A program has its process's own; a test runs the
 * permissions commands and help in its own process with streams of its own.
 */
export interface CliIo {
  readonly stdin: NodeJS.ReadableStream;
  readonly stdout: NodeJS.WritableStream;
  readonly stderr: NodeJS.WritableStream;
}

// Getters: process.stdin is made on first use, and a command that never reads it must not make it.
export const PROCESS_IO: CliIo = {
  get stdin() {
    return process.stdin;
  },
  get stdout() {
    return process.stdout;
  },
  get stderr() {
    return process.stderr;
  },
};
