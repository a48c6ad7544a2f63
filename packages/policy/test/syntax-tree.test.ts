import { createRequire } from "node:module";
import { Language, Parser, type Node } from "web-tree-sitter";
import { describe, expect, it } from "vitest";
import { loadShellParser, parseShell, usesDirectWalk, type SyntaxNode } from "../src/shell/parser.js";

await loadShellParser();
// Started after loadShellParser, so this shares its module: the same grammar, read the public way.
await Parser.init();
const bash = await Language.load(createRequire(import.meta.url).resolve("tree-sitter-bash/tree-sitter-bash.wasm"));
const reference = new Parser();
reference.setLanguage(bash);

/** Fields the gate reads with childForFieldName, by the type of node it reads them on. */
const SINGLE_FIELDS: [string, string][] = [
  ["variable_assignment", "name"],
  ["variable_assignment", "value"],
  ["redirected_statement", "body"],
  ["function_definition", "name"],
  ["for_statement", "variable"],
  ["binary_expression", "operator"],
];
/** Fields the gate reads with childrenForFieldName or childForFieldName. */
const FIELDS = ["name", "value", "destination", "redirect", "body", "operator", "variable"];

const SCRIPTS = [
  "git status",
  "ls -la | grep -v x > out.txt 2>&1",
  'for f in $(ls src); do echo "$f"; done',
  "if [ -f .env ]; then echo found; elif [[ $x -eq 1 ]]; then :; else exit 1; fi",
  "cd build && make -j2 || exit 1",
  "A=1 B=$(date) env -u X sh -c 'rm -rf /tmp/x' <<< \"$Y\"",
  "cat <<EOF | tr a b\n$(whoami) `id`\nEOF\n",
  "cat <<-'EOF'\n\tliteral $x\n\tEOF",
  "f() { local a=${1:-x}; echo ${#a} ${a:1:2} ${!a} ${a@P}; }; f",
  "case $1 in a|b) echo ab;; *) echo other;; esac",
  "while read -r l; do (( n++ )); done < <(find . -name '*.ts')",
  "export PATH=/x:$PATH; declare -a arr=(1 2 3); unset arr[0]",
  "echo $'\\x72m' $\"hi\" 'q' \"a${b}c\" {a,b}.txt *.log",
  "x=$((1 + 2 * y)); let z=x+1; for ((i=0; i<3; i++)); do :; done",
  "coproc { ls; }; time ! cat x; exec 3>&1 4<&-",
  "echo 'unterminated",
  "if then fi",
  "$(( ",
  "echo `echo \\`nested\\``",
  "[[ -v a[1] && $x =~ ^re.*$ ]] && echo yes",
  "cmd >| f &>> g <> h 0<<<x",
  "{ a; b; } > out; ( c ) 2> err",
  "ls⏎\\rm x",
  "# only a comment",
  "",
];

/** A deterministic stream of mutations of the scripts above: inserts and deletes of shell characters. */
function mutations(count: number): string[] {
  const alphabet = " ;|&$(){}[]<>'\"`\\\n*?=-#!~x";
  let seed = 7;
  const next = (n: number): number => {
    seed = (seed * 1103515245 + 12345) % 2147483648;
    return seed % n;
  };
  const out: string[] = [];
  for (let i = 0; i < count; i++) {
    let s = SCRIPTS[next(SCRIPTS.length)]!;
    for (let k = 0; k < 3; k++) {
      const at = next(s.length + 1);
      s = next(2) === 0 ? s.slice(0, at) + alphabet[next(alphabet.length)]! + s.slice(at) : s.slice(0, at) + s.slice(at + 1);
    }
    out.push(s);
  }
  return out;
}

const where = (n: { type: string; startIndex: number; endIndex: number } | null): string => (n ? `${n.type}@${n.startIndex}-${n.endIndex}` : "none");

/** Every difference between web-tree-sitter's nodes and the gate's copies, as text. */
function differences(a: Node, b: SyntaxNode, out: string[]): void {
  const at = `${where(a)} of ${JSON.stringify(a.tree.rootNode.text.slice(0, 60))}`;
  if (where(a) !== where(b) || a.isNamed !== b.isNamed || a.text !== b.text) out.push(`node ${at} copied as ${where(b)}`);
  if (where(a.parent) !== where(b.parent)) out.push(`parent of ${at}`);
  const children = a.children.filter((c): c is Node => c !== null);
  const named = a.namedChildren.filter((c): c is Node => c !== null);
  if (children.map(where).join() !== b.children.map(where).join()) out.push(`children of ${at}`);
  if (named.map(where).join() !== b.namedChildren.map(where).join()) out.push(`named children of ${at}`);
  if (where(a.lastNamedChild) !== where(b.lastNamedChild)) out.push(`last named child of ${at}`);
  for (const field of FIELDS) {
    const want = a
      .childrenForFieldName(field)
      .filter((c): c is Node => c !== null)
      .map(where)
      .join();
    if (want !== b.childrenForFieldName(field).map(where).join()) out.push(`field ${field} of ${at}`);
  }
  for (const [type, field] of SINGLE_FIELDS) {
    if (a.type === type && where(a.childForFieldName(field)) !== where(b.childForFieldName(field))) out.push(`field ${field} (one) of ${at}`);
  }
  children.forEach((c, i) => b.children[i] && differences(c, b.children[i]!, out));
}

describe("the gate's copy of a parsed script", () => {
  it("walks the tree through the binding directly in a process where it started web-tree-sitter", () => {
    expect(usesDirectWalk()).toBe(true);
  });

  it.each([
    ["direct", false],
    ["portable", true],
  ])("matches web-tree-sitter's own nodes, walked %s", (_name, portable) => {
    const found: string[] = [];
    let errors = 0;
    for (const source of [...SCRIPTS, ...mutations(300)]) {
      const tree = reference.parse(source)!;
      const copy = parseShell(source, portable);
      if (copy.hasError !== tree.rootNode.hasError) found.push(`hasError of ${JSON.stringify(source)}`);
      if (copy.hasError) errors++;
      differences(tree.rootNode, copy.root, found);
      tree.delete();
    }
    expect(found.slice(0, 10)).toEqual([]);
    // The corpus reaches tree-sitter's error recovery, not only clean parses.
    expect(errors).toBeGreaterThan(40);
  });
});
