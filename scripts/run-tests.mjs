// Type-checks the workspace, builds the browser console, lints it (eslint and import cycles), checks for dead code and unused dependencies (knip) and format-checks it, runs every test, and ends with the line "N passed, N failed, N skipped".
import { spawnSync } from "node:child_process";
import fs from "node:fs";

const report = "node_modules/.cache/vitest-report.json";
const run = (cmd, args) => spawnSync(cmd, args, { stdio: "inherit" }).status ?? 1;

const typecheck = run("pnpm", ["exec", "tsc", "-b"]);
if (typecheck !== 0) {
  console.error("type check failed");
  process.exit(typecheck);
}
// The browser tests load the console the server serves: build it from the current sources.
if (run("node", ["apps/web/build.mjs"]) !== 0) {
  console.error("building the web console failed");
  process.exit(1);
}
for (const [what, args] of [
  ["lint (eslint, then import cycles)", ["lint"]],
  ["dead code check (knip: unused files, exports and dependencies; knip.jsonc says what it leaves out and why)", ["exec", "knip", "--no-progress"]],
  ["format check (fix with: pnpm format)", ["exec", "prettier", "--check", "."]],
]) {
  if (run("pnpm", args) !== 0) {
    console.error(`${what} failed`);
    process.exit(1);
  }
}
fs.rmSync(report, { force: true });
const status = run("pnpm", ["exec", "vitest", "run", "--reporter=default", "--reporter=json", `--outputFile.json=${report}`, ...process.argv.slice(2)]);
if (fs.existsSync(report)) {
  const r = JSON.parse(fs.readFileSync(report, "utf8"));
  console.log(`${r.numPassedTests} passed, ${r.numFailedTests} failed, ${r.numPendingTests + r.numTodoTests} skipped`);
}
process.exit(status);
