// Takes the screenshot of the terminal client used in README.md: the demo tour in tmux, its
// screen with colours (tmux capture-pane -e) drawn as HTML in Chromium.
//   node --import tsx scripts/terminal-screenshot.ts     (writes docs/images/terminal-demo.png)
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { launchChromium } from "../test/support/browser.js";
import { Tmux } from "../test/support/tmux.js";

const OUT = path.resolve(import.meta.dirname, "../docs/images/terminal-demo.png");
const BIN = path.resolve(import.meta.dirname, "../apps/cli/bin/gatehouse.js");
const COLS = 112;
const ROWS = 42;

const PALETTE = ["#1e1e1e", "#f14c4c", "#23d18b", "#f5f543", "#3b8eea", "#d670d6", "#29b8db", "#e5e5e5"];
const BRIGHT = ["#666666", "#f14c4c", "#23d18b", "#f5f543", "#3b8eea", "#d670d6", "#29b8db", "#ffffff"];
const FG = "#cccccc";
const BG = "#1e1e1e";

interface Style {
  fg: string | null;
  bg: string | null;
  bold: boolean;
  dim: boolean;
  inverse: boolean;
}

const plain = (): Style => ({ fg: null, bg: null, bold: false, dim: false, inverse: false });
const escape = (text: string) => text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;");

/** One SGR sequence's parameters applied to a style. */
function apply(style: Style, params: number[]): Style {
  const s = { ...style };
  for (let i = 0; i < params.length; i++) {
    const p = params[i]!;
    if (p === 0) Object.assign(s, plain());
    else if (p === 1) s.bold = true;
    else if (p === 2) s.dim = true;
    else if (p === 7) s.inverse = true;
    else if (p === 22) s.bold = s.dim = false;
    else if (p === 27) s.inverse = false;
    else if (p >= 30 && p <= 37) s.fg = PALETTE[p - 30]!;
    else if (p >= 90 && p <= 97) s.fg = BRIGHT[p - 90]!;
    else if (p === 39) s.fg = null;
    else if (p >= 40 && p <= 47) s.bg = PALETTE[p - 40]!;
    else if (p === 49) s.bg = null;
    else if ((p === 38 || p === 48) && params[i + 1] === 5) {
      const n = params[i + 2]!;
      const colour = n < 8 ? PALETTE[n]! : n < 16 ? BRIGHT[n - 8]! : FG;
      if (p === 38) s.fg = colour;
      else s.bg = colour;
      i += 2;
    } else if ((p === 38 || p === 48) && params[i + 1] === 2) {
      const colour = `rgb(${params[i + 2]},${params[i + 3]},${params[i + 4]})`;
      if (p === 38) s.fg = colour;
      else s.bg = colour;
      i += 4;
    }
  }
  return s;
}

function span(text: string, s: Style): string {
  if (text === "") return "";
  let fg = s.fg ?? FG;
  let bg = s.bg ?? BG;
  if (s.inverse) [fg, bg] = [bg, fg];
  const css = [`color:${fg}`, s.bg || s.inverse ? `background:${bg}` : "", s.bold ? "font-weight:bold" : "", s.dim ? "opacity:0.6" : ""]
    .filter(Boolean)
    .join(";");
  return `<span style="${css}">${escape(text)}</span>`;
}

const ESC = String.fromCharCode(27);
const SGR = new RegExp(`(${ESC}\\[[0-9;]*m)`);
const ONE_SGR = new RegExp(`^${ESC}\\[([0-9;]*)m$`);
const OTHER_SEQUENCE = new RegExp(`${ESC}\\[[0-9;?]*[A-Za-z]`, "g");

/** A screen with escape sequences as HTML, one line a line. */
function toHtml(screen: string): string {
  let style = plain();
  let out = "";
  for (const part of screen.split(SGR)) {
    const sgr = ONE_SGR.exec(part);
    if (sgr) style = apply(style, (sgr[1] || "0").split(";").map(Number));
    else out += span(part.replace(OTHER_SEQUENCE, ""), style);
  }
  return out;
}

const data = fs.mkdtempSync(path.join(os.tmpdir(), "gh-shot-"));
const tmux = new Tmux(`node ${BIN} --demo --data-dir ${data}`, COLS, ROWS);
const chromium = await launchChromium();
try {
  await tmux.waitFor(/approval +write_file/, "the write's approval", 30_000);
  tmux.keys("y");
  await tmux.waitFor(/approval +edit_file[\s\S]*y once/, "the edit's approval", 30_000);
  await new Promise((r) => setTimeout(r, 500));
  const html = `<!doctype html><meta charset="utf-8"><body style="margin:0;background:${BG}">
<pre style="margin:0;padding:14px 16px;font:14px/1.2 'DejaVu Sans Mono',monospace;color:${FG};background:${BG};width:${COLS}ch">${toHtml(tmux.styledScreen())}</pre>`;
  const page = await chromium.browser.newPage({ viewport: { width: 1100, height: 700 }, deviceScaleFactor: 1 });
  await page.setContent(html);
  await page.locator("pre").screenshot({ path: OUT });
  console.log(path.relative(process.cwd(), OUT));
} finally {
  tmux.kill();
  await chromium.close();
  fs.rmSync(data, { recursive: true, force: true });
}
