import { createRequire } from "node:module";
import { Language, Parser, type Node } from "web-tree-sitter";
import { PolicyError } from "../errors.js";

export type SyntaxNode = Node;

let ready: Promise<Parser> | undefined;
let parser: Parser | undefined;

/** Loads the bash grammar once per process; every later call returns the same parser. */
export function loadShellParser(): Promise<void> {
  ready ??= (async () => {
    const require = createRequire(import.meta.url);
    await Parser.init();
    const bash = await Language.load(require.resolve("tree-sitter-bash/tree-sitter-bash.wasm"));
    const p = new Parser();
    p.setLanguage(bash);
    parser = p;
    return p;
  })();
  return ready.then(() => undefined);
}

/** Parses `source` and hands the root to `visit`; the tree is always deleted afterwards. */
export function withShellTree<T>(source: string, visit: (root: SyntaxNode) => T): T {
  if (!parser) throw new PolicyError("SHELL_PARSER_NOT_READY", "call loadShellParser() before evaluating shell commands");
  const tree = parser.parse(source);
  if (!tree) throw new PolicyError("SHELL_PARSER_NOT_READY", "the shell parser returned no tree");
  try {
    return visit(tree.rootNode);
  } finally {
    tree.delete();
  }
}

/** Parses and deletes the tree: the parser's own cost, for measuring the gate against it. */
export function parseShellOnly(source: string): void {
  withShellTree(source, () => undefined);
}
