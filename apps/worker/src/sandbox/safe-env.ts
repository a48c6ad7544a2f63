/** The variables a tool process inherits; everything else (the worker's token first) stays out. */
const SAFE_NAMES = new Set(["PATH", "HOME", "USER", "LOGNAME", "SHELL", "LANG", "LANGUAGE", "TERM", "COLORTERM", "NO_COLOR", "TZ"]);
const DEFAULT_PATH = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin";

/** A fresh environment from a safe list: PATH, HOME, locale and terminal settings, nothing else. */
export function safeEnvironment(from: NodeJS.ProcessEnv = process.env): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [name, value] of Object.entries(from)) {
    if (value !== undefined && (SAFE_NAMES.has(name) || name.startsWith("LC_"))) env[name] = value;
  }
  env.PATH ??= DEFAULT_PATH;
  return env;
}
