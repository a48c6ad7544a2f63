import { appendFileSync } from "node:fs";
import { createRequire } from "node:module";
import { analyzeShell, loadShellParser } from "@gatehouse/policy";
import fc from "fast-check";
import { describe, expect, it } from "vitest";

// mvdan/sh (the parser behind shfmt), compiled to JavaScript: an independent oracle for command names.
const require = createRequire(import.meta.url);
const { syntax } = require("mvdan-sh") as { syntax: any };
const oracleParser = syntax.NewParser();

await loadShellParser();

type Name = { text: string; literal: boolean } | null;

function unescapeLit(value: string, inDouble: boolean): string {
  return value.replace(/\\([\s\S])/g, (m, c: string) => {
    if (c === "\n") return "";
    if (!inDouble || '$`"\\'.includes(c)) return c;
    return m;
  });
}

/** The command name the oracle sees: its text when literal, null when the oracle cannot say. */
function oracleName(word: any): Name {
  let text = "";
  let literal = true;
  for (const part of word.Parts) {
    const type = syntax.NodeType(part);
    if (type === "Lit") text += unescapeLit(part.Value, false);
    else if (type === "SglQuoted") {
      if (part.Dollar) return null;
      text += part.Value;
    } else if (type === "DblQuoted") {
      for (const inner of part.Parts) {
        if (syntax.NodeType(inner) === "Lit") text += unescapeLit(inner.Value, true);
        else literal = false;
      }
    } else literal = false;
  }
  return { text, literal };
}

function oracleNames(source: string): Name[] | undefined {
  let file: any;
  try {
    file = oracleParser.Parse(source, "cmd");
  } catch {
    return undefined;
  }
  const names: Name[] = [];
  syntax.Walk(file, (node: any) => {
    if (node && syntax.NodeType(node) === "CallExpr" && node.Args.length > 0) names.push(oracleName(node.Args[0]));
    return true;
  });
  return names;
}

const stats = { runs: 0, oracleRejected: 0, coveredByParseError: 0, names: 0 };

/** Every command name the oracle sees is found by our extraction (or our parser flags the input). */
function agrees(source: string): boolean {
  stats.runs++;
  const expected = oracleNames(source);
  if (!expected) {
    stats.oracleRejected++;
    return true;
  }
  const analysis = analyzeShell(source);
  const mine = analysis.commands.map((c) => c.words[0]).filter((w) => w !== undefined);
  const literal = new Set(mine.filter((w) => !w.dynamic).map((w) => w.text));
  const anyDynamic = mine.some((w) => w.dynamic) || analysis.commands.some((c) => c.opaque);
  for (const name of expected) {
    if (!name) continue;
    stats.names++;
    const found = name.literal ? literal.has(name.text) : anyDynamic;
    if (found) continue;
    if (analysis.parseError) {
      stats.coveredByParseError++;
      continue;
    }
    if (process.env.DIFFERENTIAL_DUMP) appendFileSync(process.env.DIFFERENTIAL_DUMP, `${JSON.stringify({ source, name, mine: [...literal] })}\n`);
    return false;
  }
  return true;
}

const NAMES = ["ls", "rm", "cat", "git", "echo", "grep", "a1", "x.y", "/bin/rm", "./run", "\\rm", "'rm'", "r''m", '"ls"', "$CMD", "${X}x"];
const WORDS = ["-la", "x", "foo.txt", "--flag=1", "1", "/tmp/a", "*.ts", "'q w'", '"d q"', "\\;", "$HOME", "${X:-y}", "~/f", "a{b,c}", "--", "''"];
const name = fc.constantFrom(...NAMES);
const word = fc.constantFrom(...WORDS);
const redirect = fc.constantFrom("", "", " > out", " 2>&1", " >> log", " < in", " &> all", " <<< s");
const assignment = fc.constantFrom("", "", "A=1 ", "PATH=/x ", "B=$(ls) ");

/** A list as the body of a compound command: terminated by `;` unless it already ends in `&` or a newline. */
const body = (s: string) => (/[&\n]\s*$/.test(s) ? s : `${s};`);

const flatCommand = fc.tuple(name, fc.array(word, { maxLength: 3 })).map(([n, ws]) => [n, ...ws].join(" "));

const { script } = fc.letrec<{ script: string; command: string; simple: string; substitution: string; argument: string; construct: string }>((tie) => ({
  substitution: fc.oneof(
    tie("script").map((s) => `$(${s})`),
    tie("script").map((s) => `"$(${s})"`),
    flatCommand.map((c) => `\`${c}\``),
    tie("script").map((s) => `<(${s})`),
    tie("script").map((s) => `"x$(${s})y"`),
  ),
  argument: fc.oneof({ weight: 6, arbitrary: word }, { weight: 1, arbitrary: tie("substitution") }),
  simple: fc.tuple(assignment, name, fc.array(tie("argument"), { maxLength: 3 }), redirect).map(([a, n, args, r]) => `${a}${[n, ...args].join(" ")}${r}`),
  // Shell constructs that run strings as code or change what a name means.
  construct: fc.oneof(
    { depthSize: "small", withCrossShrink: true },
    flatCommand.map((s) => `trap "$(${s})" EXIT`),
    fc.tuple(fc.constantFrom("--", "-p", ""), word).map(([o, w]) => `trap ${o} ${w} ERR`),
    fc.tuple(fc.constantFrom("n", "ls", "-- g"), tie("argument")).map(([n, a]) => `alias ${n}=${a}`),
    fc.tuple(fc.constantFrom("v", "'a[$(rm x)]'", "PATH", "-- w"), tie("argument")).map(([v, a]) => `printf -v ${v} %s ${a}`),
    fc.tuple(fc.constantFrom("cb", "rm", "'eval ls'", '"$CB"'), tie("substitution")).map(([cb, a]) => `mapfile -t -C ${cb} -c 1 arr <<< ${a}`),
    flatCommand.map((s) => `readarray -C "$(${s})" arr < in`),
    tie("script").map((s) => `echo "\${x@P}" \${y@Q} "\${z:-$(${s})}"`),
    tie("script").map((s) => `coproc { ${body(s)} }`),
    tie("script").map((s) => `coproc NAME { ${body(s)} }`),
    flatCommand.map((s) => `coproc ( ${s} )`),
    tie("simple").map((s) => `coproc ${s}`),
    flatCommand.map((s) => `function f { ${s}; }`),
    tie("script").map((s) => `function g() { ${body(s)} }`),
    fc.tuple(name, tie("script")).map(([n, s]) => `${n.replace(/^\W+/, "") || "h"}() ( ${s} )`),
    tie("script").map((s) => `[[ $(( a[$(${s})] )) -gt 0 ]]`),
    fc.tuple(tie("argument"), tie("script")).map(([a, s]) => `[[ -n ${a} && x == y* || 1 -eq $(${s}) ]]`),
    flatCommand.map((s) => `(( x = $(${s}) ))`),
    flatCommand.map((s) => `let "x = 1 + $(${s})"`),
    flatCommand.map((s) => `a[$(${s})]=1`),
    flatCommand.map((s) => `echo $(( x[$(${s})] + 1 ))`),
    tie("script").map((s) => `time { ${body(s)} }`),
    tie("script").map((s) => `! { ${body(s)} }`),
    flatCommand.map((s) => `time ( ${s} )`),
    flatCommand.map((s) => `read -r v <<< "$(${s})"`),
    fc.tuple(fc.constantFrom("builtin", "command", "command -p", "exec", "exec -a n", "time -p", "! time"), tie("simple")).map(([w, s]) => `${w} ${s}`),
    fc.constantFrom("hash -p /bin/rm ls", "enable -n echo", "enable -f ./x.so y", "shopt -s expand_aliases", "declare -n r=PATH", "export -f f"),
  ),
  command: fc.oneof(
    { depthSize: "small", withCrossShrink: true },
    tie("simple"),
    tie("simple"),
    tie("construct"),
    tie("script").map((s) => `(${s})`),
    tie("script").map((s) => `{ ${body(s)} }`),
    fc.tuple(tie("script"), tie("script")).map(([c, b]) => `if ${body(c)} then ${body(b)} fi`),
    fc.tuple(tie("script"), tie("script")).map(([c, b]) => `while ${body(c)} do ${body(b)} done`),
    fc.tuple(tie("argument"), tie("script")).map(([w, b]) => `for i in ${w}; do ${body(b)} done`),
    fc.tuple(word, tie("script")).map(([w, b]) => `case ${w} in x) ${b}\n;; *) ls;; esac`),
    tie("script").map((b) => `f() { ${body(b)} }`),
    tie("simple").map((s) => `! ${s}`),
    fc.tuple(fc.constantFrom("sudo", "env", "timeout 5", "nice", "xargs", "time"), tie("simple")).map(([w, s]) => `${w} ${s}`),
    fc.tuple(flatCommand, flatCommand).map(([h, body]) => `${h} <<EOF\n$(${body})\nEOF\n`),
    fc.tuple(flatCommand, flatCommand).map(([h, body]) => `${h} <<EOF\n\`${body}\`\nEOF\n`),
  ),
  script: fc
    .tuple(tie("command"), fc.array(fc.tuple(fc.constantFrom(" | ", " && ", " || ", "; ", " & ", "\n", " |& "), tie("command")), { maxLength: 2 }))
    .map(([first, rest]) => rest.reduce((acc, [op, c]) => (acc.endsWith("\n") && op !== "\n" ? `${acc}${c}` : `${acc}${op}${c}`), first)),
}));

// "#" only after a blank: mvdan-sh 0.10.1 reads `$(ls)#x` as a comment, where bash reads one word.
const NOISE = ["'", '"', "`", "$", "(", ")", "{", "}", ";", "|", "&", "\\", "\n", "<", ">", " ", " #", "$(", "=", "*"];
const mutated = fc.tuple(script, fc.array(fc.tuple(fc.nat(), fc.constantFrom(...NOISE)), { minLength: 1, maxLength: 3 })).map(([s, edits]) =>
  edits.reduce((acc, [at, ch]) => {
    const i = at % (acc.length + 1);
    return acc.slice(0, i) + ch + acc.slice(i);
  }, s),
);

describe("differential: command names versus mvdan/sh", () => {
  it("finds every command name in 10,000 generated and mutated commands", { timeout: 420_000 }, () => {
    const input = fc.oneof({ weight: 3, arbitrary: script }, { weight: 2, arbitrary: mutated });
    fc.assert(fc.property(input, agrees), { seed: 20261121, numRuns: 10_000, endOnFailure: true });
    expect(stats.runs).toBeGreaterThanOrEqual(10_000);
    expect(stats.names).toBeGreaterThan(20_000);
    expect(stats.oracleRejected).toBeLessThan(stats.runs / 2);
    console.log(`differential: ${JSON.stringify(stats)}`);
  });

  it("agrees on hand-picked cases, and the oracle is not blind", () => {
    expect(oracleNames("a | b && z $(c) `d` <(e); \\f; 'g'; h''i; $X")).toEqual([
      { text: "a", literal: true },
      { text: "b", literal: true },
      { text: "z", literal: true },
      { text: "c", literal: true },
      { text: "d", literal: true },
      { text: "e", literal: true },
      { text: "f", literal: true },
      { text: "g", literal: true },
      { text: "hi", literal: true },
      { text: "", literal: false },
    ]);
    for (const s of ["cat <<EOF\n`rm x`\nEOF", 'echo "$(rm x)"', "time rm x", "coproc rm x", "f() { g; }"]) expect(agrees(s), s).toBe(true);
    const constructs = [
      'trap "$(rm x)" EXIT',
      "coproc NAME { rm x; }",
      "coproc ( rm x )",
      "time { rm x; }",
      "! { rm x; }",
      "[[ $(( a[$(rm x)] )) -gt 0 ]]",
      "(( x = $(rm x) ))",
      'let "x = 1 + $(rm x)"',
      "a[$(rm x)]=1",
      "function g() { rm x; }",
      'mapfile -t -C "$(rm x)" arr <<< y',
      'echo "${x@P}" "${z:-$(rm x)}"',
      'read -r v <<< "$(rm x)"',
    ];
    for (const s of constructs) {
      expect(
        oracleNames(s)?.some((n) => n?.text === "rm"),
        `the oracle sees rm in ${s}`,
      ).toBe(true);
      expect(agrees(s), s).toBe(true);
    }
  });
});
