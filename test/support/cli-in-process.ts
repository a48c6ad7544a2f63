import { Readable, Writable } from "node:stream";
import { main } from "@gatehouse/cli";

/** A stream that keeps what is written to it. */
class Kept extends Writable {
  text = "";
  override _write(chunk: unknown, _encoding: BufferEncoding, done: () => void): void {
    this.text += String(chunk);
    done();
  }
}

export interface CliRun {
  code: number;
  stdout: string;
  stderr: string;
}

/**
 * Runs `gatehouse ARGS` in this process, as the program would with `input` on stdin: help and the
 * permissions commands, whose logic the unit tests check without the cost of starting a program.
 */
export async function runCli(args: string[], input = ""): Promise<CliRun> {
  const stdout = new Kept();
  const stderr = new Kept();
  const code = await main(args, { stdin: Readable.from(input === "" ? [] : [input]), stdout, stderr });
  return { code, stdout: stdout.text, stderr: stderr.text };
}
