/**
 * The Walrus blob store passes the BlobStore suite against a local Walrus publisher and
 * aggregators on a fake Sui network; each test gets its own networks and cache directory,
 * closed and removed when it ends. The store is configured with Walrus's `System` object, which
 * deleting blobs needs.
 */
import { WalrusBlobStore } from "../../plugins/walrus/mod.ts";
import { startWalrusTestbed, walrusStoreOptions } from "../fixtures/walrus_network.ts";
import { blobStoreSuite } from "../../src/testing/mod.ts";

blobStoreSuite("WalrusBlobStore", async () => {
  const bed = await startWalrusTestbed({ aggregators: 2 });
  const cacheDir = await Deno.makeTempDir();
  const close = async () => {
    await bed.close();
    await Deno.remove(cacheDir, { recursive: true });
  };
  try {
    const store = await WalrusBlobStore.open(walrusStoreOptions(bed, cacheDir));
    return Object.assign(store, { [Symbol.asyncDispose]: close });
  } catch (error) {
    await close();
    throw error;
  }
}, { sameBytes: "copied" });
