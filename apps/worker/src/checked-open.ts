import path from "node:path";
import {
  closeDescriptor,
  createIn,
  makeFolderIn,
  openDeepestFolder,
  openAny,
  openRegular,
  refuseLinkIn,
  type OpenedFile,
  type OpenedFolder,
} from "@gatehouse/fs-guard";
import { PathsMovedError } from "./errors.js";
import { checkAssumed, checkAssumedBeforeOpen, checkAssumedOpened } from "./real-paths.js";
import type { SteeringLinkTargets } from "./steering-links.js";
import type { ToolContext } from "./tool.js";

/**
 * Runs a checked open. Whatever stops it before its check on the assumed paths (a refusal of the
 * name, a path that does not open) is reported as a moved path when one of the paths the call's
 * decision assumed leads elsewhere now: the server decides the call again on where it leads (it
 * may ask a person), which the worker's own answer would pre-empt.
 */
function assumedFirst<T>(ctx: ToolContext, open: () => T): T {
  try {
    return open();
  } catch (err) {
    if (!(err instanceof PathsMovedError)) checkAssumed(ctx.assumed);
    throw err;
  }
}

/**
 * Opens the file a tool names and checks the object really opened: the name is checked first,
 * then the path read back from the descriptor, so a symlink swapped in between changes nothing.
 * With `links` it is opened to write. The caller closes the descriptor.
 */
export function openChecked(ctx: ToolContext, tool: string, requested: string, links?: SteeringLinkTargets): OpenedFile {
  const { named, opened } = assumedFirst(ctx, () => {
    const named = ctx.guard.check(tool, requested, ctx.granted);
    checkAssumedBeforeOpen(ctx.assumed, named, ctx.guard.realPath(named));
    return { named, opened: openRegular(named, requested, links !== undefined, ctx.guard.workDevice) };
  });
  try {
    checkAssumedOpened(ctx.assumed, named, opened.real);
    ctx.guard.checkOpened(tool, requested, named, opened.real, ctx.granted);
    const via = links?.through(opened.real, opened.stats);
    if (via) ctx.guard.checkSteeringLink(tool, requested, named, via, ctx.granted);
    const same = links?.hardLinkTo(opened.real, opened.stats);
    if (same) ctx.guard.checkSteeringLink(tool, requested, named, same, ctx.granted, "hard link");
  } catch (err) {
    closeDescriptor(opened.fd);
    throw err;
  }
  return opened;
}

/**
 * The file to write, opened: an existing one as openChecked does; a new one made in its folder by
 * descriptor (and the folders on the way), after the check on the real path it will have. `links`:
 * a write that reaches a file of the catalogue through one of them is decided as a write to it.
 */
export function openToWrite(ctx: ToolContext, tool: string, requested: string, links: SteeringLinkTargets): OpenedFile {
  try {
    return openChecked(ctx, tool, requested, links);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== "ENOENT") throw err;
  }
  const { named, folder, missing } = assumedFirst(ctx, () => {
    const named = ctx.guard.check(tool, requested, ctx.granted);
    return { named, ...openDeepestFolder(path.dirname(named)) };
  });
  const open = [folder];
  try {
    if (missing.length === 0) refuseLinkIn(folder, path.basename(named), requested);
    const real = path.join(folder.real, ...missing, path.basename(named));
    checkAssumedOpened(ctx.assumed, named, real);
    ctx.guard.checkOpened(tool, requested, named, real, ctx.granted);
    const via = links.through(real, null);
    if (via) ctx.guard.checkSteeringLink(tool, requested, named, via, ctx.granted);
    let parent: OpenedFolder = folder;
    for (const name of missing) open.push((parent = makeFolderIn(parent, name)));
    return createIn(parent, path.basename(named), requested);
  } finally {
    for (const f of open) closeDescriptor(f.fd);
  }
}

/**
 * The folder a search starts from, checked where the call's decision took it to lead: opened and
 * checked on what opened, or, when it does not open (left to the search to report) or was not
 * among the decision's paths, every path the decision assumed resolved afresh.
 */
export function checkSearchRoot(ctx: ToolContext, tool: string, requested: string): string {
  const named = assumedFirst(ctx, () => ctx.guard.check(tool, requested, ctx.granted));
  if (!ctx.assumed) return named;
  const opened = ctx.assumed[named] ? openedOrNull(named) : null;
  if (!opened) {
    checkAssumed(ctx.assumed);
    return named;
  }
  try {
    checkAssumedOpened(ctx.assumed, named, opened.real);
  } finally {
    closeDescriptor(opened.fd);
  }
  return named;
}

function openedOrNull(absolute: string): OpenedFolder | null {
  try {
    return openAny(absolute);
  } catch {
    return null;
  }
}
