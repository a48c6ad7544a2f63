export { startWorker, runTool, type RunningWorker, type WorkerOptions } from "./worker.js";
export { BUILTIN_TOOLS } from "./tools/index.js";
export { FileGuard, ToolRefused } from "./file-guard.js";
export { AgentsFolderRefused } from "./agents.js";
export { limitOutput, OUTPUT_LIMIT, type Tool, type ToolContext, type ToolResult } from "./tool.js";
export { loadMcpConfig, McpConfigError, parseMcpConfig, type McpServerConfig } from "./mcp/config.js";
export {
  bubblewrapProblem,
  resolveSandbox,
  SANDBOX_FALLBACKS,
  SANDBOX_MODES,
  SandboxUnavailable,
  type SandboxFallback,
  type SandboxMode,
  type SandboxSettings,
} from "./sandbox/detect.js";
export { safeEnvironment } from "./sandbox/safe-env.js";
export { ShellRunner, type ShellOrigin } from "./sandbox/shell-runner.js";
export { ProfileBuilder, SandboxRefused, type Mask, type SandboxProfile } from "./sandbox/profile.js";
export { WorkTree } from "./sandbox/work-tree.js";
