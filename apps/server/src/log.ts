/** The server's log is the shared one (packages/log): one interface, one sink. */
export { createLog, silentLog, type Log } from "@gatehouse/log";
