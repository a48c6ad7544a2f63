import { Box, Text } from "ink";
import { outputPreview } from "../format.js";
import { settledStatus, type CallItem, type Item } from "../session-view.js";

const STATUS: Record<CallItem["status"], { mark: string; color: string }> = {
  queued: { mark: "·", color: "gray" },
  asking: { mark: "?", color: "yellow" },
  running: { mark: "…", color: "blue" },
  done: { mark: "✓", color: "green" },
  failed: { mark: "✗", color: "red" },
  denied: { mark: "⊘", color: "red" },
  cancelled: { mark: "-", color: "gray" },
};

/** Whether an item will not change any more, so it can be printed once and left alone. */
export function settled(item: Item): boolean {
  if (item.kind === "assistant") return !item.streaming;
  if (item.kind === "call") return settledStatus(item.status);
  return true;
}

function Call({ item }: { item: CallItem }) {
  const s = STATUS[item.status];
  return (
    <Box flexDirection="column">
      <Text>
        <Text color={s.color}>
          {s.mark} {item.status}
        </Text>{" "}
        <Text bold>{item.title}</Text>
        {item.because ? <Text dimColor> · {item.because}</Text> : null}
      </Text>
      {item.output !== null && item.status !== "running"
        ? outputPreview(item.output).map((line, i) => (
            <Text key={i} dimColor>
              {" "}
              {line}
            </Text>
          ))
        : null}
    </Box>
  );
}

/** One entry of the conversation. */
export function TranscriptItem({ item }: { item: Item }) {
  switch (item.kind) {
    case "user":
      return <Text color="cyan">› {item.text}</Text>;
    case "assistant":
      return <Text>{item.text}</Text>;
    case "call":
      return <Call item={item} />;
    case "shell":
      return (
        <Box flexDirection="column">
          <Text color="magenta">
            ! {item.command} <Text dimColor>(exit {item.exitCode ?? "?"}, not gated: typed by you)</Text>
          </Text>
          {outputPreview(item.output, 20).map((line, i) => (
            <Text key={i}> {line}</Text>
          ))}
        </Box>
      );
    case "notice":
      return (
        <Text color={item.tone === "error" ? "red" : item.tone === "warn" ? "yellow" : "gray"}>
          {item.tone === "error" ? "error: " : ""}
          {item.text}
        </Text>
      );
  }
}
