/**
 * Commands of programs the gate has no model of that print, or mint and print, the credential the
 * program signs in with. A rule may allow such a program by name (`"gcloud *": "allow"`); these
 * still ask, since a printed credential lets any allowed program act past the gate.
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
].map((line) => line.split(" "));

/** Whether the words, in order with others between them, hold one of the commands above: why it asks, or null. */
export function printsCredential(words: readonly string[]): string | null {
  for (const printer of PRINTERS) {
    if (printer[0] !== words[0]) continue;
    let k = 1;
    for (let i = 1; i < words.length && k < printer.length; i++) if (words[i] === printer[k]) k++;
    if (k === printer.length) return `${printer.join(" ")} prints a credential the program signs in with`;
  }
  return null;
}
