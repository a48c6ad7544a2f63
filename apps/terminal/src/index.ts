export { applyEvent, emptyView, interrupted, notice, shellRunning, type CallItem, type Item, type SessionView, type ShellItem } from "./session-view.js";
export { describeError, SessionController, type Answer, type Connection, type ControllerState } from "./session-controller.js";
export { runTerminal, type TerminalOptions } from "./terminal.js";
