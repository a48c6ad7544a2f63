import { MemoryStore } from "../src/memory-store.js";
import { describeStoreContract } from "./store-contract.js";

describeStoreContract("in-memory", async () => new MemoryStore());
