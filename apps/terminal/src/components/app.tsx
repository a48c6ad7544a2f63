import { Mode, safeLine, safePresentation, safeText, type ApprovalRequired, type Presentation } from "@gatehouse/protocol";
import { Box, Static, Text, useApp, useInput, useStdout } from "ink";
import { useRef, useState, useSyncExternalStore } from "react";
import { describeCall } from "@gatehouse/client-text";
import type { ControllerState, SessionController } from "../session-controller.js";
import { shellRunning, type Item } from "../session-view.js";
import { ApprovalPrompt } from "./approval-prompt.js";
import { InputLine } from "./input-line.js";
import { Pager } from "./pager.js";
import { TranscriptItem } from "./transcript.js";

export interface AppProps {
  controller: SessionController;
  /** A line shown above everything, e.g. that the model is the scripted demo. */
  banner?: string;
  onExit(): void;
}

interface Paged {
  title: string;
  lines: string[];
  diff: boolean;
}

const pagedPresentation = (title: string, p: Presentation): Paged => ({ title, lines: p.content.split("\n"), diff: p.kind === "diff" });

/** The last `!command` that ended, whole, for the pager; null when none has. */
function lastCommandOutput(items: readonly Item[]): Paged | null {
  const last = items.findLast((i) => i.kind === "shell" && !i.running);
  if (last?.kind !== "shell") return null;
  return { title: `!${safeLine(last.command)} (exit ${last.exitCode ?? "none"})`, lines: safeText(last.output.replace(/\n$/, "")).split("\n"), diff: false };
}

/** Runs what a person typed: `!command` on the worker, `/mode NAME`, `/new`, `/output`, or a prompt to the model. */
function submit(controller: SessionController, text: string, exit: () => Promise<void>, page: (p: Paged) => void): void {
  if (text.startsWith("!")) return void controller.shell(text.slice(1).trim());
  if (text === "/quit" || text === "/exit") return void exit();
  if (text === "/new") return void controller.newSession();
  if (text === "/output") {
    const output = lastCommandOutput(controller.snapshot.view.items);
    return output ? page(output) : controller.report("no !command has ended yet; /output shows the last one's whole output");
  }
  if (controller.snapshot.gone) return controller.report(`session ${controller.sessionId} is gone; /new starts a new one, Ctrl+C quits`);
  const mode = /^\/mode(?:\s+(\S+))?$/.exec(text);
  if (mode) {
    const parsed = Mode.safeParse(mode[1]);
    return parsed.success ? void controller.setMode(parsed.data) : controller.report(`usage: /mode ${Mode.options.join("|")}`);
  }
  if (text.startsWith("/")) return controller.report(`unknown command ${text.split(" ")[0]}; try /mode NAME, /new, /output, /quit, or !command`);
  void controller.prompt(text);
}

/** What the input line says while it is empty: what runs, and what Ctrl+C will do. */
function hint(state: ControllerState, busy: boolean): string {
  if (state.gone) return "/new starts a new session, Ctrl+C quits";
  if (state.connection !== "online") return "not connected: reconnecting… (Ctrl+C quits)";
  if (busy) return `${state.view.turnRunning ? "working" : "your command runs"}… (Ctrl+C aborts)`;
  return "a prompt, !command to run yourself, /mode NAME, Ctrl+C to quit";
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
  const printed = useRef<Item[]>([]);
  /** The approval at the front, whether the person is typing an answer to it, and the one held after it went. */
  const head = useRef<string | null>(null);
  const typing = useRef(false);
  const heldFor = useRef<string | null>(null);
  const { items, pending, mode, turnRunning, workerOnline } = state.view;
  const commandRunning = shellRunning(state.view);
  // Without the server nothing can be aborted: Ctrl+C then quits rather than wait on it.
  const reachable = state.connection === "online" && !state.gone;
  /** Quits; a command of the person's still running is stopped first, so what it printed is recorded and kept. */
  const leave = async () => {
    if (commandRunning && reachable) await Promise.race([controller.abort(), new Promise((r) => setTimeout(r, 2000))]);
    onExit();
    exit();
  };
  const busy = reachable && (turnRunning || commandRunning);
  useInput((input, key) => {
    if (!(key.ctrl && input === "c")) return;
    if (busy) void controller.abort();
    else void leave();
  });
  // Each entry is printed once, when it ends, so the transcript reads in the order things ended.
  const printing = new Set(state.view.ended);
  const live = items.filter((_, i) => !printing.has(i));
  while (printed.current.length < state.view.ended.length) printed.current.push(items[state.view.ended[printed.current.length]!]!);
  const done = printed.current;
  const view = async (a: ApprovalRequired) => {
    const whole = await controller.view(a);
    if (whole) setPaged(pagedPresentation(describeCall(a.toolName, a.arguments, 60), safePresentation(whole)));
  };
  const rows = stdout.rows || 24;
  // A call that comes to the front while the person typed an answer to the one before it (which
  // another client answered) is held until Enter: the rest of their typing must answer nothing.
  const front = pending[0]?.approvalId ?? null;
  if (front !== head.current) {
    heldFor.current = typing.current ? front : null;
    typing.current = false;
    head.current = front;
  }
  return (
    <Box flexDirection="column">
      <Static items={banner ? [{ kind: "notice" as const, tone: "info" as const, text: banner }, ...done] : done}>
        {(item, i) => <TranscriptItem key={i} item={item} />}
      </Static>
      {live.map((item, i) => (
        <TranscriptItem key={i} item={item} />
      ))}
      {paged ? (
        <Pager title={paged.title} lines={paged.lines} diff={paged.diff} height={rows - 2} onClose={() => setPaged(null)} />
      ) : pending.length > 0 ? (
        <ApprovalPrompt
          key={pending[0]!.approvalId}
          queue={pending}
          onAnswer={(a, answer) => {
            typing.current = false;
            void controller.answer(a, answer);
          }}
          held={heldFor.current === front}
          onTyping={(now) => {
            typing.current = now;
          }}
          onView={(a) => void view(a)}
          onCheckEdit={(a, edited) => controller.checkEdit(a, edited)}
          editor={process.env.EDITOR || undefined}
          previewLines={Math.max(6, rows - 16)}
          columns={stdout.columns || 80}
          subagents={state.view.subagents}
        />
      ) : (
        <InputLine hint={hint(state, busy)} onSubmit={(text) => submit(controller, text, leave, setPaged)} />
      )}
      {state.problem ? <Text color="red">{state.problem}</Text> : null}
      <Text dimColor wrap="truncate-end">
        session {controller.sessionId.slice(0, 8)}
        {state.gone ? " (gone)" : ""} · mode {mode} ·{" "}
        {state.connection === "online" ? "connected" : state.connection === "reconnecting" ? "reconnecting…" : "connecting…"}
        {workerOnline ? "" : " · worker offline"}
        {busy ? ` · ${turnRunning ? "working" : "command runs"} (Ctrl+C aborts)` : ""}
      </Text>
    </Box>
  );
}
