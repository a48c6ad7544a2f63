import http from "node:http";
import https from "node:https";

/** A connection that sends and receives nothing for this long is given up, as Node's `fetch` does. */
const IDLE_MS = 300_000;

/** Statuses whose responses have no body by definition. */
const NO_BODY = new Set([101, 204, 205, 304]);

/** A request's body: text, bytes, or bytes in parts, sent one after another without being joined. */
export type HttpBody = string | Uint8Array | readonly Uint8Array[];

/** `fetch`'s options, with a body of text or bytes (others are not sent). */
export type HttpRequestInit = Omit<RequestInit, "body"> & { body?: HttpBody | RequestInit["body"] };

export type HttpSend = (input: Parameters<typeof fetch>[0], init?: HttpRequestInit) => Promise<Response>;

const agents = { "http:": new http.Agent({ keepAlive: true }), "https:": new https.Agent({ keepAlive: true }) };

/**
 * The `fetch` the model providers are given: a request through Node's `http` and `https` modules,
 * with kept-alive connections, answered as a web `Response` whose body streams as it arrives.
 * Node's own `fetch` (undici) writes every request body through a web stream; without it a
 * model step at 1 message costs 30 to 40% less (see docs/benchmarks.md).
 *
 * Failures read as `fetch`'s do, so the AI SDK treats them the same: a request that cannot be
 * made is a `TypeError("fetch failed")` with the cause (retried), an answer cut off is a
 * `TypeError("terminated")`, an abort is the signal's reason. Redirects are not followed (the
 * provider's status is reported), and no compressed answer is asked for.
 */
export function httpFetch(input: Parameters<typeof fetch>[0], init: HttpRequestInit = {}, idleMs = IDLE_MS): Promise<Response> {
  const url = new URL(input instanceof Request ? input.url : String(input));
  const agent = url.protocol === "https:" ? agents["https:"] : url.protocol === "http:" ? agents["http:"] : undefined;
  if (!agent) return Promise.reject(new TypeError("fetch failed", { cause: new Error(`unsupported protocol ${url.protocol}`) }));
  const signal = init.signal ?? undefined;
  if (signal?.aborted) return Promise.reject(signal.reason as Error);
  const headers = headersFor(init);
  return new Promise((resolve, reject) => {
    const request = (url.protocol === "https:" ? https : http).request(url, { method: init.method ?? "GET", headers, agent });
    const abort = () => request.destroy(signal!.reason as Error);
    signal?.addEventListener("abort", abort, { once: true });
    const forget = () => signal?.removeEventListener("abort", abort);
    request.setTimeout(idleMs, () => request.destroy(new Error(`no answer for ${idleMs / 1000} s`)));
    request.on("error", (err) => {
      forget();
      reject(signal?.aborted ? (signal.reason as Error) : new TypeError("fetch failed", { cause: err }));
    });
    request.on("response", (res) => {
      const status = res.statusCode ?? 0;
      // A web Response takes statuses 200 to 599 only; anything else (1xx, 600 and up) is an endpoint that is not speaking HTTP as a model API does.
      if (status < 200 || status > 599) {
        res.destroy();
        forget();
        reject(new TypeError("fetch failed", { cause: new Error(`the endpoint answered with HTTP status ${status}`) }));
        return;
      }
      try {
        const body = NO_BODY.has(status) ? null : streamOf(res, signal, forget);
        if (!body) {
          forget();
          res.resume();
        }
        resolve(new Response(body, { status, statusText: res.statusMessage ?? "", headers: headersOf(res.rawHeaders) }));
      } catch (err) {
        res.destroy();
        forget();
        reject(new TypeError("fetch failed", { cause: err }));
      }
    });
    send(request, init.body);
  });
}

/** Request headers as a plain object with lower-case names, made without a `Headers` when they come as one (as the SDK gives them). */
export function plainHeaders(given: RequestInit["headers"]): Record<string, string> {
  const headers: Record<string, string> = {};
  if (given instanceof Headers || Array.isArray(given)) new Headers(given).forEach((value, name) => (headers[name] = value));
  else if (given) for (const [name, value] of Object.entries(given as Record<string, string>)) headers[name.toLowerCase()] = value;
  return headers;
}

function headersFor(init: HttpRequestInit): Record<string, string> {
  const headers = plainHeaders(init.headers);
  if (Array.isArray(init.body)) headers["content-length"] = String((init.body as readonly Uint8Array[]).reduce((n, part) => n + part.length, 0));
  return headers;
}

function send(request: http.ClientRequest, body: HttpRequestInit["body"]): void {
  if (typeof body === "string" || body instanceof Uint8Array) request.end(body);
  else if (Array.isArray(body)) {
    for (const part of body as readonly Uint8Array[]) request.write(part);
    request.end();
  } else request.end();
}

function headersOf(raw: readonly string[]): Headers {
  const headers = new Headers();
  for (let i = 0; i + 1 < raw.length; i += 2) headers.append(raw[i]!, raw[i + 1]!);
  return headers;
}

/** A response's body as a web stream that pauses the socket while nobody reads; a cut-off answer errors it. */
function streamOf(res: http.IncomingMessage, signal: AbortSignal | undefined, forget: () => void): ReadableStream<Uint8Array> {
  return new ReadableStream<Uint8Array>({
    start(controller) {
      let ended = false;
      // A connection reset mid-answer is told by "close" below; without a listener the error would end the process.
      res.on("error", () => undefined);
      res.on("data", (chunk: Buffer) => {
        try {
          controller.enqueue(new Uint8Array(chunk.buffer, chunk.byteOffset, chunk.byteLength));
        } catch {
          // The reader is gone (cancelled or errored): nothing more is read.
          res.destroy();
          return;
        }
        if ((controller.desiredSize ?? 1) <= 0) res.pause();
      });
      res.on("end", () => {
        ended = true;
        forget();
        controller.close();
      });
      res.on("close", () => {
        if (ended) return;
        forget();
        controller.error(signal?.aborted ? signal.reason : new TypeError("terminated", { cause: res.errored ?? undefined }));
      });
    },
    pull() {
      res.resume();
    },
    cancel() {
      forget();
      res.destroy();
    },
  });
}
