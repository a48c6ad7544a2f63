import type { ShellWord } from "../words.js";

/**
 * Commands that print, or mint and print, the credential a program signs in with, for programs the
 * gate has no model of (a rule may allow one by name: `"gcloud *": "allow"`) and for settings a
 * model cannot tell apart by option (`gh config get oauth_token`). They ask, since a printed
 * credential lets any allowed program act past the gate.
 */
const PRINTERS: readonly (readonly string[])[] = [
  "gcloud auth print-access-token",
  "gcloud auth print-identity-token",
  "gcloud auth application-default print-access-token",
  "gcloud config config-helper",
  "aws configure get",
  "aws configure export-credentials",
  "aws sts get-session-token",
  "aws sts assume-role",
  "aws ecr get-login-password",
  "aws ecr-public get-login-password",
  "aws codeartifact get-authorization-token",
  "aws sso get-role-credentials",
  "az account get-access-token",
  "az acr login --expose-token",
  "glab auth token",
  "glab auth status --show-token",
  "glab auth status -t",
  "heroku auth:token",
  "doctl auth token",
  "fly auth token",
  "flyctl auth token",
  "vault print token",
  "vault token create",
  "op read",
  "op item get",
  "pass show",
  "gopass show",
  "security find-generic-password",
  "security find-internet-password",
  "secret-tool lookup",
  "npm token",
  "gh config get oauth_token",
  "git credential fill",
  "git credential-store get",
  "git credential-cache get",
].map((line) => line.split(" "));

const PROGRAMS: ReadonlySet<string> = new Set(PRINTERS.map((p) => p[0]!));

/** Whether the command's words, in order with others between them, hold one of the commands above: why it asks, or null. */
export function printsCredential(program: string, words: readonly ShellWord[]): string | null {
  if (!PROGRAMS.has(program)) return null;
  for (const printer of PRINTERS) {
    if (printer[0] !== program) continue;
    let k = 1;
    for (let i = 1; i < words.length && k < printer.length; i++) if (words[i]!.text === printer[k]) k++;
    if (k === printer.length) return `${printer.join(" ")} prints a credential the program signs in with`;
  }
  return null;
}
