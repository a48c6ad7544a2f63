/** Text made safe for Telegram's HTML parse mode. */
export function esc(text: string): string {
  return text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;");
}

/** At most `max` characters, cut with an ellipsis. */
export function cut(text: string, max: number): string {
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}

/** The first eight characters of an id: enough to tell sessions apart in a chat. */
export function short(id: string): string {
  return id.slice(0, 8);
}
