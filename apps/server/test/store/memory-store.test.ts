import { MemoryStore } from "../../src/store/memory-store.js";
import { describeStoreContract } from "../store-contract.js";

describeStoreContract("in-memory", async () => new MemoryStore());
