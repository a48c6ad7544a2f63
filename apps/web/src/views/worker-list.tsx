import type { SandboxInfo } from "@gatehouse/protocol";
import type { Console } from "../console.js";

/** How a worker runs shell commands, in a few words: `sandboxed (bubblewrap), no network`. */
export function sandboxText(s: SandboxInfo | null): string {
  if (!s) return "sandbox unknown";
  if (!s.active) return s.mode === "off" ? "not sandboxed (turned off)" : "not sandboxed";
  return `sandboxed, ${s.network ? "with network" : "no network"}`;
}

/** Every worker that has registered: online or not, where it works, what it offers. */
export function WorkerList({ console: c }: { console: Console }) {
  return (
    <section aria-labelledby="workers-title">
      <h1 id="workers-title">Workers</h1>
      {c.workers.length === 0 ? (
        <p class="empty">No worker has registered.</p>
      ) : (
        <ul class="tree">
          {c.workers.map((w) => (
            <li key={w.id}>
              <a class="row" href={`#/workers/${encodeURIComponent(w.id)}`} data-worker={w.id}>
                <span class="name">
                  {w.id} <span class={w.connected ? "status status-online" : "status status-offline"}>{w.connected ? "online" : "offline"}</span>
                </span>
                <span class="meta">
                  <code>{w.workDir}</code> · {w.tools.length} tools · {w.agents.length} agent types · {w.skills.length} skills ·{" "}
                  <span data-testid="sandbox">{sandboxText(w.sandbox)}</span>
                </span>
              </a>
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}
