/**
 * Runs inside the sandbox, in the command's own network namespace: listens on the loopback port
 * the proxy variables name and passes each connection, as it is, to the worker's proxy through the
 * Unix socket bound into the sandbox; then runs the command and ends with its status. Only Node's
 * built-in modules: it starts before anything else in the sandbox.
 *
 * Usage: node inside-relay.js SOCKET -- PROGRAM [ARG...]
 */
import { spawn } from "node:child_process";
import net from "node:net";
import { RELAY_PORT } from "./relay-ports.js";

function relay(socketPath: string, client: net.Socket): void {
  const upstream = net.connect({ path: socketPath, allowHalfOpen: true });
  const end = () => {
    client.destroy();
    upstream.destroy();
  };
  client.on("error", end).pipe(upstream);
  upstream.on("error", end).pipe(client);
  client.on("close", () => upstream.destroy());
  upstream.on("close", () => client.destroy());
}

function listen(socketPath: string, port: number): Promise<void> {
  return new Promise((resolve, reject) => {
    const server = net.createServer({ allowHalfOpen: true }, (client) => relay(socketPath, client));
    server.once("error", reject).listen(port, "127.0.0.1", () => resolve());
  });
}

function run(argv: string[]): void {
  const child = spawn(argv[0]!, argv.slice(1), { stdio: "inherit" });
  for (const signal of ["SIGTERM", "SIGINT", "SIGHUP"] as const) process.on(signal, () => child.kill(signal));
  child.on("error", (err) => {
    process.stderr.write(`gatehouse: could not start ${argv[0]}: ${err.message}\n`);
    process.exit(127);
  });
  child.on("exit", (code, signal) => {
    if (code !== null) process.exit(code);
    process.removeAllListeners(signal!);
    process.kill(process.pid, signal!);
  });
}

const [socketPath, separator, ...argv] = process.argv.slice(2);
if (!socketPath || separator !== "--" || argv.length === 0) {
  process.stderr.write("usage: inside-relay SOCKET -- PROGRAM [ARG...]\n");
  process.exit(2);
}
listen(socketPath, RELAY_PORT).then(
  () => run(argv),
  (err: Error) => {
    process.stderr.write(`gatehouse: the network relay could not listen in the sandbox: ${err.message}\n`);
    process.exit(126);
  },
);
