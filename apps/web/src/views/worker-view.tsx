import type { Decision } from "@gatehouse/protocol";
import { safeLine, safeText } from "@gatehouse/protocol/show";
import { useEffect, useState } from "preact/hooks";
import type { Console } from "../console.js";
import { MODES } from "./modes.js";
import { sandboxText } from "./worker-list.js";

interface Rules {
  file: string;
  text: string;
  error: string | null;
  warnings: { line: number; column: number; message: string }[];
}

/** One worker: its tools, agents and skills, its rules file with lint warnings, and `explain`. */
export function WorkerView({ console: c, id }: { console: Console; id: string }) {
  const w = c.workers.find((x) => x.id === id);
  const [rules, setRules] = useState<Rules | null>(null);
  const load = () => void c.call((cl) => cl.permissions.get.query({ workerId: id })).then((r) => r && setRules(r));
  const admin = c.may(id, "admin");
  useEffect(() => (admin ? load() : undefined), [id, admin]);
  if (!w) return <p class="empty">No worker {id} has registered.</p>;
  return (
    <section aria-labelledby="worker-title">
      <h1 id="worker-title">
        {w.id} <span class={w.connected ? "status status-online" : "status status-offline"}>{w.connected ? "online" : "offline"}</span>
      </h1>
      <p class="meta">
        works in <code>{w.workDir}</code>
      </p>
      <h2>Shell sandbox</h2>
      <p data-testid="sandbox">
        <strong class={w.sandbox?.active ? "status status-online" : "status status-offline"}>{sandboxText(w.sandbox)}</strong>
        {w.sandbox && (
          <>
            {" "}
            · mode {w.sandbox.mode}
            {w.sandbox.detail ? ` · ${w.sandbox.detail}` : ""}
          </>
        )}
      </p>
      {w.mcpServers.length > 0 && (
        <>
          <h2>MCP servers</h2>
          <ul data-testid="mcp-servers">
            {w.mcpServers.map((m) => (
              <li key={m.name}>
                <code>{safeLine(m.name)}</code>{" "}
                <strong class={m.running ? "status status-online" : "status status-offline"}>{m.running ? "running" : "not running"}</strong>
                {m.problem && <pre class="notice error">{safeText(m.problem)}</pre>}
              </li>
            ))}
          </ul>
        </>
      )}
      <h2>Tools</h2>
      <table class="tools">
        <thead>
          <tr>
            <th scope="col">Tool</th>
            <th scope="col">Tier</th>
            <th scope="col">What it does</th>
          </tr>
        </thead>
        <tbody>
          {w.tools.map((t) => (
            <tr key={t.name}>
              <th scope="row">
                <code>{safeLine(t.name)}</code>
              </th>
              <td>
                <span class={`tier tier-${t.tier}`}>{t.tier}</span>
              </td>
              <td>{safeLine(t.description.split("\n")[0] ?? "")}</td>
            </tr>
          ))}
        </tbody>
      </table>
      <h2>Agent types</h2>
      <p>{w.agents.map((a) => safeLine(a)).join(", ")}</p>
      {w.skills.length > 0 && (
        <>
          <h2>Skills</h2>
          <ul>
            {w.skills.map((s) => (
              <li key={s.name}>
                <strong>{safeLine(s.name)}</strong>: {safeText(s.description)}
              </li>
            ))}
          </ul>
        </>
      )}
      <h2>Rules file</h2>
      {!admin ? (
        <p class="empty">Only an admin token may read rules files and explain decisions.</p>
      ) : rules ? (
        <RulesView rules={rules} onReload={load} />
      ) : (
        <p class="empty">Loading…</p>
      )}
      {admin && (
        <>
          <h2>Explain a call</h2>
          <Explain console={c} workerId={w.id} tools={w.tools.map((t) => t.name)} />
        </>
      )}
    </section>
  );
}

function RulesView({ rules, onReload }: { rules: Rules; onReload: () => void }) {
  const flagged = new Set(rules.warnings.map((w) => w.line));
  return (
    <div class="rules">
      <p class="meta">
        <code>{rules.file}</code>{" "}
        <button type="button" class="quiet" onClick={onReload}>
          Reload
        </button>
      </p>
      {rules.error && (
        <p class="error" role="alert">
          {rules.error}
        </p>
      )}
      {rules.warnings.length > 0 ? (
        <ul class="warnings" aria-label="Lint warnings">
          {rules.warnings.map((w, i) => (
            <li key={i}>
              <a
                href={`#rules-line-${w.line}`}
                onClick={(e) => (e.preventDefault(), document.getElementById(`rules-line-${w.line}`)?.scrollIntoView({ block: "center" }))}
              >
                line {w.line}:{w.column}
              </a>{" "}
              warning: {safeLine(w.message)}
            </li>
          ))}
        </ul>
      ) : (
        !rules.error && <p class="meta">No lint warnings.</p>
      )}
      <pre class="source" tabIndex={0} aria-label="Rules file">
        {safeText(rules.text)
          .split("\n")
          .map((line, i) => (
            <span key={i} id={`rules-line-${i + 1}`} class={flagged.has(i + 1) ? "ln flagged" : "ln"}>
              <span class="no" aria-hidden="true">
                {String(i + 1).padStart(3)}{" "}
              </span>
              {line}
              {"\n"}
            </span>
          ))}
      </pre>
    </div>
  );
}

function Explain({ console: c, workerId, tools }: { console: Console; workerId: string; tools: string[] }) {
  const [tool, setTool] = useState("shell_exec");
  const [args, setArgs] = useState('{"command": "git status"}');
  const [mode, setMode] = useState("default");
  const [error, setError] = useState<string | null>(null);
  const [out, setOut] = useState<{ decision: Decision; suggestedPatterns: string[] } | null>(null);
  const submit = async (e: Event) => {
    e.preventDefault();
    let parsed: Record<string, unknown>;
    try {
      parsed = JSON.parse(args) as Record<string, unknown>;
      if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed)) throw new Error("arguments must be a JSON object");
    } catch (err) {
      return setError(`arguments: ${(err as Error).message}`);
    }
    setError(null);
    const got = await c.call((cl) => cl.permissions.explain.query({ workerId, tool, args: parsed, mode: mode as (typeof MODES)[number] }));
    if (got) setOut(got);
  };
  const d = out?.decision;
  return (
    <form class="explain" onSubmit={submit}>
      <div class="fields">
        <label>
          Tool
          <input value={tool} list="explain-tools" onInput={(e) => setTool(e.currentTarget.value)} spellcheck={false} />
          <datalist id="explain-tools">
            {tools.map((t) => (
              <option key={t} value={t} />
            ))}
          </datalist>
        </label>
        <label>
          Mode
          <select value={mode} onChange={(e) => setMode(e.currentTarget.value)}>
            {MODES.map((m) => (
              <option key={m} value={m}>
                {m}
              </option>
            ))}
          </select>
        </label>
        <label class="wide">
          Arguments (JSON)
          <textarea rows={2} value={args} onInput={(e) => setArgs(e.currentTarget.value)} spellcheck={false} aria-invalid={error ? true : undefined} />
        </label>
      </div>
      <button type="submit">Explain</button>
      {error && (
        <p class="error" role="alert">
          {error}
        </p>
      )}
      {d && (
        <div class="decision" role="status">
          <p>
            <span class={`verdict verdict-${d.action}`}>{d.action}</span> {safeText(d.reason)}
          </p>
          <dl>
            <dt>Subject</dt>
            <dd>
              <code>{safeLine(d.subject)}</code>
            </dd>
            <dt>Layer</dt>
            <dd>{d.layer ?? "none (default)"}</dd>
            {d.rule && (
              <>
                <dt>Rule</dt>
                <dd>
                  {safeLine(d.rule.tool)} "{safeLine(d.rule.pattern)}" → {d.rule.action}
                  {d.rule.file ? ` (${d.rule.file}${d.rule.line ? `:${d.rule.line}:${d.rule.column ?? 1}` : ""})` : ""}
                </dd>
              </>
            )}
            <dt>Tier, mode</dt>
            <dd>
              {d.tier}, {d.mode}
              {d.ruleAction !== d.action ? ` (the rule said ${d.ruleAction})` : ""}
            </dd>
            {d.critical && (
              <>
                <dt>Critical pattern</dt>
                <dd class="critical">{safeLine(d.critical)}</dd>
              </>
            )}
            {out.suggestedPatterns.length > 0 && (
              <>
                <dt>"Always" would save</dt>
                <dd>
                  {out.suggestedPatterns.map((p) => (
                    <code key={p}>{p} </code>
                  ))}
                </dd>
              </>
            )}
          </dl>
          {d.subcommands.length > 0 && (
            <ul aria-label="Sub-commands">
              {d.subcommands.map((v, i) => (
                <li key={i}>
                  <span class={`verdict verdict-${v.action}`}>{v.action}</span> <code>{safeLine(v.subject)}</code> {safeText(v.reason)}
                </li>
              ))}
            </ul>
          )}
        </div>
      )}
    </form>
  );
}
