/** What the protocol package's own functions throw, each with a code a caller can switch on (what the server's errors carry is in error-codes.ts). */

/** Shown text with an escape that `showText` never writes. */
export class UnescapeError extends Error {
  override readonly name = "UnescapeError";
  readonly code = "BAD_ESCAPE";
}

/** Edited text that stands for no arguments: not JSON, not an object, an empty command. */
export class EditedArgumentsError extends Error {
  override readonly name = "EditedArgumentsError";
  readonly code = "EDITED_ARGUMENTS";
}

export type TrustErrorCode =
  /** A wss:// address whose server answers in plain text. */
  | "NOT_TLS"
  /** No TLS connection could be made to the server. */
  | "UNREACHABLE"
  /** A ws:// address on another machine, plain text not allowed. */
  | "PLAIN_TEXT"
  /** A ws:// address whose server speaks TLS. */
  | "SPEAKS_TLS"
  /** The server's certificate is not the one given or pinned. */
  | "FINGERPRINT_MISMATCH"
  /** The server's certificate differs from the one pinned on first use in the known-servers file. */
  | "CERTIFICATE_CHANGED";

/** Why a client does not trust a server, found before any token is sent. */
export class TrustError extends Error {
  override readonly name = "TrustError";
  constructor(
    readonly code: TrustErrorCode,
    message: string,
  ) {
    super(message);
  }
}
