import { cutLine, safeLine } from "@gatehouse/protocol/show";
import type { SessionInfo } from "@gatehouse/protocol";
import { useState } from "preact/hooks";
import type { Console } from "../console.js";
import { MODES } from "./modes.js";

function SessionTree({ console: c, parentId }: { console: Console; parentId: string | null }) {
  const list = c.state.children(parentId);
  if (list.length === 0) return null;
  return (
    <ul class={parentId ? "tree nested" : "tree"}>
      {list.map((s) => (
        <li key={s.id}>
          <SessionRow console={c} s={s} />
          <SessionTree console={c} parentId={s.id} />
        </li>
      ))}
    </ul>
  );
}

/** How long ago a moment was, in the largest whole unit: `just now`, `5 min ago`, `3 h ago`, `2 days ago`. */
export function ageText(at: string, now: number): string {
  const seconds = Math.max(0, (now - Date.parse(at)) / 1000);
  if (!Number.isFinite(seconds) || seconds < 60) return "just now";
  if (seconds < 3600) return `${Math.floor(seconds / 60)} min ago`;
  if (seconds < 86_400) return `${Math.floor(seconds / 3600)} h ago`;
  const days = Math.floor(seconds / 86_400);
  return `${days} day${days === 1 ? "" : "s"} ago`;
}

/** The session's first prompt, on one line and cut: what a person recognises it by. */
function firstPrompt(c: Console, id: string): string | null {
  const first = c.state.transcripts.get(id)?.find((e) => e.kind === "user");
  return first ? cutLine(safeLine(first.text), 100) : null;
}

function SessionRow({ console: c, s }: { console: Console; s: SessionInfo }) {
  const waiting = c.pending().filter((a) => a.sessionId === s.id).length;
  const prompt = firstPrompt(c, s.id);
  return (
    <a class="row" href={`#/sessions/${encodeURIComponent(s.id)}`} data-session={s.id}>
      <span class="name">
        {s.parentId ? `${safeLine(s.agent)} subagent` : `${safeLine(s.agent)} session`} <code>{s.id.slice(0, 8)}</code>
      </span>
      <span class={prompt ? "prompt-line" : "prompt-line empty-prompt"} data-testid="first-prompt">
        {prompt ?? "no prompt yet"}
      </span>
      <span class="meta">
        <time dateTime={s.createdAt} title={s.createdAt}>
          {ageText(s.createdAt, Date.now())}
        </time>{" "}
        · {s.workerId} · {s.mode} · {safeLine(s.model)} · <span class={`status status-${s.status}`}>{s.status}</span> ·{" "}
        {waiting > 0 ? <span class="count hot">{waiting} waiting</span> : <span class="count">none waiting</span>}
      </span>
    </a>
  );
}

/** Sessions with their subagents nested below them, and a form to start one. */
export function SessionList({ console: c }: { console: Console }) {
  return (
    <section aria-labelledby="sessions-title">
      <h1 id="sessions-title">Sessions</h1>
      <NewSession console={c} />
      {c.state.sessions.size === 0 ? <p class="empty">No sessions yet.</p> : <SessionTree console={c} parentId={null} />}
    </section>
  );
}

function NewSession({ console: c }: { console: Console }) {
  const online = c.workers.filter((w) => w.connected && c.may(w.id, "use"));
  const [workerId, setWorkerId] = useState("");
  const [agent, setAgent] = useState("general");
  const [mode, setMode] = useState("default");
  const [model, setModel] = useState("");
  const [scenario, setScenario] = useState("");
  const [busy, setBusy] = useState(false);
  const worker = online.find((w) => w.id === workerId) ?? online[0];
  const agents = worker?.agents ?? ["general"];
  const submit = async (e: Event) => {
    e.preventDefault();
    if (!worker) return;
    setBusy(true);
    const input = {
      workerId: worker.id,
      agent,
      mode: mode as (typeof MODES)[number],
      ...(model.trim() ? { model: model.trim() } : {}),
      ...(scenario.trim() ? { scenario: scenario.trim() } : {}),
    };
    const made = await c.call((cl) => cl.session.create.mutate(input));
    setBusy(false);
    if (made) {
      c.state.putSessions([made]);
      location.hash = `#/sessions/${encodeURIComponent(made.id)}`;
    }
  };
  if (online.length === 0) return <p class="empty">No worker this token may use is online, so no session can start here.</p>;
  return (
    <form class="new-session" onSubmit={submit}>
      <fieldset>
        <legend>Start a session</legend>
        <div class="fields">
          <div>
            <label for="new-worker">Worker</label>
            <select id="new-worker" value={worker?.id} onChange={(e) => setWorkerId(e.currentTarget.value)}>
              {online.map((w) => (
                <option key={w.id} value={w.id}>
                  {w.id}
                </option>
              ))}
            </select>
          </div>
          <div>
            <label for="new-agent">Agent</label>
            <select id="new-agent" value={agent} onChange={(e) => setAgent(e.currentTarget.value)}>
              {agents.map((a) => (
                <option key={a} value={a}>
                  {a}
                </option>
              ))}
            </select>
          </div>
          <div>
            <label for="new-mode">Mode</label>
            <select id="new-mode" value={mode} onChange={(e) => setMode(e.currentTarget.value)}>
              {MODES.map((m) => (
                <option key={m} value={m}>
                  {m}
                </option>
              ))}
            </select>
          </div>
          <div>
            <label for="new-model">Model</label>
            <input
              id="new-model"
              value={model}
              placeholder="provider:model"
              aria-describedby="new-model-hint"
              onInput={(e) => setModel(e.currentTarget.value)}
            />
            <span id="new-model-hint" class="hint">
              Blank: the server's model.
            </span>
          </div>
          <div>
            <label for="new-scenario">Scenario</label>
            <input id="new-scenario" value={scenario} aria-describedby="new-scenario-hint" onInput={(e) => setScenario(e.currentTarget.value)} />
            <span id="new-scenario-hint" class="hint">
              For the scripted model: a file on the server.
            </span>
          </div>
        </div>
        <button type="submit" disabled={busy}>
          Start session
        </button>
      </fieldset>
    </form>
  );
}
