/** One structured log line: a JSON object with the time, a message and its fields. */
export type Log = (msg: string, fields?: Record<string, unknown>) => void;

export function jsonLog(out: NodeJS.WritableStream = process.stderr): Log {
  return (msg, fields = {}) => out.write(`${JSON.stringify({ at: new Date().toISOString(), msg, ...fields })}\n`);
}
