import crypto from "node:crypto";
import { hashToken } from "@gatehouse/server";
import { CliError } from "../cli-error.js";

/**
 * `gatehouse token`: a new random token and its hash, as a config's token entry wants them.
 * `gatehouse token hash`: the hash of a token read from stdin, so it never shows in a process list.
 */
export async function tokenCommand(argv: string[], stdin: NodeJS.ReadableStream = process.stdin): Promise<number> {
  const [sub, ...rest] = argv;
  if (rest.length > 0 || (sub !== undefined && sub !== "hash")) throw new CliError(`usage: gatehouse token [hash]`);
  if (sub === undefined) {
    const token = crypto.randomBytes(32).toString("base64url");
    process.stdout.write(`${JSON.stringify({ token, tokenHash: hashToken(token) })}\n`);
    return 0;
  }
  let text = "";
  for await (const chunk of stdin) text += String(chunk);
  const token = text.replace(/\r?\n$/, "");
  if (token.length < 16) throw new CliError("a token must be at least 16 characters");
  process.stdout.write(`${hashToken(token)}\n`);
  return 0;
}
