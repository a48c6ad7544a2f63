/**
 * The loopback port, inside a command's own network namespace, where its proxy is offered: HTTP
 * and SOCKS5 on the same port (the proxy tells them apart by the first byte), so one relay
 * process serves both.
 */
export const RELAY_PORT = 3128;

/** Where the worker's proxy socket is bound inside the sandbox (its private /tmp). */
export const SANDBOX_SOCKET = "/tmp/.gatehouse-egress.sock";

/** The variables that send a program's connections through the proxy, in both spellings. */
export function proxyEnvironment(): Record<string, string> {
  const http = `http://127.0.0.1:${RELAY_PORT}`;
  const socks = `socks5h://127.0.0.1:${RELAY_PORT}`;
  const noProxy = "localhost,127.0.0.1,::1";
  const env: Record<string, string> = {};
  for (const [name, value] of [
    ["HTTP_PROXY", http],
    ["HTTPS_PROXY", http],
    ["ALL_PROXY", socks],
    ["NO_PROXY", noProxy],
  ] as const) {
    env[name] = value;
    env[name.toLowerCase()] = value;
  }
  return env;
}
