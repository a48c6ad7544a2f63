export { startServer, type RunningServer } from "./server.js";
export { loadServerConfig, ServerConfig, type ServerConfigInput } from "./config.js";
export { parseScenario, loadScenario, ScriptedProvider, type Scenario } from "./providers/scripted.js";
export { GatehouseError } from "./errors.js";
export { workerRulesFile } from "./worker-permissions.js";
