import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { commandHead, compilePattern, globRegExp, headOf, literalFolder, necessaryText } from "../src/pattern.js";
import { DEFAULT_RULES_TEXT, evaluate } from "../src/index.js";
import { inFolder } from "../src/ruleset.js";
import { context, ruleset } from "./helpers.js";

/** The match without the quick test on necessary text: the regular expressions alone. */
function byRegExp(glob: string, subject: string, pathLike: boolean): boolean {
  if (globRegExp(glob, pathLike).test(subject)) return true;
  return glob.endsWith(" *") && globRegExp(glob.slice(0, -2), pathLike).test(subject);
}

const GLOB_PARTS = ["a", "b", "ab", ".", "..", "-", " ", "/", "*", "?", "**", ":", "=", "./", "%", ",", "_"];
const SUBJECT_PARTS = ["a", "b", "ab", ".", "..", "-", " ", "/", ":", "=", "./", "%", ",", "_", "\n", "\t"];
const glob = fc
  .array(fc.constantFrom(...GLOB_PARTS), { minLength: 1, maxLength: 6 })
  .map((parts) => parts.join(""))
  .filter((g) => g !== " *");
const subject = fc.array(fc.constantFrom(...SUBJECT_PARTS), { maxLength: 8 }).map((parts) => parts.join(""));

describe("the quick test before a glob's regular expression", () => {
  it("never turns a match into a miss", () => {
    fc.assert(
      fc.property(glob, subject, fc.boolean(), (g, s, pathLike) => compilePattern(g, pathLike).test(s) === byRegExp(g, s, pathLike)),
      { seed: 20261123, numRuns: 20_000 },
    );
  });

  it("takes no text from globs picomatch rewrites or reads specially", () => {
    for (const g of ["./run *", "{a,b}", "!x", "[ab]", "+(a)", "a\\ b", '"a"', "~/x"]) expect(necessaryText(g), g).toBeNull();
    // A command pattern means what it says: `./run *` is the program ./run, not run found on PATH.
    expect(compilePattern("./run *", false).test("./run x")).toBe(true);
    expect(compilePattern("./run *", false).test("run x")).toBe(false);
  });

  it("reads the start of a command pattern and the longest literal of a path glob", () => {
    expect(necessaryText("git push")).toEqual({ text: "git push", start: true });
    expect(necessaryText("*secret*")).toEqual({ text: "secret", start: false });
    expect(necessaryText("/etc/*.conf")).toEqual({ text: ".conf", start: false });
    // `foo/**` matches `foo`: a slash is never part of the needed text.
    expect(compilePattern("foo/**", true).test("foo")).toBe(byRegExp("foo/**", "foo", true));
    expect(compilePattern("ls *", false).test("ls")).toBe(true);
  });

  it("compares literal command patterns as strings, as their regular expressions would", () => {
    for (const [g, s] of [
      ["ls *", "ls \nrm x"],
      ["ls *", "lsblk"],
      ["ls *", "ls"],
      ["git status", "git status "],
      ["a.b *", "a.b x"],
      [".. *", ".. x"],
    ]) {
      expect(compilePattern(g!, false).test(s!), `${g} ${JSON.stringify(s)}`).toBe(byRegExp(g!, s!, false));
    }
  });
});

describe("the first word of a command pattern", () => {
  it("is the first word of every text the pattern matches", () => {
    fc.assert(
      fc.property(glob, subject, (g, s) => {
        const head = commandHead(g);
        return head === null || !compilePattern(g, false).test(s) || headOf(s) === head;
      }),
      { seed: 20261123, numRuns: 20_000 },
    );
  });

  it("is known only where the pattern's first word is literal and whole", () => {
    expect(commandHead("git push *")).toBe("git");
    expect(commandHead("ls *")).toBe("ls");
    expect(commandHead("make")).toBe("make");
    for (const g of ["ls*", "l? x", "* x", "/bin/rm *", "./run *", "{a,b} x", " ls"]) expect(commandHead(g), g).toBeNull();
  });
});

describe("the folder of an absolute glob", () => {
  it("holds every path the glob matches", () => {
    fc.assert(
      fc.property(glob, subject, (g, s) => {
        const folder = literalFolder(`/${g}`);
        return folder === null || !globRegExp(`/${g}`, true).test(`/${s}`) || inFolder(`/${s}`, folder);
      }),
      { seed: 20261123, numRuns: 20_000 },
    );
  });

  it.each([
    ["/home/u/.ssh/*", "/home/u/.ssh"],
    ["/home/u/.aws/cred*", "/home/u/.aws"],
    ["/home/u/.netrc", "/home/u/.netrc"],
    ["/*", "/"],
    ["/home/u/**/id_*", "/home/u"],
  ])("%s lies in %s", (g, folder) => {
    expect(literalFolder(g)).toBe(folder);
  });

  it.each(["*.env", "src/*", "/home/u/.{ssh,aws}/*", "/home/u/@(a|b)", "/home/u/[ab]"])("%s has none", (g) => {
    expect(literalFolder(g)).toBeNull();
  });
});

describe("a long path the model crafts against the rules", () => {
  /** The decision on `path`, and how long it took in ms. */
  function timed(rules: string, path: string): { action: string; ms: number } {
    const ctx = context({ static: ruleset(rules) });
    const started = performance.now();
    const { action } = evaluate({ tool: "read_file", args: { path } }, ctx);
    return { action, ms: performance.now() - started };
  }

  it("is decided in bounded time by the default rules", () => {
    for (const path of [
      `${"secre".repeat(6_000)}.txt`,
      `${"a.env/".repeat(5_000)}x`,
      `${"credentials/".repeat(2_500)}x`,
      `/home/ada/.ssh/${"a/".repeat(15_000)}`,
    ]) {
      const { ms } = timed(DEFAULT_RULES_TEXT, path);
      expect(ms, path.slice(0, 30)).toBeLessThan(500);
    }
  });

  it("is decided in bounded time, and as before, by a rule with several globstars", () => {
    // The regular expression of this glob took seconds on a 16 KB path of repeated folders.
    const rules = `{ "read_file": { "*": "allow", "**/node_modules/**/*.js": "deny", "**/a/**/a/**/b": "deny" } }`;
    const slow = timed(rules, `${"node_modules/".repeat(1_300)}x`);
    expect(slow).toMatchObject({ action: "allow" });
    expect(slow.ms).toBeLessThan(500);
    expect(timed(rules, `${"a/".repeat(8_000)}x`).ms).toBeLessThan(500);
    expect(timed(rules, `${"node_modules/".repeat(50)}x.js`).action).toBe("deny");
    expect(timed(rules, "src/a/b/a/c/b").action).toBe("deny");
  });
});
