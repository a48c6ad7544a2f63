let lastMs = -1;
let lastText = "";

/** The time as ISO 8601 text, for events and audit entries; each millisecond's text is made once. */
export function now(): string {
  const ms = Date.now();
  if (ms !== lastMs) {
    lastMs = ms;
    lastText = new Date(ms).toISOString();
  }
  return lastText;
}
