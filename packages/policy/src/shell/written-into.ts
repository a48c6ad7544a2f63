import type { AnalyzedCommand } from "./analyze.js";
import { tarExtracts } from "./programs/special.js";
import type { ShellWord } from "./words.js";

/** Programs that put their sources into a folder given last (or with `-t`) under the sources' own names. */
const INTO_FOLDER: ReadonlySet<string> = new Set(["cp", "mv", "ln", "install"]);

/** Programs that fill a folder they write with files, or a tree, the gate does not see by name. */
export const FILLS_FOLDER: ReadonlySet<string> = new Set([...INTO_FOLDER, "tar", "unzip", "rsync"]);

const HERE: ShellWord = { text: ".", raw: ".", dynamic: false, glob: false };

/** `dir/name` for each literal name; a name only known when the shell runs cannot be placed. */
function placed(dir: ShellWord, names: readonly ShellWord[], base: (name: string) => string): ShellWord[] {
  if (dir.dynamic || dir.glob) return [];
  const out: ShellWord[] = [];
  for (const n of names) {
    if (n.dynamic || n.glob) continue;
    const name = base(n.text);
    if (name === "" || name === "." || name === "..") continue;
    const text = `${dir.text.replace(/\/+$/, "")}/${name}`;
    out.push({ text, raw: text, dynamic: false, glob: false });
  }
  return out;
}

const baseName = (p: string): string => p.replace(/\/+$/, "").slice(p.replace(/\/+$/, "").lastIndexOf("/") + 1);

/**
 * Paths a command writes inside a folder it is given, named by its other words, which its own
 * writes do not show: `cp -r x/.git .` writes `./.git`, `tar xf t.tar .git/config` writes
 * `./.git/config`, `unzip a.zip -d d pytest.ini` writes `d/pytest.ini`.
 */
export function writtenInto(cmd: AnalyzedCommand): ShellWord[] {
  const c = cmd.classified;
  if (!c) return [];
  if (INTO_FOLDER.has(cmd.program)) {
    const target = c.writes.find((w) => !c.operands.includes(w));
    if (target) return placed(target, c.operands, baseName);
    if (c.operands.length < 2) return [];
    return placed(c.operands[c.operands.length - 1]!, c.operands.slice(0, -1), baseName);
  }
  const dir = c.writes[c.writes.length - 1] ?? HERE;
  if (cmd.program === "tar" && tarExtracts(cmd.words)) return placed(dir, c.operands, (m) => m);
  if (cmd.program === "unzip") return placed(dir, c.operands.slice(1), (m) => m);
  return [];
}
