import { execFileSync } from "node:child_process";
import fs from "node:fs";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import pg from "pg";

/** The directory of PostgreSQL's server programs (Debian keeps them out of PATH, one folder per version). */
function binDir(): string {
  const root = "/usr/lib/postgresql";
  const versions = fs.existsSync(root) ? fs.readdirSync(root).filter((v) => fs.existsSync(path.join(root, v, "bin", "initdb"))) : [];
  const newest = versions.sort((a, b) => Number(b) - Number(a))[0];
  if (!newest) throw new Error("PostgreSQL's server programs are not installed (scripts/test installs them: apt-get install postgresql)");
  return path.join(root, newest, "bin");
}

/** A port nobody listens on now. */
async function freePort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.address() as net.AddressInfo).port;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/** PostgreSQL refuses to run as root: as root its programs run as the `postgres` user. */
function run(program: string, args: string[]): string {
  const asRoot = process.getuid?.() === 0;
  const [cmd, argv] = asRoot ? ["runuser", ["-u", "postgres", "--", program, ...args]] : [program, args];
  return execFileSync(cmd, argv, { encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] });
}

/**
 * A throwaway PostgreSQL server: its own cluster in a temporary folder, on a free loopback port,
 * durable writes off unless asked (nothing here must outlive the test). One per test file; a
 * database per test.
 */
export class TestPostgres {
  private databases = 0;

  private constructor(
    readonly dir: string,
    readonly port: number,
    private readonly options: readonly string[],
  ) {}

  /**
   * With `durable`, writes are flushed as in production (for benchmarks); tests do without.
   * `parent` is where its folder goes (the system's temporary folder unless said).
   */
  static async start(opts: { durable?: boolean; parent?: string } = {}): Promise<TestPostgres> {
    const bin = binDir();
    const dir = fs.mkdtempSync(path.join(opts.parent ?? os.tmpdir(), "gh-pg-"));
    if (process.getuid?.() === 0) execFileSync("chown", ["postgres:postgres", dir]);
    const data = path.join(dir, "data");
    run(path.join(bin, "initdb"), ["-D", data, "-U", "postgres", "-A", "trust", "-E", "UTF8", "--locale=C", "--no-sync"]);
    const port = await freePort();
    const fast = opts.durable ? [] : ["-c fsync=off", "-c synchronous_commit=off", "-c full_page_writes=off"];
    const options = [`-p ${port}`, `-k ${dir}`, "-c listen_addresses=127.0.0.1", ...fast];
    const postgres = new TestPostgres(dir, port, options);
    postgres.resume();
    return postgres;
  }

  /** Stops the server at once (as a crash would), keeping its data; `resume` starts it again on the same port. */
  pause(): void {
    run(path.join(binDir(), "pg_ctl"), ["-D", path.join(this.dir, "data"), "-m", "immediate", "-w", "stop"]);
  }

  resume(): void {
    const data = path.join(this.dir, "data");
    run(path.join(binDir(), "pg_ctl"), ["-D", data, "-l", path.join(this.dir, "log"), "-o", this.options.join(" "), "-w", "-t", "60", "start"]);
  }

  url(database = "postgres"): string {
    return `postgres://postgres@127.0.0.1:${this.port}/${database}`;
  }

  /** A new empty database; its URL. */
  async database(): Promise<string> {
    const name = `t${++this.databases}`;
    const client = new pg.Client({ connectionString: this.url() });
    await client.connect();
    try {
      await client.query(`CREATE DATABASE ${name} STRATEGY = FILE_COPY`);
    } finally {
      await client.end();
    }
    return this.url(name);
  }

  stop(): void {
    try {
      run(path.join(binDir(), "pg_ctl"), ["-D", path.join(this.dir, "data"), "-m", "immediate", "-w", "stop"]);
    } finally {
      fs.rmSync(this.dir, { recursive: true, force: true });
    }
  }
}
