/**
 * The legacy MCP SSE server transport over a web `ReadableStream`: the session's `GET`
 * answers with `response` (an event stream that first names the endpoint to post to), and
 * each `POST` to that endpoint is handed to `handleMessage`. The stream is pulled: a message
 * is handed on only as the client reads, and `send` resolves once it is, so what a client has
 * not read stays countable (the calls it holds open) and bounded (`MAX_UNREAD_MESSAGES`).
 */
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import {
  type JSONRPCMessage,
  JSONRPCMessageSchema,
  type MessageExtraInfo,
} from "@modelcontextprotocol/sdk/types.js";

const encoder = new TextEncoder();

/**
 * The most messages, and bytes (unless one message holds them), a stream holds that its client
 * has not read: past them, the client is not reading, and its session is closed rather than have
 * its answers pile up.
 */
export const MAX_UNREAD_MESSAGES = 100;
export const MAX_UNREAD_BYTES = 64 * 1024 * 1024;

/** An event not read yet, and what to tell once it is. */
interface Unread {
  bytes: Uint8Array;
  read(): void;
}

export class SseServerTransport implements Transport {
  readonly sessionId: string;
  readonly response: Response;
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage, extra?: MessageExtraInfo) => void;
  #endpoint: string;
  #keepAliveMs: number;
  #keepAlive?: ReturnType<typeof setInterval>;
  #unread: Unread[] = [];
  #unreadBytes = 0;
  /** Wakes a read that found nothing to hand on. */
  #wake?: () => void;
  #closed = false;

  /** `endpoint` is the path clients post to; `?sessionId=` is appended. */
  constructor(sessionId: string, endpoint: string, keepAliveMs = 15_000) {
    this.sessionId = sessionId;
    this.#endpoint = endpoint;
    this.#keepAliveMs = keepAliveMs;
    const body = new ReadableStream<Uint8Array>(
      { pull: (controller) => this.#pull(controller), cancel: () => this.#cancelled() },
      { highWaterMark: 0 },
    );
    this.response = new Response(body, {
      headers: {
        "content-type": "text/event-stream",
        "cache-control": "no-cache, no-transform",
        "x-accel-buffering": "no",
      },
    });
  }

  start(): Promise<void> {
    this.#write(`event: endpoint\ndata: ${this.#endpoint}?sessionId=${this.sessionId}\n\n`);
    // A keep-alive only when nothing else waits to be read.
    this.#keepAlive = setInterval(() => {
      if (this.#unread.length === 0) this.#write(": keep-alive\n\n");
    }, this.#keepAliveMs);
    return Promise.resolve();
  }

  /** Resolves once the client has read the message (or the stream ended). */
  send(message: JSONRPCMessage): Promise<void> {
    if (this.#closed) return Promise.reject(new Error("Not connected"));
    if (
      this.#unread.length >= MAX_UNREAD_MESSAGES ||
      (this.#unread.length > 0 && this.#unreadBytes >= MAX_UNREAD_BYTES)
    ) {
      this.#cancelled();
      return Promise.reject(new Error("Not connected: the client does not read its stream"));
    }
    return this.#write(`event: message\ndata: ${JSON.stringify(message)}\n\n`);
  }

  /** Validates and delivers a posted JSON-RPC message or batch; throws when it is not one. */
  handleMessage(body: unknown): void {
    // A batch is its messages, in order; none is handed on unless all are messages.
    const messages = [body].flat().map((message) => JSONRPCMessageSchema.parse(message));
    for (const message of messages) this.onmessage?.(message);
  }

  /** Ends the stream once what it holds is read; the session ends now. */
  close(): Promise<void> {
    this.#finish();
    return Promise.resolve();
  }

  #write(text: string): Promise<void> {
    const { promise, resolve } = Promise.withResolvers<void>();
    const bytes = encoder.encode(text);
    this.#unread.push({ bytes, read: resolve });
    this.#unreadBytes += bytes.byteLength;
    this.#wakeReader();
    return promise;
  }

  #wakeReader(): void {
    this.#wake?.();
    this.#wake = undefined;
  }

  /** Hands the next event to the client's read, waiting for one when there is none. */
  async #pull(controller: ReadableStreamDefaultController<Uint8Array>): Promise<void> {
    while (this.#unread.length === 0 && !this.#closed) {
      await new Promise<void>((resolve) => this.#wake = resolve);
    }
    const next = this.#unread.shift();
    this.#unreadBytes -= next?.bytes.byteLength ?? 0;
    try {
      if (next) controller.enqueue(next.bytes);
      else controller.close();
    } catch {
      // cancelled by the client meanwhile
    }
    next?.read();
  }

  /** The client left, or does not read: what was not read never will be. */
  #cancelled(): void {
    for (const { read } of this.#unread.splice(0)) read();
    this.#unreadBytes = 0;
    this.#finish();
  }

  #finish(): void {
    if (this.#closed) return;
    this.#closed = true;
    clearInterval(this.#keepAlive);
    this.#wakeReader();
    this.onclose?.();
  }
}
