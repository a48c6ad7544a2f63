import { safeLine, safeText } from "@gatehouse/protocol";
import { Box, Text } from "ink";
import { outputPreview } from "@gatehouse/client-text";
import type React from "react";
import type { CallItem, Item, ShellItem } from "../session-view.js";

/** How each status of a call is marked (docs/terminal.md lists the same). */
export const CALL_MARKS: Record<CallItem["status"], { mark: string; color: string }> = {
  queued: { mark: "·", color: "gray" },
  asking: { mark: "?", color: "yellow" },
  running: { mark: "…", color: "blue" },
  done: { mark: "✓", color: "green" },
  failed: { mark: "✗", color: "red" },
  denied: { mark: "⊘", color: "red" },
  cancelled: { mark: "-", color: "gray" },
};

/** Lines of output under an entry, each cut to the screen's width rather than wrapped into fragments. */
function Output({ lines, dim = false }: { lines: string[]; dim?: boolean }) {
  return (
    <Box flexDirection="column" paddingLeft={2}>
      {lines.map((line, i) => (
        <Text key={i} dimColor={dim} wrap="truncate-end">
          {line || " "}
        </Text>
      ))}
    </Box>
  );
}

/** A mark and a text that wraps under itself, not under the mark. */
function Marked({ mark, color, children }: { mark: string; color: string; children: React.ReactNode }) {
  return (
    <Box>
      <Box flexShrink={0}>
        <Text color={color}>{mark} </Text>
      </Box>
      <Text>{children}</Text>
    </Box>
  );
}

function Call({ item }: { item: CallItem }) {
  const s = CALL_MARKS[item.status];
  return (
    <Box flexDirection="column">
      <Marked mark={`${s.mark} ${item.status}`} color={s.color}>
        <Text bold>{item.title}</Text>
        {item.because ? <Text dimColor> · {item.because}</Text> : null}
      </Marked>
      {item.output !== null && item.status !== "running" ? <Output lines={outputPreview(item.output)} dim /> : null}
    </Box>
  );
}

/** The last lines a running command printed. */
const RUNNING_LINES = 10;

/** The lines of an ended `!command` shown in the transcript; `/output` pages through the rest. */
const PREVIEW_LINES = 20;

function Shell({ item }: { item: ShellItem }) {
  if (item.running) {
    const lines = safeText(item.output.replace(/\n$/, "")).split("\n");
    const shown = item.output === "" ? [] : lines.slice(-RUNNING_LINES);
    return (
      <Box flexDirection="column">
        <Marked mark="!" color="magenta">
          {safeLine(item.command)} <Text color="blue">… running (Ctrl+C aborts)</Text>
        </Marked>
        {lines.length > RUNNING_LINES ? <Text dimColor> … {lines.length - RUNNING_LINES} earlier line(s)</Text> : null}
        <Output lines={shown} />
      </Box>
    );
  }
  return (
    <Box flexDirection="column">
      <Marked mark="!" color="magenta">
        <Text color="magenta">{safeLine(item.command)}</Text> <Text dimColor>(exit {item.exitCode ?? "none"}, not gated: typed by you)</Text>
      </Marked>
      <Output lines={outputPreview(item.output, PREVIEW_LINES)} />
      {item.output.replace(/\s+$/, "").split("\n").length > PREVIEW_LINES ? <Text dimColor> /output shows the whole output in a pager</Text> : null}
    </Box>
  );
}

/** One entry of the conversation. */
export function TranscriptItem({ item }: { item: Item }) {
  switch (item.kind) {
    case "user":
      return (
        <Marked mark="›" color="cyan">
          <Text color="cyan">{safeText(item.text)}</Text>
        </Marked>
      );
    case "assistant":
      return <Text>{safeText(item.text)}</Text>;
    case "call":
      return <Call item={item} />;
    case "shell":
      return <Shell item={item} />;
    case "notice":
      return (
        <Text color={item.tone === "error" ? "red" : item.tone === "warn" ? "yellow" : "gray"}>
          {item.tone === "error" ? "error: " : ""}
          {safeText(item.text)}
        </Text>
      );
  }
}
