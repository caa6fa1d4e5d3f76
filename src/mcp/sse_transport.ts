/**
 * The legacy MCP SSE server transport over a web `ReadableStream`: the session's `GET`
 * answers with `response` (an event stream that first names the endpoint to post to), and
 * each `POST` to that endpoint is handed to `handleMessage`.
 */
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import {
  type JSONRPCMessage,
  JSONRPCMessageSchema,
  type MessageExtraInfo,
} from "@modelcontextprotocol/sdk/types.js";

const encoder = new TextEncoder();

/**
 * The most bytes of answers a stream holds that its client has not read: a client that posts
 * calls without reading their answers loses its session rather than having them pile up.
 */
export const MAX_UNREAD_BYTES = 16 * 1024 * 1024;

export class SseServerTransport implements Transport {
  readonly sessionId: string;
  readonly response: Response;
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage, extra?: MessageExtraInfo) => void;
  #endpoint: string;
  #keepAliveMs: number;
  #controller!: ReadableStreamDefaultController<Uint8Array>;
  #keepAlive?: ReturnType<typeof setInterval>;
  #closed = false;

  /** `endpoint` is the path clients post to; `?sessionId=` is appended. */
  constructor(sessionId: string, endpoint: string, keepAliveMs = 15_000) {
    this.sessionId = sessionId;
    this.#endpoint = endpoint;
    this.#keepAliveMs = keepAliveMs;
    const body = new ReadableStream<Uint8Array>(
      {
        start: (controller) => {
          this.#controller = controller;
        },
        cancel: () => this.#finish(),
      },
      new ByteLengthQueuingStrategy({ highWaterMark: MAX_UNREAD_BYTES }),
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
    this.#keepAlive = setInterval(() => this.#write(": keep-alive\n\n"), this.#keepAliveMs);
    return Promise.resolve();
  }

  send(message: JSONRPCMessage): Promise<void> {
    if (this.#closed) return Promise.reject(new Error("Not connected"));
    // One answer may be larger than the limit; one more on top of unread ones is not taken.
    if ((this.#controller.desiredSize ?? 0) <= 0) {
      this.#controller.error(new Error("the client does not read its event stream"));
      this.#finish();
      return Promise.reject(new Error("Not connected: the client does not read its answers"));
    }
    this.#write(`event: message\ndata: ${JSON.stringify(message)}\n\n`);
    return Promise.resolve();
  }

  /** Validates and delivers a posted JSON-RPC message or batch; throws when it is not one. */
  handleMessage(body: unknown): void {
    // A batch is its messages, in order; none is handed on unless all are messages.
    const messages = [body].flat().map((message) => JSONRPCMessageSchema.parse(message));
    for (const message of messages) this.onmessage?.(message);
  }

  close(): Promise<void> {
    if (!this.#closed) {
      try {
        this.#controller.close();
      } catch {
        // already cancelled by the client
      }
    }
    this.#finish();
    return Promise.resolve();
  }

  #write(text: string): void {
    if (this.#closed) return;
    try {
      this.#controller.enqueue(encoder.encode(text));
    } catch {
      this.#finish();
    }
  }

  #finish(): void {
    if (this.#closed) return;
    this.#closed = true;
    clearInterval(this.#keepAlive);
    this.onclose?.();
  }
}
