import os from "node:os";
import path from "node:path";
import { z } from "zod";
import { describeConfigIssue, readConfigFile } from "./config-file.js";
import { GatehouseError } from "../errors.js";

const BaseURL = z.url({ error: "baseURL must be a URL" });
/** The name of the environment variable that holds an API key (never the key itself). */
const ApiKeyEnv = z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/, "apiKeyEnv must be an environment variable name");

const ProviderConfig = z.strictObject({
  /** The wire format: OpenAI-compatible chat completions or Anthropic messages. */
  api: z.enum(["openai-compatible", "anthropic"]),
  baseURL: BaseURL.optional(),
  apiKeyEnv: ApiKeyEnv.optional(),
});
export type ProviderConfig = z.infer<typeof ProviderConfig>;

/** When and how a session's history is made smaller for its model (docs/models.md). */
const ContextConfig = z.strictObject({
  /** Compact when the next request would pass this share of the model's context window. */
  compactAt: z.number().gt(0).max(1).default(0.8),
  /** `provider:model` that writes checkpoints' summaries; the session's own model when absent. */
  summaryModel: z.string().min(1).optional(),
  /** Context windows in tokens by `provider:model` or by provider, before the known ones. */
  windows: z.record(z.string(), z.number().int().positive()).default({}),
});
export type ContextConfig = z.infer<typeof ContextConfig>;

const TokenName = z.string().min(1, "a token needs a name").max(100);
const WorkerPattern = z.string().regex(/^(\*|[A-Za-z0-9][A-Za-z0-9_.-]*)$/, 'a worker id, or "*" for every worker');
const Secret = {
  /** The token itself, at least 16 characters. */
  token: z.string().min(16, "tokens must be at least 16 characters").optional(),
  /** Or its SHA-256, as `sha256:` and 64 hex digits, so the config holds no secret. */
  tokenHash: z
    .string()
    .regex(/^sha256:[0-9a-f]{64}$/, "tokenHash must be sha256: followed by 64 lowercase hex digits")
    .optional(),
};
const oneSecret = (t: { token?: string | undefined; tokenHash?: string | undefined }) => (t.token === undefined) !== (t.tokenHash === undefined);
const ONE_SECRET = { error: "give exactly one of token and tokenHash" };

const WorkerToken = z
  .strictObject({ name: TokenName, ...Secret, workers: z.array(WorkerPattern).min(1, 'list the worker ids this token may register ("*" for any)') })
  .refine(oneSecret, ONE_SECRET);
export type WorkerTokenConfig = z.infer<typeof WorkerToken>;

export const ROLES = ["admin", "approver", "viewer"] as const;
const ClientToken = z
  .strictObject({
    name: TokenName,
    ...Secret,
    role: z.enum(ROLES, { error: "role must be admin, approver or viewer" }),
    /** The workers whose sessions an approver or viewer may use or watch; every worker when absent for a viewer. */
    workers: z.array(WorkerPattern).optional(),
    /** An approver may run `!command` (session.shell) only when this is true. */
    shell: z.boolean().default(false),
  })
  .refine(oneSecret, ONE_SECRET)
  .refine((t) => t.role !== "approver" || t.workers !== undefined, { error: 'an approver token must list its workers ("*" for all)', path: ["workers"] });
export type ClientTokenConfig = z.infer<typeof ClientToken>;

const Limits = z.strictObject({
  /** The largest WebSocket frame read before a connection has shown a valid token. */
  preAuthFrameBytes: z
    .number()
    .int()
    .min(1024)
    .default(16 * 1024),
  /** A WebSocket that has shown no valid token by then is closed. */
  authTimeoutMs: z.number().int().positive().default(10_000),
  /** The largest frame once a worker is authenticated: a tool's output may be 10,000,000 characters. */
  frameBytes: z
    .number()
    .int()
    .min(1024)
    .default(16 * 1024 * 1024),
  /**
   * The largest frame (and HTTP body) once a client is authenticated. Reading a frame holds the
   * server's one thread (about 40 ms a MiB on a loaded machine); the largest input a client sends,
   * a prompt of 1,000,000 characters, fits in 4 MiB unless most of it must be escaped in JSON.
   */
  clientFrameBytes: z
    .number()
    .int()
    .min(1024)
    .default(4 * 1024 * 1024),
  /** A client token's WebSockets and event streams. */
  connectionsPerToken: z.number().int().positive().default(32),
  /** A worker token's links: a fleet may share one token. */
  workerLinksPerToken: z.number().int().positive().default(10_000),
  subscriptionsPerToken: z.number().int().positive().default(64),
  /** Procedure calls per second per token, with bursts of twice that. */
  requestsPerSecond: z.number().positive().default(100),
  /**
   * Bytes waiting for one subscriber (in the server and in its connection's send buffer) before
   * it is cut off as too slow; at least 1 MiB, so that the largest event (a 1,000,000-character
   * prompt) fits.
   */
  subscriberBacklogBytes: z
    .number()
    .int()
    .min(1024 * 1024, "limits.subscriberBacklogBytes must be at least 1048576 (1 MiB): the largest event must fit")
    .default(8 * 1024 * 1024),
});
export type Limits = z.infer<typeof Limits>;

const Tls = z.union([
  z.enum(["auto", "self-signed", "off"], { error: "tls must be auto, self-signed, off or { cert, key }" }),
  z.strictObject({ cert: z.string().min(1), key: z.string().min(1) }),
]);
export type TlsSetting = z.infer<typeof Tls>;

const PostgresUrl = z.string().regex(/^postgres(ql)?:\/\//, { error: "store.url must be a PostgreSQL URL: postgres://user:password@host:port/database" });
const StoreSetting = z.discriminatedUnion(
  "kind",
  [
    /** SQLite in the data directory (or at `path`): durable, no setup. */
    z.strictObject({ kind: z.literal("embedded"), path: z.string().min(1).optional() }),
    /** In this process only: a restart loses everything. */
    z.strictObject({ kind: z.literal("memory") }),
    /** A PostgreSQL database that several servers may share. */
    z.strictObject({ kind: z.literal("postgres"), url: PostgresUrl }),
  ],
  { error: 'store must be { "kind": "embedded" }, { "kind": "memory" } or { "kind": "postgres", "url": "postgres://…" }' },
);
export type StoreSetting = z.infer<typeof StoreSetting>;

export const ServerConfig = z.strictObject({
  host: z.string().default("127.0.0.1"),
  port: z.number().int().min(0).max(65535).default(7420),
  dataDir: z.string().default(path.join(os.homedir(), ".gatehouse")),
  /** Where state is kept: SQLite in the data directory, in memory, or in PostgreSQL, which several server instances can share (docs/state.md). */
  store: StoreSetting.default({ kind: "embedded" }),
  workerTokens: z.array(WorkerToken).default([]),
  clientTokens: z.array(ClientToken).default([]),
  /** A worker id registering while a connection for it is online replaces that one instead of being refused. */
  replaceOnlineWorkers: z.boolean().default(false),
  /**
   * `auto`: plain on a loopback host, else a self-signed certificate kept in the data directory;
   * `self-signed` always; `off` plain even on other hosts; or a certificate and key (PEM files).
   */
  tls: Tls.default("auto"),
  limits: Limits.default(Limits.parse({})),
  /** Pending approvals resolve as timed out after this long; none when absent. */
  approvalTimeoutMs: z.number().int().positive().optional(),
  toolTimeoutMs: z.number().int().positive().default(120_000),
  heartbeatTimeoutMs: z.number().int().positive().default(5000),
  maxSteps: z.number().int().positive().default(50),
  /** `provider:model` for sessions that name none; `scripted` plays scenarios and needs no key. */
  model: z.string().min(1).default("scripted"),
  /** Providers by name, added to or replacing the built-in ones (docs/models.md). */
  providers: z.record(z.string(), ProviderConfig).default({}),
  /** For the default model's provider: a base URL and the API key's variable, overriding the table. */
  baseURL: BaseURL.optional(),
  apiKeyEnv: ApiKeyEnv.optional(),
  /** Retries of a failed model request that the provider marks retryable (rate limits, overload). */
  modelRetries: z.number().int().min(0).max(10).default(2),
  /** The most tokens a model may answer with per step; the provider's or the SDK's default when absent. */
  maxOutputTokens: z.number().int().positive().optional(),
  /** Tool results longer than this are cut, with a marker, in what the model is sent. */
  maxToolResultChars: z.number().int().positive().default(30_000),
  context: ContextConfig.default(ContextConfig.parse({})),
  /** The scenario the scripted model plays when a session names none. */
  scenario: z.string().optional(),
  /** Paths no tool may read or write besides the data directory and the config file (a worker's own files, say). */
  protectedPaths: z.array(z.string()).default([]),
  /** Audit entries older than this many days are dropped (checked hourly); kept for ever when absent. */
  auditRetentionDays: z.number().positive().optional(),
  /** The Telegram bot run inside the server process; its fields are checked by the bot (docs/telegram.md). */
  telegram: z.record(z.string(), z.unknown(), { error: "telegram must be an object (docs/telegram.md)" }).optional(),
});
export type ServerConfig = z.infer<typeof ServerConfig>;
export type ServerConfigInput = z.input<typeof ServerConfig>;

/**
 * Reads a config file (JSONC), then the tokens given in the environment, then the overrides (the
 * CLI's flags, each of which falls back to its own environment variable there).
 */
export function loadServerConfig(file: string | undefined, overrides: ServerConfigInput, env: NodeJS.ProcessEnv = process.env): ServerConfig {
  const doc = file ? readConfigFile(file) : undefined;
  const fromEnv: ServerConfigInput = {
    ...(env.GATEHOUSE_WORKER_TOKEN ? { workerTokens: [{ token: env.GATEHOUSE_WORKER_TOKEN, name: "worker", workers: ["*"] }] } : {}),
    ...(env.GATEHOUSE_CLIENT_TOKEN ? { clientTokens: [{ token: env.GATEHOUSE_CLIENT_TOKEN, name: "client", role: "admin" as const }] } : {}),
  };
  const merged = { ...(doc?.value as object), ...fromEnv, ...Object.fromEntries(Object.entries(overrides).filter(([, v]) => v !== undefined)) };
  const parsed = ServerConfig.safeParse(merged);
  if (!parsed.success) throw new GatehouseError("CONFIG", parsed.error.issues.map((i) => describeConfigIssue(doc, i)).join("; "));
  // The config file holds every token: it is among the paths no tool reads.
  const protectedPaths = [...parsed.data.protectedPaths, ...(file ? [file] : [])].map((p) => path.resolve(p));
  return { ...parsed.data, dataDir: path.resolve(parsed.data.dataDir), protectedPaths };
}

/**
 * A store setting written as one word, for a flag or the environment: `embedded`, `memory`,
 * `embedded:FILE`, or a `postgres://` URL.
 */
export function storeFromText(text: string): StoreSettingInput {
  if (/^postgres(ql)?:\/\//.test(text)) return { kind: "postgres", url: text };
  if (text.startsWith("embedded:")) return { kind: "embedded", path: text.slice("embedded:".length) };
  return { kind: text } as StoreSettingInput;
}
type StoreSettingInput = z.input<typeof StoreSetting>;
