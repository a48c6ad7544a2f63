import fs from "node:fs";
import path from "node:path";
import { contentsAccess, isInside, pathAccess, type DecideContext } from "@gatehouse/policy";
import { resolveRealPath } from "@gatehouse/fs-guard";
import picomatch from "picomatch";
import { gitExecutionParts, type GitExecutionParts } from "./git-execution-parts.js";
import { homeSteeringParts } from "./home-steering.js";
import { judgePath, underPrivateRoot, type Judgement } from "./masks.js";
import { WorkTree, type FolderListing } from "./work-tree.js";
import { SandboxRefusedError, TreeTooLargeError } from "../errors.js";

/** A path the sandbox replaces: an unreadable empty folder, or an unreadable empty file. */
export interface Mask {
  path: string;
  dir: boolean;
}

/** What one shell command may see and change, derived from the rules at the moment of the call. */
export interface SandboxProfile {
  workDir: string;
  network: boolean;
  /**
   * Folders inside the work directory that hold a read-only or masked path, bound onto themselves
   * so that they cannot be renamed: a rename would let a command put a new file at a denied path.
   */
  pinned: string[];
  /** Inside the work directory and denied to write tools, or deciding what git runs: read-only. */
  readOnly: string[];
  /** Denied to read_file: masked. */
  masked: Mask[];
  /** Protected paths (the data directory among them): masked whatever the rules say. */
  hidden: Mask[];
  /** Parts of git directories that decide what git runs and do not exist yet: removed again if the command makes them. */
  gitUnmade: string[];
  /**
   * The git directories of the work tree as the command starts; null for a person's command. One
   * there when it ends that is not among them was made by it: its settings are disarmed.
   */
  gitDirs: string[] | null;
  /** The `.git` files and `commondir`s as the command starts: one it makes must name a git directory the walk sees. */
  gitPointers: string[];
}

interface Found {
  masked: Mask[];
  readOnly: string[];
}

/** A folder's judgement; `dangling` when a symlink in it leads nowhere yet, so it must be made again each call. */
interface Judged {
  found: Found;
  dangling: boolean;
}

/**
 * What was judged under one set of rules: each folder's judgement by the listing it was made
 * from, and the sum over each tree for as long as no folder of it changes (and none has a
 * dangling symlink).
 */
interface Memo {
  folders: Map<string, Judged & { stamp: number }>;
  totals: Map<WorkTree, Judged & { version: number }>;
  /** The folders outside the work directory that the rules' absolute read-deny patterns name. */
  bases?: string[];
  /** Whether the rules deny everything under such a folder by its name (`~/.ssh/*`). */
  wholeDenied: Map<string, boolean>;
}

// Rules sets whose judgements are kept: a session's agent and runtime rules make a set of their own.
const MEMO_KEYS = 8;

const OUTSIDE_WALK_LIMIT = 20_000;

const identity = (p: string) => p;

/** A path's kind on the host, following symlinks; null when nothing is there. */
function kindAt(real: string): "dir" | "file" | null {
  const stat = fs.statSync(real, { throwIfNoEntry: false });
  return stat ? (stat.isDirectory() ? "dir" : "file") : null;
}

/** What the rules deny among one folder's entries (and, for the root, the folder itself). */
function judgeFolder(dir: string, listing: FolderListing, ctx: DecideContext, isRoot: boolean): Judged {
  const found: Found = { masked: [], readOnly: [] };
  let dangling = false;
  const plain = { ...ctx, resolveRealPath: identity };
  const note = (target: string, dir: boolean, judged: Judgement) => {
    if (judged === "masked") found.masked.push({ path: target, dir });
    else if (judged === "read-only") found.readOnly.push(target);
  };
  if (isRoot) note(dir, true, judgePath(dir, true, plain));
  for (const e of listing.entries) {
    const abs = path.join(dir, e.name);
    if (e.kind !== "symlink") note(abs, e.kind === "dir", judgePath(abs, e.kind === "dir", plain));
    else {
      // A symlink is judged as the rules judge it (its real path counts), and what it leads to is masked.
      const real = resolveRealPath(abs);
      const kind = kindAt(real);
      if (kind) note(real, kind === "dir", judgePath(abs, false, ctx));
      else dangling = true;
    }
  }
  return { found, dangling };
}

/** The part of an absolute pattern before its first glob character: where its matches can be. */
function staticBase(pattern: string): { base: string; isGlob: boolean } {
  const scanned = picomatch.scan(pattern);
  return { base: scanned.isGlob ? scanned.base || "/" : pattern, isGlob: scanned.isGlob };
}

/**
 * Derives sandbox profiles from rules. Listings of the work directory, and of the places that
 * absolute deny patterns name, are kept current by WorkTree; what the rules deny in each folder
 * is remembered per rules and per folder listing, so a call after a small change judges only the
 * folders that changed.
 */
export class ProfileBuilder {
  private readonly tree: WorkTree;
  private readonly outside = new Map<string, WorkTree>();
  private readonly memos = new Map<string, Memo>();
  private git: { version: number; parts: GitExecutionParts } | null = null;
  /** Folders judged so far, for diagnostics: it grows only when listings or rules change. */
  foldersJudged = 0;

  constructor(
    readonly workDir: string,
    private readonly network: boolean,
    maxEntries?: number,
  ) {
    this.tree = new WorkTree(workDir, maxEntries);
  }

  /** The work directory's listings, for watching its changes and for diagnostics. */
  get workTree(): WorkTree {
    return this.tree;
  }

  /**
   * The profile for a call under these rules. `key` names what the file tools' decisions depend
   * on (their rules in their layers, the protected paths, the folders): calls whose keys are equal
   * share what was judged.
   */
  async build(key: string, ctx: DecideContext, rules: readonly { tool: string; pattern: string; action: string }[]): Promise<SandboxProfile> {
    const found: Found = { masked: [], readOnly: [] };
    await this.updateTree();
    const memo = this.memo(key);
    this.collect(memo, this.tree, ctx, found);
    memo.bases ??= this.outsideBases(rules);
    for (const base of memo.bases) this.collectOutside(memo, base, ctx, found);
    const git = this.gitParts();
    found.readOnly.push(...git.present);
    const tidy = this.tidy(found);
    // A protected path inside a folder the rules mask is hidden already; a mount inside that empty folder would fail.
    const maskedDirs = tidy.masked.filter((m) => m.dir).map((m) => m.path);
    return {
      workDir: this.workDir,
      network: this.network,
      pinned: this.pins([...tidy.readOnly, ...tidy.masked.map((m) => m.path)]),
      ...tidy,
      hidden: this.hidden(ctx.protectedPaths ?? []).filter((h) => !maskedDirs.some((d) => isInside(h.path, d))),
      gitUnmade: git.absent,
      gitDirs: git.gitDirs,
      gitPointers: git.pointers,
    };
  }

  /** The git directories of the work tree now. */
  async gitDirectories(): Promise<Pick<GitExecutionParts, "gitDirs" | "pointers">> {
    await this.updateTree();
    return this.gitParts();
  }

  private async updateTree(): Promise<void> {
    try {
      await this.tree.update();
    } catch (err) {
      if (err instanceof TreeTooLargeError) throw new SandboxRefusedError(err.message);
      throw err;
    }
  }

  /**
   * The profile for a long-lived process (an MCP server), which no call's rules cover: what is
   * never shown, and read-only what decides what git runs and the home folder's files that steer
   * programs, as they are when it starts.
   */
  async standing(protectedPaths: readonly string[]): Promise<SandboxProfile> {
    await this.updateTree();
    const git = this.gitParts();
    const { readOnly } = this.tidy({ masked: [], readOnly: [...git.present, ...homeSteeringParts(this.workDir)] });
    return { ...this.base(protectedPaths), readOnly, pinned: this.pins(readOnly), gitUnmade: git.absent, gitDirs: git.gitDirs, gitPointers: git.pointers };
  }

  /** What decides what git runs, in every git directory of the work tree: read-only whatever the rules say. */
  private gitParts(): GitExecutionParts {
    if (this.git?.version !== this.tree.version) this.git = { version: this.tree.version, parts: gitExecutionParts(this.tree.listings()) };
    return this.git.parts;
  }

  /** The profile for a person's own command: no rules, only what is never shown. */
  base(protectedPaths: readonly string[]): SandboxProfile {
    return {
      workDir: this.workDir,
      network: this.network,
      pinned: [],
      readOnly: [],
      masked: [],
      hidden: this.hidden(protectedPaths),
      gitUnmade: [],
      gitDirs: null,
      gitPointers: [],
    };
  }

  /** What was judged under one key, the most recently used kept. */
  private memo(key: string): Memo {
    let memo = this.memos.get(key);
    if (memo) this.memos.delete(key);
    else {
      memo = { folders: new Map(), totals: new Map(), wholeDenied: new Map() };
      if (this.memos.size >= MEMO_KEYS) this.memos.delete(this.memos.keys().next().value!);
    }
    this.memos.set(key, memo);
    return memo;
  }

  private collect(memo: Memo, tree: WorkTree, ctx: DecideContext, into: Found): void {
    let total = memo.totals.get(tree);
    if (total?.version !== tree.version || total.dangling) memo.totals.set(tree, (total = { version: tree.version, ...this.judgeTree(memo, tree, ctx) }));
    into.masked.push(...total.found.masked);
    into.readOnly.push(...total.found.readOnly);
  }

  /** What the rules deny in every folder of the tree; a folder is judged again only when its listing changed. */
  private judgeTree(memo: Memo, tree: WorkTree, ctx: DecideContext): Judged {
    const found: Found = { masked: [], readOnly: [] };
    let dangling = false;
    for (const [dir, listing] of tree.listings()) {
      let entry = memo.folders.get(dir);
      if (entry?.stamp !== listing.stamp || entry.dangling) {
        memo.folders.set(dir, (entry = { stamp: listing.stamp, ...judgeFolder(dir, listing, ctx, dir === tree.root) }));
        this.foldersJudged++;
      }
      found.masked.push(...entry.found.masked, ...listing.tooDeep.map((path) => ({ path, dir: true })));
      found.readOnly.push(...entry.found.readOnly);
      dangling ||= entry.dangling;
    }
    return { found, dangling };
  }

  /** Folders outside the work directory that read-deny rules with absolute patterns speak of. */
  private outsideBases(rules: readonly { tool: string; pattern: string; action: string }[]): string[] {
    const bases = new Set<string>();
    for (const r of rules) {
      if (r.action !== "deny" || !r.pattern.startsWith("/") || !(r.tool === "*" || r.tool === "read_file")) continue;
      const { base } = staticBase(r.pattern);
      if (!isInside(base, this.workDir) && !isInside(this.workDir, base)) bases.add(base);
    }
    return [...bases];
  }

  private collectOutside(memo: Memo, base: string, ctx: DecideContext, into: Found): void {
    // Most named places do not exist on a given host: one stat each, and nothing more.
    if (!fs.statSync(base, { throwIfNoEntry: false })) return;
    const real = resolveRealPath(base);
    const kind = kindAt(real);
    if (!kind) return;
    if (kind === "file") {
      if (pathAccess(base, ctx).readDenied) into.masked.push({ path: real, dir: false });
      return;
    }
    // A folder denied as a whole (`~/.ssh/*`) is one mask: what it holds need not be walked.
    let whole = memo.wholeDenied.get(base);
    if (whole === undefined) memo.wholeDenied.set(base, (whole = contentsAccess(base, { ...ctx, resolveRealPath: identity }).readDenied));
    if (whole) {
      into.masked.push({ path: real, dir: true });
      return;
    }
    let tree = this.outside.get(real);
    if (!tree) this.outside.set(real, (tree = new WorkTree(real, OUTSIDE_WALK_LIMIT)));
    try {
      tree.refresh();
    } catch (err) {
      if (!(err instanceof TreeTooLargeError)) throw err;
      if (real === "/")
        throw new SandboxRefusedError(`a deny rule for read_file names files anywhere under / by an absolute pattern; the sandbox cannot mask them all`);
      into.masked.push({ path: real, dir: true });
      return;
    }
    const found: Found = { masked: [], readOnly: [] };
    this.collect(memo, tree, ctx, found);
    into.masked.push(...found.masked);
  }

  private hidden(protectedPaths: readonly string[]): Mask[] {
    const masks: Mask[] = [];
    for (const p of protectedPaths) {
      const real = resolveRealPath(p);
      if (isInside(this.workDir, real))
        throw new SandboxRefusedError(`the work directory ${this.workDir} is inside the protected path ${p}, which the sandbox hides`);
      const kind = kindAt(real);
      if (kind && this.visible(real)) masks.push({ path: real, dir: kind === "dir" });
    }
    // A path inside a hidden folder is hidden with it; a mount inside that empty folder would fail.
    return masks.filter((m) => !masks.some((d) => d.dir && d.path !== m.path && isInside(m.path, d.path)));
  }

  /** Whether a host path is what the sandbox shows at that place (not under its private /tmp, say). */
  private visible(p: string): boolean {
    return underPrivateRoot(p, this.workDir) === undefined;
  }

  /** The folders between the work directory and each path, parents first. */
  private pins(paths: readonly string[]): string[] {
    const pins = new Set<string>();
    for (const p of paths) {
      if (!isInside(p, this.workDir)) continue;
      for (let dir = path.dirname(p); dir !== this.workDir && isInside(dir, this.workDir) && !pins.has(dir); dir = path.dirname(dir)) pins.add(dir);
    }
    return [...pins].sort((a, b) => a.split("/").length - b.split("/").length);
  }

  /** Sorted, parents before children, nothing under a masked folder, nothing read-only that is masked. */
  private tidy(found: Found): Found {
    const masked = [...new Map(found.masked.filter((m) => this.visible(m.path)).map((m) => [m.path, m])).values()].sort((a, b) => a.path.localeCompare(b.path));
    const maskedDirs: string[] = [];
    const keptMasks = masked.filter((m) => {
      if (maskedDirs.some((d) => isInside(m.path, d))) return false;
      if (m.dir) maskedDirs.push(m.path);
      return true;
    });
    const maskedPaths = new Set(keptMasks.map((m) => m.path));
    const roDirs: string[] = [];
    const readOnly = [...new Set(found.readOnly)]
      .filter((p) => isInside(p, this.workDir) && !maskedPaths.has(p) && !maskedDirs.some((d) => isInside(p, d)))
      .sort()
      .filter((p) => {
        if (roDirs.some((d) => isInside(p, d))) return false;
        roDirs.push(p);
        return true;
      });
    return { masked: keptMasks, readOnly };
  }
}
