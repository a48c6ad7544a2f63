import os from "node:os";
import path from "node:path";
import { HOME_STEERING_PATHS, isInside } from "@gatehouse/policy";
import { realOrNull } from "./git-execution-parts.js";

/**
 * The home folder's files that steer programs (`.bashrc`, `.gitconfig`, `.ssh/`, the package
 * caches), where they are on the host, when they lie inside the work directory and so would be
 * writable in the sandbox. Only those that exist: a bind needs a path.
 */
export function homeSteeringParts(workDir: string, home: string = os.homedir()): string[] {
  const found: string[] = [];
  for (const name of HOME_STEERING_PATHS) {
    const real = realOrNull(path.join(home, name));
    if (real && isInside(real, workDir)) found.push(real);
  }
  return found;
}
