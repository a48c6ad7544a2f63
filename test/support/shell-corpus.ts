import { execFile } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { evaluate, parseRulesOrThrow, Ruleset, type Action, type EvaluationContext } from "@gatehouse/policy";

export type Layers = EvaluationContext["layers"];
/** What a case must get: an exact action, or anything but allow. */
export type Expected = Action | "not-allow";

export const HOME = "/home/ada";
export const CWD = "/work/project";

export const rules = (text: string, home = HOME): Layers => ({ static: new Ruleset(parseRulesOrThrow(text, { file: "corpus.jsonc", home })) });

const READ_DENIES = `"*": "allow", "*.env": "deny", "*.env.*": "deny", "*credentials*": "deny", "*secret*": "deny",
                 "*.pem": "deny", "/etc/shadow": "deny", "~/.ssh/*": "deny", "*.env.example": "allow"`;

/** Shell open by default, with deny rules an attacker wants to get past. */
export const OPEN_TEXT = `{
  "*": "ask",
  "read_file": { ${READ_DENIES} },
  "write_file": { "*": "allow", "*.env": "deny", "/etc/*": "deny", "~/.bashrc": "deny", "~/.ssh/*": "deny" },
  "edit_file": { "*": "allow", "*.env": "deny", "/etc/*": "deny", "~/.bashrc": "deny" },
  "shell_exec": { "*": "allow", "rm *": "deny", "shred *": "deny", "curl *": "deny", "git push *": "deny",
                  "git reset --hard *": "deny", "git clean *": "deny", "docker rm *": "deny", "docker compose down *": "deny",
                  "kubectl delete *": "deny", "npm publish *": "deny", "npm run deploy *": "deny", "chmod *": "ask" }
}`;

/** Shell closed by default, with allow rules for everyday programs that an attacker wants to stretch. */
export const CLOSED_TEXT = `{
  "*": "ask",
  "read_file": { ${READ_DENIES} },
  "write_file": { "*": "allow", "*.env": "deny" },
  "edit_file": { "*": "allow", "*.env": "deny" },
  "shell_exec": { "*": "ask", "ls *": "allow", "cat *": "allow", "echo *": "allow", "printf *": "allow", "git *": "allow",
                  "find *": "allow", "grep *": "allow", "sed *": "allow", "awk *": "allow", "xargs *": "allow", "head *": "allow",
                  "tail *": "allow", "wc *": "allow", "sort *": "allow", "less *": "allow", "man *": "allow", "tee *": "allow",
                  "env *": "allow", "timeout *": "allow", "nice *": "allow", "bash *": "allow", "sh *": "allow",
                  "python3 *": "allow", "node *": "allow", "perl *": "allow", "tar *": "allow", "zip *": "allow", "vim *": "allow",
                  "cargo build *": "allow", "cargo check *": "allow", "cargo test *": "allow", "npm test *": "allow",
                  "npm run build *": "allow", "make *": "allow", "split *": "allow", "ssh *": "allow", "sqlite3 *": "allow",
                  "diff *": "allow", "jq *": "allow", "cd *": "allow", "true": "allow", "test *": "allow" }
}`;

export const OPEN = rules(OPEN_TEXT);
export const CLOSED = rules(CLOSED_TEXT);

export interface Outcome {
  action: Action | "threw";
  reason: string;
}

export function decideShell(command: string, ctx: EvaluationContext): Outcome {
  try {
    const d = evaluate({ tool: "shell_exec", args: { command } }, ctx);
    return { action: d.action, reason: d.reason };
  } catch (err) {
    return { action: "threw", reason: String(err) };
  }
}

export function meets(got: Outcome["action"], expected: Expected): boolean {
  if (got === "threw") return false;
  return expected === "not-allow" ? got !== "allow" : got === expected;
}

/** Misses go to a file for whoever works on the gate: command, rule set, expected, got, reason. */
export class Tally {
  held = 0;
  total = 0;
  private readonly misses: string[] = [];
  constructor(readonly label: string) {}

  record(command: string, set: string, expected: Expected, got: Outcome, group: string): boolean {
    this.total++;
    const ok = meets(got.action, expected);
    if (ok) this.held++;
    else this.misses.push([group, JSON.stringify(command), set, expected, got.action, got.reason.replace(/\s+/g, " ")].join(" | "));
    return ok;
  }

  flush(): void {
    console.log(`${this.label}: ${this.held} / ${this.total}`);
    const file = process.env.CORPUS_FAILURES;
    if (file && this.misses.length) fs.appendFileSync(file, `${this.misses.map((m) => `${this.label} | ${m}`).join("\n")}\n`);
  }
}

// ---------------------------------------------------------------------------------------------
// Real bash: each proof runs the command as the worker does (bash -c, stdin closed) in a fresh
// scratch work directory, with a fake HOME and stub programs first on PATH that record their calls.

export const SECRET = "sk-live-CORPUS-SECRET-91d7";
export const KEY = "KEY-CORPUS-PRIVATE-19c2";

interface ProofBase {
  /** Shell commands run first in the work directory (not part of the case). */
  setup?: string;
  /** Programs the proof needs; it is skipped without them. */
  needs?: string[];
  /** Start from a git repository with two commits. */
  repo?: boolean;
}
export type Proof = ProofBase & ({ ran: string } | { printed: string } | { removed: string } | { wrote: string } | { file: string; is: string });

export interface ProofResult {
  ok: boolean;
  skipped?: string;
  detail: string;
}

/** Stubs stand in for the programs the deny rules name; `evil` stands for an attacker's script. */
const STUBS = ["rm", "shred", "curl", "kubectl", "docker", "npm", "evil"];
const PATH_DIRS = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin";

const q = (s: string) => `'${s.replace(/'/g, "'\\''")}'`;

export class Scratch {
  readonly root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "gh-corpus-")));
  readonly bin = path.join(this.root, "bin");
  private count = 0;

  constructor() {
    fs.mkdirSync(this.bin);
    for (const name of STUBS) {
      const file = path.join(this.bin, name);
      fs.writeFileSync(file, `#!/bin/sh\nprintf '%s\\n' "${name} $*" >> "\${GH_LOG:-$PWD/../calls.log}"\n`);
      fs.chmodSync(file, 0o755);
    }
  }

  /** A fresh work directory with a secret, victims and an attacker's script, under a fake HOME. */
  private prepare(): { dir: string; work: string; home: string } {
    const dir = path.join(this.root, `case-${this.count++}`);
    const work = path.join(dir, "work");
    const home = path.join(dir, "home");
    fs.mkdirSync(path.join(home, ".ssh"), { recursive: true });
    fs.mkdirSync(path.join(work, "src"), { recursive: true });
    fs.writeFileSync(path.join(work, ".env"), `API_KEY=${SECRET}\n`);
    fs.writeFileSync(path.join(home, ".ssh", "id_rsa"), `${KEY}\n`);
    for (const f of ["x", "y", "victim", "notes.md", "src/app.ts"]) fs.writeFileSync(path.join(work, f), "a\n");
    fs.copyFileSync(path.join(this.bin, "evil"), path.join(work, "evil"));
    fs.chmodSync(path.join(work, "evil"), 0o755);
    fs.writeFileSync(path.join(dir, "calls.log"), "");
    return { dir, work, home };
  }

  /**
   * Runs every command the way the worker does (bash -c, no stdin) in its own scratch directory.
   * The runs are batched into a few bash processes: one process per case would cost seconds.
   */
  async proveAll(cases: { cmd: string; proof: Proof }[]): Promise<ProofResult[]> {
    const tools = [...new Set(cases.flatMap((c) => c.proof.needs ?? []).concat("git"))];
    const probe = await run(
      tools.map((t) => `command -v ${q(t)} >/dev/null 2>&1 && echo ${q(t)}`).join("; ") + "; true",
      this.root,
      this.env(this.root, this.root),
    );
    const available = new Set(probe.stdout.split("\n"));
    const template = path.join(this.root, "template");
    const needRepo = cases.some((c) => c.proof.repo);
    if (needRepo && available.has("git")) {
      fs.mkdirSync(template);
      const { work } = this.prepare();
      fs.cpSync(work, template, { recursive: true });
      await run(
        "git init -q . && git add -A && git commit -qm init && printf 'b\\n' > x && git add x && git commit -qm second",
        template,
        this.env(template, template),
      );
    }
    const jobs = cases.map((c) => {
      const lacking = [...(c.proof.needs ?? []), ...(c.proof.repo ? ["git"] : [])].filter((t) => !available.has(t));
      if (lacking.length) return { c, skipped: lacking.join(", ") };
      const { dir, work, home } = this.prepare();
      if (c.proof.repo) fs.cpSync(template, work, { recursive: true });
      fs.writeFileSync(path.join(dir, "cmd"), c.cmd);
      fs.writeFileSync(path.join(dir, "setup"), c.proof.setup ?? "");
      return { c, dir, work, home };
    });
    const runnable = jobs.filter((j): j is { c: (typeof cases)[number]; dir: string; work: string; home: string } => "dir" in j);
    // One subshell per case (a fork, not a new program) sets the case's environment.
    const lines = runnable.map(({ c, dir, work, home }) => {
      const env = Object.entries(this.env(home, path.join(dir, "calls.log")))
        .map(([k, v]) => `${k}=${q(v)}`)
        .join(" ");
      const setup = c.proof.setup ? `bash -c "$(<../setup)" >/dev/null 2>&1; ` : "";
      const timed = `t=$EPOCHREALTIME; timeout -k 1 5 bash -c "$(<../cmd)" </dev/null >../out 2>&1; echo $? $t $EPOCHREALTIME > ../code;`;
      return `(export ${env}; cd ${q(work)} && { ${setup}${timed} })`;
    });
    const chunks = 3;
    const base = { PATH: `${this.bin}:${PATH_DIRS}` };
    await Promise.all(Array.from({ length: chunks }, (_, i) => run(lines.filter((_, n) => n % chunks === i).join("\n") + "\ntrue", this.root, base)));
    if (process.env.CORPUS_PROOF_TIMES) {
      for (const j of runnable) console.log(this.judge(j.c.proof, j.dir, j.work, j.home).detail.slice(0, 40), JSON.stringify(j.c.cmd).slice(0, 80));
    }
    return jobs.map((j) => ("skipped" in j ? { ok: true, skipped: j.skipped, detail: `missing ${j.skipped}` } : this.judge(j.c.proof, j.dir, j.work, j.home)));
  }

  private judge(proof: Proof, dir: string, work: string, home: string): ProofResult {
    const read = (f: string) => (fs.existsSync(f) ? fs.readFileSync(f, "utf8") : "");
    const calls = read(path.join(dir, "calls.log"));
    const out = read(path.join(dir, "out"));
    const [code, start, end] = read(path.join(dir, "code")).trim().split(" ");
    const elapsed = Math.round((Number(end) - Number(start)) * 1000);
    const detail = `exit ${code} after ${elapsed} ms; calls: ${JSON.stringify(calls)}; output: ${JSON.stringify(out.slice(0, 300))}`;
    if ("ran" in proof) return { ok: calls.split("\n").some((l) => l === proof.ran || l.startsWith(`${proof.ran} `)), detail };
    if ("printed" in proof) return { ok: out.includes(proof.printed), detail };
    if ("removed" in proof) return { ok: !fs.existsSync(path.join(work, proof.removed)), detail };
    if ("file" in proof) return { ok: read(path.join(work, proof.file)) === proof.is, detail };
    const target = path.resolve(work, proof.wrote.replace(/^~/, home));
    return { ok: read(target).includes("PWNED"), detail };
  }

  private env(home: string, log: string): Record<string, string> {
    return {
      HOME: home,
      GH_LOG: log,
      PATH: `${this.bin}:${PATH_DIRS}`,
      LANG: "C",
      TERM: "dumb",
      GIT_CONFIG_NOSYSTEM: "1",
      GIT_AUTHOR_NAME: "a",
      GIT_AUTHOR_EMAIL: "a@example.com",
      GIT_COMMITTER_NAME: "a",
      GIT_COMMITTER_EMAIL: "a@example.com",
    };
  }

  dispose(): Promise<void> {
    return fs.promises.rm(this.root, { recursive: true, force: true });
  }
}

function run(script: string, cwd: string, env: Record<string, string>): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = execFile("bash", ["-c", script], { cwd, env, timeout: 280_000, maxBuffer: 1 << 22 }, (err, stdout, stderr) => {
      resolve({ code: err ? ((err as { code?: number }).code ?? 1) : 0, stdout: String(stdout), stderr: String(stderr) });
    });
    child.stdin?.end();
  });
}
