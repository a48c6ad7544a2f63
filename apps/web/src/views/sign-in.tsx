import { useState } from "preact/hooks";
import type { Console } from "../console.js";

/** Asks for a client token; it is kept for this tab's session only, never put in the address. */
export function SignIn({ console: c, busy }: { console: Console; busy: boolean }) {
  const [token, setToken] = useState("");
  const [error, setError] = useState<string | null>(null);
  const [pending, setPending] = useState(false);
  const submit = async (e: Event) => {
    e.preventDefault();
    if (!token.trim()) return setError("enter a client token");
    setPending(true);
    setError(await c.signIn(token.trim()));
    setPending(false);
  };
  return (
    <main class="sign-in" id="main">
      <h1>Gatehouse</h1>
      <p>Sign in with a client token to watch sessions and answer their approvals.</p>
      <form method="post" onSubmit={submit} aria-describedby={error ? "sign-in-error" : undefined}>
        <label for="token">Client token</label>
        <input
          id="token"
          name="token"
          type="password"
          autocomplete="off"
          autoFocus
          value={token}
          onInput={(e) => setToken(e.currentTarget.value)}
          aria-invalid={error ? true : undefined}
        />
        <button type="submit" disabled={pending || busy}>
          {pending || busy ? "Signing in…" : "Sign in"}
        </button>
        {error && (
          <p id="sign-in-error" class="error" role="alert">
            {error}
          </p>
        )}
      </form>
      <p class="hint">The token stays in this tab until you sign out or close it.</p>
      {location.protocol === "https:" && <CertificateHint />}
    </main>
  );
}

/** Over TLS: how to make sure this is the server's own certificate before a token is typed. */
function CertificateHint() {
  return (
    <p class="hint" data-testid="certificate-hint">
      Before you sign in, check that this is your server: click the padlock or “Not secure” in the address bar, open the certificate&apos;s details, and compare
      its SHA-256 fingerprint with the one <code>gatehouse server</code> printed when it started (“the certificate&apos;s SHA-256 fingerprint, to compare with
      the browser&apos;s”). If they differ, do not sign in.
    </p>
  );
}
