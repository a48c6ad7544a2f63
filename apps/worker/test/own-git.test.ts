import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { loadShellParser, parseRulesOrThrow } from "@gatehouse/policy";
import type { Guard } from "@gatehouse/protocol";
import { afterAll, describe, expect, it } from "vitest";
import { GuardCache } from "../src/guard-cache.js";
import { resolveSandbox, ShellRunner } from "../src/index.js";
import { gitHost } from "./git-host.js";

await loadShellParser();

/**
 * The worker lists a repository's history before a command that prints from it. That listing is
 * git obeying the repository's settings, which a command of the model may have written: a
 * `gpg.program` that `log.showSignature` runs, a remote's `uploadpack` that a partial clone's lazy
 * fetch runs. What they name must run confined (in the sandbox) or not at all (without it): never
 * as the worker, where it could read the server's config and the worker's token and write anywhere.
 */
const root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "gh-own-git-")));
afterAll(() => fs.rmSync(root, { recursive: true, force: true }));
const host = gitHost(root);
const secrets = path.join(root, "secrets");
const outside = path.join(root, "outside");
fs.mkdirSync(secrets);
fs.mkdirSync(outside);
fs.writeFileSync(path.join(secrets, "config.json"), '{"token":"ctok-ADMIN-SECRET"}');
fs.writeFileSync(path.join(secrets, "worker.token"), "wtok-WORKER-SECRET");

const RULES = `{ "*": "ask", "read_file": { "*": "allow", ".env": "deny" }, "shell_exec": { "*": "ask", "git log *": "allow" } }`;
const rules: Guard = {
  agent: null,
  static: parseRulesOrThrow(RULES, { file: "p", home: root }).map(({ tool, pattern, action, origin }) => ({ tool, pattern, action, origin })),
  runtime: [],
  protectedPaths: [secrets],
};

/** A program that, wherever it runs, leaves a marker outside the work directory and copies the worker's secrets into it. */
function planted(work: string, name: string): string {
  const program = path.join(work, name);
  const marker = path.join(outside, `${path.basename(work)}-${name}`);
  fs.writeFileSync(
    program,
    `#!/bin/sh\necho "ran as $(id -u)" > ${marker}\ncat ${secrets}/config.json ${secrets}/worker.token > ${work}/loot.txt 2>&1\ncat >/dev/null\nexit 1\n`,
    { mode: 0o755 },
  );
  return program;
}

/** A repository whose last commit carries a signature, and settings that have git check it with a program of the repository's. */
function signatureChain(name: string): { work: string; marker: string } {
  const work = path.join(root, name);
  fs.mkdirSync(work);
  const gpg = planted(work, "g.sh");
  host("git init -q . && echo a > a && git add a && git commit -qm a", work);
  const tree = host("git rev-parse HEAD^{tree}", work).trim();
  const body = `tree ${tree}\nauthor a <a@b> 1 +0000\ncommitter a <a@b> 1 +0000\ngpgsig -----BEGIN PGP SIGNATURE-----\n \n AAAA\n -----END PGP SIGNATURE-----\n\nsigned\n`;
  fs.writeFileSync(path.join(work, "commit.txt"), body);
  host(`git update-ref refs/heads/s $(git hash-object -t commit -w commit.txt) && git config log.showSignature true && git config gpg.program ${gpg}`, work);
  return { work, marker: path.join(outside, `${name}-g.sh`) };
}

/** A partial clone missing a tree: listing its history fetches it, running the remote's `uploadpack`. */
function lazyFetchChain(name: string): { work: string; marker: string } {
  const work = path.join(root, name);
  fs.mkdirSync(work);
  const upload = planted(work, "up.sh");
  host("git init -q . && echo a > a && git add a && git commit -qm a && echo b > b && git add b && git commit -qm b", work);
  const tree = host("git rev-parse HEAD^{tree}", work).trim();
  fs.rmSync(path.join(work, ".git/objects", tree.slice(0, 2), tree.slice(2)));
  host(
    `git config core.repositoryformatversion 1 && git config extensions.partialClone origin && git config remote.origin.url file://${root}/nowhere && git config remote.origin.uploadpack ${upload}`,
    work,
  );
  return { work, marker: path.join(outside, `${name}-up.sh`) };
}

const chains = [
  ["a signed commit verified by the repository's gpg.program", signatureChain],
  ["a partial clone's lazy fetch running the remote's uploadpack", lazyFetchChain],
] as const;

function expectNothingRan(work: string, marker: string): void {
  expect(fs.existsSync(marker)).toBe(false);
  const loot = path.join(work, "loot.txt");
  const copied = fs.existsSync(loot) ? fs.readFileSync(loot, "utf8") : "";
  expect(copied).not.toMatch(/ADMIN-SECRET|WORKER-SECRET/);
}

describe("in the sandbox, the worker's own git runs confined", () => {
  it.each(chains)("%s runs nothing outside the sandbox when the model runs `git log -p -1`", async (_, chain) => {
    const { work, marker } = chain(`sandboxed-${chain.name}`);
    const runner = new ShellRunner(work, resolveSandbox({ mode: "required", network: false }), { watch: false });
    try {
      // Refused or run, the command's own git is in the sandbox; the worker's listing before it must be too.
      const child = await runner.spawn("git log -p -1", new GuardCache(work).get(rules)).catch(() => null);
      if (child) await new Promise((r) => child.on("close", r));
      expectNothingRan(work, marker);
    } finally {
      runner.close();
    }
  });
});

describe("the whole chain: planted by an allowed command that runs the project's code", () => {
  it("a test that writes the signed commit and the settings, then `git log -p -1`, copies no secret and leaves no marker", async () => {
    const work = path.join(root, "chain");
    fs.mkdirSync(work);
    const gpg = planted(work, "g.sh");
    const body =
      "tree $(git rev-parse HEAD^{tree})\nauthor a <a@b> 1 +0000\ncommitter a <a@b> 1 +0000\ngpgsig -----BEGIN PGP SIGNATURE-----\n \n AAAA\n -----END PGP SIGNATURE-----\n\nsigned\n";
    const plant = [
      "git init -q . && echo a > a && git add a && git -c user.name=a -c user.email=a@b commit -qm a",
      `git update-ref refs/heads/s $(printf "${body}" | git hash-object -t commit -w --stdin)`,
      `git config log.showSignature true && git config gpg.program ${gpg}`,
    ].join(" && ");
    fs.writeFileSync(path.join(work, "test.sh"), `${plant}\n`);
    const chainRules: Guard = {
      ...rules,
      static: parseRulesOrThrow(`{ "*": "ask", "read_file": { "*": "allow" }, "shell_exec": { "*": "ask", "bash test.sh": "allow", "git log *": "allow" } }`, {
        file: "p",
        home: root,
      }).map(({ tool, pattern, action, origin }) => ({ tool, pattern, action, origin })),
    };
    const runner = new ShellRunner(work, resolveSandbox({ mode: "required", network: false }), { watch: false });
    const guard = new GuardCache(work).get(chainRules);
    try {
      for (const command of ["bash test.sh", "git log -p -1"]) {
        const child = await runner.spawn(command, guard);
        await new Promise((r) => child.on("close", r));
        await child.settled;
      }
      expectNothingRan(work, path.join(outside, "chain-g.sh"));
      expect(host("git config --get gpg.program || echo none", work)).toBe("none\n");
    } finally {
      runner.close();
    }
  });
});

describe("with the sandbox off, the worker's own git is hardened", () => {
  it.each(chains)("%s runs nothing when the worker lists the history", async (_, chain) => {
    const { work, marker } = chain(`host-${chain.name}`);
    // The check alone: with the sandbox off the model's command itself would run unconfined anyway.
    try {
      await new GuardCache(work).get(rules).checkShell("git log -p -1");
    } catch {
      // A history that could not be listed refuses the command; either way nothing may have run.
    }
    expectNothingRan(work, marker);
  });
});
