import { commandHead, compilePattern, headOf, literalFolder, type CompiledPattern } from "./pattern.js";
import type { PathSubject } from "./paths.js";
import { hostPattern } from "./network/host-pattern-cache.js";
import type { NetworkTarget } from "./network/host-pattern.js";
import { describeRule, ruleRef, type LayerName, type Rule, type RuleRef } from "./rule.js";

/** Tool names never hold these (model APIs allow letters, digits, `_` and `-`), so a key with one is a glob. */
const TOOL_GLOB = /[*?[\]{}]/;

export function isToolGlob(key: string): boolean {
  return key !== "*" && TOOL_GLOB.test(key);
}

/** Whether a rule's tool key (a name, `"*"`, or a glob such as `github_*`) covers a tool name. */
export function toolKeyMatches(key: string, tool: string): boolean {
  return key === "*" || key === tool || (isToolGlob(key) && compilePattern(key, false).test(tool));
}

/** What a rule's pattern is tested against: a normalised path, plain text (command, name), or a network host and port. */
export type Subject = { kind: "path"; path: PathSubject } | { kind: "text"; text: string } | { kind: "host"; target: NetworkTarget };

export class CompiledRule {
  private pathMatcher: CompiledPattern | undefined;
  private textMatcher: CompiledPattern | undefined;
  private toolMatcher: CompiledPattern | undefined;
  /** The rule as decisions carry it, and in words, per layer: built once, shared and frozen. */
  private readonly refs = new Map<LayerName, { ref: RuleRef; text: string }>();

  private commandHead: string | null | undefined;
  private pathFolder: string | null | undefined;

  constructor(readonly rule: Rule) {}

  /** commandHead of the pattern: only texts with that first word can match it. */
  get head(): string | null {
    if (this.commandHead === undefined) this.commandHead = commandHead(this.rule.pattern);
    return this.commandHead;
  }

  /** For an absolute pattern, the folder its matches lie in (literalFolder); null: any path may match. */
  get folder(): string | null {
    if (this.pathFolder === undefined) this.pathFolder = literalFolder(this.rule.pattern);
    return this.pathFolder;
  }

  private described(layer: LayerName): { ref: RuleRef; text: string } {
    let d = this.refs.get(layer);
    if (!d) {
      const ref = Object.freeze(ruleRef(this.rule, layer));
      d = { ref, text: describeRule(ref) };
      this.refs.set(layer, d);
    }
    return d;
  }

  refIn(layer: LayerName): RuleRef {
    return this.described(layer).ref;
  }

  /** describeRule of refIn(layer). */
  describedIn(layer: LayerName): string {
    return this.described(layer).text;
  }

  appliesTo(tool: string): boolean {
    const key = this.rule.tool;
    if (key === "*" || key === tool) return true;
    if (!isToolGlob(key)) return false;
    return (this.toolMatcher ??= compilePattern(key, false)).test(tool);
  }

  matches(subject: Subject): boolean {
    if (subject.kind === "host") return hostPattern(this.rule.pattern)?.test(subject.target) ?? false;
    if (subject.kind === "text") {
      this.textMatcher ??= compilePattern(this.rule.pattern, false);
      return this.textMatcher.test(subject.text);
    }
    const m = (this.pathMatcher ??= compilePattern(this.rule.pattern, true));
    const p = subject.path;
    if (m.kind === "absolute") return m.test(p.absolute);
    if (m.kind === "relative") return m.test(p.primary);
    return m.test(p.primary) || m.test(p.basename);
  }
}

/** An ordered rule list, compiled once, with a per-tool index built on first use. */
export class Ruleset {
  readonly compiled: readonly CompiledRule[];
  private readonly byTool = new Map<string, readonly CompiledRule[]>();
  private readonly byHead = new Map<string, Map<string, readonly CompiledRule[]>>();
  private readonly denyFolders = new Map<string, readonly AbsoluteDeny[]>();
  private readonly byPlace = new Map<string, Map<string, readonly CompiledRule[]>>();

  constructor(readonly rules: readonly Rule[]) {
    this.compiled = rules.map((r) => new CompiledRule(r));
  }

  forTool(tool: string): readonly CompiledRule[] {
    return remembered(this.byTool, tool, 1024, () => this.compiled.filter((c) => c.appliesTo(tool)));
  }

  /**
   * The rules of a tool that a text whose first word is `head` may match, in order: those whose
   * pattern starts with that word, and those whose first word is not literal. The others cannot.
   */
  forHead(tool: string, head: string): readonly CompiledRule[] {
    const heads = remembered(this.byHead, tool, 1024, () => new Map<string, readonly CompiledRule[]>());
    return remembered(heads, head, 4096, () => this.forTool(tool).filter((c) => c.head === null || c.head === head));
  }

  /**
   * The rules of a tool a path may match, in order: an absolute pattern only where its folder and
   * the path's first two segments can meet (a rule for `~/.ssh/*` is not tried on `/work/...`).
   */
  forPath(tool: string, absolute: string): readonly CompiledRule[] {
    const place = placeOf(absolute);
    const places = remembered(this.byPlace, tool, 1024, () => new Map<string, readonly CompiledRule[]>());
    return remembered(places, place, 4096, () => this.forTool(tool).filter((c) => c.folder === null || inFolder(place, c.folder) || inFolder(c.folder, place)));
  }

  /** The rules of a tool a subject may match. */
  forSubject(tool: string, subject: Subject): readonly CompiledRule[] {
    if (subject.kind === "host") return this.forTool(tool);
    return subject.kind === "text" ? this.forHead(tool, headOf(subject.text)) : this.forPath(tool, subject.path.absolute);
  }

  /** A tool's deny rules whose pattern is an absolute path, each with the folder its matches lie in. */
  absoluteDenies(tool: string): readonly AbsoluteDeny[] {
    return remembered(this.denyFolders, tool, 1024, () =>
      this.forTool(tool)
        .filter((c) => c.rule.action === "deny" && c.rule.pattern.startsWith("/"))
        .map((c) => ({ pattern: c.rule.pattern, folder: c.folder })),
    );
  }

  static readonly empty = new Ruleset([]);
}

/** The value kept under a key, made and kept on first use while the map holds fewer than `limit`. */
function remembered<V>(map: Map<string, V>, key: string, limit: number, make: () => V): V {
  let found = map.get(key);
  if (found === undefined) {
    found = make();
    if (map.size < limit) map.set(key, found);
  }
  return found;
}

/** A path's first two segments (`/home/ada` of `/home/ada/x/y`), or the whole of a shorter one. */
function placeOf(absolute: string): string {
  const first = absolute.indexOf("/", 1);
  if (first === -1) return absolute;
  const second = absolute.indexOf("/", first + 1);
  return second === -1 ? absolute : absolute.slice(0, second);
}

/** Whether a path is a folder or lies inside it. */
export function inFolder(path: string, folder: string): boolean {
  return path === folder || path.startsWith(folder === "/" ? "/" : `${folder}/`);
}

/** A deny rule with an absolute pattern; `folder` null where its matches cannot be bounded by one (see literalFolder). */
export interface AbsoluteDeny {
  pattern: string;
  folder: string | null;
}

/** The three layers of docs/design.md, "Layers", first to last. */
export interface Layers {
  agent?: Ruleset | undefined;
  static: Ruleset;
  runtime?: Ruleset | undefined;
}

export interface Match {
  rule: Rule;
  layer: LayerName;
  compiled: CompiledRule;
}

/** Layers from the last concatenated to the first: the order in which a last match is found. */
export const ORDER_LAST_FIRST: readonly LayerName[] = ["runtime", "static", "agent"];

/** The last rule, across the concatenated layers, whose tool and pattern match. */
export function findLast(layers: Layers, tool: string, subject: Subject, only?: LayerName): Match | null {
  for (const layer of ORDER_LAST_FIRST) {
    if (only && layer !== only) continue;
    const list = layers[layer]?.forSubject(tool, subject);
    if (!list) continue;
    for (let i = list.length - 1; i >= 0; i--) {
      const c = list[i]!;
      if (c.matches(subject)) return { rule: c.rule, layer, compiled: c };
    }
  }
  return null;
}

/** The last deny rule, in any layer, that matches: what the deny floor checks. */
export function findLastDeny(layers: Layers, tool: string, subject: Subject): Match | null {
  for (const layer of ORDER_LAST_FIRST) {
    const list = layers[layer]?.forSubject(tool, subject);
    if (!list) continue;
    for (let i = list.length - 1; i >= 0; i--) {
      const c = list[i]!;
      if (c.rule.action === "deny" && c.matches(subject)) return { rule: c.rule, layer, compiled: c };
    }
  }
  return null;
}
