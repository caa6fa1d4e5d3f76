/**
 * What the fuzz suite (`fuzz_test.ts`) is built from: the relayer's route tables, fast-check
 * generators of hostile input, a way to read an answer that cannot hang, and the checks every
 * answer must pass.
 */
import assert from "node:assert/strict";
import fc from "fast-check";
import { ERROR_STATUS, isErrorCode } from "../../src/errors.ts";
import { RateLimiter } from "../../src/rate_limiter.ts";
import { silentLogger } from "../../src/log.ts";
import type { Route } from "../../src/http/router.ts";
import { accountRoutes } from "../../src/routes/account.ts";
import type { HandlerContext } from "../../src/routes/context.ts";
import { llmRoutes } from "../../src/routes/llm.ts";
import { memoryRoutes } from "../../src/routes/memories.ts";
import { lifecycleRoutes } from "../../src/routes/lifecycle.ts";
import { serviceRoutes } from "../../src/routes/service.ts";
import { sidecarRoutes } from "../../src/routes/sidecar.ts";
import { metricsRoutes } from "../../src/routes/metrics.ts";
import { openApiRoutes } from "../../src/routes/openapi.ts";
import { MetricsRegistry } from "../../src/metrics/registry.ts";
import { AuthFailureLimiter } from "../../src/auth/failure_limiter.ts";
import type { MemoryService } from "../../src/services/memories.ts";
import type { LifecycleService } from "../../src/services/lifecycle.ts";

/** The seed of every property: `FUZZ_SEED`, else a fresh one (printed by the suite). */
export const SEED = Number(Deno.env.get("FUZZ_SEED") ?? Math.floor(Math.random() * 2 ** 31));

/** Cases per property are multiplied by `FUZZ_RUNS` (default 1) for longer local runs. */
export function runs(base: number): number {
  return Math.max(1, Math.round(base * Number(Deno.env.get("FUZZ_RUNS") ?? "1")));
}

/** A route of the relayer as its table declares it. */
export interface RouteShape {
  method: string;
  /** The pathname pattern, e.g. `/api/remember/:job_id`. */
  pattern: string;
  signed: boolean;
}

/**
 * Every route of the relayer, read from the route tables `createRelayer` assembles (their
 * handlers are never called here), so that a new route is fuzzed without being listed.
 */
export function relayerRoutes(): RouteShape[] {
  const tables: Route<HandlerContext>[] = [
    ...serviceRoutes({
      mode: "",
      packageId: "",
      backends: {},
      receiptKey: "",
      sidecar: () => "down",
      mcpSessions: () => 0,
      stopping: () => false,
      writes: () => "accepted",
      jobs: () => ({ unfinished: 0, deadLettered: 0 }),
      operatorBlind: false,
    }),
    ...accountRoutes(),
    ...memoryRoutes({} as MemoryService, {} as LifecycleService, () => 0),
    ...lifecycleRoutes({} as LifecycleService),
    ...llmRoutes(undefined),
    ...sidecarRoutes(undefined, new RateLimiter(1, 60_000), () => {}, silentLogger),
    ...metricsRoutes(new MetricsRegistry(), { failures: new AuthFailureLimiter() }),
    ...openApiRoutes(() => []),
  ];
  return tables.map((r) => ({ method: r.method, pattern: r.pattern.pathname, signed: r.signed }));
}

// ---- generators ----------------------------------------------------------------------------

const KIB = 1024;
/**
 * Strings just past the limits the relayer checks (64 KiB fields, 1 MiB text, 2 MiB body), as
 * markers that {@link expand} turns into the strings, so that a counterexample stays readable.
 */
const oversized = fc.constantFrom(64 * KIB + 1, KIB * KIB + 1, 2 * KIB * KIB + 1)
  .map((n) => `$big:${n}$`);

/** `value` with each oversized-string marker replaced by the string. */
export function expand(value: string): string {
  return value.replace(/\$big:(\d+)\$/g, (_, n) => "x".repeat(Number(n)));
}

/** Strings of every kind: empty, blank, control characters, lone surrogates, emoji, huge. */
export const anyText: fc.Arbitrary<string> = fc.oneof(
  { weight: 4, arbitrary: fc.string() },
  { weight: 2, arbitrary: fc.string({ unit: "binary" }) },
  { weight: 1, arbitrary: fc.string({ unit: "grapheme", maxLength: 40 }) },
  {
    weight: 2,
    arbitrary: fc.constantFrom(
      "",
      " ",
      "\t\n",
      "\u0000",
      "\ud800",
      "I am vegetarian",
      "default",
      "../../etc/passwd",
      "%00",
      "<script>",
      "a".repeat(257),
      "ü".repeat(129),
    ),
  },
  { weight: 1, arbitrary: oversized },
);

/** Any JSON value, nested a little. */
export const anyJson: fc.Arbitrary<unknown> = fc.jsonValue({ maxDepth: 3 });

/** Integers in and out of every range, floats, and things that are not numbers. */
export const anyNumber: fc.Arbitrary<unknown> = fc.oneof(
  fc.constantFrom(0, 1, 5, 10, 20, 21, 50, 100, 101, 500, 501, -1, -0, 0.5, 1e308, 2 ** 53),
  fc.integer(),
  fc.double(),
  anyJson,
);

/** A field's value: usually of the expected kind, sometimes any JSON, sometimes absent. */
export function field<T>(usual: fc.Arbitrary<T>): fc.Arbitrary<unknown> {
  return fc.oneof(
    { weight: 6, arbitrary: usual },
    { weight: 1, arbitrary: anyJson },
    { weight: 1, arbitrary: fc.constant(undefined) },
  );
}

/** An object with the given fields (each may be absent), sometimes with unknown ones besides. */
export function body(fields: Record<string, fc.Arbitrary<unknown>>): fc.Arbitrary<unknown> {
  const known = fc.record(fields, { requiredKeys: [] });
  return fc.oneof(
    { weight: 8, arbitrary: known },
    {
      weight: 1,
      arbitrary: fc.tuple(known, fc.dictionary(fc.string(), anyJson, { maxKeys: 3 }))
        .map(([k, extra]) => ({ ...extra, ...k as object })),
    },
    { weight: 1, arbitrary: anyJson },
  );
}

/** A path segment: plain, percent-encoded junk, or an id-like string. */
export const segment: fc.Arbitrary<string> = fc.oneof(
  fc.uuid(),
  fc.stringMatching(/^[0-9a-f-]{1,40}$/),
  fc.string().map(encodeURIComponent),
  fc.constantFrom("", "..", ".", "%", "%zz", "%E0%A4%A", "%00", "a;b", "?", "#"),
);

/** A query string (with its `?`), or none. */
export const query: fc.Arbitrary<string> = fc.oneof(
  { weight: 3, arbitrary: fc.constant("") },
  {
    weight: 1,
    arbitrary: fc.dictionary(fc.string(), fc.string(), { maxKeys: 3 })
      .map((q) => "?" + new URLSearchParams(q)),
  },
  { weight: 1, arbitrary: fc.constantFrom("?", "??", "?a=%zz", "?sessionId=", "?token=x") },
);

/** `pattern` with each `:param` replaced by a generated segment. */
export function pathOf(pattern: string, fill: fc.Arbitrary<string> = segment) {
  const names = pattern.match(/:[A-Za-z_]+/g) ?? [];
  return fc.tuple(...names.map(() => fill)).map((values) => {
    let path = pattern;
    names.forEach((name, i) => path = path.replace(name, values[i]));
    return path;
  });
}

/** The bytes HTTP allows in a header value: tab, visible ASCII and space, and obs-text. */
const headerByte = fc.oneof(
  fc.constant(0x09),
  fc.integer({ min: 0x20, max: 0x7e }),
  fc.integer({ min: 0x80, max: 0xff }),
).map((c) => String.fromCharCode(c));

/**
 * Header values a client can send over HTTP (the server refuses any other byte before the
 * relayer sees the request).
 */
export const headerValue: fc.Arbitrary<string> = fc.oneof(
  fc.string({ unit: fc.integer({ min: 0x20, max: 0x7e }).map((c) => String.fromCharCode(c)) }),
  fc.string({ unit: headerByte }),
  fc.constantFrom("", " ", "0", "-1", "1e3", "null", "application/json", "text/plain"),
);

/** Bytes of every kind for a raw body: none, random, not UTF-8, JSON that is not an object. */
export const rawBody: fc.Arbitrary<Uint8Array<ArrayBuffer>> = fc.oneof(
  fc.uint8Array({ maxLength: 64 }).map((b) => new Uint8Array(b)),
  fc.constantFrom("", "{", "[]", "null", '"text"', "1", '{"a":', "\ufeff{}", "{}{}").map((s) =>
    new TextEncoder().encode(s)
  ),
  fc.constantFrom(new Uint8Array([0xff, 0xfe]), new Uint8Array([0x7b, 0xc3, 0x28, 0x7d])),
  anyJson.map((v) => new TextEncoder().encode(JSON.stringify(v) ?? "")),
);

// ---- answers -------------------------------------------------------------------------------

/** A response read in full (an event stream up to its first event). */
export interface Answer {
  status: number;
  headers: Headers;
  text: string;
}

/** How long one request may take before the suite calls it a hang. */
export const HANG_MS = 15_000;

/**
 * Calls `handler` and reads its answer; fails when either takes longer than {@link HANG_MS}.
 * An event stream (MCP) is read until `streamDone(textSoFar)` is true (default: its first
 * event, or a short quiet spell) and then cancelled, as a client that leaves does.
 */
export async function answer(
  call: () => Promise<Response>,
  what: string,
  streamDone: (text: string) => boolean = (text) => text.includes("\n\n"),
): Promise<Answer> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const hang = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${HANG_MS} ms: ${what}`)), HANG_MS);
  });
  try {
    const response = await Promise.race([call(), hang]);
    const streaming = /text\/event-stream/.test(response.headers.get("content-type") ?? "");
    if (!streaming || !response.body) {
      const text = await Promise.race([response.text(), hang]);
      return { status: response.status, headers: response.headers, text };
    }
    const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
    let text = "";
    while (!streamDone(text)) {
      let quiet: ReturnType<typeof setTimeout> | undefined;
      const chunk = await Promise.race([
        reader.read(),
        hang,
        // A stream that stays open and quiet (a standalone GET) has answered.
        new Promise<null>((resolve) => quiet = setTimeout(() => resolve(null), 500)),
      ]).finally(() => clearTimeout(quiet));
      if (chunk === null || chunk.done) break;
      text += chunk.value;
    }
    await reader.cancel().catch(() => {});
    return { status: response.status, headers: response.headers, text };
  } finally {
    clearTimeout(timer);
  }
}

const STACK_TRACE = /\n\s+at \S|\bat (file|https?|ext):\/\//;

/** The §5.1 error body: a sentence, a known code matching the status, the request id. */
export function assertErrorBody(a: Answer, what: string): void {
  assert.match(a.headers.get("content-type") ?? "", /^application\/json/, `${what}: JSON`);
  const body = JSON.parse(a.text);
  assert.equal(typeof body.error, "string", `${what}: error`);
  assert.ok(body.error.length > 0, `${what}: an error sentence`);
  assert.ok(isErrorCode(body.code), `${what}: code ${body.code}`);
  assert.equal(ERROR_STATUS[body.code as keyof typeof ERROR_STATUS], a.status, `${what}: status`);
  assert.equal(body.request_id, a.headers.get("x-request-id"), `${what}: request id`);
  assert.doesNotMatch(body.error, STACK_TRACE, `${what}: no stack trace`);
}

/** A relayer answer: never 5xx; an error is the §5.1 body; a success is JSON. */
export function assertRelayerAnswer(a: Answer, what: string): void {
  assert.ok(a.status < 500, `${what}: ${a.status} ${a.text.slice(0, 300)}`);
  if (a.status >= 400) return assertErrorBody(a, what);
  const type = a.headers.get("content-type") ?? "";
  // A success is JSON, but for the metrics: Prometheus' text format.
  if (/^text\/plain; version=0\.0\.4/.test(type)) {
    return assert.match(what, /\/metrics(?:[?\s]|$)/, `${what}: Prometheus text off /metrics`);
  }
  assert.match(type, /^application\/json/, `${what}: JSON`);
  JSON.parse(a.text);
}

/**
 * An MCP answer: never 5xx; an error is JSON, either a JSON-RPC error (what MCP clients
 * expect) or, from the kernel before MCP is reached, the §5.1 body.
 */
export function assertMcpAnswer(a: Answer, what: string): void {
  assert.ok(a.status < 500, `${what}: ${a.status} ${a.text.slice(0, 300)}`);
  if (a.status < 400) return;
  assert.match(a.headers.get("content-type") ?? "", /^application\/json/, `${what}: JSON`);
  const body = JSON.parse(a.text);
  if (body.jsonrpc === "2.0") {
    assert.equal(typeof body.error?.code, "number", `${what}: JSON-RPC error code`);
    assert.equal(typeof body.error?.message, "string", `${what}: JSON-RPC error message`);
    assert.doesNotMatch(body.error.message, STACK_TRACE, `${what}: no stack trace`);
  } else {
    assertErrorBody(a, what);
  }
}

/** The JSON-RPC messages of an MCP answer, whether a JSON body or an event stream. */
export function rpcMessages(a: Answer): Record<string, unknown>[] {
  if (!/text\/event-stream/.test(a.headers.get("content-type") ?? "")) {
    const body = a.text ? JSON.parse(a.text) : [];
    return Array.isArray(body) ? body : [body];
  }
  return a.text.split("\n")
    .filter((line) => line.startsWith("data: "))
    .flatMap((line) => {
      try {
        return [JSON.parse(line.slice(6))];
      } catch {
        return []; // the SSE endpoint event's data is a path
      }
    });
}

/** A client address per case, so per-address limits never hide what lies behind them. */
export const clientAddress: fc.Arbitrary<{ remoteAddr: Deno.NetAddr }> = fc.ipV4().map((
  hostname,
) => ({ remoteAddr: { transport: "tcp", hostname, port: 40_000 } }));

/** Counts the statuses a property's cases were answered with, to print once it ends. */
export class Tally {
  #counts = new Map<number, number>();
  #cases = 0;

  add(a: Answer): void {
    this.#cases++;
    this.#counts.set(a.status, (this.#counts.get(a.status) ?? 0) + 1);
  }

  /** How many answers had a status in `[from, to)`. */
  count(from: number, to: number): number {
    return [...this.#counts].reduce((n, [s, c]) => s >= from && s < to ? n + c : n, 0);
  }

  toString(): string {
    const statuses = [...this.#counts].sort(([a], [b]) => a - b).map(([s, c]) => `${s}×${c}`);
    return `${this.#cases} requests answered: ${statuses.join(", ")}`;
  }
}
