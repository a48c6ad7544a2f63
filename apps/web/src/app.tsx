import { useEffect, useState } from "preact/hooks";
import { Console } from "./console.js";
import { Inbox } from "./views/inbox.js";
import { SessionList } from "./views/session-list.js";
import { SessionView } from "./views/session-view.js";
import { SignIn } from "./views/sign-in.js";
import { WorkerList } from "./views/worker-list.js";
import { WorkerView } from "./views/worker-view.js";

type Route = { view: "inbox" } | { view: "sessions" } | { view: "session"; id: string } | { view: "workers" } | { view: "worker"; id: string };

/** Routes live in the hash (`#/sessions/ID`); the token never does. */
export function parseRoute(hash: string): Route {
  const [, view, id] = hash.replace(/^#/, "").split("/").map(decodeURIComponent);
  if (view === "sessions" && id) return { view: "session", id };
  if (view === "sessions") return { view: "sessions" };
  if (view === "workers" && id) return { view: "worker", id };
  if (view === "workers") return { view: "workers" };
  return { view: "inbox" };
}

function useRoute(): Route {
  const [route, setRoute] = useState(() => parseRoute(location.hash));
  useEffect(() => {
    const on = () => setRoute(parseRoute(location.hash));
    window.addEventListener("hashchange", on);
    return () => window.removeEventListener("hashchange", on);
  }, []);
  return route;
}

/** Re-renders whenever the console's state changes. */
export function useConsole(c: Console): number {
  const [, setVersion] = useState(0);
  useEffect(() => c.onChange(() => setVersion(c.changes)), [c]);
  return c.changes;
}

const LINK_TEXT = { "signed-out": "signed out", connecting: "connecting…", online: "connected", reconnecting: "connection lost: reconnecting…" } as const;

export function App({ console: c }: { console: Console }) {
  useConsole(c);
  const route = useRoute();
  const [restoring, setRestoring] = useState(() => !c.signedIn && Console.savedToken() !== null);
  useEffect(() => {
    const saved = Console.savedToken();
    if (restoring && saved)
      void c.signIn(saved).then((err) => {
        if (err) c.signOut();
        setRestoring(false);
      });
  }, []);
  useEffect(() => {
    document.title = titleOf(route, c.pending().length);
  });
  if (!c.signedIn) return <SignIn console={c} busy={restoring} />;
  const pending = c.pending().length;
  const current = (v: string) => (route.view === v || route.view === v.replace(/s$/, "") ? "page" : undefined);
  return (
    <div class="shell">
      <a class="skip" href="#main">
        Skip to content
      </a>
      <header class="top">
        <span class="brand">Gatehouse</span>
        <nav aria-label="Views">
          <a href="#/inbox" aria-current={current("inbox")}>
            Approvals{" "}
            <span class={pending ? "count hot" : "count"} aria-label={`${pending} pending`}>
              {pending}
            </span>
          </a>
          <a href="#/sessions" aria-current={current("sessions")}>
            Sessions
          </a>
          <a href="#/workers" aria-current={current("workers")}>
            Workers
          </a>
        </nav>
        <span class={`link link-${c.link}`} role="status" aria-live="polite" data-testid="link">
          {LINK_TEXT[c.link]}
        </span>
        <button type="button" class="quiet" onClick={() => c.signOut()}>
          Sign out
        </button>
      </header>
      {c.problem && (
        <p class="problem" role="alert">
          {c.problem}{" "}
          <button type="button" class="quiet" onClick={() => ((c.problem = null), c.changed())}>
            Dismiss
          </button>
        </p>
      )}
      <main id="main" tabIndex={-1}>
        {route.view === "inbox" && <Inbox console={c} />}
        {route.view === "sessions" && <SessionList console={c} />}
        {route.view === "session" && <SessionView console={c} id={route.id} />}
        {route.view === "workers" && <WorkerList console={c} />}
        {route.view === "worker" && <WorkerView console={c} id={route.id} />}
      </main>
    </div>
  );
}

function titleOf(route: Route, pending: number): string {
  const prefix = pending > 0 ? `(${pending}) ` : "";
  const names = { inbox: "Approvals", sessions: "Sessions", session: "Session", workers: "Workers", worker: "Worker" };
  return `${prefix}${names[route.view]} · Gatehouse`;
}
