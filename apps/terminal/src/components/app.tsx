import { Mode, type ApprovalRequired, type Presentation } from "@gatehouse/protocol";
import { Box, Static, Text, useApp, useInput, useStdout } from "ink";
import { useRef, useState, useSyncExternalStore } from "react";
import { describeCall } from "../format.js";
import type { SessionController } from "../session-controller.js";
import { ApprovalPrompt } from "./approval-prompt.js";
import { InputLine } from "./input-line.js";
import { Pager } from "./pager.js";
import { settled, TranscriptItem } from "./transcript.js";

export interface AppProps {
  controller: SessionController;
  /** A line shown above everything, e.g. that the model is the scripted demo. */
  banner?: string;
  onExit(): void;
}

interface Paged {
  title: string;
  presentation: Presentation;
}

/** Runs what a person typed: `!command` on the worker, `/mode NAME`, or a prompt to the model. */
function submit(controller: SessionController, text: string, exit: () => void): void {
  if (text.startsWith("!")) return void controller.shell(text.slice(1).trim());
  if (text === "/quit" || text === "/exit") return exit();
  const mode = /^\/mode(?:\s+(\S+))?$/.exec(text);
  if (mode) {
    const parsed = Mode.safeParse(mode[1]);
    return parsed.success ? void controller.setMode(parsed.data) : controller.report(`usage: /mode ${Mode.options.join("|")}`);
  }
  if (text.startsWith("/")) return controller.report(`unknown command ${text.split(" ")[0]}; try /mode NAME, /quit, or !command`);
  void controller.prompt(text);
}

/** The terminal client: the conversation, the approval prompt or the input line, and a status line. */
export function App({ controller, banner, onExit }: AppProps) {
  const state = useSyncExternalStore(
    (l) => controller.onChange(l),
    () => controller.snapshot,
  );
  const { exit } = useApp();
  const { stdout } = useStdout();
  const [paged, setPaged] = useState<Paged | null>(null);
  const flushed = useRef(0);
  const leave = () => {
    onExit();
    exit();
  };
  useInput((input, key) => {
    if (!(key.ctrl && input === "c")) return;
    if (state.view.turnRunning) void controller.abort();
    else leave();
  });
  const { items, pending, mode, turnRunning, workerOnline } = state.view;
  while (flushed.current < items.length && settled(items[flushed.current]!)) flushed.current++;
  const done = items.slice(0, flushed.current);
  const live = items.slice(flushed.current);
  const view = async (a: ApprovalRequired) => {
    const whole = await controller.view(a);
    if (whole) setPaged({ title: describeCall(a.toolName, a.arguments, 60), presentation: whole });
  };
  const rows = stdout.rows || 24;
  return (
    <Box flexDirection="column">
      <Static items={banner ? [{ kind: "notice" as const, tone: "info" as const, text: banner }, ...done] : done}>
        {(item, i) => <TranscriptItem key={i} item={item} />}
      </Static>
      {live.map((item, i) => (
        <TranscriptItem key={i} item={item} />
      ))}
      {paged ? (
        <Pager
          title={paged.title}
          lines={paged.presentation.content.split("\n")}
          diff={paged.presentation.kind === "diff"}
          height={rows - 2}
          onClose={() => setPaged(null)}
        />
      ) : pending.length > 0 ? (
        <ApprovalPrompt
          key={pending[0]!.approvalId}
          queue={pending}
          onAnswer={(a, answer) => void controller.answer(a, answer)}
          onView={(a) => void view(a)}
          previewLines={Math.max(6, rows - 16)}
          subagents={state.view.subagents}
        />
      ) : (
        <InputLine
          hint={turnRunning ? "working… (Ctrl+C aborts)" : "a prompt, !command to run yourself, /mode NAME, Ctrl+C to quit"}
          onSubmit={(text) => submit(controller, text, leave)}
        />
      )}
      {state.problem ? <Text color="red">{state.problem}</Text> : null}
      <Text dimColor>
        session {controller.sessionId.slice(0, 8)} · mode {mode} ·{" "}
        {state.connection === "online" ? "connected" : state.connection === "reconnecting" ? "reconnecting…" : "connecting…"}
        {workerOnline ? "" : " · worker offline"}
        {turnRunning ? " · working (Ctrl+C aborts)" : ""}
      </Text>
    </Box>
  );
}
