import path from "node:path";
import { tooDeepRefusal } from "./work-tree.js";
import { contentsAccess, decideAbsolute, isInside, pathAccess, type DecideContext } from "@gatehouse/policy";

/**
 * What the sandbox does with a path it meets: masks it (nobody reads it), makes it read-only, or
 * leaves it. The sandbox's profile and the file tools' refusals both come from here, so that a
 * file tool never shows what a sandboxed command could not read.
 */
export type Judgement = "masked" | "read-only" | null;

/** The sandbox has its own /tmp, /dev and /proc: the host's files under them are not there for a command. */
export const PRIVATE_ROOTS = ["/tmp", "/dev", "/proc"];

/** Whether the sandbox masks a path: read_file is denied it, or (a folder) whatever it could hold. */
export function readMasked(absolute: string, dir: boolean, ctx: DecideContext): boolean {
  return decideAbsolute("read_file", absolute, ctx).action === "deny" || (dir && contentsAccess(absolute, ctx).readDenied);
}

/** How the sandbox treats one path: a folder by its own name and by whatever it could hold. */
export function judgePath(absolute: string, dir: boolean, ctx: DecideContext): Judgement {
  if (readMasked(absolute, dir, ctx)) return "masked";
  return pathAccess(absolute, ctx).writeDenied || (dir && contentsAccess(absolute, ctx).writeDenied) ? "read-only" : null;
}

/** A host path under the sandbox's private roots, which a command sees replaced by its own (its work directory excepted). */
export function underPrivateRoot(real: string, workDir: string): string | undefined {
  return isInside(real, workDir) ? undefined : PRIVATE_ROOTS.find((r) => isInside(real, r));
}

/**
 * Why a sandboxed command could not read the file at `real` (its real path), or null: a protected
 * path, a private root, or a mask on the file or on a folder above it. `folders` remembers the
 * folders' judgements for the rules in `ctx`; `fileJudged` says the caller has already found
 * read_file not denied on `real` itself.
 */
export function hiddenFromCommands(real: string, workDir: string, ctx: DecideContext, folders: Map<string, boolean>, fileJudged = false): string | null {
  const plain = { ...ctx, resolveRealPath: (p: string) => p };
  const guarded = ctx.protectedPaths?.find((p) => isInside(real, p));
  if (guarded) return `${real} is inside the protected path ${guarded}, which the sandbox hides`;
  const root = underPrivateRoot(real, workDir);
  if (root) return `${real} is under ${root}, which the sandbox replaces with its own`;
  const deep = tooDeepRefusal(workDir, real);
  if (deep) return deep;
  if (!fileJudged && readMasked(real, false, plain)) return `the rules deny reading ${real}, so the sandbox masks it`;
  for (let dir = path.dirname(real); ; dir = path.dirname(dir)) {
    let masked = folders.get(dir);
    if (masked === undefined) {
      if (folders.size >= 4096) folders.clear();
      folders.set(dir, (masked = readMasked(dir, true, plain)));
    }
    if (masked) return `the rules deny reading what ${dir} holds, so the sandbox masks that folder`;
    if (dir === "/") return null;
  }
}
