/** Shared test fixtures: an in-process relayer on in-memory backends and a signed caller. */
import assert from "node:assert/strict";
import {
  MemoryAccountDirectory,
  MemoryBlobStore,
  MemoryVectorStore,
} from "../src/backends/memory.ts";
import type { KeyScope, VectorStore } from "../src/backends/types.ts";
import { addressOf, generateKeyPair, type KeyPair } from "@svc/util/keys";
import { signRequest } from "../src/auth/signing.ts";
import { type AssembledRelayer, assembleRelayer, type RelayerOptions } from "../src/relayer.ts";
import { LocalCipher } from "../plugins/local_cipher/mod.ts";
import { MemoryKeyStore } from "../plugins/local_cipher/key_store.ts";
import { KvMessageQueue, KvStateStore, openKvStores, type StateStoreOptions } from "@svc/denokv";
import type { KeyStore } from "../src/backends/key_store.ts";
import type { JobQueueOptions } from "../src/jobs/job_queue.ts";
import type { StoredJobQueue } from "../src/jobs/stored_job_queue.ts";
import { openStateJobQueue } from "../src/state_stores.ts";
import { LexicalEmbedder } from "../plugins/lexical_embedder/mod.ts";
import { LocalExtractiveLlm } from "../plugins/local_llm/mod.ts";

export const BASE = "http://relayer.test";

/** The job queue `openKvStores` opens in `kv`, alone (its texts' keys in `keyStore` when given). */
export function openKvJobQueue(
  kv: Deno.Kv,
  secret: Uint8Array<ArrayBuffer>,
  options: JobQueueOptions & { keyStore?: KeyStore } = {},
): Promise<StoredJobQueue> {
  return openStateJobQueue(new KvStateStore(kv), new KvMessageQueue(kv), secret, options);
}

export interface Caller {
  key: KeyPair;
  owner: string;
  accountId: string;
  /** The owner's own key (its address is `owner`). */
  ownerKey: KeyPair;
}

/** The label and limits of a test delegate key. */
export interface KeyOptions {
  label?: string;
  scope?: KeyScope;
  expiresAt?: number;
}

export interface TestRelayer extends AsyncDisposable {
  relayer: AssembledRelayer;
  kv: Deno.Kv;
  directory: MemoryAccountDirectory;
  blobs: MemoryBlobStore;
  vectors: VectorStore;
  /** Registers a new account with one delegate key. */
  newCaller(options?: { active?: boolean } & KeyOptions): Promise<Caller>;
  /** Adds another delegate key to `caller`'s account. */
  addKey(caller: Caller, options?: KeyOptions): Promise<Caller>;
  /** Sends a signed request through the in-process handler. */
  signed(
    caller: Caller,
    method: string,
    path: string,
    body?: unknown,
    extra?: HeadersInit,
  ): Promise<Response>;
  /** Sends an unsigned request through the in-process handler. */
  send(method: string, path: string, init?: RequestInit): Promise<Response>;
  /** Waits until every listed job is done or failed. */
  settle(caller: Caller, jobIds: string[]): Promise<void>;
}

/**
 * A test relayer's options: any of `createRelayer`'s, its job queue's, and the Deno KV its stores
 * are opened in (`kv`, a fresh one by default); `withoutKv` opens none, and the test gives all four.
 */
export type TestRelayerOptions =
  & Partial<RelayerOptions>
  & Omit<StateStoreOptions, "now">
  & { kv?: Deno.Kv; withoutKv?: boolean };

export async function startTestRelayer(
  { maxAttempts, leaseMs, kv: given, withoutKv, ...overrides }: TestRelayerOptions = {},
): Promise<TestRelayer> {
  const kv = given ?? await Deno.openKv(":memory:");
  const secret = overrides.secret ?? crypto.getRandomValues(new Uint8Array(32));
  const { now } = overrides;
  // Shared, as the relayer's keys.sqlite is: the cipher's keys and the job texts' keys.
  const keyStore = new MemoryKeyStore();
  const stores = withoutKv
    ? {}
    : await openKvStores(kv, secret, { keyStore, maxAttempts, leaseMs, now });
  const embedder = new LexicalEmbedder();
  const directory = overrides.directory instanceof MemoryAccountDirectory
    ? overrides.directory
    : new MemoryAccountDirectory();
  const blobs = new MemoryBlobStore();
  const vectors = overrides.vectors ?? new MemoryVectorStore(embedder.dimensions);
  const relayer = await assembleRelayer({
    ...stores,
    secret,
    directory,
    cipher: await LocalCipher.open({
      masterKey: crypto.getRandomValues(new Uint8Array(32)),
      keyStore,
    }),
    blobs,
    vectors,
    embedder,
    llm: new LocalExtractiveLlm(),
    // The names of `BASE`: its requests are signed for it, and its MCP routes accept its Host.
    audiences: new Set([BASE]),
    allowedHosts: [new URL(BASE).host],
    ...overrides,
  } as RelayerOptions);
  const handler = relayer.handler;

  const t: TestRelayer = {
    relayer,
    kv,
    directory,
    blobs,
    vectors,
    async newCaller({ active = true, ...limits } = {}) {
      const key = await generateKeyPair();
      const ownerKey = await generateKeyPair();
      const owner = addressOf(ownerKey.publicKey);
      const accountId = "0x" + crypto.getRandomValues(new Uint8Array(32)).toHex();
      directory.add({ accountId, owner, active, ...limits }, [key.publicKey]);
      return { key, owner, accountId, ownerKey };
    },
    async addKey(caller, limits = {}) {
      const key = await generateKeyPair();
      const { accountId, owner } = caller;
      directory.add({ accountId, owner, active: true, ...limits }, [key.publicKey]);
      return { ...caller, key };
    },
    async signed(caller, method, path, body, extra) {
      const payload = body === undefined
        ? ""
        : typeof body === "string"
        ? body
        : JSON.stringify(body);
      const headers = new Headers(
        await signRequest({ key: caller.key, method, path, body: payload, audience: BASE }),
      );
      if (body !== undefined) headers.set("content-type", "application/json");
      new Headers(extra).forEach((value, name) => headers.set(name, value));
      return handler(
        new Request(BASE + path, {
          method,
          headers,
          body: body === undefined ? undefined : payload,
        }),
      );
    },
    send(method, path, init = {}) {
      return handler(new Request(BASE + path, { method, ...init }));
    },
    async settle(caller, jobIds) {
      for (let i = 0; i < 500; i++) {
        const res = await t.signed(caller, "POST", "/api/remember/bulk/status", {
          job_ids: jobIds,
        });
        const { results } = await res.json();
        if (
          results.every((j: { status: string }) => j.status === "done" || j.status === "failed")
        ) {
          return;
        }
        await new Promise((r) => setTimeout(r, 10));
      }
      throw new Error("jobs did not settle");
    },
    async [Symbol.asyncDispose]() {
      await relayer.close();
      await vectors.close();
      if (!given) kv.close();
    },
  };
  return t;
}

/** Remembers texts (with optional extra fields) one by one and waits until they are indexed. */
export async function rememberAll(
  t: TestRelayer,
  caller: Caller,
  items: ({ text: string } & Record<string, unknown>)[],
): Promise<string[]> {
  const ids: string[] = [];
  for (const item of items) {
    const res = await t.signed(caller, "POST", "/api/remember", item);
    assert.equal(res.status, 202, await res.clone().text());
    ids.push((await res.json()).job_id);
  }
  await t.settle(caller, ids);
  return ids;
}

/**
 * Imports `items` for `caller` and waits until they are stored; an import carries over
 * namespaces stored before the rules of a namespace first written (as an older install's).
 */
export async function importAll(
  t: TestRelayer,
  caller: Caller,
  items: ({ text: string } & Record<string, unknown>)[],
): Promise<string[]> {
  const body = items.map((item) => JSON.stringify(item)).join("\n");
  const res = await t.signed(caller, "POST", "/api/import", body, {
    "content-type": "application/x-ndjson",
  });
  assert.equal(res.status, 202, await res.clone().text());
  const { job_ids } = await res.json();
  await t.settle(caller, job_ids);
  return job_ids;
}

/** A clock for a relayer's `now` that a test moves forward instead of sleeping. */
export function testClock() {
  let offset = 0;
  return {
    now: () => Date.now() + offset,
    /** Moves the clock on by `ms`. */
    advance(ms: number) {
      offset += ms;
    },
  };
}

/** A response's JSON body, once its status is checked (the body is shown when it differs). */
export async function jsonOf(res: Response, status = 200) {
  const body = await res.json();
  assert.equal(res.status, status, JSON.stringify(body));
  return body;
}
