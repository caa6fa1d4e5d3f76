/**
 * The MCP stdio transport: one JSON-RPC message per line each way. Unlike the SDK's, which
 * drops a line it cannot read, it answers every line it does not hand on, as the HTTP
 * transports do: -32700 for a line that is not JSON, -32600 for JSON that is not a JSON-RPC
 * message, -32602 for params a method does not take, and -32600 for a line over
 * {@link MAX_MCP_BODY_BYTES}. The answer carries the line's id when it has one, so the host's
 * request does not wait forever. When its input ends, the transport closes once every request
 * it read is answered, or after {@link END_WAIT_MS}.
 */
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import {
  isJSONRPCRequest,
  type JSONRPCMessage,
  type RequestId,
} from "@modelcontextprotocol/sdk/types.js";
import { jsonProblem, parseJson } from "../http/body.ts";
import { MAX_MCP_BODY_BYTES } from "../routes/sidecar.ts";
import { refusal } from "./messages.ts";

const NEWLINE = 0x0a;
const encoder = new TextEncoder();
const TOO_LONG = `Invalid Request: a message must be at most ${MAX_MCP_BODY_BYTES} bytes`;
/** How long the requests read before the input ended have to be answered. */
export const END_WAIT_MS = 500;

export class StdioTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;
  #input: ReadableStream<Uint8Array>;
  #output: WritableStreamDefaultWriter<Uint8Array>;
  #reader?: ReadableStreamDefaultReader<Uint8Array>;
  #closed = false;
  /** The ids of the requests handed on and not answered yet. */
  #unanswered = new Set<RequestId>();
  #allAnswered?: () => void;

  constructor(
    input: ReadableStream<Uint8Array> = Deno.stdin.readable,
    output: WritableStream<Uint8Array> = Deno.stdout.writable,
  ) {
    this.#input = input;
    this.#output = output.getWriter();
  }

  start(): Promise<void> {
    this.#reader = this.#input.getReader();
    this.#read().catch((error) => this.onerror?.(error)).finally(() => this.close());
    return Promise.resolve();
  }

  async send(message: JSONRPCMessage): Promise<void> {
    if (this.#closed) throw new Error("Not connected");
    await this.#output.write(encoder.encode(`${JSON.stringify(message)}\n`));
    if (!("method" in message) && "id" in message && this.#unanswered.delete(message.id!)) {
      if (this.#unanswered.size === 0) this.#allAnswered?.();
    }
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    await this.#reader?.cancel().catch(() => {});
    this.onclose?.();
  }

  /**
   * Reads lines until the input ends. A line is held up to the limit; past it, its bytes are
   * dropped until its end, which is answered.
   */
  async #read(): Promise<void> {
    let parts: Uint8Array[] = [];
    let size = 0;
    while (!this.#closed) {
      const { value, done } = await this.#reader!.read();
      if (done) break;
      let chunk = value;
      for (let end = chunk.indexOf(NEWLINE); end !== -1; end = chunk.indexOf(NEWLINE)) {
        size += end;
        if (size > MAX_MCP_BODY_BYTES) await this.#answer({ code: -32600, message: TOO_LONG });
        else await this.#line([...parts, chunk.subarray(0, end)]);
        [parts, size] = [[], 0];
        chunk = chunk.subarray(end + 1);
      }
      size += chunk.length;
      if (size > MAX_MCP_BODY_BYTES) parts = [];
      else parts.push(chunk.slice());
    }
    if (size > MAX_MCP_BODY_BYTES) await this.#answer({ code: -32600, message: TOO_LONG });
    else if (size > 0) await this.#line(parts);
    await this.#answered(END_WAIT_MS);
  }

  /** Resolves once every request handed on is answered, or after `ms`. */
  async #answered(ms: number): Promise<void> {
    if (this.#unanswered.size === 0) return;
    let timer: ReturnType<typeof setTimeout> | undefined;
    await new Promise<void>((resolve) => {
      this.#allAnswered = resolve;
      timer = setTimeout(resolve, ms);
    });
    clearTimeout(timer);
  }

  async #line(parts: Uint8Array[]): Promise<void> {
    let value: unknown;
    try {
      const decoder = new TextDecoder("utf-8", { fatal: true });
      const last = parts.length - 1;
      const text = parts.map((part, i) => decoder.decode(part, { stream: i < last })).join("")
        .trim();
      if (text === "") return;
      value = parseJson(text);
    } catch (error) {
      return await this.#answer({
        code: -32700,
        message: `Parse error: the line is ${jsonProblem(error)}`,
      });
    }
    const refused = refusal(value);
    if (refused) return await this.#answer(refused, idOf(value));
    if (isJSONRPCRequest(value)) this.#unanswered.add((value as { id: RequestId }).id);
    this.onmessage?.(value as JSONRPCMessage);
  }

  #answer(error: { code: number; message: string }, id: string | number | null = null) {
    return this.send({ jsonrpc: "2.0", id, error } as JSONRPCMessage);
  }
}

/** The id of a request that could not be taken, when it has a usable one. */
function idOf(value: unknown): string | number | null {
  const id = (value as { id?: unknown } | null)?.id;
  return typeof id === "string" || typeof id === "number" ? id : null;
}
