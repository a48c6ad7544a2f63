/**
 * Whether a folder is a git directory, by what it holds rather than its name: a HEAD (a file or a
 * link, as git takes either) and its objects or the pointer to them (`commondir`). `logs` has a
 * HEAD too, and neither. The sandbox's read-only git parts and the disarm of made git directories
 * decide by this; the file check asks about any folder with a HEAD, which covers every folder
 * this accepts and one still being made.
 */
export function isGitDirectory(has: (name: string) => boolean): boolean {
  return has("HEAD") && (has("objects") || has("commondir"));
}
