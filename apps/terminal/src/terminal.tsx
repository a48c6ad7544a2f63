import { render } from "ink";
import { App } from "./components/app.js";
import type { SessionController } from "./session-controller.js";

export interface TerminalOptions {
  controller: SessionController;
  banner?: string;
}

/** Opens the terminal client on a session; resolves when the person quits. */
export async function runTerminal(opts: TerminalOptions): Promise<void> {
  opts.controller.start();
  const app = render(<App controller={opts.controller} {...(opts.banner ? { banner: opts.banner } : {})} onExit={() => opts.controller.stop()} />, {
    exitOnCtrlC: false,
  });
  await app.waitUntilExit();
}
