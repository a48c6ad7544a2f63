import path from "node:path";
import { contentsAccess, isInside, pathAccess, type DecideContext } from "@gatehouse/policy";

/**
 * What the sandbox does with a path it meets: masks it (nobody reads it), makes it read-only, or
 * leaves it. The sandbox's profile and the file tools' refusals both come from here, so that a
 * file tool never shows what a sandboxed command could not read.
 */
export type Judgement = "masked" | "read-only" | null;

/** The sandbox has its own /tmp, /dev and /proc: the host's files under them are not there for a command. */
export const PRIVATE_ROOTS = ["/tmp", "/dev", "/proc"];

/** How the sandbox treats one path: a folder by its own name and by whatever it could hold. */
export function judgePath(absolute: string, dir: boolean, ctx: DecideContext): Judgement {
  const own = pathAccess(absolute, ctx);
  const held = dir ? contentsAccess(absolute, ctx) : { readDenied: false, writeDenied: false };
  if (own.readDenied || held.readDenied) return "masked";
  return own.writeDenied || held.writeDenied ? "read-only" : null;
}

/** A host path under the sandbox's private roots, which a command sees replaced by its own (its work directory excepted). */
export function underPrivateRoot(real: string, workDir: string): string | undefined {
  return isInside(real, workDir) ? undefined : PRIVATE_ROOTS.find((r) => isInside(real, r));
}

/**
 * Why a sandboxed command could not read the file at `real` (its real path), or null: a protected
 * path, a private root, or a mask on the file or on a folder above it. `folders` remembers the
 * folders' judgements for the rules in `ctx`.
 */
export function hiddenFromCommands(real: string, workDir: string, ctx: DecideContext, folders: Map<string, Judgement>): string | null {
  const plain = { ...ctx, resolveRealPath: (p: string) => p };
  const guarded = ctx.protectedPaths?.find((p) => isInside(real, p));
  if (guarded) return `${real} is inside the protected path ${guarded}, which the sandbox hides`;
  const root = underPrivateRoot(real, workDir);
  if (root) return `${real} is under ${root}, which the sandbox replaces with its own`;
  if (judgePath(real, false, plain) === "masked") return `the rules deny reading ${real}, so the sandbox masks it`;
  for (let dir = path.dirname(real); ; dir = path.dirname(dir)) {
    let judged = folders.get(dir);
    if (judged === undefined) {
      if (folders.size >= 4096) folders.clear();
      folders.set(dir, (judged = judgePath(dir, true, plain)));
    }
    if (judged === "masked") return `the rules deny reading what ${dir} holds, so the sandbox masks that folder`;
    if (dir === "/") return null;
  }
}
