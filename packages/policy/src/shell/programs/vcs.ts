import type { SpecInput } from "../spec.js";

/**
 * Flags most subcommands share: known, so the word after one is not taken for its value (an
 * unknown option's next word may be a file it writes, and is checked so).
 */
const FLAGS =
  "--oneline --stat --shortstat --numstat --name-only --name-status --graph --all --no-merges --merges " +
  "--first-parent --reverse --patch -p --cached --staged --follow --no-decorate --abbrev-commit --summary " +
  "--full-history --topo-order --date-order --left-right --raw --ignore-all-space -w --no-color --color?=text " +
  "--word-diff?=text --no-ext-diff --exit-code --quiet -q --verbose -v --check --minimal --histogram --patience " +
  "--no-renames --binary -z --no-prefix --unified?=text -U?=text --relative?=text --diff-filter?=text " +
  "--find-renames?=text --force -f --no-verify --amend --no-edit --signoff --ff-only --no-ff --autostash";
/** Git subcommands take many options; the ones listed with a value or a risk are the ones that matter. */
const sub = (options = "", more: Partial<SpecInput> = {}): SpecInput => ({ options: `${FLAGS} ${options}`, anyFlag: true, operands: "path", ...more });
const LOG =
  "-n:text -L:text -G:text -S:text -O:read --format:text --pretty?=text --since:text --after:text " +
  "--until:text --before:text --author:text --committer:text --grep:text --max-count:text --skip:text " +
  "--date:text --abbrev?=text --decorate?=text --output:write! --ext-diff! --textconv! " +
  "--open-files-in-pager?=runs --submodule?=text";
const REMOTE = "--upload-pack:runs --receive-pack:runs --exec:runs -u:runs --recurse-submodules?=text";

/** git: global options, then a subcommand with its own. */
export const VCS_PROGRAMS: Record<string, SpecInput> = {
  git: {
    options:
      "-C:project -c:runs --config-env:runs --exec-path?=runs! -p! -P --paginate! --no-pager " +
      "--git-dir:project --work-tree:project --namespace:text --bare --no-replace-objects " +
      "--literal-pathspecs --glob-pathspecs --noglob-pathspecs --icase-pathspecs --no-optional-locks " +
      "--version --help -h --html-path --man-path --info-path",
    subcommandOptional: true,
    operands: "text",
    subcommands: {
      status: sub(),
      log: sub(LOG),
      show: sub(LOG),
      diff: sub(LOG),
      whatchanged: sub(LOG),
      shortlog: sub(`${LOG} -n -s -e -c -w?=text --numbered --summary --email`),
      "range-diff": sub(LOG),
      blame: sub("-L:text -S:read --contents:read --date:text --ignore-rev:text --ignore-revs-file:read"),
      branch: sub("--format:text --sort:text --contains:text --merged:text --no-merged:text --points-at:text -u:text --set-upstream-to:text"),
      checkout: sub("-b:text -B:text --orphan:text --pathspec-from-file:names"),
      switch: sub("-c:text -C:text --create:text --force-create:text --orphan:text"),
      restore: sub("-s:text --source:text --pathspec-from-file:names"),
      add: sub("--pathspec-from-file:names --chmod:text"),
      commit: sub(
        "-m:text --message:text -F:read --file:read -C:text -c:text --reuse-message:text " +
          "--reedit-message:text --fixup:text --squash:text --author:text --date:text --cleanup:text -t:read " +
          "--template:read --trailer:text --pathspec-from-file:names -S?=text --gpg-sign?=text",
        { operands: "path" },
      ),
      reset: sub("--pathspec-from-file:names --hard --soft --mixed --keep --merge --quiet --no-refresh --recurse-submodules?=text"),
      revert: sub("-m:text --mainline:text --strategy:runs -X:text"),
      "cherry-pick": sub("-m:text --mainline:text --strategy:runs -X:text"),
      stash: sub("-m:text --message:text --pathspec-from-file:names", { operands: "text" }),
      fetch: sub(
        `${REMOTE} --depth:text --deepen:text --shallow-since:text --refmap:text -j:text --jobs:text -p --prune -P --prune-tags ` +
          "--all --multiple -t --tags -n --no-tags -f --force --dry-run -q --quiet -v --verbose --progress --unshallow --atomic --no-recurse-submodules",
        { operands: "remote" },
      ),
      pull: sub(`${REMOTE} --depth:text -s:runs --strategy:runs -X:text --strategy-option:text`, { operands: "remote" }),
      push: sub(
        `${REMOTE} -u --set-upstream -o:text --push-option:text --force-with-lease?=text --repo:text --force ` +
          `--force-if-includes --delete --mirror --all --tags --follow-tags --set-upstream --dry-run --prune --atomic ` +
          `--no-verify --verify --porcelain --quiet --verbose`,
        { operands: "remote" },
      ),
      clone: sub(
        `${REMOTE} --template:runs -c:runs --config:runs -o:text --origin:text -b:text --branch:text --depth:text ` +
          `--reference:path --separate-git-dir:write -j:text --jobs:text --filter:text`,
        { operands: { lead: ["remote"], rest: "write" } },
      ),
      merge: sub("-m:text -F:read -s:runs --strategy:runs -X:text --strategy-option:text --into-name:text"),
      rebase: sub("-x:runs --exec:runs -i! --interactive! -s:runs --strategy:runs -X:text --strategy-option:text --onto:text"),
      tag: sub("-m:text -F:read --message:text --file:read --sort:text --format:text --contains:text --points-at:text -u:text"),
      remote: sub("-t:text -m:text", { operands: "remote" }),
      "rev-parse": sub("--git-path:text --resolve-git-dir:path --prefix:text --default:text"),
      "rev-list": sub(LOG),
      "ls-files": sub("-x:text -X:read --exclude:text --exclude-from:read --exclude-per-directory:text --format:text"),
      "ls-tree": sub("--format:text --abbrev?=text"),
      "ls-remote": sub(REMOTE, { operands: "remote" }),
      grep: sub("-e:text -f:read -A:text -B:text -C:text -m:text --max-depth:text --threads:text -O?=runs! --open-files-in-pager?=runs!", {
        operands: { lead: ["text"], leadUnless: ["-e", "-f"], rest: "path" },
      }),
      describe: sub("--match:text --exclude:text --abbrev?=text --dirty?=text --broken?=text"),
      reflog: sub(LOG),
      "cat-file": sub("--batch?=text --batch-check?=text --filters! --textconv!"),
      "show-ref": sub(),
      "for-each-ref": sub("--format:text --sort:text --count:text --contains:text --points-at:text"),
      "symbolic-ref": sub(),
      "merge-base": sub(),
      "name-rev": sub(),
      cherry: sub(),
      "count-objects": sub(),
      fsck: sub(),
      gc: { risk: "runs hooks and maintenance tasks", anyFlag: true, operands: "text" },
      prune: sub(),
      "check-ignore": sub(),
      "check-attr": sub(),
      version: sub(),
      help: sub("", { operands: "text" }),
      init: sub("--template:runs -b:text --initial-branch:text --separate-git-dir:write", { operands: "write" }),
      clean: sub("-e:text --exclude:text --force --dry-run --quiet --interactive!"),
      mv: sub("", { operands: "write" }),
      rm: sub("--pathspec-from-file:names", { operands: "write" }),
      apply: sub("-p:text --directory:write --unsafe-paths! --exclude:text --include:text --build-fake-ancestor:write", { operands: "read" }),
      am: { risk: "runs the applypatch hooks", anyFlag: true, operands: "read" },
      "format-patch": sub("-o:write --output-directory:write --output:write -v:text --subject-prefix:text --cover-letter --signature-file:read"),
      archive: sub("-o:write --output:write --format:text --prefix:text --remote:runs --exec:runs"),
      worktree: sub("-b:text -B:text --reason:text", { operands: "write" }),
      "sparse-checkout": sub("", { operands: "text" }),
      notes: sub("-m:text -F:read --ref:text", { operands: "text" }),
      bisect: sub("", { operands: "text", subcommands: bisectSubcommands() }),
      "update-index": sub("--chmod:text --index-info! --stdin!"),
      "hash-object": sub("--path:path --stdin-paths!", { operands: "read" }),
      var: sub("", { operands: "text" }),
      config: {
        risk: "changes settings that can make git run programs",
        safeWith: ["--get", "--get-all", "--get-regexp", "--get-urlmatch", "--list", "-l", "--show-origin", "--show-scope", "--name-only"],
        options:
          "--get --get-all --get-regexp --get-urlmatch --list -l --show-origin --show-scope --name-only " +
          "--global --local --system --worktree -f:read --file:read",
        anyFlag: true,
        operands: "text",
      },
      difftool: { risk: "runs the configured diff program", anyFlag: true, operands: "path" },
      mergetool: { risk: "runs the configured merge program", anyFlag: true, operands: "path" },
      "filter-branch": { risk: "runs the filters it is given", anyFlag: true, operands: "text" },
      submodule: sub("-b:text --branch:text --name:text --reference:path --depth:text -j:text --jobs:text", {
        operands: "text",
        subcommands: submoduleSubcommands(),
      }),
    },
  },
};

function bisectSubcommands(): Record<string, SpecInput> {
  const plain = (): SpecInput => ({ anyFlag: true, operands: "text" });
  return {
    start: plain(),
    bad: plain(),
    good: plain(),
    new: plain(),
    old: plain(),
    skip: plain(),
    reset: plain(),
    log: plain(),
    visualize: plain(),
    view: plain(),
    terms: plain(),
    replay: { operands: "read" },
    run: { risk: "runs the command it is given at every step", anyFlag: true, operands: "text" },
  };
}

function submoduleSubcommands(): Record<string, SpecInput> {
  const plain = (): SpecInput => ({ anyFlag: true, operands: "text" });
  return {
    status: plain(),
    init: plain(),
    deinit: plain(),
    update: plain(),
    sync: plain(),
    summary: plain(),
    add: { anyFlag: true, operands: { lead: ["remote"], rest: "write" } },
    "set-branch": plain(),
    "set-url": { anyFlag: true, operands: "remote" },
    absorbgitdirs: plain(),
    foreach: { risk: "runs a command in every submodule", anyFlag: true, operands: "text" },
  };
}
