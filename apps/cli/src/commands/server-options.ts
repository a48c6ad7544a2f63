// The options of `gatehouse server`, in the order help lists them; light, so that help loads without the command.
import { LOCAL_OPTIONS, MODEL_OPTIONS, tlsSetting, wholeNumber } from "../flags.js";
import type { OptionTable } from "../options.js";

export const SERVER_OPTIONS = {
  config: { value: "FILE", help: "the server's config (JSONC); reloaded when it changes (docs/operations.md)" },
  port: { value: "N", help: "the port (0 picks a free one)", env: "GATEHOUSE_PORT", parse: wholeNumber },
  host: { value: "HOST", help: "the address to listen on", env: "GATEHOUSE_HOST" },
  tls: {
    value: "TLS",
    help: "auto (TLS off loopback), self-signed, off, or CERT,KEY (PEM files); over the config's tls",
    env: "GATEHOUSE_TLS",
    parse: tlsSetting,
  },
  "data-dir": LOCAL_OPTIONS["data-dir"],
  postgres: { value: "URL", help: "keep state in this PostgreSQL database, which several servers can share", env: "GATEHOUSE_POSTGRES_URL" },
  scenario: LOCAL_OPTIONS.scenario,
  "approval-timeout-ms": { value: "N", help: "pending approvals time out after N ms", parse: wholeNumber },
  store: {
    value: "STORE",
    help: "where state is kept: embedded (SQLite in the data directory, the default), embedded:FILE or memory; --postgres for PostgreSQL",
    env: "GATEHOUSE_STORE",
  },
  ...MODEL_OPTIONS,
} as const satisfies OptionTable;
