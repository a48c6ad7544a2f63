import { spawnSync, type ChildProcess } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { loadShellParser } from "@gatehouse/policy";
import type { Guard } from "@gatehouse/protocol";
import { afterAll, describe, expect, it } from "vitest";
import { BUILTIN_TOOLS, FileGuard, resolveSandbox, runTool, safeEnvironment, SandboxUnavailableError, ShellRunner } from "../src/index.js";
import { defaultGuardRules } from "./default-guard-rules.js";

await loadShellParser();
const root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "gh-sandbox-")));
const work = path.join(root, "work");
const data = path.join(work, ".gatehouse-data");
fs.mkdirSync(path.join(work, "secrets"), { recursive: true });
fs.mkdirSync(path.join(work, "dist"), { recursive: true });
fs.mkdirSync(data);
fs.writeFileSync(path.join(data, "permissions.jsonc"), "{}");
fs.writeFileSync(path.join(work, ".env"), "KEY=top-secret\n");
fs.writeFileSync(path.join(work, "a.txt"), "hello\n");
fs.writeFileSync(path.join(work, "secrets", "db.json"), '{"pw":"top-secret"}');
fs.writeFileSync(path.join(work, "dist", "out.js"), "built\n");
fs.writeFileSync(path.join(work, "locked.txt"), "keep\n");
fs.mkdirSync(path.join(work, "nested", "deep"), { recursive: true });
fs.writeFileSync(path.join(work, "nested", "deep", "keep.txt"), "keep\n");
afterAll(() => fs.rmSync(root, { recursive: true, force: true }));

const rule = (tool: string, pattern: string, action: "allow" | "deny" | "ask") => ({ tool, pattern, action, origin: "person" as const });
const defaults = defaultGuardRules();
const guardRules: Guard = {
  agent: null,
  static: [
    ...defaults,
    rule("write_file", "locked.txt", "deny"),
    rule("write_file", "nested/deep/keep.txt", "deny"),
    rule("edit_file", "dist/**", "deny"),
    rule("shell_exec", "*", "allow"),
  ],
  runtime: [],
  protectedPaths: [data],
};
const guard = new FileGuard(guardRules, work);
const info = resolveSandbox({ mode: "required", network: false });
const runner = new ShellRunner(work, info);
const walker = new ShellRunner(work, info, { watch: false });

/** Runs a command in the sandbox, past the worker's own check: what the sandbox alone allows. */
async function sandboxed(
  command: string,
  origin: "model" | "person" = "model",
  env: NodeJS.ProcessEnv = {},
  shell: ShellRunner = runner,
): Promise<{ code: number | null; out: string }> {
  const saved = { ...process.env };
  Object.assign(process.env, env);
  let child: ChildProcess;
  try {
    child = await shell.start(command, guard, origin);
  } finally {
    for (const k of Object.keys(env)) if (saved[k] === undefined) delete process.env[k];
  }
  let out = "";
  child.stdout!.on("data", (d: Buffer) => (out += d));
  child.stderr!.on("data", (d: Buffer) => (out += d));
  const code = await new Promise<number | null>((resolve) => child.on("close", resolve));
  return { code, out };
}

describe("sandbox settings", () => {
  it("required without a working bubblewrap refuses with one line; the no-shell fallback and auto say why", () => {
    const broken = () => "bwrap is not installed (apt-get install bubblewrap)";
    expect(() => resolveSandbox({ mode: "required", network: true }, broken)).toThrow(SandboxUnavailableError);
    expect(() => resolveSandbox({ mode: "required", network: true }, broken)).toThrow(
      /^the sandbox is required but bwrap is not installed \(apt-get install bubblewrap\)$/,
    );
    expect(resolveSandbox({ mode: "required", network: true, fallback: "no-shell" }, broken)).toMatchObject({
      active: false,
      detail: expect.stringMatching(/shell_exec is not offered/),
    });
    expect(resolveSandbox({ mode: "auto", network: true }, broken)).toMatchObject({ active: false, detail: expect.stringMatching(/WITHOUT the OS sandbox/) });
    expect(resolveSandbox({ mode: "off", network: true }, () => null)).toMatchObject({ active: false, mode: "off" });
    expect(info).toMatchObject({ active: true, network: false });
  });

  it("the safe environment keeps PATH, HOME and locale, and never the worker's token", () => {
    const env = safeEnvironment({
      PATH: "/bin",
      HOME: "/h",
      LC_ALL: "C",
      GATEHOUSE_WORKER_TOKEN: "t",
      AWS_SECRET_ACCESS_KEY: "k",
      NODE_OPTIONS: "--require x",
    });
    expect(env).toEqual({ PATH: "/bin", HOME: "/h", LC_ALL: "C" });
  });
});

describe("a command in the sandbox", () => {
  it("cannot read what read_file is denied, by any spelling, nor through a symlink it makes", async () => {
    const r = await sandboxed(
      `cat a.txt; cat .env; cat ${work}/.env; cat dist/../.env; ln -s .env link; cat link; ` +
        `ln -s ${work}/secrets s2; cat s2/db.json; cat secrets/db.json; ls secrets`,
    );
    expect(r.out).toContain("hello");
    expect(r.out).not.toContain("top-secret");
    expect(r.out).toMatch(/secrets'?: Permission denied/);
    fs.rmSync(path.join(work, "link"));
    fs.rmSync(path.join(work, "s2"));
  });

  it("cannot change what write tools are denied; writes elsewhere in the work directory land", async () => {
    const r = await sandboxed(
      "echo x > locked.txt; rm -f locked.txt; mv locked.txt moved; echo y > dist/new.js; echo z > dist/out.js; " +
        "echo ok > made.txt; echo t > /tmp/t && cat /tmp/t; echo no > /etc/gatehouse-test",
    );
    expect(fs.readFileSync(path.join(work, "locked.txt"), "utf8")).toBe("keep\n");
    expect(fs.existsSync(path.join(work, "dist", "new.js"))).toBe(false);
    expect(fs.readFileSync(path.join(work, "dist", "out.js"), "utf8")).toBe("built\n");
    expect(fs.readFileSync(path.join(work, "made.txt"), "utf8")).toBe("ok\n");
    expect(r.out).toContain("t\n");
    expect(fs.existsSync("/etc/gatehouse-test")).toBe(false);
    expect(fs.existsSync("/tmp/t")).toBe(false);
  });

  it("cannot put a new file at a denied path by renaming a folder above it", async () => {
    const r = await sandboxed("mv nested n2; mv nested/deep nested/d2; mkdir -p nested/deep; echo evil > nested/deep/keep.txt; cat nested/deep/keep.txt");
    expect(r.out).toMatch(/Device or resource busy/);
    expect(fs.readFileSync(path.join(work, "nested", "deep", "keep.txt"), "utf8")).toBe("keep\n");
    expect(fs.readdirSync(work)).not.toContain("n2");
  });

  it("does not see protected paths, the worker's token or its processes, and has no network when it is off", async () => {
    const r = await sandboxed(
      `ls -a ${data}; cat ${data}/permissions.jsonc; echo > ${data}/x; cat /proc/self/environ | tr '\\0' '\\n'; ` +
        `cat /proc/*/environ 2>/dev/null | tr '\\0' '\\n' | grep -c TOKEN; ls /proc | grep -c '^[0-9]'; (exec 3<>/dev/tcp/127.0.0.1/9) 2>&1 | head -1`,
      "model",
      { GATEHOUSE_WORKER_TOKEN: "worker-token-must-not-leak" },
    );
    expect(r.out).not.toContain("worker-token-must-not-leak");
    expect(r.out).toMatch(/permissions\.jsonc: (Permission denied|No such file)/);
    expect(fs.existsSync(path.join(data, "x"))).toBe(false);
    expect(r.out).toMatch(/Network is unreachable|Connection refused/);
  });

  it("runs when a protected path lies inside a folder the rules mask whole", async () => {
    const inner = new FileGuard({ ...guardRules, protectedPaths: [data, path.join(work, "secrets", "db.json")] }, work);
    const child = await runner.start("cat a.txt; cat secrets/db.json", inner);
    let out = "";
    child.stdout!.on("data", (c: Buffer) => (out += c.toString()));
    child.stderr!.on("data", (c: Buffer) => (out += c.toString()));
    const code = await new Promise((resolve) => child.on("close", resolve));
    expect(out).toMatch(/^hello\n.*secrets\/db\.json: (Permission denied|No such file)/s);
    expect(code).toBe(1);
  });

  it("has no terminal, even from a worker started on one (nothing it types reaches the person's terminal)", () => {
    // The worker runs under `script`, which gives it a terminal of its own as a person's shell would.
    const program = `
      const { FileGuard, ShellRunner, resolveSandbox } = await import(${JSON.stringify(path.resolve(import.meta.dirname, "../dist/index.js"))});
      const guard = new FileGuard({ agent: null, static: [{ tool: "*", pattern: "*", action: "allow", origin: "person" }], runtime: [], protectedPaths: [] }, ${JSON.stringify(work)});
      const runner = new ShellRunner(${JSON.stringify(work)}, resolveSandbox({ mode: "required", network: true }), { watch: false });
      console.log("worker tty=" + (await import("node:fs")).readFileSync("/proc/self/stat", "utf8").split(" ")[6]);
      const child = await runner.start("(exec 3</dev/tty) && echo TERMINAL-OPENED; read -r _ _ _ _ _ _ tty _ < /proc/self/stat; echo command tty=$tty", guard);
      child.stdout.pipe(process.stdout);
      child.stderr.pipe(process.stdout);
      child.on("close", () => runner.close());`;
    const r = spawnSync("script", ["-qec", `node --input-type=module -e "$PROGRAM"`, "/dev/null"], {
      encoding: "utf8",
      env: { ...process.env, PROGRAM: program },
    });
    expect(r.stdout).toMatch(/worker tty=[1-9]/);
    expect(r.stdout).toMatch(/\/dev\/tty: No such device or address/);
    expect(r.stdout).not.toContain("TERMINAL-OPENED");
    expect(r.stdout).toMatch(/command tty=0\b/);
  });

  it("a person's own command is not masked by the rules but still gets the safe environment and never protected paths", async () => {
    const r = await sandboxed(`cat .env; cat ${data}/permissions.jsonc; tr '\\0' '\\n' < /proc/self/environ`, "person", {
      GATEHOUSE_WORKER_TOKEN: "worker-token-must-not-leak",
    });
    expect(r.out).toContain("KEY=top-secret");
    expect(r.out).not.toContain("worker-token-must-not-leak");
    expect(r.out).toMatch(/permissions\.jsonc: (Permission denied|No such file)/);
  });
});

describe.each([
  ["kept current by change notices", runner],
  ["walked on every call", walker],
])("the work directory %s", (_mode, r) => {
  it("keeps the walk current: a denied file that appears between calls is masked on the next", async () => {
    const first = await r.profile(guard);
    expect(await r.profile(guard)).toEqual(first);
    fs.mkdirSync(path.join(work, "deep", "er"), { recursive: true });
    fs.writeFileSync(path.join(work, "deep", "er", "prod.env"), "KEY=top-secret");
    expect((await r.profile(guard)).masked.map((m) => m.path)).toContain(path.join(work, "deep", "er", "prod.env"));
    expect((await sandboxed("cat deep/er/prod.env", "model", {}, r)).out).not.toContain("top-secret");
    fs.rmSync(path.join(work, "deep"), { recursive: true });
    expect((await r.profile(guard)).masked.map((m) => m.path)).not.toContain(path.join(work, "deep", "er", "prod.env"));
  });

  it("judges the cached walk again under new rules for files, and only then", async () => {
    const stricter = new FileGuard({ ...guardRules, runtime: [rule("read_file", "nested/deep/keep.txt", "deny")] }, work);
    const approved = new FileGuard({ ...guardRules, runtime: [rule("shell_exec", "git status", "allow")] }, work);
    const keep = path.join(work, "nested", "deep", "keep.txt");
    expect((await r.profile(guard)).masked.map((m) => m.path)).not.toContain(keep);
    const judged = r.foldersJudged;
    expect(await r.profile(approved)).toEqual(await r.profile(guard));
    expect(r.foldersJudged).toBe(judged);
    expect((await r.profile(stricter)).masked.map((m) => m.path)).toContain(keep);
    expect(r.foldersJudged).toBeGreaterThan(judged);
    expect((await r.profile(guard)).masked.map((m) => m.path)).not.toContain(keep);
  });

  it("masks a denied file that appears in a folder the walk has cached, even when the folder's times are set back", async () => {
    const dir = path.join(work, "cached");
    fs.mkdirSync(dir);
    fs.writeFileSync(path.join(dir, "plain.txt"), "x");
    const old = new Date(Date.now() - 60_000);
    fs.utimesSync(dir, old, old);
    expect((await r.profile(guard)).masked.map((m) => m.path)).not.toContain(path.join(dir, "late.env"));
    fs.writeFileSync(path.join(dir, "late.env"), "KEY=top-secret");
    fs.utimesSync(dir, old, old);
    expect((await r.profile(guard)).masked.map((m) => m.path)).toContain(path.join(dir, "late.env"));
    expect((await sandboxed("cat cached/late.env", "model", {}, r)).out).not.toContain("top-secret");
    fs.rmSync(dir, { recursive: true });
  });

  it("masks what a denied symlink leads to when it appears after the link was walked", async () => {
    fs.mkdirSync(path.join(work, "links"));
    fs.mkdirSync(path.join(work, "targets"));
    fs.symlinkSync("../targets/later.txt", path.join(work, "links", "late.env"));
    const target = path.join(work, "targets", "later.txt");
    expect((await r.profile(guard)).masked.map((m) => m.path)).not.toContain(target);
    fs.writeFileSync(target, "KEY=top-secret");
    expect((await r.profile(guard)).masked.map((m) => m.path)).toContain(target);
    expect((await sandboxed("cat links/late.env", "model", {}, r)).out).not.toContain("top-secret");
    fs.rmSync(path.join(work, "links"), { recursive: true });
    fs.rmSync(path.join(work, "targets"), { recursive: true });
  });

  it("masks a denied file in a folder put in place of a cached one with the same times", async () => {
    const dir = path.join(work, "swapped");
    const other = path.join(work, "incoming");
    fs.mkdirSync(dir);
    fs.mkdirSync(other);
    fs.writeFileSync(path.join(dir, "plain.txt"), "x");
    fs.writeFileSync(path.join(other, "plain.txt"), "x");
    fs.writeFileSync(path.join(other, "swap.env"), "KEY=top-secret");
    const old = new Date(Date.now() - 60_000);
    for (const d of [dir, other]) fs.utimesSync(d, old, old);
    expect((await r.profile(guard)).masked.map((m) => m.path)).not.toContain(path.join(dir, "swap.env"));
    fs.rmSync(dir, { recursive: true });
    fs.renameSync(other, dir);
    fs.mkdirSync(other);
    fs.utimesSync(other, old, old);
    expect((await r.profile(guard)).masked.map((m) => m.path)).toContain(path.join(dir, "swap.env"));
    expect((await sandboxed("cat swapped/swap.env", "model", {}, r)).out).not.toContain("top-secret");
    fs.rmSync(dir, { recursive: true });
    fs.rmSync(other, { recursive: true });
  });
});

describe("the default rules and a home directory's credential stores", () => {
  it("mask each store present with one mount and no walk of it, cost nothing for those absent, and keep their files from any command", async () => {
    // Outside /tmp, which the sandbox replaces with its own: there the host's files are visible unless masked.
    const home = fs.realpathSync(fs.mkdtempSync("/var/tmp/gh-home-"));
    try {
      fs.mkdirSync(path.join(home, ".ssh", "sockets"), { recursive: true });
      fs.writeFileSync(path.join(home, ".ssh", "id_rsa"), "PRIVATE-KEY-ssh\n");
      for (let i = 0; i < 50; i++) fs.writeFileSync(path.join(home, ".ssh", `key${i}.pub`), "pub\n");
      fs.mkdirSync(path.join(home, ".config", "gh"), { recursive: true });
      fs.writeFileSync(path.join(home, ".config", "gh", "hosts.yml"), "oauth_token: TOKEN-gh\n");
      fs.writeFileSync(path.join(home, ".netrc"), "machine x password NETRC-pw\n");
      // A store that is a symlink is masked where it leads.
      fs.mkdirSync(path.join(home, "dotfiles", "kube"), { recursive: true });
      fs.writeFileSync(path.join(home, "dotfiles", "kube", "config"), "token: KUBE-token\n");
      fs.symlinkSync(path.join(home, "dotfiles", "kube"), path.join(home, ".kube"));
      fs.writeFileSync(path.join(home, ".gitconfig"), "[user]\n  name = ada\n");
      const rules = defaultGuardRules(home);
      const homeGuard = new FileGuard({ agent: null, static: [...rules, rule("shell_exec", "*", "allow")], runtime: [], protectedPaths: [] }, work);
      const r = new ShellRunner(work, info);
      const outside = (await r.profile(homeGuard)).masked.filter((m) => m.path.startsWith(home));
      // A folder masked whole is not walked: only the work directory's folders were judged.
      const plain = new ShellRunner(work, info, { watch: false });
      await plain.profile(guard);
      expect(r.foldersJudged).toBe(plain.foldersJudged);
      expect(outside).toEqual([
        { path: path.join(home, ".config", "gh"), dir: true },
        { path: path.join(home, ".netrc"), dir: false },
        { path: path.join(home, ".ssh"), dir: true },
        { path: path.join(home, "dotfiles", "kube"), dir: true },
      ]);
      fs.writeFileSync(
        path.join(work, "run.sh"),
        `cat ${home}/.gitconfig ${home}/.ssh/id_rsa ${home}/.config/gh/hosts.yml ${home}/.netrc ${home}/.kube/config; ls ${home}/.ssh\n`,
      );
      const child = await r.start("bash run.sh", homeGuard, "model");
      let out = "";
      child.stdout!.on("data", (d: Buffer) => (out += d));
      child.stderr!.on("data", (d: Buffer) => (out += d));
      await new Promise((resolve) => child.on("close", resolve));
      expect(out).toContain("name = ada");
      expect(out.match(/Permission denied/g)).toHaveLength(5);
      expect(out).not.toMatch(/PRIVATE-KEY|TOKEN-gh|NETRC-pw|KUBE-token|key0.pub/);
    } finally {
      fs.rmSync(home, { recursive: true, force: true });
      fs.rmSync(path.join(work, "run.sh"), { force: true });
    }
  });
});

describe("the worker's own check of shell commands", () => {
  it("refuses `cat notes.txt` when notes.txt is a symlink to .env, though the server allowed it", async () => {
    fs.symlinkSync(".env", path.join(work, "notes.txt"));
    try {
      const msg = {
        type: "run" as const,
        requestId: "r",
        sessionId: "s",
        toolName: "shell_exec",
        args: { command: "cat notes.txt" },
        timeoutMs: 10_000,
        guard: guardRules,
      };
      const r = await runTool(BUILTIN_TOOLS, msg, guard, new AbortController().signal, undefined, runner);
      expect(r.ok).toBe(false);
      expect(r.output).toMatch(/^refused shell_exec: .*notes\.txt.*\.env/);
      const person = await runTool(BUILTIN_TOOLS, { ...msg, origin: "person" }, guard, new AbortController().signal, undefined, runner);
      expect(person.output).toContain("KEY=top-secret");
    } finally {
      fs.rmSync(path.join(work, "notes.txt"));
    }
  });

  it("file tools do not reveal protected paths either", async () => {
    const msg = {
      type: "run" as const,
      requestId: "r",
      sessionId: "s",
      toolName: "read_file",
      args: { path: path.join(data, "permissions.jsonc") },
      timeoutMs: 10_000,
      guard: guardRules,
    };
    expect((await runTool(BUILTIN_TOOLS, msg, guard, new AbortController().signal, undefined, runner)).output).toMatch(/inside the protected path/);
  });
});
