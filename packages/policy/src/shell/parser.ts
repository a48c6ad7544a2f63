import { createRequire } from "node:module";
import { Language, Parser, type TreeCursor } from "web-tree-sitter";
import { PolicyError } from "../errors.js";

/**
 * A node of a parsed script, copied out of tree-sitter in one cursor walk. Reading a property of
 * web-tree-sitter's own nodes crosses into WASM each time (and `children` makes new objects on
 * every read); the analysis reads each node many times, so it reads these plain copies instead.
 */
const NO_NODES: readonly SyntaxNode[] = Object.freeze([]);

export class SyntaxNode {
  /** Shared and frozen while the node has none (most nodes are leaves). */
  children: readonly SyntaxNode[] = NO_NODES;
  namedChildren: readonly SyntaxNode[] = NO_NODES;
  /** The text, sliced on first read: the analysis reads a word's text more than once. */
  private sliced: string | undefined = undefined;

  constructor(
    readonly type: string,
    readonly isNamed: boolean,
    readonly startIndex: number,
    readonly endIndex: number,
    /** The field this node fills in its parent (`name`, `value`, `redirect`, ...), or null. */
    readonly field: string | null,
    readonly parent: SyntaxNode | null,
    private readonly source: string,
  ) {}

  get text(): string {
    return (this.sliced ??= this.source.slice(this.startIndex, this.endIndex));
  }

  get lastNamedChild(): SyntaxNode | null {
    return this.namedChildren[this.namedChildren.length - 1] ?? null;
  }

  /**
   * While every child is named, both lists are one array (most nodes): the first unnamed child
   * gives the named ones a list of their own.
   */
  adopt(child: SyntaxNode): void {
    if (this.children === NO_NODES) {
      this.children = [child];
      if (child.isNamed) this.namedChildren = this.children;
      return;
    }
    const shared = this.namedChildren === this.children;
    if (!child.isNamed) {
      if (shared) this.namedChildren = this.children.slice();
      (this.children as SyntaxNode[]).push(child);
      return;
    }
    (this.children as SyntaxNode[]).push(child);
    if (shared) return;
    if (this.namedChildren === NO_NODES) this.namedChildren = [child];
    else (this.namedChildren as SyntaxNode[]).push(child);
  }

  childForFieldName(field: string): SyntaxNode | null {
    return this.children.find((c) => c.field === field) ?? null;
  }

  childrenForFieldName(field: string): SyntaxNode[] {
    return this.children.filter((c) => c.field === field);
  }
}

/** A parsed script: its root, and whether tree-sitter met a syntax error anywhere in it. */
export interface ShellTree {
  root: SyntaxNode;
  hasError: boolean;
  /** How many levels deep the tree goes (the root is level 1). */
  depth: number;
}

/**
 * The few entry points of web-tree-sitter's WASM binding that walk a tree with a cursor. Its
 * `TreeCursor` class calls them too, but copies the cursor in and out of the binding's transfer
 * buffer and looks each function up on the module on every call, which costs more than the walk.
 * Called directly, the cursor stays in the transfer buffer from one call to the next.
 */
interface CursorBinding {
  _ts_tree_root_node_wasm(tree: number): void;
  _ts_node_has_error_wasm(tree: number): number;
  _ts_tree_cursor_new_wasm(tree: number): void;
  _ts_tree_cursor_delete_wasm(tree: number): void;
  _ts_tree_cursor_goto_first_child_wasm(tree: number): number;
  _ts_tree_cursor_goto_next_sibling_wasm(tree: number): number;
  _ts_tree_cursor_goto_parent_wasm(tree: number): number;
  _ts_tree_cursor_current_node_type_id_wasm(tree: number): number;
  _ts_tree_cursor_start_index_wasm(tree: number): number;
  _ts_tree_cursor_end_index_wasm(tree: number): number;
  _ts_tree_cursor_current_field_id_wasm(tree: number): number;
}

const BINDING_FUNCTIONS: readonly (keyof CursorBinding)[] = [
  "_ts_tree_root_node_wasm",
  "_ts_node_has_error_wasm",
  "_ts_tree_cursor_new_wasm",
  "_ts_tree_cursor_delete_wasm",
  "_ts_tree_cursor_goto_first_child_wasm",
  "_ts_tree_cursor_goto_next_sibling_wasm",
  "_ts_tree_cursor_goto_parent_wasm",
  "_ts_tree_cursor_current_node_type_id_wasm",
  "_ts_tree_cursor_start_index_wasm",
  "_ts_tree_cursor_end_index_wasm",
  "_ts_tree_cursor_current_field_id_wasm",
];

/** A cursor over one tree: the binding's functions held directly, or web-tree-sitter's own `TreeCursor`. */
interface Walk {
  firstChild(): boolean;
  nextSibling(): boolean;
  parent(): boolean;
  typeId(): number;
  start(): number;
  end(): number;
  fieldId(): number;
}

class DirectWalk implements Walk {
  tree = 0;
  private readonly goFirst;
  private readonly goNext;
  private readonly goParent;
  private readonly type;
  private readonly startIndex;
  private readonly endIndex;
  private readonly field;

  constructor(private readonly b: CursorBinding) {
    this.goFirst = b._ts_tree_cursor_goto_first_child_wasm;
    this.goNext = b._ts_tree_cursor_goto_next_sibling_wasm;
    this.goParent = b._ts_tree_cursor_goto_parent_wasm;
    this.type = b._ts_tree_cursor_current_node_type_id_wasm;
    this.startIndex = b._ts_tree_cursor_start_index_wasm;
    this.endIndex = b._ts_tree_cursor_end_index_wasm;
    this.field = b._ts_tree_cursor_current_field_id_wasm;
  }

  /** Puts a cursor on the root of `tree` into the transfer buffer; returns whether the tree has an error. */
  open(tree: number): boolean {
    this.tree = tree;
    this.b._ts_tree_root_node_wasm(tree);
    // Reading whether the node has an error leaves it in the transfer buffer for the cursor.
    const hasError = this.b._ts_node_has_error_wasm(tree) === 1;
    this.b._ts_tree_cursor_new_wasm(tree);
    return hasError;
  }

  close(): void {
    this.b._ts_tree_cursor_delete_wasm(this.tree);
    this.tree = 0;
  }

  firstChild(): boolean {
    return this.goFirst(this.tree) === 1;
  }
  nextSibling(): boolean {
    return this.goNext(this.tree) === 1;
  }
  parent(): boolean {
    return this.goParent(this.tree) === 1;
  }
  typeId(): number {
    return this.type(this.tree);
  }
  start(): number {
    return this.startIndex(this.tree);
  }
  end(): number {
    return this.endIndex(this.tree);
  }
  fieldId(): number {
    return this.field(this.tree);
  }
}

class PortableWalk implements Walk {
  constructor(private readonly cursor: TreeCursor) {}
  firstChild(): boolean {
    return this.cursor.gotoFirstChild();
  }
  nextSibling(): boolean {
    return this.cursor.gotoNextSibling();
  }
  parent(): boolean {
    return this.cursor.gotoParent();
  }
  typeId(): number {
    return this.cursor.nodeTypeId;
  }
  start(): number {
    return this.cursor.startIndex;
  }
  end(): number {
    return this.cursor.endIndex;
  }
  fieldId(): number {
    return this.cursor.currentFieldId;
  }
}

let ready: Promise<Parser> | undefined;
let parser: Parser | undefined;
let language: Language | undefined;
/** Set when this module started web-tree-sitter and so holds its binding; otherwise the portable walk is used. */
let direct: DirectWalk | undefined;
/** The node types whose children may fill fields, from the grammar's node types; null reads every node's field. */
let withFields: ReadonlySet<string> | null = null;
/** Per node type id: its name and whether it is named; per field id, its name. Read from the grammar once. */
const typeNames: (string | undefined)[] = [];
const typeNamed: (boolean | undefined)[] = [];
const fieldNames: (string | null | undefined)[] = [];

/**
 * The same text as V8's one shared copy of it (a property key), which the analysis's string
 * literals are too: comparing them is then comparing references, not characters.
 */
function internalized(text: string): string {
  return Object.keys({ [text]: 0 })[0]!;
}

function fieldName(lang: Language, id: number): string | null {
  let name = fieldNames[id];
  if (name === undefined) {
    const given = lang.fields[id];
    name = fieldNames[id] = given ? internalized(given) : null;
  }
  return name;
}

/** Whether trees are walked through the binding directly (the usual case) or through web-tree-sitter's cursor. */
export function usesDirectWalk(): boolean {
  return direct !== undefined;
}

/** Loads the bash grammar once per process; every later call returns the same parser. */
export function loadShellParser(): Promise<void> {
  ready ??= (async () => {
    const require = createRequire(import.meta.url);
    // Emscripten fills the options object given to init with the module's exports.
    const binding: Partial<CursorBinding> = {};
    await Parser.init(binding);
    const bash = await Language.load(require.resolve("tree-sitter-bash/tree-sitter-bash.wasm"));
    const p = new Parser();
    p.setLanguage(bash);
    if (BINDING_FUNCTIONS.every((name) => typeof binding[name] === "function")) direct = new DirectWalk(binding as CursorBinding);
    withFields = typesWithFields(require);
    language = bash;
    parser = p;
    return p;
  })();
  return ready.then(() => undefined);
}

function typesWithFields(require: NodeRequire): ReadonlySet<string> | null {
  try {
    const types = require("tree-sitter-bash/src/node-types.json") as { type: string; fields?: Record<string, unknown> }[];
    // Error recovery keeps the fields of the nodes an ERROR node swallows.
    return new Set(["ERROR", ...types.filter((t) => Object.keys(t.fields ?? {}).length > 0).map((t) => t.type)]);
  } catch {
    return null;
  }
}

function nodeAt(walk: Walk, lang: Language, parent: SyntaxNode | null, source: string): SyntaxNode {
  const id = walk.typeId();
  const type = (typeNames[id] ??= internalized(lang.types[id] || "ERROR"));
  const named = (typeNamed[id] ??= lang.nodeTypeIsNamed(id));
  const field = parent && (!withFields || withFields.has(parent.type)) ? fieldName(lang, walk.fieldId()) : null;
  return new SyntaxNode(type, named, walk.start(), walk.end(), field, parent, source);
}

/** Every node of the tree, depth first, copied into plain objects. */
function copyTree(walk: Walk, lang: Language, source: string): { root: SyntaxNode; depth: number } {
  const root = nodeAt(walk, lang, null, source);
  let current = root;
  let level = 1;
  let depth = 1;
  for (;;) {
    if (walk.firstChild()) {
      const child = nodeAt(walk, lang, current, source);
      current.adopt(child);
      current = child;
      if (++level > depth) depth = level;
      continue;
    }
    for (;;) {
      const parent = current.parent;
      if (!parent) return { root, depth };
      if (walk.nextSibling()) {
        const next = nodeAt(walk, lang, parent, source);
        parent.adopt(next);
        current = next;
        break;
      }
      walk.parent();
      current = parent;
      level--;
    }
  }
}

/**
 * Parses `source` into plain nodes; tree-sitter's own tree is deleted before this returns.
 * `portable` walks with web-tree-sitter's public cursor even where the binding is held.
 */
export function parseShell(source: string, portable = false): ShellTree {
  if (!parser || !language) throw new PolicyError("SHELL_PARSER_NOT_READY", "call loadShellParser() before evaluating shell commands");
  const tree = parser.parse(source);
  if (!tree) throw new PolicyError("SHELL_PARSER_NOT_READY", "the shell parser returned no tree");
  try {
    if (direct && !portable) {
      const hasError = direct.open((tree as unknown as { 0: number })[0]);
      try {
        return { ...copyTree(direct, language, source), hasError };
      } finally {
        direct.close();
      }
    }
    const cursor = tree.walk();
    try {
      return { ...copyTree(new PortableWalk(cursor), language, source), hasError: tree.rootNode.hasError };
    } finally {
      cursor.delete();
    }
  } finally {
    tree.delete();
  }
}

/** Parses and deletes the tree: the parser's own cost, for measuring the gate against it. */
export function parseShellOnly(source: string): void {
  if (!parser) throw new PolicyError("SHELL_PARSER_NOT_READY", "call loadShellParser() before evaluating shell commands");
  parser.parse(source)?.delete();
}
