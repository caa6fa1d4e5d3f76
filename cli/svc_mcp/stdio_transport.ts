/**
 * The MCP stdio transport: one JSON-RPC message per line each way. Unlike the SDK's, which
 * drops a line it cannot read, it answers every line it does not hand on, as the HTTP
 * transports do: -32700 for a line that is not JSON, -32600 for JSON that is not a JSON-RPC
 * message, -32602 for params a method does not take, and -32600 for a line over
 * {@link MAX_MCP_BODY_BYTES}; a batch line is taken as its messages, each on a line of its own
 * (answered one by one). The answer carries the line's id when it has one, so the host's
 * request does not wait forever. When its input ends, the transport closes once every request
 * it read is answered, or after {@link END_WAIT_MS}.
 */
import { Buffer } from "node:buffer";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import {
  isJSONRPCRequest,
  type JSONRPCMessage,
  type RequestId,
} from "@modelcontextprotocol/sdk/types.js";
import { holdsLoneSurrogate, jsonProblem, LoneSurrogateError, parseJson } from "@svc/util/json";
import {
  CALL_REFUSED,
  idOf,
  IN_PROGRESS,
  MAX_BATCH,
  MAX_MCP_BODY_BYTES,
  refusal,
} from "@svc/relayer/mcp";
import { concatBytes } from "@svc/util/sealing";

const NEWLINE = 0x0a;
const encoder = new TextEncoder();
const TOO_LONG = `Invalid Request: a message must be at most ${MAX_MCP_BODY_BYTES} bytes`;
/** How long the requests read before the input ended have to be answered. */
const END_WAIT_MS = 500;

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
    // Its id is free once its answer is on its way: the host may use it again as soon as it reads it.
    const answered = !("method" in message) && "id" in message &&
      this.#unanswered.delete(message.id!);
    await this.#write(message);
    if (answered && this.#unanswered.size === 0) this.#allAnswered?.();
  }

  /** Writes `message` as a line. */
  async #write(message: JSONRPCMessage): Promise<void> {
    if (this.#closed) throw new Error("Not connected");
    await this.#output.write(encoder.encode(`${JSON.stringify(message)}\n`));
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    await this.#reader?.cancel().catch(() => {});
    this.onclose?.();
  }

  /**
   * Reads lines until the input ends. A line is held up to the limit; past it, its bytes are
   * dropped until its end, which is answered (with the id its first or last bytes show).
   */
  async #read(): Promise<void> {
    let line = new LineBytes();
    while (!this.#closed) {
      const { value, done } = await this.#reader!.read();
      if (done) break;
      let chunk = value;
      for (let end = chunk.indexOf(NEWLINE); end !== -1; end = chunk.indexOf(NEWLINE)) {
        line.add(chunk.subarray(0, end));
        await this.#end(line);
        line = new LineBytes();
        chunk = chunk.subarray(end + 1);
      }
      line.add(chunk);
    }
    if (line.size > 0) await this.#end(line);
    await this.#answered(END_WAIT_MS);
  }

  #end(line: LineBytes): Promise<void> {
    return line.parts
      ? this.#line(line.parts)
      : this.#answer({ code: -32600, message: TOO_LONG }, line.cutId());
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
    const { text, utf8 } = decodeLine(parts);
    if (text === "") return;
    let value: unknown;
    let unreadable: Unreadable | undefined = utf8 ? undefined : {
      message: "Parse error: the line is not valid UTF-8",
      holds: () => true,
    };
    try {
      value = parseJson(text);
    } catch (error) {
      if (!(error instanceof LoneSurrogateError)) {
        const message = unreadable?.message ?? `Parse error: the line is ${jsonProblem(error)}`;
        return await this.#answer({ code: -32700, message }, idShown(text, text));
      }
      // Well-formed JSON all the same: each message is answered by its own id.
      value = JSON.parse(text);
      unreadable ??= {
        message: `Parse error: the message is ${jsonProblem(error)}`,
        holds: holdsLoneSurrogate,
      };
    }
    if (!Array.isArray(value)) return await this.#take(value, unreadable);
    // A batch, as the HTTP endpoint takes one: each message as if on a line of its own.
    if (value.length === 0 || value.length > MAX_BATCH) {
      const message = `A JSON-RPC batch must hold 1 to ${MAX_BATCH} messages`;
      return await this.#answer({ code: -32600, message });
    }
    for (const message of value) await this.#take(message, unreadable);
  }

  /** Hands a message on, or answers why not (`unreadable`: what its line cannot carry). */
  async #take(value: unknown, unreadable?: Unreadable): Promise<void> {
    if (unreadable?.holds(value)) {
      return await this.#answer({ code: -32700, message: unreadable.message }, idOf(value));
    }
    const refused = refusal(value);
    if (refused) return await this.#answer(refused, idOf(value));
    if (isJSONRPCRequest(value)) {
      const { id } = value as { id: RequestId };
      // Refused by its id, which still names the call in progress (not answered by this).
      const error = { code: CALL_REFUSED, message: IN_PROGRESS };
      if (this.#unanswered.has(id)) return await this.#write({ jsonrpc: "2.0", id, error });
      this.#unanswered.add(id);
    }
    // A call the host cancelled gets no answer (the MCP SDK sends none): its id is free.
    const { method, params } = value as { method?: unknown; params?: { requestId?: RequestId } };
    if (method === "notifications/cancelled" && params?.requestId !== undefined) {
      this.#unanswered.delete(params.requestId);
      if (this.#unanswered.size === 0) this.#allAnswered?.();
    }
    this.onmessage?.(value as JSONRPCMessage);
  }

  #answer(error: { code: number; message: string }, id: string | number | null = null) {
    return this.send({ jsonrpc: "2.0", id, error } as JSONRPCMessage);
  }
}

/** How many bytes of each end of a line past the limit are kept, to find its id in. */
const EDGE = 256;
const ID = String.raw`(-?\d+|"(?:[^"\\]|\\.)*")`;
const NAMED = String.raw`"(?:jsonrpc|method)"\s*:\s*"[^"]*"`;
/** An id among the first members (`{"jsonrpc":"2.0","id":7,…`). */
const ID_FIRST = new RegExp(String.raw`^\s*\{(?:\s*${NAMED}\s*,)*\s*"id"\s*:\s*${ID}`);
/** An id among the last members (`…,"jsonrpc":"2.0","id":7}`, as the SDK writes them). */
const ID_LAST = new RegExp(String.raw`,\s*"id"\s*:\s*${ID}(?:\s*,\s*${NAMED})*\s*\}\s*$`);

/**
 * What a line holds that no message can carry (bytes that are not UTF-8, half a surrogate pair):
 * the messages holding it are refused, each by its own id.
 */
interface Unreadable {
  message: string;
  holds(value: unknown): boolean;
}

/** A line's text, trimmed; bytes that are not UTF-8 are replaced (`utf8: false`). */
function decodeLine(parts: Uint8Array[]): { text: string; utf8: boolean } {
  const bytes = Buffer.concat(parts); // not spread: a line may come in 100,000s of pieces
  try {
    return { text: new TextDecoder("utf-8", { fatal: true }).decode(bytes).trim(), utf8: true };
  } catch {
    return { text: new TextDecoder().decode(bytes).trim(), utf8: false };
  }
}

/** The id a line shows among the first members of `head` or the last of `tail`, if any. */
function idShown(head: string, tail: string): string | number | null {
  const found = ID_FIRST.exec(head) ?? ID_LAST.exec(tail);
  try {
    return found ? idOf(parseJson(`{"id":${found[1]}}`)) : null;
  } catch {
    return null; // a string the pattern takes and JSON does not (`"a\x"`, a raw tab)
  }
}

/** A line's bytes as they come: all of them up to the limit, past it only both ends. */
class LineBytes {
  /** The bytes, or `undefined` once the line is past the limit. */
  parts?: Uint8Array[] = [];
  size = 0;
  #head: Uint8Array = new Uint8Array(0);
  #tail: Uint8Array = new Uint8Array(0);

  add(bytes: Uint8Array): void {
    this.size += bytes.length;
    if (this.#head.length < EDGE) {
      this.#head = concatBytes(this.#head, bytes.subarray(0, EDGE - this.#head.length));
    }
    this.#tail = concatBytes(this.#tail, bytes.subarray(-EDGE)).slice(-EDGE);
    if (this.size > MAX_MCP_BODY_BYTES) this.parts = undefined;
    else this.parts?.push(bytes.slice());
  }

  /** The id a line past the limit shows at either end, when it shows one. */
  cutId(): string | number | null {
    const text = (bytes: Uint8Array) => new TextDecoder().decode(bytes);
    return idShown(text(this.#head), text(this.#tail));
  }
}
