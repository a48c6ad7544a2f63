import fs from "node:fs";
import path from "node:path";
import { lintRules } from "@gatehouse/policy";
import { homeDirectory } from "@gatehouse/policy/node";
import { CliError } from "../cli-error.js";

export interface LintResult {
  exitCode: number;
  stdout: string[];
  stderr: string[];
}

/** Errors (exit 2) and warnings (exit 0), each as FILE:LINE:COL: message. */
export function permissionsLint(file: string | undefined): LintResult {
  if (!file) throw new CliError("missing FILE: gatehouse permissions lint FILE");
  const abs = path.resolve(file);
  let text: string;
  try {
    text = fs.readFileSync(abs, "utf8");
  } catch (err) {
    return { exitCode: 2, stdout: [], stderr: [`${file}:1:1: cannot read the rules file: ${(err as Error).message}`] };
  }
  const report = lintRules(text, { file, home: homeDirectory() });
  const line = (kind: string, i: { line: number; column: number; message: string }) => `${file}:${i.line}:${i.column}: ${kind}${i.message}`;
  const stderr = report.errors.map((e) => line("", e));
  const stdout = report.warnings.map((w) => line("warning: ", w));
  if (stderr.length === 0 && stdout.length === 0) stdout.push(`${file}: no problems found`);
  return { exitCode: stderr.length > 0 ? 2 : 0, stdout, stderr };
}
