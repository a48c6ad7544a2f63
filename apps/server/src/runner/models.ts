import fs from "node:fs";
import path from "node:path";
import type { SessionInfo } from "@gatehouse/protocol";
import type { ProviderConfig, ServerConfig } from "../config/index.js";
import { digest, modelSummariser, type Summariser } from "./context-checkpoint.js";
import { GatehouseError } from "../errors.js";
import type { ModelEndpoint } from "./providers/ai-sdk.js";
import type { ModelRequest, ModelResponse, Provider } from "./providers/provider.js";
import { ScriptedProvider, type Scenario } from "./providers/scripted.js";

export const SCRIPTED = "scripted";

/** Providers known without configuration; the config file adds to them or replaces them. */
export const BUILTIN_PROVIDERS: Readonly<Record<string, ProviderConfig>> = {
  openai: { api: "openai-compatible", baseURL: "https://api.openai.com/v1", apiKeyEnv: "OPENAI_API_KEY" },
  anthropic: { api: "anthropic", apiKeyEnv: "ANTHROPIC_API_KEY" },
  ollama: { api: "openai-compatible", baseURL: "http://127.0.0.1:11434/v1" },
  lmstudio: { api: "openai-compatible", baseURL: "http://127.0.0.1:1234/v1" },
  llamacpp: { api: "openai-compatible", baseURL: "http://127.0.0.1:8080/v1" },
  vllm: { api: "openai-compatible", baseURL: "http://127.0.0.1:8000/v1" },
};

/** Where scripted sessions' scenarios are kept: one JSON file a session in a folder. */
export class ScenarioBook {
  constructor(private readonly dir: string) {}

  private file(sessionId: string): string {
    return path.join(this.dir, `${sessionId.replace(/[^A-Za-z0-9_-]/g, "_")}.json`);
  }

  save(sessionId: string, scenario: Scenario): void {
    fs.mkdirSync(this.dir, { recursive: true });
    fs.writeFileSync(this.file(sessionId), JSON.stringify(scenario));
  }

  load(sessionId: string): Scenario | undefined {
    try {
      return JSON.parse(fs.readFileSync(this.file(sessionId), "utf8")) as Scenario;
    } catch {
      return undefined;
    }
  }
}

type ModelConfig = Pick<ServerConfig, "model" | "providers" | "baseURL" | "apiKeyEnv" | "modelRetries" | "maxOutputTokens"> & {
  context?: Pick<ServerConfig["context"], "summaryModel">;
};

/** Splits `provider:model` at its first colon (model ids such as `qwen2.5:7b` keep theirs). */
export function splitModelId(id: string): { provider: string; model: string } {
  const at = id.indexOf(":");
  if (at <= 0 || at === id.length - 1)
    throw new GatehouseError("CONFIG", `model "${id}" must be written provider:model (for example openai:gpt-4o) or be "${SCRIPTED}"`);
  return { provider: id.slice(0, at), model: id.slice(at + 1) };
}

/** Where `provider:model` is served and with which key, from the config and the environment. */
export function resolveEndpoint(id: string, config: ModelConfig, env: NodeJS.ProcessEnv): ModelEndpoint {
  const { provider, model } = splitModelId(id);
  const table = { ...BUILTIN_PROVIDERS, ...config.providers };
  const overrides = { ...(config.baseURL ? { baseURL: config.baseURL } : {}), ...(config.apiKeyEnv ? { apiKeyEnv: config.apiKeyEnv } : {}) };
  const isDefault = config.model !== SCRIPTED && splitModelId(config.model).provider === provider;
  const entry: ProviderConfig | undefined =
    isDefault && Object.keys(overrides).length > 0 ? { api: "openai-compatible", ...table[provider], ...overrides } : table[provider];
  if (!entry)
    throw new GatehouseError(
      "CONFIG",
      `unknown model provider "${provider}" in "${id}" (known: ${Object.keys(table).join(", ")}); ` +
        `add it under "providers" in the config file or give a base URL`,
    );
  const apiKey = entry.apiKeyEnv ? env[entry.apiKeyEnv] : undefined;
  if (entry.apiKeyEnv && !apiKey)
    throw new GatehouseError("CONFIG", `model ${id} needs an API key in the environment variable ${entry.apiKeyEnv}, which is not set`);
  if (entry.api === "openai-compatible" && !entry.baseURL) throw new GatehouseError("CONFIG", `provider "${provider}" needs a baseURL`);
  return { api: entry.api, provider, model, baseURL: entry.baseURL, apiKey };
}

/**
 * The model behind each session. Real models are shared by every session that names them;
 * each scripted session plays its own copy of a scenario, and a subagent of a scripted session
 * plays the part of the scenario written for its agent type (its own subagents too).
 */
/**
 * A real model's provider. The AI SDK loads on the first request, so that a server on the scripted
 * model (the demo, the tests) starts without it.
 */
class SdkProvider implements Provider {
  readonly name: string;
  private provider: Promise<Provider> | null = null;

  constructor(
    private readonly endpoint: ModelEndpoint,
    private readonly maxRetries: number,
    private readonly maxOutputTokens: number | undefined,
  ) {
    this.name = `${endpoint.provider}:${endpoint.model}`;
  }

  async respond(request: ModelRequest): Promise<ModelResponse> {
    this.provider ??= import("./providers/ai-sdk.js").then(({ AiSdkProvider }) => new AiSdkProvider(this.endpoint, this.maxRetries, this.maxOutputTokens));
    return (await this.provider).respond(request);
  }
}

export class Models {
  private readonly real = new Map<string, Provider>();
  private readonly scripted = new Map<string, ScriptedProvider>();

  constructor(
    private readonly config: ModelConfig,
    private readonly fallback: Scenario,
    private readonly env: NodeJS.ProcessEnv = process.env,
    /** Keeps each scripted session's scenario, so another process can carry the session on; none when undefined. */
    private readonly scenarios?: ScenarioBook,
  ) {}

  private play(sessionId: string, scenario: Scenario): void {
    this.scripted.set(sessionId, new ScriptedProvider(scenario));
    this.scenarios?.save(sessionId, scenario);
  }

  /** The model a new session uses; throws a CONFIG error naming what is missing. */
  check(model: string): void {
    if (model !== SCRIPTED) this.endpoint(model);
  }

  /** A top-level session: its model, and for a scripted one the scenario it plays. */
  open(session: SessionInfo, scenario: Scenario | undefined): void {
    if (session.model !== SCRIPTED) return this.check(session.model);
    this.play(session.id, scenario ?? this.fallback);
  }

  /** A subagent session, after its parent. */
  openChild(child: SessionInfo, parent: SessionInfo): void {
    if (child.model !== SCRIPTED) return this.check(child.model);
    const agents = this.scripted.get(parent.id)?.scenario.agents ?? {};
    const part = agents[child.agent];
    this.play(child.id, part ? { name: `${child.agent} part`, steps: part.steps, agents } : this.fallback);
  }

  providerFor(session: SessionInfo): Provider {
    if (session.model === SCRIPTED) return this.scripted.get(session.id) ?? this.resumeScripted(session.id);
    let provider = this.real.get(session.model);
    if (!provider)
      this.real.set(session.model, (provider = new SdkProvider(this.endpoint(session.model), this.config.modelRetries, this.config.maxOutputTokens)));
    return provider;
  }

  /**
   * Who writes a session's checkpoints: the configured summary model, else the session's own; a
   * scripted session's, and a model that fails, a summary made without a model.
   */
  summariserFor(session: SessionInfo, onFailure: (err: unknown) => void): Summariser {
    const model = this.config.context?.summaryModel ?? session.model;
    if (model === SCRIPTED) return digest;
    return modelSummariser(this.providerFor({ ...session, model }), digest, onFailure);
  }

  /** A scripted session opened by another process: its kept scenario, from where its history left it. */
  private resumeScripted(sessionId: string): ScriptedProvider {
    const provider = new ScriptedProvider(this.scenarios?.load(sessionId) ?? this.fallback);
    this.scripted.set(sessionId, provider);
    return provider;
  }

  private endpoint(model: string): ModelEndpoint {
    return resolveEndpoint(model, this.config, this.env);
  }
}
