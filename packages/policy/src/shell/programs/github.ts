import type { SpecInput } from "../spec.js";

/**
 * gh, the GitHub command line: a group, then a command, each with many flags. The commands that
 * write files (`repo clone DIR`, `release download -D DIR`), read them (`release upload FILES`,
 * `secret set -f FILE`, `api -F k=@FILE`), print the credential gh signs in with, or change what
 * gh and git run later are modelled; the rest take text.
 */
const COMMON =
  "-R:text --repo:text -b:text --body:text -t:text --title:text -F:read --body-file:read -q:text --jq:text " +
  "--template:text -L:text --limit:text -s:text --state:text --json:text -w --web -B:text --base:text " +
  "-H:text --head:text -a:text --assignee:text -l:text --label:text -m:text --milestone:text -r:text " +
  "--reviewer:text -A:text --author:text -S:text --search:text -e:text --env:text --branch:text " +
  "--comments -d --draft --fill --fill-first -p:text --project:text --app:text -u:text --user:text " +
  "-o:text --org:text -O:text --owner:text --visibility:text --sort:text --order:text --match:text " +
  "--ref:text -W:text --workflow:text --status:text --event:text --commit:text -n:text --name:text " +
  "--hostname:text --since:text --exit-status --log --log-failed --verbose --public --private --internal " +
  "--yes -y --squash --merge --rebase --auto --admin --delete-branch --disable-auto --patch --name-only " +
  "--color:text --paginate --slurp -i --include --silent --cache:text -X:text --method:text " +
  "--preview:text";

/** A command of a group: the common flags, any other flag, text operands unless said otherwise. */
const command = (more: Partial<SpecInput> = {}, options = ""): SpecInput => ({
  anyFlag: true,
  operands: "text",
  ...more,
  options: `${COMMON} ${options}`,
});

const group = (names: string[], special: Record<string, SpecInput> = {}, risk?: string): SpecInput => ({
  anyFlag: true,
  operands: "text",
  options: "-R:text --repo:text",
  ...(risk ? { risk } : {}),
  subcommands: { ...Object.fromEntries(names.map((n) => [n, command(risk ? { risk } : {})])), ...special },
});

/** Words after `--` in `gh repo clone` and `gh repo fork --clone` are git clone's own options. */
const GIT_OPTIONS = "passes options on to git clone, which can make it run programs (--template, -c, --upload-pack)";
/** `-F key=@file` reads the file into the request. */
const FIELDS = "-F:data --field:data -f:text --raw-field:text --input:read";
const CREDENTIAL = "prints the credential gh signs in with";

export const GITHUB_PROGRAMS: Record<string, SpecInput> = {
  gh: {
    anyFlag: true,
    operands: "text",
    options: "-R:text --repo:text --version --help -h",
    subcommands: {
      api: command({}, `${FIELDS}`),
      auth: group(["login", "logout", "refresh", "switch"], {
        status: { ...command({}, "-t --show-token -a --active"), optionRisks: { "-t": CREDENTIAL, "--show-token": CREDENTIAL } },
        token: { ...command(), risk: CREDENTIAL },
        "setup-git": { ...command(), risk: "makes git run gh for its credentials, a change to the user's git settings outside the work directory" },
      }),
      browse: command(),
      cache: group(["list", "delete"]),
      codespace: group(["code", "create", "delete", "edit", "jupyter", "list", "logs", "ports", "rebuild", "stop", "view"], {
        cp: command({ operands: { rest: "read", last: "write" } }),
        ssh: { ...command(), risk: "runs commands in a codespace" },
      }),
      gist: group(["delete", "list", "rename", "view"], {
        clone: command({ operands: { lead: ["text"], rest: "write" }, forwards: GIT_OPTIONS }),
        create: command({ operands: "read" }),
        edit: command({}, "-a:read --add:read -f:text --filename:text"),
      }),
      issue: group([
        "create",
        "list",
        "status",
        "close",
        "comment",
        "delete",
        "develop",
        "edit",
        "lock",
        "pin",
        "reopen",
        "transfer",
        "unlock",
        "unpin",
        "view",
      ]),
      label: group(["clone", "create", "delete", "edit", "list"]),
      org: group(["list"]),
      pr: group([
        "create",
        "list",
        "status",
        "checkout",
        "checks",
        "close",
        "comment",
        "diff",
        "edit",
        "lock",
        "merge",
        "ready",
        "reopen",
        "review",
        "unlock",
        "update-branch",
        "view",
      ]),
      project: group([
        "close",
        "copy",
        "create",
        "delete",
        "edit",
        "field-create",
        "field-delete",
        "field-list",
        "item-add",
        "item-archive",
        "item-create",
        "item-delete",
        "item-edit",
        "item-list",
        "link",
        "list",
        "mark-template",
        "unlink",
        "view",
      ]),
      release: group(["list", "delete", "delete-asset", "edit", "view"], {
        create: command({ operands: { lead: ["text"], rest: "read" } }, "-n:text --notes:text -F:read --notes-file:read"),
        upload: command({ operands: { lead: ["text"], rest: "read" } }),
        download: command({}, "-D:write --dir:write -O:write --output:write -p:text --pattern:text -A:text --archive:text"),
        verify: command(),
        "verify-asset": command({ operands: { lead: ["text"], rest: "read" } }),
      }),
      repo: group(["list", "archive", "autolink", "delete", "edit", "gitignore", "license", "rename", "set-default", "sync", "unarchive", "view"], {
        clone: command({ operands: { lead: ["text"], rest: "write" }, forwards: GIT_OPTIONS }, "-u:text --upstream-remote-name:text"),
        fork: command({ forwards: GIT_OPTIONS }, "--clone --remote --remote-name:text --fork-name:text --default-branch-only"),
        create: command({}, "--source:read --clone --add-readme -g:text --gitignore:text --license:text --homepage:text -d:text --description:text"),
        "deploy-key": group(["list", "delete"], { add: command({ operands: "read" }) }),
      }),
      ruleset: group(["check", "list", "view"]),
      run: group(["cancel", "delete", "list", "rerun", "view", "watch"], {
        download: command({}, "-D:write --dir:write -n:text --name:text -p:text --pattern:text"),
      }),
      search: group(["code", "commits", "issues", "prs", "repos"]),
      secret: group(["delete", "list"], { set: command({}, "-f:read --env-file:read -b:text --body:text") }),
      variable: group(["delete", "get", "list"], { set: command({}, "-f:read --env-file:read -b:text --body:text") }),
      "ssh-key": group(["delete", "list"], { add: command({ operands: "read" }) }),
      "gpg-key": group(["delete", "list"], { add: command({ operands: "read" }) }),
      status: command(),
      workflow: group(["disable", "enable", "list", "view"], { run: command({}, FIELDS) }),
      attestation: group(["inspect", "trusted-root"], {
        download: command(),
        verify: command({ operands: "read" }, "--bundle:read --custom-trusted-root:read"),
      }),
      completion: command(),
      alias: { anyFlag: true, operands: "text", risk: "defines commands, which can run shell code" },
      config: {
        anyFlag: true,
        operands: "text",
        risk: "changes settings that choose programs gh runs (editor, pager, browser)",
        subcommands: {
          get: command(),
          list: command(),
          set: { ...command(), risk: "changes settings that choose programs gh runs (editor, pager, browser)" },
          "clear-cache": command(),
        },
      },
      extension: { anyFlag: true, operands: "text", risk: "installs or runs extensions, programs gh runs" },
    },
  },
};
