export { startServer, type RunningServer } from "./server.js";
export { loadServerConfig, ServerConfig, type ServerConfigInput } from "./config.js";
export { parseScenario, loadScenario, ScriptedProvider, type Scenario } from "./providers/scripted.js";
export { GatehouseError } from "./errors.js";
export { workerRulesFile } from "./worker-permissions.js";
export { watchConfig } from "./config-watch.js";
export { guardProcess } from "./process-guard.js";
export { streamLog, silentLog, type Log } from "./log.js";
export { hashToken } from "./auth.js";
