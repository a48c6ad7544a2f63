import { execFileSync } from "node:child_process";

/** Runs a bash script on the host with git set up apart from the machine's settings: `home` holds its user settings. */
export function gitHost(home: string): (script: string, cwd: string) => string {
  const env = {
    PATH: "/usr/local/bin:/usr/bin:/bin",
    HOME: home,
    GIT_CONFIG_NOSYSTEM: "1",
    GIT_AUTHOR_NAME: "a",
    GIT_AUTHOR_EMAIL: "a@example.com",
    GIT_COMMITTER_NAME: "a",
    GIT_COMMITTER_EMAIL: "a@example.com",
  };
  return (script, cwd) => execFileSync("bash", ["-c", script], { cwd, env, encoding: "utf8" });
}
