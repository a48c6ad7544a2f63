import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { z } from "zod";
import { GatehouseError } from "./errors.js";

const BaseURL = z.url({ error: "baseURL must be a URL" });
/** The name of the environment variable that holds an API key (never the key itself). */
const ApiKeyEnv = z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/, "apiKeyEnv must be an environment variable name");

const ProviderConfig = z.object({
  /** The wire format: OpenAI-compatible chat completions or Anthropic messages. */
  api: z.enum(["openai-compatible", "anthropic"]),
  baseURL: BaseURL.optional(),
  apiKeyEnv: ApiKeyEnv.optional(),
});
export type ProviderConfig = z.infer<typeof ProviderConfig>;

const Token = z.object({ token: z.string().min(16, "tokens must be at least 16 characters"), name: z.string().min(1) });

export const ServerConfig = z.object({
  host: z.string().default("127.0.0.1"),
  port: z.number().int().min(0).max(65535).default(7420),
  dataDir: z.string().default(path.join(os.homedir(), ".gatehouse")),
  workerTokens: z.array(Token).default([]),
  clientTokens: z.array(Token).default([]),
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
  /** The scenario the scripted model plays when a session names none. */
  scenario: z.string().optional(),
  /** Paths no tool may write besides the data directory (the worker's own configuration, say). */
  protectedPaths: z.array(z.string()).default([]),
});
export type ServerConfig = z.infer<typeof ServerConfig>;
export type ServerConfigInput = z.input<typeof ServerConfig>;

/** Reads a config file (JSON), then overrides from the environment, then from flags. */
export function loadServerConfig(file: string | undefined, overrides: ServerConfigInput, env: NodeJS.ProcessEnv = process.env): ServerConfig {
  let fromFile: unknown = {};
  if (file) {
    try {
      fromFile = JSON.parse(fs.readFileSync(file, "utf8"));
    } catch (err) {
      throw new GatehouseError("CONFIG", `${file}: ${(err as Error).message}`);
    }
  }
  const fromEnv: ServerConfigInput = {
    ...(env.GATEHOUSE_PORT ? { port: Number(env.GATEHOUSE_PORT) } : {}),
    ...(env.GATEHOUSE_HOST ? { host: env.GATEHOUSE_HOST } : {}),
    ...(env.GATEHOUSE_DATA_DIR ? { dataDir: env.GATEHOUSE_DATA_DIR } : {}),
    ...(env.GATEHOUSE_WORKER_TOKEN ? { workerTokens: [{ token: env.GATEHOUSE_WORKER_TOKEN, name: "worker" }] } : {}),
    ...(env.GATEHOUSE_MODEL ? { model: env.GATEHOUSE_MODEL } : {}),
    ...(env.GATEHOUSE_BASE_URL ? { baseURL: env.GATEHOUSE_BASE_URL } : {}),
    ...(env.GATEHOUSE_API_KEY_ENV ? { apiKeyEnv: env.GATEHOUSE_API_KEY_ENV } : {}),
    ...(env.GATEHOUSE_CLIENT_TOKEN ? { clientTokens: [{ token: env.GATEHOUSE_CLIENT_TOKEN, name: "client" }] } : {}),
  };
  const merged = { ...(fromFile as object), ...fromEnv, ...Object.fromEntries(Object.entries(overrides).filter(([, v]) => v !== undefined)) };
  const parsed = ServerConfig.safeParse(merged);
  if (!parsed.success) {
    const where = file ? `${file}: ` : "";
    throw new GatehouseError("CONFIG", `${where}${parsed.error.issues.map((i) => `${i.path.join(".") || "config"}: ${i.message}`).join("; ")}`);
  }
  return { ...parsed.data, dataDir: path.resolve(parsed.data.dataDir) };
}
