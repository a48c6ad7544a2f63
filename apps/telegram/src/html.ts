import { safeText } from "@gatehouse/protocol/show";

/** Text already safe to show (escaped by `showText`, or made of such parts) made safe for Telegram's HTML parse mode. */
export function escShown(text: string): string {
  return text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;");
}

/** Any text made safe to show (hidden code points escaped) and safe for Telegram's HTML parse mode. */
export function esc(text: string): string {
  return escShown(safeText(text));
}

/** At most `max` characters, cut with an ellipsis. */
export function cut(text: string, max: number): string {
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}

/** The first eight characters of an id: enough to tell sessions apart in a chat. */
export function short(id: string): string {
  return id.slice(0, 8);
}
