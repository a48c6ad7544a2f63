/**
 * Settings git reads only from protected places (the command line, the user's and the system's
 * files), given to every tool process as command-line settings through the environment.
 * `safe.bareRepository=explicit`: a folder with a HEAD, `objects/` and `refs/` is used as a git
 * directory only when named by `--git-dir` or `GIT_DIR`, never found by walking up from the current
 * folder, so a planted one cannot make `git status` obey its settings (core.fsmonitor,
 * diff.external). A repository with a `.git`, its linked worktrees and submodules work as before.
 */
const PROTECTED_SETTINGS: readonly (readonly [string, string])[] = [["safe.bareRepository", "explicit"]];

/** `GIT_CONFIG_COUNT`, `GIT_CONFIG_KEY_n`, `GIT_CONFIG_VALUE_n` for the settings above. */
export function gitSafetyEnvironment(): Record<string, string> {
  const env: Record<string, string> = { GIT_CONFIG_COUNT: String(PROTECTED_SETTINGS.length) };
  PROTECTED_SETTINGS.forEach(([key, value], i) => {
    env[`GIT_CONFIG_KEY_${i}`] = key;
    env[`GIT_CONFIG_VALUE_${i}`] = value;
  });
  return env;
}
