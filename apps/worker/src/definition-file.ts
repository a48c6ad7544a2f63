import fs from "node:fs";
import path from "node:path";
import { closeDescriptor, FileRefusedError, openRegular, type OpenedFile } from "@gatehouse/fs-guard";

/** The largest agent or skill file read: its text goes into a prompt, whole. */
export const DEFINITION_LIMIT = 256 * 1024;

/**
 * Opens a definition file (an agent or a skill) that must lie in `folder`: what was really opened
 * is checked, so a symlink out of the folder (to `.env`, `~/.ssh`, `/proc/self/environ`) is refused.
 */
function openInside(folder: string, file: string, shown: string): OpenedFile {
  const opened = openRegular(file, shown);
  const real = fs.realpathSync(folder);
  if (opened.real.startsWith(`${real}/`) && opened.stats.size <= DEFINITION_LIMIT) return opened;
  closeDescriptor(opened.fd);
  if (opened.stats.size > DEFINITION_LIMIT) throw new FileRefusedError("TOO_LARGE", `${shown} is larger than ${DEFINITION_LIMIT} bytes`);
  throw new FileRefusedError("OUTSIDE_FOLDER", `${shown} leads to ${opened.real}, outside ${path.basename(folder)}/`);
}

/** The text of a definition file in `folder`, read from the descriptor openInside checked (and `check` on its real path). */
export function readInside(folder: string, file: string, shown: string, check: (real: string) => void = () => {}): string {
  const opened = openInside(folder, file, shown);
  try {
    check(opened.real);
    const buffer = Buffer.alloc(DEFINITION_LIMIT + 1);
    const n = fs.readSync(opened.fd, buffer, 0, buffer.length, 0);
    if (n > DEFINITION_LIMIT) throw new FileRefusedError("TOO_LARGE", `${shown} is larger than ${DEFINITION_LIMIT} bytes`);
    return buffer.toString("utf8", 0, n);
  } finally {
    closeDescriptor(opened.fd);
  }
}
