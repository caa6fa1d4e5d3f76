/**
 * The target of the fuzz suite (`fuzz_test.ts`): the relayer and its MCP sidecar in-process
 * (`mcp_fixtures.ts`, with a local ledger as the sponsor), two callers, a client signing as
 * one of them, the bodies of the relayer's routes as generators, and an open MCP session.
 */
import assert from "node:assert/strict";
import fc from "fast-check";
import { addressOf, generateKeyPair } from "@svc/util/keys";
import { SvcClient } from "../../src/client/mod.ts";
import type { ConnectionInfo } from "../../src/http/kernel.ts";
import { LexicalEmbedder } from "../../plugins/lexical_embedder/mod.ts";
import { LocalLedger } from "../../plugins/local_ledger/mod.ts";
import { encodeKind } from "../../plugins/local_ledger/transactions.ts";
import type { Caller } from "../fixtures.ts";
import { type McpStack, startMcpStack } from "../mcp_fixtures.ts";
import {
  type Answer,
  answer,
  anyJson,
  anyNumber,
  anyText,
  body,
  expand,
  field,
  type RouteShape,
  segment,
} from "./fuzz_fixtures.ts";

/** Stands for a job id the caller owns, filled in when the case runs. */
export const JOB = "$job";
/** Stands for the digest of a sponsored transaction awaiting its signature. */
export const DIGEST = "$digest";
/** The vector size of the test relayer's embedder (`fixtures.ts`). */
const DIMENSIONS = new LexicalEmbedder().dimensions;

const namespace = field(fc.oneof(fc.constantFrom("default", "work", "fuzz"), anyText));
const base64 = fc.oneof(
  fc.uint8Array({ minLength: 1, maxLength: 96 }).map((b) => new Uint8Array(b).toBase64()),
  fc.string(),
  fc.constantFrom("", "=", "AA", "AA==", "A===", "****", "QQ"),
);
const vector = fc.oneof(
  fc.array(fc.double({ noNaN: true, noDefaultInfinity: true }), {
    minLength: DIMENSIONS,
    maxLength: DIMENSIONS,
  }),
  fc.array(anyNumber, { maxLength: 4 }),
  fc.constantFrom(new Array(DIMENSIONS).fill(0), new Array(DIMENSIONS + 1).fill(1)),
);
const hex64 = fc.oneof(
  fc.stringMatching(/^[0-9a-f]{64}$/),
  fc.constant(DIGEST),
  fc.string(),
  fc.stringMatching(/^[0-9A-F]{64}$/),
);
const transactionKind = fc.oneof(
  fc.record({
    kind: fc.constantFrom(
      "create_account",
      "add_delegate_key",
      "remove_delegate_key",
      "deactivate_account",
      "reactivate_account",
      "nope",
    ),
    account_id: field(hex64.map((h) => "0x" + h)),
    public_key: field(hex64),
    label: field(anyText),
  }, { requiredKeys: ["kind"] }).map((k) => encodeKind(k as never).toBase64()),
  anyJson.map((v) => new TextEncoder().encode(JSON.stringify(v) ?? "").toBase64()),
  base64,
);

/** The body of each route that has one; a route missing here gets any JSON object. */
export const BODIES: Record<string, fc.Arbitrary<unknown>> = {
  "/api/remember": body({ text: field(anyText), namespace }),
  "/api/remember/bulk": body({
    items: field(fc.array(body({ text: field(anyText), namespace }), { maxLength: 22 })),
  }),
  "/api/remember/bulk/status": body({
    job_ids: field(fc.array(fc.oneof(fc.constant(JOB), segment, anyJson), { maxLength: 101 })),
  }),
  "/api/recall": body({ query: field(anyText), limit: field(anyNumber), namespace }),
  "/api/remember/manual": body({
    encrypted_data: field(base64),
    vector: field(vector),
    namespace,
  }),
  "/api/recall/manual": body({ vector: field(vector), limit: field(anyNumber), namespace }),
  "/api/analyze": body({ text: field(anyText), namespace }),
  "/api/ask": body({ question: field(anyText), limit: field(anyNumber), namespace }),
  "/api/restore": body({ namespace, limit: field(anyNumber) }),
  "/sponsor": body({
    transactionKind: field(transactionKind),
    sender: field(fc.oneof(hex64.map((h) => "0x" + h), fc.string())),
  }),
  "/sponsor/execute": body({ digest: field(hex64), signature: field(base64) }),
};
export const bodyOf = (route: RouteShape) =>
  route.method === "GET" ? fc.constant(undefined) : BODIES[route.pattern] ??
    fc.dictionary(fc.string(), anyJson, { maxKeys: 4 });

/** A fuzz target: the relayer and its sidecar in-process, two callers, a signing client. */
export interface Target extends AsyncDisposable {
  stack: McpStack;
  caller: Caller;
  other: Caller;
  /** Signs as `caller`; its requests go through `send`. */
  client: SvcClient;
  /** Sends a request to the relayer through `mutate`; its answer lands in `last`. */
  send(request: Request): Promise<Answer>;
  last?: Answer;
  /** `last`, cleared. */
  take(): Answer | undefined;
  mutate?: (headers: Headers) => void;
  info: ConnectionInfo;
  /** `$job` and `$digest` in a body or path, made real. */
  fill<T>(value: T): T;
  /** Remembers a job id from a 202 answer, for later cases to use. */
  note(a: Answer): void;
}

export async function target(): Promise<Target> {
  const ledgerKv = await Deno.openKv(":memory:");
  const sponsor = await LocalLedger.open({ kv: ledgerKv });
  const many = { maxTotal: 100_000, maxPerIdentity: 100_000, maxNewPerAddressPerMinute: 100_000 };
  const stack = await startMcpStack({ sponsor, limits: many });
  const caller = await stack.test.newCaller();
  const other = await stack.test.newCaller();
  const sender = addressOf((await generateKeyPair()).publicKey);
  const { digest } = await sponsor.sponsor(encodeKind({ kind: "create_account" }), sender);
  const jobs: string[] = [];
  const t: Target = {
    stack,
    caller,
    other,
    client: undefined as unknown as SvcClient,
    info: { remoteAddr: { transport: "tcp", hostname: "127.0.0.1", port: 40_000 } },
    fill<T>(value: T): T {
      if (value === undefined || value instanceof Uint8Array) return value;
      const job = jobs[jobs.length - 1] ?? crypto.randomUUID();
      return JSON.parse(
        expand(JSON.stringify(value).replaceAll(JOB, job).replaceAll(DIGEST, digest)),
      );
    },
    async send(request) {
      if (t.mutate) {
        const headers = new Headers(request.headers);
        t.mutate(headers);
        request = new Request(request, { headers });
      }
      const a = await answer(
        () => stack.test.relayer.handler(request, t.info),
        `${request.method} ${request.url}`,
      );
      t.last = a;
      return a;
    },
    take() {
      const a = t.last;
      t.last = undefined;
      return a;
    },
    note(a) {
      if (a.status !== 202) return;
      const { job_id, job_ids } = JSON.parse(a.text);
      jobs.push(...[job_id, ...job_ids ?? []].filter((id) => typeof id === "string"));
      jobs.splice(0, jobs.length - 50);
    },
    async [Symbol.asyncDispose]() {
      await stack[Symbol.asyncDispose]();
      ledgerKv.close();
    },
  };
  t.client = await SvcClient.create({
    baseUrl: stack.url,
    privateKey: caller.key.privateKey,
    accountId: caller.accountId,
    retries: 0,
    async fetch(input: RequestInfo | URL, init?: RequestInit) {
      const a = await t.send(new Request(input, init));
      return new Response(a.text || null, { status: a.status, headers: a.headers });
    },
  });
  return t;
}

/** Builds a request as a client could send it; `null` when no client could. */
export function buildRequest(url: string, init: RequestInit): Request | null {
  try {
    return new Request(url, init);
  } catch {
    return null; // an invalid URL, method or header value never reaches a server
  }
}

// ---- MCP -----------------------------------------------------------------------------------

export const TOOLS = ["svc_remember", "svc_recall", "svc_analyze", "svc_restore"];
const words = fc.stringMatching(/^[a-z]{1,12}( [a-z]{1,12}){0,5}$/);
/** Arguments any tool takes, fuzzed; now and then valid ones, so every tool's success is reached. */
export const toolArguments = fc.oneof(
  {
    weight: 4,
    arbitrary: body({
      text: field(anyText),
      query: field(anyText),
      namespace: field(anyText),
      limit: field(anyNumber),
    }),
  },
  fc.record({ text: words, query: words, limit: fc.integer({ min: 1, max: 20 }) }),
);
/** What the tools answer for a failure that is not the caller's: a hidden internal error. */
export const UNEXPECTED = /failed unexpectedly|Internal error/;

/** Sends a request to the sidecar as the relayer forwards it (token, client address). */
export function toSidecar(t: Target, path: string, init: RequestInit & { headers: Headers }) {
  init.headers.set("x-sidecar-token", t.stack.token);
  init.headers.set("x-forwarded-for", "127.0.0.1");
  return new Request(`http://127.0.0.1${path}`, init);
}

/** Opens a Streamable HTTP session on the sidecar; returns its id. */
export async function openSession(t: Target, caller: Caller): Promise<string> {
  const headers = new Headers({
    ...t.stack.auth(caller),
    "content-type": "application/json",
    accept: "application/json, text/event-stream",
  });
  const opened = await answer(
    () =>
      t.stack.sidecar.handler(toSidecar(t, "/api/mcp", {
        method: "POST",
        headers,
        body: JSON.stringify({
          jsonrpc: "2.0",
          id: 0,
          method: "initialize",
          params: {
            protocolVersion: "2025-06-18",
            capabilities: {},
            clientInfo: { name: "fuzz", version: "1.0.0" },
          },
        }),
      })),
    "initialize",
  );
  assert.equal(opened.status, 200, opened.text);
  const id = opened.headers.get("mcp-session-id")!;
  headers.set("mcp-session-id", id);
  const ready = await answer(
    () =>
      t.stack.sidecar.handler(toSidecar(t, "/api/mcp", {
        method: "POST",
        headers,
        body: JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" }),
      })),
    "initialized",
  );
  assert.equal(ready.status, 202, ready.text);
  return id;
}
