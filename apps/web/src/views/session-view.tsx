import { cutLine, safeLine, safeText } from "@gatehouse/protocol/show";
import { useEffect, useMemo, useRef, useState } from "preact/hooks";
import type { Console } from "../console.js";
import type { Entry } from "../state.js";
import { ApprovalQueue } from "./approval-queue.js";
import { MODES } from "./modes.js";

const MARK = { queued: "·", asking: "?", running: "…", done: "✓", failed: "✗", denied: "⊘", cancelled: "-" } as const;

/** A call's main argument on one line, safe to show. */
function brief(args: string): string {
  try {
    const parsed = JSON.parse(args) as Record<string, unknown>;
    const main = parsed.command ?? parsed.path ?? parsed.pattern ?? parsed.prompt;
    if (typeof main === "string") return cutLine(safeLine(main), 120);
  } catch {
    // not JSON: shown as it came
  }
  return cutLine(safeLine(args), 120);
}

/** Output safe to show, escaped once per output rather than at every render of the transcript. */
function Output({ text }: { text: string }) {
  const shown = useMemo(() => safeText(text), [text]);
  return <pre>{shown}</pre>;
}

function EntryView({ e }: { e: Entry }) {
  switch (e.kind) {
    case "user":
      return (
        <div class="e user">
          <span class="who">You</span>
          <p>{safeText(e.text)}</p>
        </div>
      );
    case "assistant":
      return (
        <div class="e assistant" aria-busy={e.streaming}>
          <span class="who">Model</span>
          <p>{safeText(e.text)}</p>
        </div>
      );
    case "tool":
      return (
        <div class={`e call st-${e.status}`}>
          <span class="mark" aria-label={e.status}>
            {MARK[e.status]}
          </span>{" "}
          <span class="tool">{safeLine(e.toolName)}</span> <code class="shown">{brief(e.args)}</code>
          {e.why && <span class="why-line"> — {safeLine(e.why)}</span>}
          {e.childId && (
            <>
              {" "}
              · <a href={`#/sessions/${encodeURIComponent(e.childId)}`}>subagent session</a>
            </>
          )}
          {e.output !== null && (
            <details>
              <summary>Output</summary>
              <Output text={e.output} />
            </details>
          )}
        </div>
      );
    case "shell":
      return (
        <div class="e shell">
          <span class="who">{safeLine(e.by)} ran</span> <code class="shown">!{safeLine(e.command)}</code> <span class="meta">exit {e.exitCode ?? "none"}</span>
          <Output text={e.output} />
        </div>
      );
    case "notice":
      return <p class={`e notice ${e.tone}`}>{safeText(e.text)}</p>;
  }
}

/** One session: its transcript as it streams, its (and its subagents') approvals, and its controls. */
export function SessionView({ console: c, id }: { console: Console; id: string }) {
  const s = c.state.sessions.get(id);
  const entries = c.state.transcripts.get(id) ?? [];
  const [text, setText] = useState("");
  const end = useRef<HTMLDivElement>(null);
  useEffect(() => end.current?.scrollIntoView({ block: "nearest" }), [entries.length, entries.at(-1)]);
  if (!s) return <p class="empty">No session {id} is known to this console.</p>;
  const parent = s.parentId ? c.state.sessions.get(s.parentId) : undefined;
  const children = c.state.children(s.id);
  const mayUse = c.may(s.workerId, "use");
  const send = async (e: Event) => {
    e.preventDefault();
    if (!text.trim()) return;
    const out = await c.call((cl) => cl.agent.prompt.mutate({ sessionId: s.id, text }));
    if (out?.accepted) setText("");
    else if (out) c.report("a turn is running: wait for it to end or abort it");
  };
  return (
    <section aria-labelledby="session-title" class="session">
      <header class="session-head">
        <h1 id="session-title">
          {s.parentId ? `${s.agent} subagent` : `${s.agent} session`} <code>{s.id.slice(0, 8)}</code>
        </h1>
        <p class="meta">
          on <a href={`#/workers/${encodeURIComponent(s.workerId)}`}>{s.workerId}</a> · {s.model} · <span class={`status status-${s.status}`}>{s.status}</span>
          {parent && (
            <>
              {" "}
              · started by{" "}
              <a href={`#/sessions/${encodeURIComponent(parent.id)}`}>
                {parent.agent} session {parent.id.slice(0, 8)}
              </a>
            </>
          )}
        </p>
        {mayUse && (
          <div class="controls">
            <label for="session-mode">Mode</label>
            <select
              id="session-mode"
              value={s.mode}
              onChange={(e) => void c.call((cl) => cl.session.setMode.mutate({ sessionId: s.id, mode: e.currentTarget.value as (typeof MODES)[number] }))}
            >
              {MODES.map((m) => (
                <option key={m} value={m}>
                  {m}
                </option>
              ))}
            </select>
            <button type="button" class="no" disabled={s.status !== "running"} onClick={() => void c.call((cl) => cl.agent.abort.mutate({ sessionId: s.id }))}>
              Abort turn
            </button>
          </div>
        )}
        {children.length > 0 && (
          <p class="meta">
            Subagents:{" "}
            {children.map((ch, i) => (
              <>
                {i > 0 && ", "}
                <a href={`#/sessions/${encodeURIComponent(ch.id)}`}>
                  {ch.agent} {ch.id.slice(0, 8)}
                </a>
              </>
            ))}
          </p>
        )}
      </header>
      <h2 class="visually-hidden">Transcript</h2>
      <div class="transcript" role="log" aria-label="Transcript" aria-live="polite">
        {entries.length === 0 ? <p class="empty">Nothing has happened in this session yet.</p> : entries.map((e, i) => <EntryView key={i} e={e} />)}
        <div ref={end} />
      </div>
      <h2>Waiting for an answer</h2>
      <ApprovalQueue console={c} approvals={c.pending(s.id)} empty="Nothing in this session is waiting for an answer." />
      {!s.parentId && mayUse && (
        <form class="prompt" onSubmit={send}>
          <label for="prompt-text">Prompt</label>
          <textarea
            id="prompt-text"
            rows={3}
            value={text}
            onInput={(e) => setText(e.currentTarget.value)}
            onKeyDown={(e) => e.key === "Enter" && !e.shiftKey && (e.preventDefault(), void send(e))}
            aria-describedby="prompt-hint"
          />
          <p id="prompt-hint" class="hint">
            Enter sends, Shift+Enter starts a new line.
          </p>
          <button type="submit" disabled={s.status === "running"}>
            Send
          </button>
        </form>
      )}
    </section>
  );
}
