import { isLiteral, type ShellWord } from "./words.js";

/**
 * Environment variables a command line may set for the programs it runs. An allow-list: a
 * variable not on it may select a program, a library or a configuration (`GIT_SSH_COMMAND`,
 * `*_WRAPPER`, `EDITOR`, `HOME`), so setting it asks.
 */
const HARMLESS = new Set([
  "LANG",
  "LANGUAGE",
  "LC_ALL",
  "TZ",
  "TERM",
  "COLUMNS",
  "LINES",
  "NO_COLOR",
  "FORCE_COLOR",
  "CLICOLOR",
  "CLICOLOR_FORCE",
  "COLORTERM",
  "CI",
  "DEBUG",
  "VERBOSE",
  "QUIET",
  "LOG_LEVEL",
  "LOGLEVEL",
  "NODE_ENV",
  "RAILS_ENV",
  "RACK_ENV",
  "APP_ENV",
  "MIX_ENV",
  "FLASK_ENV",
  "RUST_LOG",
  "RUST_BACKTRACE",
  "CARGO_TERM_COLOR",
  "CARGO_INCREMENTAL",
  "GOOS",
  "GOARCH",
  "CGO_ENABLED",
  "GO111MODULE",
  "PYTHONUNBUFFERED",
  "PYTHONDONTWRITEBYTECODE",
  "PYTHONHASHSEED",
  "PYTHONIOENCODING",
  "PYTHONUTF8",
  "GIT_AUTHOR_NAME",
  "GIT_AUTHOR_EMAIL",
  "GIT_AUTHOR_DATE",
  "GIT_COMMITTER_NAME",
  "GIT_COMMITTER_EMAIL",
  "GIT_COMMITTER_DATE",
  "GIT_TERMINAL_PROMPT",
  "PORT",
  "HOST",
  "TIMEOUT",
  "JOBS",
  "NPM_CONFIG_LOGLEVEL",
  "HUSKY",
  "DISABLE_OPENCOLLECTIVE",
  "ADBLOCK",
  "NEXT_TELEMETRY_DISABLED",
  "PIP_DISABLE_PIP_VERSION_CHECK",
  "PIP_NO_INPUT",
  "TF_IN_AUTOMATION",
  "SOURCE_DATE_EPOCH",
  "TEST",
  "TESTS",
  "UPDATE_SNAPSHOTS",
]);

/** Variables of bash itself that change what the shell runs or where it looks, set or not exported. */
const SHELL_SPECIAL = new Set([
  "PATH",
  "IFS",
  "PS4",
  "PS1",
  "PS2",
  "PROMPT_COMMAND",
  "BASH_ENV",
  "ENV",
  "SHELLOPTS",
  "BASHOPTS",
  "GLOBIGNORE",
  "CDPATH",
  "HOME",
  "BASH_XTRACEFD",
  "EXECIGNORE",
  "FUNCNEST",
  "BASH_COMPAT",
  "BASH_LOADABLES_PATH",
  "HISTFILE",
  "MAILPATH",
  "MAIL",
  "TMOUT",
  "POSIXLY_CORRECT",
  "SHELL",
  "TMPDIR",
  "INPUTRC",
  "OLDPWD",
  "PWD",
  "BASH_ARGV0",
  "HOSTFILE",
  "USER",
  "LOGNAME",
]);

export function isHarmlessVariable(name: string): boolean {
  return HARMLESS.has(name) || name.startsWith("LC_");
}

/** Variables that name the pager a program sends its output through. */
const PAGERS: ReadonlySet<string> = new Set(["PAGER", "GIT_PAGER", "MANPAGER"]);

/**
 * Whether `NAME=value` before a command is harmless: a variable on the allow-list, or a pager set
 * to `cat`, which only passes the output on (`GIT_PAGER=cat git log`).
 */
export function isHarmlessAssignment(name: string, value: ShellWord | null): boolean {
  return isHarmlessVariable(name) || (PAGERS.has(name) && value !== null && isLiteral(value) && value.text === "cat");
}

/**
 * A variable set in the shell without export changes only the shell: a few of bash's own
 * variables, and those the environment already exports, change what runs. The worker exports git's
 * protected settings (`GIT_CONFIG_COUNT`, `GIT_CONFIG_KEY_n`, `GIT_CONFIG_VALUE_n`) to every command.
 */
export function changesTheShell(name: string): boolean {
  return SHELL_SPECIAL.has(name) || /^(LD_|DYLD_|BASH_FUNC_|GIT_CONFIG_)/.test(name);
}
