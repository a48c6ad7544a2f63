import { decideAbsolute, type DecideContext } from "./decide.js";

/** What the rules deny for one path on the file system: its content to readers, changes to writers. */
export interface PathAccess {
  readDenied: boolean;
  writeDenied: boolean;
}

const denied = (tool: string, absolute: string, ctx: DecideContext) => decideAbsolute(tool, absolute, ctx).action === "deny";

/** The read_file and write_file/edit_file denials for an absolute path (its real path counts too, via ctx). */
export function pathAccess(absolute: string, ctx: DecideContext): PathAccess {
  return {
    readDenied: denied("read_file", absolute, ctx),
    writeDenied: denied("write_file", absolute, ctx) || denied("edit_file", absolute, ctx),
  };
}

// Two unlike names: a rule that denies both speaks of whatever a folder holds (`secrets/**`), not of
// one kind of file in it.
const PROBES = ["gatehouse-probe", ".gatehouse-probe.x"];

/**
 * What the rules deny for anything inside a folder, files not yet made included: a folder whose
 * every new entry would be denied is denied as a whole. Stricter than the rules where they carve
 * out an exception inside such a folder, never looser.
 */
export function contentsAccess(dir: string, ctx: DecideContext): PathAccess {
  const probes = PROBES.map((name) => pathAccess(`${dir === "/" ? "" : dir}/${name}`, ctx));
  return { readDenied: probes.every((p) => p.readDenied), writeDenied: probes.every((p) => p.writeDenied) };
}
