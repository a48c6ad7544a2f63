export { startWorker, runTool, type RunningWorker, type WorkerOptions } from "./worker.js";
export { BUILTIN_TOOLS } from "./tools/index.js";
export { FileGuard } from "./file-guard.js";
export { AgentsFolderRefusedError, McpConfigError, SandboxRefusedError, SandboxUnavailableError, ToolRefusedError } from "./errors.js";
export { limitOutput, OUTPUT_LIMIT, type Tool, type ToolContext, type ToolResult } from "./tool.js";
export { loadMcpConfig, parseMcpConfig, type McpServerConfig } from "./mcp/config.js";
export {
  bubblewrapProblem,
  resolveSandbox,
  SANDBOX_FALLBACKS,
  SANDBOX_MODES,
  type SandboxFallback,
  type SandboxMode,
  type SandboxSettings,
} from "./sandbox/detect.js";
export { safeEnvironment } from "./sandbox/safe-env.js";
export { ShellRunner, type ShellOrigin } from "./sandbox/shell-runner.js";
export { ProfileBuilder, type Mask, type SandboxProfile } from "./sandbox/profile.js";
export { WorkTree } from "./sandbox/work-tree.js";
