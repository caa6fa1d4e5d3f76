/**
 * Local stand-ins for Ollama and OpenAI-compatible servers, speaking their wire protocols
 * closely enough that the official clients (`npm:ollama`, `npm:openai`) talk to them
 * unmodified: Ollama `POST /api/embed` and `POST /api/chat`; OpenAI `POST /v1/embeddings`
 * (float or base64 encoding) and `POST /v1/chat/completions`, with each API's error shape.
 *
 * Embeddings come from the offline lexical embedder (so related texts are close); chat
 * answers come from the offline extractive LLM applied to the fenced transcript or memories,
 * unless a test scripts replies. Tests can also script failures and delays.
 */
import { LexicalEmbedder } from "../../plugins/lexical_embedder/mod.ts";
import { LocalExtractiveLlm } from "../../plugins/local_llm/mod.ts";

export interface RecordedRequest {
  path: string;
  body: Record<string, unknown>;
}

export interface FakeModelServer extends AsyncDisposable {
  url: string;
  requests: RecordedRequest[];
  /** Vector size of the embeddings (can change between calls). */
  dimensions: number;
  /**
   * The next `times` requests answer `status` (with `retry-after` on 429, `retryAfter` seconds if
   * given) and the flavour's error body, or `body`; status 0 answers 200 with an HTML page, as a
   * proxy's login page would.
   */
  fail(status: number, times?: number, body?: unknown, retryAfter?: number): void;
  /**
   * The next request is answered once the returned function is called, or after `maxMs` (5 s)
   * should a test end without calling it; the function tells whether the answer was still held.
   */
  holdNext(maxMs?: number): () => boolean;
  /** Chat replies to give, in order, instead of the computed ones. */
  replies: string[];
}

type Flavour = "ollama" | "openai";
const llm = new LocalExtractiveLlm();

function between(text: string, tag: string): string[] {
  return [...text.matchAll(new RegExp(`<${tag}[^>]*>\\n([\\s\\S]*?)\\n</${tag}>`, "g"))].map((m) =>
    m[1]
  );
}

/** What the computed model says to a chat of svc's prompts. */
async function computedReply(messages: { role: string; content: string }[]): Promise<string> {
  const system = messages.find((m) => m.role === "system")?.content ?? "";
  const user = messages.filter((m) => m.role === "user").at(-1)?.content ?? "";
  if (/extract durable facts/.test(system)) {
    return JSON.stringify({ facts: await llm.extractFacts(between(user, "transcript")[0] ?? "") });
  }
  return await llm.answer(user, between(system, "memory"));
}

function float32Base64(vector: Float32Array): string {
  return new Uint8Array(vector.buffer, vector.byteOffset, vector.byteLength).toBase64();
}

export function startFakeModelServer(
  flavour: Flavour,
  options: { dimensions?: number } = {},
): FakeModelServer {
  const failures: { status: number; body?: unknown; retryAfter?: number }[] = [];
  let held: Promise<void> | undefined;
  const fake = {
    url: "",
    requests: [] as RecordedRequest[],
    dimensions: options.dimensions ?? 64,
    replies: [] as string[],
    fail(status: number, times = 1, body?: unknown, retryAfter?: number) {
      for (let i = 0; i < times; i++) failures.push({ status, body, retryAfter });
    },
    holdNext(maxMs = 5_000) {
      const gate = Promise.withResolvers<void>();
      let holding = true;
      const answer = () => {
        clearTimeout(timer);
        gate.resolve();
        const was = holding;
        holding = false;
        return was;
      };
      const timer = setTimeout(answer, maxMs);
      held = gate.promise;
      return answer;
    },
  };

  const json = (body: unknown, status = 200, headers: Record<string, string> = {}) =>
    Response.json(body, { status, headers });

  function error(status: number, retryAfter?: number): Response {
    const headers: Record<string, string> = status !== 429
      ? {}
      : retryAfter === undefined
      ? { "retry-after": "0", "retry-after-ms": "10" }
      : { "retry-after": String(retryAfter) };
    const message = status === 429 ? "rate limit exceeded" : `fake failure ${status}`;
    return flavour === "ollama"
      ? json({ error: message }, status, headers)
      : json({ error: { message, type: "fake_error", param: null, code: null } }, status, headers);
  }

  async function handle(request: Request): Promise<Response> {
    const path = new URL(request.url).pathname;
    const body = await request.json().catch(() => ({}));
    fake.requests.push({ path, body });
    if (held) {
      const answer = held;
      held = undefined;
      await answer;
    }
    const failure = failures.shift();
    if (failure?.status === 0) {
      return new Response("<html>proxy sign-in for I live in Oslo</html>", {
        headers: { "content-type": "text/html" },
      });
    }
    if (typeof failure?.body === "string") {
      return new Response(failure.body, { status: failure.status });
    }
    if (failure?.body) return json(failure.body, failure.status);
    if (failure) return error(failure.status, failure.retryAfter);
    const embedder = new LexicalEmbedder(fake.dimensions);

    if (flavour === "ollama" && path === "/api/embed") {
      const input = Array.isArray(body.input) ? body.input : [body.input];
      const vectors = await embedder.embed(input);
      return json({ model: body.model, embeddings: vectors.map((v) => Array.from(v)) });
    }
    if (flavour === "ollama" && path === "/api/chat") {
      const content = fake.replies.shift() ?? await computedReply(body.messages);
      return json({
        model: body.model,
        created_at: new Date().toISOString(),
        message: { role: "assistant", content },
        done: true,
        done_reason: "stop",
      });
    }
    if (flavour === "openai" && path === "/v1/embeddings") {
      const input = Array.isArray(body.input) ? body.input : [body.input];
      const vectors = await embedder.embed(input);
      return json({
        object: "list",
        model: body.model,
        data: vectors.map((v, index) => ({
          object: "embedding",
          index,
          embedding: body.encoding_format === "base64" ? float32Base64(v) : Array.from(v),
        })),
        usage: { prompt_tokens: input.length, total_tokens: input.length },
      });
    }
    if (flavour === "openai" && path === "/v1/chat/completions") {
      const content = fake.replies.shift() ?? await computedReply(body.messages);
      return json({
        id: `chatcmpl-${crypto.randomUUID()}`,
        object: "chat.completion",
        created: Math.floor(Date.now() / 1000),
        model: body.model,
        choices: [{
          index: 0,
          message: { role: "assistant", content, refusal: null },
          finish_reason: "stop",
          logprobs: null,
        }],
        usage: { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 },
      });
    }
    return error(404);
  }

  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, handle);
  fake.url = `http://127.0.0.1:${server.addr.port}`;
  return Object.assign(fake, { [Symbol.asyncDispose]: () => server.shutdown() });
}
