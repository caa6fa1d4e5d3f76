import {
  MemoryAccountDirectory,
  MemoryBlobStore,
  MemoryVectorStore,
} from "../../src/backends/memory.ts";
import { LocalLedger } from "../../src/chain/local_ledger.ts";
import { FsBlobStore } from "../../plugins/fs_blob/mod.ts";
import { LanceDbVectorStore } from "../../plugins/lancedb/mod.ts";
import { LocalCipher } from "../../plugins/local_cipher/mod.ts";
import { LexicalEmbedder } from "../../plugins/lexical_embedder/mod.ts";
import {
  accountDirectorySuite,
  blobStoreSuite,
  cipherSuite,
  embedderSuite,
  vectorStoreSuite,
} from "./suites.ts";

vectorStoreSuite("MemoryVectorStore", (dimensions) => {
  const store = new MemoryVectorStore(dimensions);
  return Promise.resolve(Object.assign(store, { [Symbol.asyncDispose]: () => store.close() }));
});
vectorStoreSuite("LanceDbVectorStore", async (dimensions) => {
  const dir = await Deno.makeTempDir();
  const store = await LanceDbVectorStore.open(dir, { model: "test", dimensions });
  return Object.assign(store, {
    [Symbol.asyncDispose]: async () => {
      await store.close();
      await Deno.remove(dir, { recursive: true });
    },
  });
});

blobStoreSuite("MemoryBlobStore", () => Promise.resolve(new MemoryBlobStore()));
blobStoreSuite("FsBlobStore", async () => FsBlobStore.open(await Deno.makeTempDir()));

cipherSuite(
  "LocalCipher (given key)",
  () => LocalCipher.fromKey(crypto.getRandomValues(new Uint8Array(32))),
);
cipherSuite(
  "LocalCipher (key file)",
  async () => LocalCipher.open({ dataDir: await Deno.makeTempDir() }),
);

accountDirectorySuite("MemoryAccountDirectory", () => {
  const directory = new MemoryAccountDirectory();
  let n = 0;
  return Promise.resolve({
    directory,
    add(owner: string, publicKey: string) {
      const accountId = "0x" + String(++n).padStart(64, "0");
      directory.add({ accountId, owner, active: true }, [publicKey]);
      return Promise.resolve(accountId);
    },
    remove(_accountId: string, publicKey: string) {
      directory.remove(publicKey);
      return Promise.resolve();
    },
  });
});
accountDirectorySuite("LocalLedger", async () => {
  const kv = await Deno.openKv(":memory:");
  const ledger = new LocalLedger(kv);
  return {
    directory: ledger,
    add: async (owner: string, publicKey: string) => {
      const account = await ledger.createAccount(owner);
      await ledger.addDelegateKey(account.id, publicKey, "test");
      return account.id;
    },
    remove: async (accountId: string, publicKey: string) => {
      await ledger.removeDelegateKey(accountId, publicKey);
    },
    close: () => kv.close(),
  };
});

embedderSuite("LexicalEmbedder", () => new LexicalEmbedder());
