/**
 * Test helpers of the Walrus blob store: a store opened on a local Walrus testbed (fake Sui
 * network with the Walrus package, a publisher and aggregators, a funded operator).
 */
import assert from "node:assert/strict";
import { type ListedBlobMeta, SvcError } from "@svc/relayer/kit";
import { startWalrusTestbed, type WalrusTestbed } from "../../../tests/fixtures/walrus_network.ts";
import { WalrusBlobStore, type WalrusBlobStoreOptions } from "../mod.ts";

/** UTF-8 bytes of a string. */
export const enc = (s: string): Uint8Array<ArrayBuffer> => new TextEncoder().encode(s);

/** Metadata of memory `i` (created at a fixed time plus `i` ms). */
export const meta = (i: number, extra: Partial<ListedBlobMeta> = {}): ListedBlobMeta => ({
  owner: "0x" + "a".repeat(64),
  namespace: "notes",
  memoryId: `m${i}`,
  createdAt: 1_700_000_000_000 + i,
  ...extra,
});

/** A testbed and a store on it. */
export interface Setup extends AsyncDisposable {
  bed: WalrusTestbed;
  /** A store of the testbed's operator, configured with the Walrus package id. */
  store: WalrusBlobStore;
  cacheDir: string;
  /** Another store on the same testbed (same options unless overridden). */
  open(extra?: Partial<WalrusBlobStoreOptions>): Promise<WalrusBlobStore>;
  /** A temporary directory removed with the setup. */
  tempDir(): Promise<string>;
}

/** Starts a testbed and opens a store on it; `await using` closes both. */
export async function setup(
  options: { aggregators?: number } = {},
  extra: Partial<WalrusBlobStoreOptions> = {},
): Promise<Setup> {
  const bed = await startWalrusTestbed({ aggregators: options.aggregators ?? 2 });
  const dirs: string[] = [];
  const tempDir = async () => {
    const dir = await Deno.makeTempDir();
    dirs.push(dir);
    return dir;
  };
  const cacheDir = await tempDir();
  const open = (more: Partial<WalrusBlobStoreOptions> = {}) =>
    WalrusBlobStore.open({
      publisherUrl: bed.walrus.publisherUrl,
      aggregatorUrls: bed.walrus.aggregatorUrls,
      epochs: 3,
      cacheDir,
      rpcUrl: bed.sui.url,
      walrusPackageId: bed.chain.packageId,
      operatorKey: bed.operatorKey,
      hedgeMs: 100,
      ...extra,
      ...more,
    });
  const store = await open();
  return {
    bed,
    store,
    cacheDir,
    open,
    tempDir,
    async [Symbol.asyncDispose]() {
      await bed.close();
      for (const dir of dirs) await Deno.remove(dir, { recursive: true });
    },
  };
}

/** Asserts a `backend_unavailable` error naming Walrus and leaking no bytes. */
export function assertUnavailable(error: unknown, secret: string): true {
  assert.ok(error instanceof SvcError);
  assert.equal(error.code, "backend_unavailable");
  assert.equal(error.status, 503);
  assert.match(error.message, /^Cannot .*Walrus/);
  assert.ok(!error.message.includes(secret));
  return true;
}
