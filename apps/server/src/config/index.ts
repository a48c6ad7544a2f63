// The server's configuration: the file, its defaults and checks. Depends on nothing else of the server.
export { readConfigFile } from "./config-file.js";
export {
  type ClientTokenConfig,
  type Limits,
  loadServerConfig,
  type ProviderConfig,
  ServerConfig,
  type ServerConfigInput,
  storeFromText,
  type StoreSetting,
  type TlsSetting,
  type WorkerTokenConfig,
} from "./config.js";
