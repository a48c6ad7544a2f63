export { startWorker, runTool, type RunningWorker, type WorkerOptions } from "./worker.js";
export { BUILTIN_TOOLS } from "./tools/index.js";
export { FileGuard, ToolRefused } from "./file-guard.js";
export { limitOutput, OUTPUT_LIMIT, type Tool, type ToolContext, type ToolResult } from "./tool.js";
export { loadMcpConfig, McpConfigError, parseMcpConfig, type McpServerConfig } from "./mcp/config.js";
