import type { Presentation } from "@gatehouse/protocol";

function lineClass(line: string): string {
  if (line.startsWith("+++") || line.startsWith("---") || line.startsWith("Index:") || line.startsWith("====")) return "d-head";
  if (line.startsWith("@@")) return "d-hunk";
  if (line.startsWith("+")) return "d-add";
  if (line.startsWith("-")) return "d-del";
  return "d-ctx";
}

/** A diff with its lines coloured (the +/- marks stay, so colour is not the only cue), or a command with its directory. */
export function PresentationView({ p }: { p: Presentation }) {
  if (p.kind === "diff") {
    return (
      <pre class="diff" aria-label="Changes (unified diff)" tabIndex={0}>
        {p.content
          .replace(/\n$/, "")
          .split("\n")
          .map((line, i) => (
            <span key={i} class={lineClass(line)}>
              {line}
              {"\n"}
            </span>
          ))}
      </pre>
    );
  }
  if (p.kind === "command") {
    return (
      <div class="command">
        {p.cwd && (
          <p class="cwd">
            <span class="label">in</span> <code>{p.cwd}</code>
          </p>
        )}
        <pre aria-label="Command" tabIndex={0}>
          <span class="prompt" aria-hidden="true">
            ${" "}
          </span>
          {p.content}
        </pre>
      </div>
    );
  }
  return (
    <pre class="args" tabIndex={0}>
      {p.content}
    </pre>
  );
}
