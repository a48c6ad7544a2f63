import fs from "node:fs";
import path from "node:path";

const MAX_LINKS = 40;

/**
 * The path the file system would really open: symlinks resolved, dangling ones too (a link to a
 * file that does not exist yet still names its target), and a missing tail kept as written.
 */
export function resolveRealPath(absolute: string): string {
  let current = path.resolve(absolute);
  for (let hops = 0; hops < MAX_LINKS; hops++) {
    try {
      return fs.realpathSync.native(current);
    } catch {
      // Missing or dangling: resolve the parent, then look at the last component itself.
    }
    const parent = path.dirname(current);
    const realParent = parent === current ? parent : resolveRealPath(parent);
    const candidate = path.join(realParent, path.basename(current));
    const stat = fs.lstatSync(candidate, { throwIfNoEntry: false });
    if (!stat?.isSymbolicLink()) return candidate;
    current = path.resolve(realParent, fs.readlinkSync(candidate));
  }
  throw Object.assign(new Error(`too many symbolic links: ${absolute}`), { code: "ELOOP" });
}
