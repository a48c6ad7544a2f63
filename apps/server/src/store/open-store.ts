import path from "node:path";
import type { StoreSetting } from "../config/index.js";
import { EmbeddedStore } from "./embedded-store.js";
import { GatehouseError } from "../errors.js";
import { MemoryStore } from "./memory-store.js";
import type { Store } from "./store.js";

/** The embedded store's file when the setting names none. */
export const stateFile = (dataDir: string) => path.join(dataDir, "state.db");

/** Opens the store a config asks for, PostgreSQL apart (the cluster opens that one); schema migrations run here. */
export async function openStore(setting: StoreSetting, dataDir: string): Promise<Store> {
  switch (setting.kind) {
    case "memory":
      return new MemoryStore();
    case "embedded":
      return new EmbeddedStore(setting.path ? path.resolve(dataDir, setting.path) : stateFile(dataDir));
    case "postgres":
      throw new GatehouseError("CONFIG", "store: a PostgreSQL store is opened by joining its cluster");
  }
}
