import type { Presentation } from "@gatehouse/protocol";
import { inSight, type Cut } from "@gatehouse/protocol/show";

/** How much of a presentation a card shows before "Show all": longer lines, runs of blanks and blank lines are left out with a marker. */
const CARD_LIMITS = { maxLines: Number.MAX_SAFE_INTEGER, maxLineChars: 400, maxSpaceRun: 16, maxBlankRun: 2 };

/** A presentation (made safe with safePresentation) as a card shows it: whole, or with what is out of sight left out. */
export function cardText(p: Presentation, whole: boolean): { text: string; cuts: Cut[] } {
  const content = p.content.replace(/\n$/, "");
  return whole ? { text: content, cuts: [] } : inSight(content, { ...CARD_LIMITS, diff: p.kind === "diff" });
}

/** A diff line's class by its first character; a header only above the first hunk (`+++` below it is an added `++`). */
function lineClass(line: string, header: boolean): string {
  if (header && (line.startsWith("+++") || line.startsWith("---") || line.startsWith("Index:") || line.startsWith("===="))) return "d-head";
  if (line.startsWith("@@")) return "d-hunk";
  if (line.startsWith("+")) return "d-add";
  if (line.startsWith("-")) return "d-del";
  return "d-ctx";
}

/** A diff with its lines coloured (the +/- marks stay, so colour is not the only cue), or a command with its directory. */
export function PresentationView({ p, text }: { p: Presentation; text: string }) {
  if (p.kind === "diff") {
    const lines = text.split("\n");
    const at = lines.findIndex((line) => line.startsWith("@@"));
    const hunks = at < 0 ? lines.length : at;
    return (
      <pre class="diff shown" aria-label="Changes (unified diff)" tabIndex={0}>
        {lines.map((line, i) => (
          <span key={i} class={lineClass(line, i < hunks)}>
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
            <span class="label">in</span> <code class="shown">{p.cwd}</code>
          </p>
        )}
        <pre class="shown" aria-label="Command" tabIndex={0}>
          <span class="prompt" aria-hidden="true">
            ${" "}
          </span>
          {text}
        </pre>
      </div>
    );
  }
  return (
    <pre class="args shown" tabIndex={0}>
      {text}
    </pre>
  );
}
