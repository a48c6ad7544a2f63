export { applyEvent, emptyView, type CallItem, type Item, type SessionView } from "./session-view.js";
export { describeError, SessionController, type Answer, type Connection, type ControllerState } from "./session-controller.js";
export { describeCall, describeRule, outputPreview, wasRefused } from "./format.js";
export { runTerminal, type TerminalOptions } from "./terminal.js";
