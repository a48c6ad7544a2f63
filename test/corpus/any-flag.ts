// Programs that accept any flag (git's subcommands, package managers, gh, docker, kubectl, cargo,
// go, terraform) and programs known only by a rule that names them (helm). The rules allow each
// program whole, so only the programs' models stand between these and an allow: the word after an
// option the gate does not know may be that option's file, `k=v,k=v` values hold files
// (`--secret id=x,src=FILE`), some commands write to an operand (`gh repo clone R DIR`), and some
// print a credential. gh, docker and kubectl are not installed where these tests run, so their
// cases are decisions only; npm's are also run in real bash (bypass-npm.test.ts).
import { rules, type Layers } from "../support/shell-corpus.js";

export const ANY_FLAG: Layers = rules(`{
  "*": "ask",
  "read_file": { "*": "allow", "*.env": "deny", "*.env.*": "deny", "~/.ssh/*": "deny", "*.pem": "deny" },
  "write_file": { "*": "allow", "*.env": "deny", "/etc/*": "deny" },
  "shell_exec": { "*": "ask", ${[
    "gh",
    "docker",
    "kubectl",
    "npm",
    "pnpm",
    "yarn",
    "bun",
    "git",
    "cargo",
    "go",
    "terraform",
    "pip",
    "helm",
    "gcloud",
    "aws",
    "az",
    "pytest",
    "rustc",
    "jest",
    "vitest",
    "mypy",
  ]
    .map((p) => `"${p}": "allow", "${p} *": "allow"`)
    .join(", ")} }
}`);
