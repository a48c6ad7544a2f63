// The sandbox is never weaker than the rules: whatever the rules deny to read_file cannot be read
// inside it, whatever they deny to write tools cannot be changed, and protected paths cannot be
// reached, by any spelling. Rule sets and trees of files, folders and symlinks are generated; every
// path is then read and written with real commands in a real sandbox. Some entries are made only
// after the sandbox has watched the tree for two calls, just before the third: in new folders,
// files renamed into place, with no turn of the event loop between them and the call.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { decideFile, loadShellParser } from "@gatehouse/policy";
import type { Guard } from "@gatehouse/protocol";
import fc from "fast-check";
import { afterAll, describe, expect, it } from "vitest";
import { FileGuard, resolveSandbox, ShellRunner } from "../src/index.js";

await loadShellParser();
const base = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "gh-never-weaker-")));
afterAll(() => fs.rmSync(base, { recursive: true, force: true }));
const sandbox = resolveSandbox({ mode: "required", network: false });

const NAMES = ["a", "b", ".env", "secret.txt", "notes.md", "dist", "k.pem"];
const OUTSIDE_FILES = ["o0", "o1"];
const DATA_FILE = "permissions.jsonc";

type Kind = "file" | "dir" | "symlink";
interface EntrySpec {
  segments: string[];
  kind: Kind;
  /** For symlinks: another entry, an outside file or the protected folder's file, spelled relative or absolute. */
  target: number;
  absolute: boolean;
  /** Made between calls rather than before the first. */
  late: boolean;
}

const entry = fc.record({
  segments: fc.array(fc.constantFrom(...NAMES), { minLength: 1, maxLength: 3 }),
  kind: fc.constantFrom<Kind>("file", "file", "dir", "symlink"),
  target: fc.nat(40),
  absolute: fc.boolean(),
  late: fc.boolean(),
});

const PATTERNS = (outside: string) => [
  "*.env",
  "secret*",
  "*secret*",
  "dist/**",
  "a/**",
  "a",
  "b/*",
  "*.pem",
  "**/notes.md",
  "*",
  `${outside}/**`,
  `${outside}/o1`,
  "a/b/.env",
];
const ruleSpec = fc.record({
  tool: fc.constantFrom("read_file", "write_file", "edit_file", "*"),
  pattern: fc.nat(12),
  action: fc.constantFrom("allow", "deny", "ask"),
});

interface Built {
  work: string;
  data: string;
  outside: string;
  /** Every path made in the work directory, relative, with its kind. */
  paths: { rel: string; kind: Kind }[];
  /** Regular files' contents, by absolute path. */
  contents: Map<string, string>;
}

let caseNo = 0;

function lstat(p: string): fs.Stats | undefined {
  try {
    return fs.lstatSync(p);
  } catch {
    return undefined;
  }
}

function build(specs: EntrySpec[], dataInside: boolean): Built {
  const root = path.join(base, `c${caseNo++}`);
  const work = path.join(root, "work");
  const outside = path.join(root, "outside");
  const data = dataInside ? path.join(work, ".gh-data") : path.join(root, "data");
  for (const d of [work, outside, data]) fs.mkdirSync(d, { recursive: true });
  const contents = new Map<string, string>();
  const write = (file: string) => {
    const token = `TOKEN-${caseNo}-${contents.size}`;
    fs.writeFileSync(file, token);
    contents.set(file, token);
  };
  for (const o of OUTSIDE_FILES) write(path.join(outside, o));
  write(path.join(data, DATA_FILE));
  const built: Built = { work, data, outside, paths: [], contents };
  addEntries(
    built,
    specs.filter((s) => !s.late),
  );
  return built;
}

/** Makes the entries in the work directory, parents first; files are written aside and renamed into place. */
function addEntries(b: Built, specs: EntrySpec[]): void {
  const { work, outside, data, paths, contents } = b;
  const write = (file: string) => {
    const token = `TOKEN-${caseNo}-${contents.size}`;
    fs.writeFileSync(`${file}.part`, token);
    fs.renameSync(`${file}.part`, file);
    contents.set(file, token);
  };
  const ordered = [...specs].sort((x, y) => x.segments.length - y.segments.length);
  for (const spec of ordered) {
    const rel = spec.segments.join("/");
    const abs = path.join(work, rel);
    const parent = path.dirname(abs);
    if (lstat(abs)) continue;
    const parentStat = lstat(parent);
    if (parentStat ? !parentStat.isDirectory() : !mkdirs(parent, work)) continue;
    if (spec.kind === "file") write(abs);
    else if (spec.kind === "dir") fs.mkdirSync(abs);
    else {
      const choices = [...paths.map((p) => path.join(work, p.rel)), ...OUTSIDE_FILES.map((o) => path.join(outside, o)), path.join(data, DATA_FILE), data];
      const target = choices[spec.target % choices.length]!;
      fs.symlinkSync(spec.absolute ? target : path.relative(parent, target) || ".", abs);
    }
    paths.push({ rel, kind: spec.kind });
  }
}

/** mkdir -p that refuses to pass through anything but real folders inside the work directory. */
function mkdirs(dir: string, work: string): boolean {
  const stat = lstat(dir);
  if (stat) return stat.isDirectory();
  if (dir === work || !mkdirs(path.dirname(dir), work)) return false;
  fs.mkdirSync(dir);
  return true;
}

const q = (s: string) => `'${s.replace(/'/g, "'\\''")}'`;

/** Ways to name one path from inside the work directory; the last two make a symlink during the command. */
function spellings(b: Built, rel: string, i: number): string[] {
  return [
    q(rel),
    q(`./${rel}`),
    q(path.join(b.work, rel)),
    q(`../work/${rel}`),
    `"$(ln -sf ${q(path.join(b.work, rel))} /tmp/l${i} && echo /tmp/l${i})"`,
    `"$(ln -sf ${q(rel)} .made${i} && echo .made${i})"`,
  ];
}

async function run(runner: ShellRunner, guard: FileGuard, script: string): Promise<string> {
  const child = await runner.start(script, guard);
  let out = "";
  child.stdout!.on("data", (d: Buffer) => (out += d));
  child.stderr!.on("data", () => undefined);
  await new Promise((resolve) => child.on("close", resolve));
  return out;
}

describe("the sandbox is never weaker than the rules", () => {
  it("for generated rules and trees, with real commands", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(entry, { minLength: 1, maxLength: 14 }),
        fc.array(ruleSpec, { maxLength: 6 }),
        fc.boolean(),
        fc.boolean(),
        async (specs, rules, catchAll, dataInside) => {
          const b = build(specs, dataInside);
          const patterns = PATTERNS(b.outside);
          const guardRules: Guard = {
            agent: null,
            static: [
              ...(catchAll ? [{ tool: "*", pattern: "*", action: "allow" as const, origin: "person" as const }] : []),
              ...rules.map((r) => ({ tool: r.tool, pattern: patterns[r.pattern]!, action: r.action as "allow" | "deny" | "ask", origin: "person" as const })),
            ],
            runtime: [],
            protectedPaths: [b.data],
          };
          const guard = new FileGuard(guardRules, b.work);
          const runner = new ShellRunner(b.work, sandbox);
          await runner.profile(guard);
          await runner.profile(guard);
          const { walks } = runner.treeState;
          addEntries(
            b,
            specs.filter((s) => s.late),
          );
          const denied = (tool: string, rel: string) => decideFile(tool, rel, guard.context).action === "deny";

          const reads = b.paths.filter((p) => p.kind !== "dir").map((p) => p.rel);
          const readScript = reads.map(
            (rel, i) =>
              `echo "<<${i}>>"; ${spellings(b, rel, i)
                .map((s) => `cat -- ${s} 2>/dev/null;`)
                .join(" ")} echo "<</${i}>>"`,
          );
          readScript.push(
            `echo "<<data>>"; cat ${q(path.join(b.data, DATA_FILE))} ${q(path.relative(b.work, path.join(b.data, DATA_FILE)))} 2>/dev/null; ` +
              `ls -a ${q(b.data)} 2>/dev/null; echo "<</data>>"`,
          );
          const out = await run(runner, guard, readScript.join("\n"));
          // Kept current by its watches: a watch closed anywhere in the process since the barrier
          // (the trees of other calls come and go) costs one safe walk, never a fallback.
          expect(runner.treeState.fallback, "the tree was kept current by its watches").toBeNull();
          expect(runner.treeState.walks, "the tree was kept current by its watches").toBeLessThanOrEqual(walks + 1);
          reads.forEach((rel, i) => {
            const section = out.slice(out.indexOf(`<<${i}>>`), out.indexOf(`<</${i}>>`));
            if (denied("read_file", rel)) expect(section, `read_file denies ${rel}`).not.toMatch(/TOKEN-/);
          });
          expect(out, "a protected file was read").not.toContain(b.contents.get(path.join(b.data, DATA_FILE)));
          expect(out.slice(out.indexOf("<<data>>"))).not.toContain(DATA_FILE);

          const files = b.paths.filter((p) => p.kind === "file" && (denied("write_file", p.rel) || denied("edit_file", p.rel))).map((p) => p.rel);
          const writeScript = files.map((rel, i) => {
            const dir = path.dirname(rel);
            const renameParent = dir === "." ? "" : `mv ${q(dir)} ${q(`${dir}.moved${i}`)} 2>/dev/null; mkdir -p ${q(dir)} 2>/dev/null;`;
            return `${spellings(b, rel, 100 + i)
              .map((s) => `echo INJECTED >> ${s} 2>/dev/null;`)
              .join(" ")} rm -f ${q(rel)} 2>/dev/null; mv ${q(rel)} ${q(`${rel}.mv`)} 2>/dev/null; ${renameParent} echo INJECTED > ${q(rel)} 2>/dev/null; true`;
          });
          writeScript.push(`echo INJECTED > ${q(path.join(b.data, DATA_FILE))} 2>/dev/null; mkdir ${q(path.join(b.data, "new"))} 2>/dev/null; true`);
          await run(runner, guard, writeScript.join("\n"));
          runner.close();
          for (const rel of files) {
            const abs = path.join(b.work, rel);
            expect(lstat(abs)?.isFile(), `${rel} is still a file`).toBe(true);
            expect(fs.readFileSync(abs, "utf8"), `write tools are denied ${rel}`).toBe(b.contents.get(abs));
          }
          expect(fs.readdirSync(b.data)).toEqual([DATA_FILE]);
          expect(fs.readFileSync(path.join(b.data, DATA_FILE), "utf8")).toBe(b.contents.get(path.join(b.data, DATA_FILE)));
        },
      ),
      { seed: 20261122, numRuns: Number(process.env.NEVER_WEAKER_RUNS ?? 40), endOnFailure: true },
    );
  }, 300_000);
});
