// `eventFrames` relies on tRPC's `experimental_encoder` option of its WebSocket adapter and on the
// shape of the messages it encodes (`result.data` is `{ id, data: event }`), so that an event's
// JSON text, made once, goes into its frame as it is. @trpc/server is pinned to an exact version
// for this; apps/server/test/event-frames.test.ts fails loudly when an upgrade drops the option or
// changes the messages' shape (frames would then be encoded twice over, or not at all).
import { jsonEncoder, type Encoder } from "@trpc/server/adapters/ws";

/**
 * The JSON text of each event, made once and kept by the event object: the store writes it, the
 * backlog counts its length, and the WebSocket frame carries it, where each used to encode the
 * event again. Events are never changed once published, so the text stays true.
 */
const texts = new WeakMap<object, string>();

/** An event read back from its stored text: the text is kept with it, not made again when it is sent. */
export function eventFromText<T extends object>(text: string): T {
  const event = JSON.parse(text) as T;
  texts.set(event, text);
  return event;
}

export function eventText(event: object): string {
  let text = texts.get(event);
  if (text === undefined) texts.set(event, (text = JSON.stringify(event)));
  return text;
}

/** The event a subscription's message carries (`result.data` is `{ id, data: event }`), if its text is known. */
function carriedEvent(message: unknown): object | undefined {
  const data = (message as { result?: { data?: { data?: unknown } } } | null)?.result?.data?.data;
  return typeof data === "object" && data !== null && texts.has(data) ? data : undefined;
}

const HOLE = "\u0000event\u0000";
const QUOTED_HOLE = JSON.stringify(HOLE);

/** tRPC's JSON frames, with an event's known text put in as it is instead of being encoded again. */
export const eventFrames: Encoder = {
  encode(message) {
    const event = carriedEvent(message);
    if (!event) return jsonEncoder.encode(message);
    // Only the envelope (ids and the result's type) is encoded; the hole can be nowhere else in it.
    const envelope = JSON.stringify(message, (_key, value: unknown) => (value === event ? HOLE : value));
    return envelope.replace(QUOTED_HOLE, () => texts.get(event)!);
  },
  decode: (data) => jsonEncoder.decode(data),
};
