export { applyEvent, emptyView, type CallItem, type Item, type SessionView } from "./session-view.js";
export { describeError, SessionController, type Answer, type Connection, type ControllerState } from "./session-controller.js";
export { DENIAL, describeCall, describeRule, outputPreview } from "./format.js";
export { runTerminal, type TerminalOptions } from "./terminal.js";
