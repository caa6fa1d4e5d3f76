import assert from "node:assert/strict";
import {
  MemoryAccountDirectory,
  MemoryBlobStore,
  MemoryCipher,
  MemoryEmbedder,
  MemoryLlm,
  MemoryReranker,
  MemoryVectorStore,
} from "../../src/testing/mod.ts";
import { CachedAccountDirectory } from "../../src/auth/account_cache.ts";
import { KvLedgerStore } from "../../plugins/local_ledger/mod.ts";
import { ledgerConformance } from "../../plugins/local_ledger/testing/conformance.ts";
import { SqliteBlobStore } from "../../plugins/sqlite_blob/mod.ts";
import { LanceDbVectorStore } from "../../plugins/lancedb/mod.ts";
import { EncryptedVectorStore } from "../../plugins/encrypted_index/mod.ts";
import { LocalCipher } from "../../plugins/local_cipher/mod.ts";
import { loadMasterKey } from "../../app/master_key.ts";
import { LexicalEmbedder } from "../../plugins/lexical_embedder/mod.ts";
import { GloveEmbedder } from "../../plugins/glove_embedder/mod.ts";
import { TEST_MODELS_DIR } from "../relayer_process.ts";
import { LocalExtractiveLlm } from "../../plugins/local_llm/mod.ts";
import { OllamaEmbedder, OllamaLlm } from "../../plugins/ollama/mod.ts";
import { OpenAiEmbedder, OpenAiLlm } from "../../plugins/openai/mod.ts";
import { startFakeModelServer } from "../fakes/model_server.ts";
import {
  accountDirectorySuite,
  blobStoreSuite,
  cipherSuite,
  embedderSuite,
  llmSuite,
  rerankerSuite,
  vectorStoreSuite,
  type VectorStoreUnderTest,
} from "../../src/testing/mod.ts";
import type { VectorStore } from "../../src/kit.ts";

/** The relayer's secret the stores' names are hashed and sealed with. */
const SECRET = new Uint8Array(32).fill(7);

vectorStoreSuite("MemoryVectorStore", (dimensions) => {
  const store = new MemoryVectorStore(dimensions);
  return Promise.resolve(Object.assign(store, { [Symbol.asyncDispose]: () => store.close() }));
});
/** A store kept in a temporary folder, which it can reopen and which goes with it. */
async function inFolder(
  dir: string,
  openIn: (dir: string) => Promise<VectorStore>,
): Promise<VectorStoreUnderTest> {
  const store = await openIn(dir);
  return Object.assign(store, {
    reopen: async () => {
      await store.close();
      return await inFolder(dir, openIn);
    },
    [Symbol.asyncDispose]: async () => {
      await store.close();
      await Deno.remove(dir, { recursive: true });
    },
  });
}

vectorStoreSuite("LanceDbVectorStore", async (dimensions) =>
  await inFolder(
    await Deno.makeTempDir(),
    (dir) => LanceDbVectorStore.open({ dir, model: "test", dimensions }),
  ));

vectorStoreSuite("EncryptedVectorStore", async (dimensions) => {
  const secret = crypto.getRandomValues(new Uint8Array(32));
  return await inFolder(
    await Deno.makeTempDir(),
    (dir) =>
      EncryptedVectorStore.open({ path: `${dir}/index.sqlite`, secret, model: "test", dimensions }),
  );
});

blobStoreSuite("MemoryBlobStore", () => Promise.resolve(new MemoryBlobStore()));
blobStoreSuite("SqliteBlobStore", async () => {
  const dir = await Deno.makeTempDir();
  const store = await SqliteBlobStore.open({ path: `${dir}/blobs/blobs.sqlite`, secret: SECRET });
  return Object.assign(store, {
    [Symbol.asyncDispose]: async () => {
      store.close();
      await Deno.remove(dir, { recursive: true });
    },
  });
});

cipherSuite("MemoryCipher", () => Promise.resolve(new MemoryCipher()));
cipherSuite(
  "LocalCipher (given key)",
  () => LocalCipher.open({ masterKey: crypto.getRandomValues(new Uint8Array(32)) }),
);
cipherSuite("LocalCipher (master key file, key store file)", async () => {
  const dir = await Deno.makeTempDir();
  const cipher = await LocalCipher.open({
    masterKey: await loadMasterKey(dir, { keysDir: `${dir}/keys` }),
    keyStorePath: `${dir}/keys.sqlite`,
  });
  return Object.assign(cipher, {
    [Symbol.asyncDispose]: async () => {
      await cipher.close();
      await Deno.remove(dir, { recursive: true });
    },
  });
});

accountDirectorySuite("MemoryAccountDirectory", () => {
  const directory = new MemoryAccountDirectory();
  let n = 0;
  return Promise.resolve({
    directory,
    add(publicKey: string) {
      const accountId = "0x" + String(++n).padStart(64, "0");
      const owner = "0x" + String(n).padStart(64, "a");
      directory.add({ accountId, owner, active: true }, [publicKey]);
      return Promise.resolve({ accountId, owner });
    },
    remove(_accountId: string, publicKey: string) {
      directory.remove(publicKey);
      return Promise.resolve();
    },
  });
});
accountDirectorySuite("CachedAccountDirectory (kept 0 ms)", () => {
  const inner = new MemoryAccountDirectory();
  const directory = new CachedAccountDirectory(inner, { positiveTtlMs: 0, negativeTtlMs: 0 });
  return Promise.resolve({
    directory,
    add(publicKey: string) {
      const account = { accountId: "0x" + "1".repeat(64), owner: "0x" + "a".repeat(64) };
      inner.add({ ...account, active: true }, [publicKey]);
      return Promise.resolve(account);
    },
    remove(_accountId: string, publicKey: string) {
      inner.remove(publicKey);
      return Promise.resolve();
    },
  });
});
ledgerConformance("LocalLedger", async () => {
  const kv = await Deno.openKv(":memory:");
  return { store: new KvLedgerStore(kv), close: () => kv.close() };
});

embedderSuite("MemoryEmbedder", () => new MemoryEmbedder());
embedderSuite("MemoryEmbedder (8 dimensions)", () => new MemoryEmbedder(8));
embedderSuite("LexicalEmbedder", () => new LexicalEmbedder());
embedderSuite("GloveEmbedder", () => GloveEmbedder.open({ cacheDir: TEST_MODELS_DIR }));
rerankerSuite("MemoryReranker", () => new MemoryReranker());
rerankerSuite(
  "GloveReranker",
  async () => (await GloveEmbedder.open({ cacheDir: TEST_MODELS_DIR })).reranker(),
);

llmSuite("MemoryLlm", () => Promise.resolve(new MemoryLlm()));
llmSuite("LocalExtractiveLlm", () => Promise.resolve(new LocalExtractiveLlm()));

for (const flavour of ["ollama", "openai"] as const) {
  const opened = async <T extends object>(
    open: (url: string) => Promise<T> | T,
  ): Promise<T & AsyncDisposable> => {
    const fake = startFakeModelServer(flavour);
    return Object.assign(await open(fake.url), {
      [Symbol.asyncDispose]: () => fake[Symbol.asyncDispose](),
    });
  };
  if (flavour === "ollama") {
    embedderSuite(
      "OllamaEmbedder",
      () => opened((host) => OllamaEmbedder.open({ host, model: "e" })),
    );
    llmSuite("OllamaLlm", () => opened((host) => new OllamaLlm({ host, model: "m" })));
  } else {
    const baseURL = (url: string) => `${url}/v1`;
    embedderSuite(
      "OpenAiEmbedder",
      () => opened((url) => OpenAiEmbedder.open({ baseURL: baseURL(url), model: "e" })),
    );
    llmSuite(
      "OpenAiLlm",
      () => opened((url) => new OpenAiLlm({ baseURL: baseURL(url), model: "m" })),
    );
  }
}

Deno.test("MemoryVectorStore: asked for no hit, it finds none, and a row scores itself 1", async () => {
  const store = new MemoryVectorStore(3);
  const vector = [0.1, 0.2, 0.30000000000000004]; // not a float32 number
  const row = { id: "a", owner: "o", namespace: "n", blobId: "b", createdAt: 1, vector };
  await store.upsert([row]);
  assert.deepEqual(await store.search("o", "n", vector, 0), []);
  const [hit] = await store.search("o", "n", Float32Array.from(vector), 1);
  assert.equal(hit.distance, 0);
});
