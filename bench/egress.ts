// What the network proxy adds: per connection (a sandboxed client that connects, says a byte and
// hears it back, through the proxy, against the same client on the host connecting directly), per
// MB (a 256 MB download through the proxy against the same download direct), and per command (the
// relay's start, against a command with no network). Prints figures; asserts nothing.
import fs from "node:fs";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import { spawn } from "node:child_process";
import { loadShellParser } from "@gatehouse/policy";
import { FileGuard, resolveSandbox, ShellRunner } from "../apps/worker/src/index.js";
import { findRelay } from "../apps/worker/src/network/relay-command.js";

const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 500);
const MEGABYTES = Number(process.env.BENCH_MB ?? 256);
const COMMANDS = Number(process.env.BENCH_RUNS ?? 30);

await loadShellParser();
const work = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "gh-bench-egress-")));
const echo = net.createServer((s) => s.pipe(s));
const chunk = Buffer.alloc(1 << 20, 7);
const blob = net.createServer((s) => {
  let left = MEGABYTES;
  const more = () => {
    while (left > 0) {
      left--;
      if (!s.write(chunk)) return void s.once("drain", more);
    }
    s.end();
  };
  more();
});
const portOf = async (server: net.Server) => {
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", () => resolve()));
  return (server.address() as net.AddressInfo).port;
};
const [echoPort, blobPort] = [await portOf(echo), await portOf(blob)];

// The client, as a file both the sandboxed command and the host run: `through` CONNECTs via the
// HTTP proxy the variables name, `direct` connects itself. Prints the elapsed milliseconds.
const client = path.join(work, "client.mjs");
fs.writeFileSync(
  client,
  `import net from "node:net";
const [how, what, port, count] = process.argv.slice(2);
const proxy = process.env.HTTP_PROXY ? new URL(process.env.HTTP_PROXY) : null;
function open() {
  return new Promise((resolve, reject) => {
    if (how === "direct") { const s = net.connect(Number(port), "127.0.0.1", () => resolve([s, 0])).on("error", reject); return; }
    const s = net.connect(Number(proxy.port), proxy.hostname, () => s.write("CONNECT 127.0.0.1:" + port + " HTTP/1.1\\r\\n\\r\\n")).on("error", reject);
    let head = Buffer.alloc(0);
    const onData = (d) => {
      head = Buffer.concat([head, d]);
      const end = head.indexOf("\\r\\n\\r\\n");
      if (end === -1) return;
      s.off("data", onData);
      head.toString("latin1", 0, 12) === "HTTP/1.1 200" ? resolve([s, head.length - end - 4]) : reject(new Error(head.toString()));
    };
    s.on("data", onData);
  });
}
const t0 = performance.now();
if (what === "echo") {
  for (let i = 0; i < Number(count); i++) {
    const [s] = await open();
    await new Promise((resolve) => { s.once("data", resolve); s.write("x"); });
    s.destroy();
  }
} else {
  const [s, early] = await open();
  let bytes = early;
  await new Promise((resolve) => s.on("data", (d) => (bytes += d.length)).on("end", resolve));
  if (bytes !== Number(count) * 1048576) throw new Error("got " + bytes + " bytes");
}
console.log((performance.now() - t0).toFixed(3));
`,
);

const rules = (pattern: string) => ({ tool: "network", pattern, action: "allow" as const, origin: "person" as const });
const guard = new FileGuard(
  {
    agent: null,
    static: [rules(`127.0.0.1:${echoPort}`), rules(`127.0.0.1:${blobPort}`), { ...rules("*"), tool: "shell_exec" }],
    runtime: [],
    protectedPaths: [],
  },
  work,
);
// BENCH_RELAY=node measures the Node relay; otherwise socat when it is on the PATH.
const relay = process.env.BENCH_RELAY === "node" ? ({ kind: "node" } as const) : findRelay();
const proxied = new ShellRunner(work, resolveSandbox({ mode: "required", network: true }), { watch: false, egress: { relay } });
const offline = new ShellRunner(work, resolveSandbox({ mode: "required", network: false }), { watch: false });

async function output(child: ReturnType<typeof spawn>): Promise<string> {
  let out = "";
  let err = "";
  child.stdout!.on("data", (d: Buffer) => (out += d));
  child.stderr!.on("data", (d: Buffer) => (err += d));
  const code = await new Promise((resolve) => child.on("close", resolve));
  if (code !== 0) throw new Error(`exit ${String(code)}: ${err}`);
  return out.trim();
}
const inSandbox = (args: string) => proxied.start(`node ${client} through ${args}`, guard).then(output);
const onHost = (args: string) => output(spawn(process.execPath, [client, "direct", ...args.split(" ")], { stdio: ["ignore", "pipe", "pipe"] }));
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const load = () =>
  os
    .loadavg()
    .map((l) => l.toFixed(1))
    .join(" ");

console.log(`node ${process.version}, ${os.cpus().length} cores; load average ${load()} (1, 5, 15 min); relay: ${relay.kind}`);
const perConnection: number[] = [];
for (let round = 0; round < 5; round++) {
  const through = Number(await inSandbox(`echo ${echoPort} ${CONNECTIONS}`));
  const direct = Number(await onHost(`echo ${echoPort} ${CONNECTIONS}`));
  perConnection.push((through - direct) / CONNECTIONS);
  console.log(
    `  round ${round + 1}: ${CONNECTIONS} connections, each connect + 1 byte there and back: through the proxy ${(through / CONNECTIONS).toFixed(3)} ms, direct ${(direct / CONNECTIONS).toFixed(3)} ms`,
  );
}
console.log(`added per connection: median ${median(perConnection).toFixed(3)} ms, best ${Math.min(...perConnection).toFixed(3)} ms`);
const rates: { through: number; direct: number }[] = [];
for (let round = 0; round < 3; round++) {
  const through = Number(await inSandbox(`blob ${blobPort} ${MEGABYTES}`));
  const direct = Number(await onHost(`blob ${blobPort} ${MEGABYTES}`));
  rates.push({ through: (MEGABYTES / through) * 1000, direct: (MEGABYTES / direct) * 1000 });
  console.log(
    `  round ${round + 1}: ${MEGABYTES} MB through the proxy ${rates.at(-1)!.through.toFixed(0)} MB/s, direct ${rates.at(-1)!.direct.toFixed(0)} MB/s`,
  );
}
const through = median(rates.map((r) => r.through));
const direct = median(rates.map((r) => r.direct));
console.log(
  `through the proxy: median ${through.toFixed(0)} MB/s (direct ${direct.toFixed(0)} MB/s); added per MB ${(1000 / through - 1000 / direct).toFixed(3)} ms`,
);
const commandMs = async (runner: ShellRunner) => {
  const times: number[] = [];
  for (let i = 0; i < COMMANDS; i++) {
    const t = performance.now();
    await runner.start("true", guard).then(output);
    times.push(performance.now() - t);
  }
  return { min: Math.min(...times), p50: median(times) };
};
const [off, on] = [await commandMs(offline), await commandMs(proxied)];
console.log(
  `\`true\` in the sandbox, ${COMMANDS} runs: no network min ${off.min.toFixed(2)} / p50 ${off.p50.toFixed(2)} ms; through the proxy min ${on.min.toFixed(2)} / p50 ${on.p50.toFixed(2)} ms (the relay's start: +${(on.p50 - off.p50).toFixed(2)} ms)`,
);
echo.close();
blob.close();
proxied.close();
offline.close();
fs.rmSync(work, { recursive: true, force: true });
