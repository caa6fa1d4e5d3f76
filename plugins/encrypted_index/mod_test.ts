import assert from "node:assert/strict";
import { DatabaseSync } from "node:sqlite";
import type { MemoryInfo, SvcError, VectorRow, VectorStore } from "@svc/relayer/kit";
import { MemoryVectorStore, seededRandom } from "@svc/relayer/testing";
import { MAX_SMALL_BLOCKS } from "./changes.ts";
import { BLOCK_MAGIC, IndexKeys } from "./keys.ts";
import { SqliteBlockStorage } from "./sqlite_storage.ts";
import { EncryptedVectorStore } from "./mod.ts";
import type { BlockStorage, StorageWatcher } from "./storage.ts";

const secret = crypto.getRandomValues(new Uint8Array(32));

async function tempDir(): Promise<{ dir: string } & AsyncDisposable> {
  const dir = await Deno.makeTempDir({ prefix: "svc-encidx-" });
  return { dir, [Symbol.asyncDispose]: () => Deno.remove(dir, { recursive: true }) };
}

/** A store on `dir`'s `index.sqlite`. */
async function open(
  dir: string,
  options: { dimensions?: number; memoryMb?: number; soleWriter?: boolean } = {},
) {
  return await EncryptedVectorStore.open({
    path: `${dir}/index.sqlite`,
    secret,
    model: "test-model",
    dimensions: options.dimensions ?? 8,
    memoryMb: options.memoryMb,
    soleWriter: options.soleWriter,
  });
}

/** Asserts that `store` answers every question as `reference` does. */
async function assertSame(store: VectorStore, reference: VectorStore, ids: string[]) {
  assert.equal(await store.count(), await reference.count());
  assert.deepEqual([...await store.has(ids)].sort(), [...await reference.has(ids)].sort());
  for (const owner of ["o1", "o2"]) {
    assert.deepEqual(await store.namespaces(owner), await reference.namespaces(owner));
    assert.equal(await store.count({ owner }), await reference.count({ owner }));
    for (const namespace of ["n1", "n2", "n3"]) {
      const filter = { owner, namespace };
      assert.equal(await store.count(filter), await reference.count(filter));
      const byId = (a: { id: string }, b: { id: string }) => a.id < b.id ? -1 : 1;
      assert.deepEqual(
        (await store.terms(owner, namespace)).sort(byId),
        (await reference.terms(owner, namespace)).sort(byId),
      );
      const all = await reference.search(owner, namespace, [1, 0, 0, 0, 0, 0, 0, 0], 1000);
      const got = await store.search(owner, namespace, [1, 0, 0, 0, 0, 0, 0, 0], 1000);
      assert.deepEqual(got.map((h) => h.id), all.map((h) => h.id));
    }
  }
}

/** A `MemoryInfo` with some of its fields, some strings needing escapes in JSON. */
function info(random: () => number): MemoryInfo {
  const out: MemoryInfo = { digest: `d${Math.floor(random() * 1e9)}` };
  if (random() < 0.5) {
    out.tags = Array.from({ length: Math.floor(random() * 4) }, (_, i) => `t${i}`);
  }
  if (random() < 0.5) out.sealed = `s"\\${"é€😀".repeat(Math.floor(random() * 3))}`;
  if (random() < 0.3) out.expiresAt = Math.floor(random() * 1e12);
  if (random() < 0.3) out.supersedes = `m${Math.floor(random() * 300)}`;
  if (random() < 0.3) out.firstCreatedAt = Math.floor(random() * 1e12);
  return out;
}

Deno.test("encrypted index: random writes answer as the in-memory store, before and after reopening", async () => {
  await using temp = await tempDir();
  const random = seededRandom(7);
  const reference = new MemoryVectorStore(8);
  let store = await open(temp.dir);
  const ids = Array.from({ length: 300 }, (_, i) => `m${i}`);
  const pick = <T>(list: T[]) => list[Math.floor(random() * list.length)];
  const vector = () => Array.from({ length: 8 }, () => random() * 2 - 1);
  const row = (): VectorRow => ({
    id: pick(ids),
    owner: pick(["o1", "o2"]),
    namespace: pick(["n1", "n2", "n3"]),
    blobId: `blob-${Math.floor(random() * 1e9)}`,
    vector: vector(),
    createdAt: Math.floor(random() * 1e12),
    ...(random() < 0.8
      ? { terms: Array.from({ length: 1 + pick([0, 1, 5]) }, () => pick(ids)) }
      : {}),
    ...(random() < 0.6 ? { info: info(random) } : {}),
  });
  for (let step = 0; step < 600; step++) {
    const roll = random();
    if (roll < 0.55) {
      const r = row();
      await Promise.all([store.upsert([r]), reference.upsert([r])]);
    } else if (roll < 0.65) {
      // Concurrent single upserts, as the job worker makes them.
      const rows = Array.from({ length: 6 }, row);
      await Promise.all(rows.map((r) => store.upsert([r])));
      for (const r of rows) await reference.upsert([r]);
    } else if (roll < 0.75) {
      const rows = Array.from({ length: 1 + Math.floor(random() * 150) }, row);
      await store.upsert(rows);
      await reference.upsert(rows);
    } else if (roll < 0.85) {
      const gone = Array.from({ length: 1 + Math.floor(random() * 20) }, () => pick(ids));
      await store.delete(gone);
      await reference.delete(gone);
    } else {
      const [owner, namespace, query] = [pick(["o1", "o2"]), pick(["n1", "n2", "n3"]), vector()];
      const k = 1 + Math.floor(random() * 30);
      const only = random() < 0.3 ? Array.from({ length: 10 }, () => pick(ids)) : undefined;
      const got = await store.search(owner, namespace, query, k, { ids: only });
      const want = await reference.search(owner, namespace, query, k, { ids: only });
      assert.deepEqual(
        got.map((h) => [h.id, h.blobId, h.createdAt]),
        want.map((h) => [h.id, h.blobId, h.createdAt]),
      );
      got.forEach((h, i) => assert.ok(Math.abs(h.distance - want[i].distance) < 1e-5));
    }
  }
  await assertSame(store, reference, ids);
  await store.close();
  const storage = await SqliteBlockStorage.open(`${temp.dir}/index.sqlite`);
  for (const { ref, version } of await storage.headers()) {
    const blocks = (await Array.fromAsync(storage.blocks(ref, version))).length;
    assert.ok(blocks <= MAX_SMALL_BLOCKS + 1, `${blocks} blocks: small ones are merged`);
  }
  storage.close();
  store = await open(temp.dir);
  await assertSame(store, reference, ids);
  await store.close();
});

Deno.test("encrypted index: another master key or embedder is refused with the fix named", async () => {
  await using temp = await tempDir();
  await (await open(temp.dir)).close();
  const other = EncryptedVectorStore.open({
    path: `${temp.dir}/index.sqlite`,
    secret: crypto.getRandomValues(new Uint8Array(32)),
    model: "test-model",
    dimensions: 8,
  });
  await assert.rejects(
    other,
    /another master key.*Start with that key.*nothing here can be read.*SVC_CIPHER=seal.*restore/s,
  );
  await assert.rejects(
    open(temp.dir, { dimensions: 4 }),
    /"test-model" \(8 dimensions\).*svc reindex --embedder/s,
  );
  const store = await open(temp.dir);
  assert.equal(await store.count(), 0, "a refused open leaves the index usable");
  await store.close();
});

Deno.test("encrypted index: no name, term, blob id or vector is readable in its private files", async () => {
  await using temp = await tempDir();
  const store = await open(temp.dir, { dimensions: 16 });
  const vector = Array.from({ length: 16 }, (_, i) => (i + 1) / 16);
  const norm = Math.hypot(...vector);
  await store.upsert([{
    id: "memory-1",
    owner: "owner-marker-0x1234",
    namespace: "namespace-marker",
    blobId: "blob-marker-abcdef",
    vector,
    createdAt: 1_700_000_000_000,
    terms: ["termmarker1", "termmarker2"],
  }]);
  await store.close();
  const needles = [
    "owner-marker",
    "namespace-marker",
    "blob-marker",
    "termmarker",
  ].map((s) => new TextEncoder().encode(s));
  const floats = (values: number[]) => new Uint8Array(Float32Array.from(values).buffer);
  needles.push(floats(vector.slice(0, 4)), floats(vector.slice(0, 4).map((x) => x / norm)));
  let files = 0;
  for await (const entry of Deno.readDir(temp.dir)) {
    const bytes = await Deno.readFile(`${temp.dir}/${entry.name}`);
    files++;
    const mode = (await Deno.stat(`${temp.dir}/${entry.name}`)).mode! & 0o777;
    assert.equal(mode, 0o600, `${entry.name} is private to its owner`);
    for (const needle of needles) {
      assert.equal(
        indexOf(bytes, needle),
        -1,
        `${new TextDecoder().decode(needle)} in ${entry.name}`,
      );
    }
    assert.ok(
      indexOf(bytes, new TextEncoder().encode("memory-1")) >= 0 || !entry.name.endsWith(".kv"),
    );
  }
  assert.ok(files >= 1);
});

function indexOf(haystack: Uint8Array, needle: Uint8Array): number {
  outer: for (let i = 0; i + needle.length <= haystack.length; i++) {
    for (let j = 0; j < needle.length; j++) if (haystack[i + j] !== needle[j]) continue outer;
    return i;
  }
  return -1;
}

Deno.test("encrypted index: past the memory budget the least recently used namespaces leave memory", async () => {
  await using temp = await tempDir();
  const store = await open(temp.dir, { dimensions: 512, memoryMb: 0.25 });
  const unit = (i: number) => Array.from({ length: 512 }, (_, j) => (j === i ? 1 : 0));
  for (const namespace of ["a", "b", "c", "d"]) {
    await store.upsert(Array.from({ length: 40 }, (_, i) => ({
      id: `${namespace}${i}`,
      owner: "o",
      namespace,
      blobId: "b",
      vector: unit(i),
      createdAt: i,
    })));
  }
  for (const namespace of ["a", "b", "c", "d", "a"]) {
    const [hit] = await store.search("o", namespace, unit(7), 1);
    assert.equal(hit.id, `${namespace}7`);
    const { namespaces, bytes } = store.memoryStats();
    assert.ok(namespaces >= 1 && namespaces < 4, `${namespaces} namespaces in memory`);
    assert.ok(bytes <= 0.25 * 1024 * 1024 || namespaces === 1, `${bytes} bytes`);
  }
  await store.close();
});

Deno.test("encrypted index: namespaces' newest times are read without pushing out the namespaces in use", async () => {
  await using temp = await tempDir();
  const store = await open(temp.dir, { dimensions: 512, memoryMb: 0.25 });
  const unit = (i: number) => Array.from({ length: 512 }, (_, j) => (j === i ? 1 : 0));
  const namespaces = Array.from({ length: 30 }, (_, n) => `n${String(n).padStart(2, "0")}`);
  for (const [n, namespace] of namespaces.entries()) {
    await store.upsert(Array.from({ length: 20 }, (_, i) => ({
      id: `${namespace}-${i}`,
      owner: "o",
      namespace,
      blobId: "b",
      vector: unit(i),
      createdAt: 1_000 * n + (i * 7) % 20, // the newest row is not the last
    })));
  }
  await store.search("o", "n05", unit(3), 1);
  const held = store.memoryStats();
  for (const round of [1, 2]) {
    const listed = await store.namespaces("o", { newest: true });
    assert.deepEqual(
      listed.map((ns) => [ns.namespace, ns.count, ns.newest]),
      namespaces.map(
        (namespace, n) => [namespace, 20, 1_000 * n + 19],
      ),
      `round ${round}`,
    );
    assert.deepEqual(store.memoryStats(), held, `round ${round}`);
  }
  await store.upsert([{
    id: "n07-new",
    owner: "o",
    namespace: "n07",
    blobId: "b",
    vector: unit(1),
    createdAt: 99_999,
  }]);
  const after = await store.namespaces("o", { newest: true });
  assert.equal(after.find((ns) => ns.namespace === "n07")?.newest, 99_999);
  // Asked without `newest`, the listing is as before.
  assert.deepEqual(Object.keys((await store.namespaces("o"))[0]).sort(), ["count", "namespace"]);
  await store.close();
});

Deno.test("encrypted index: a row larger than one stored value round-trips", async () => {
  await using temp = await tempDir();
  let store = await open(temp.dir);
  const terms = Array.from({ length: 20_000 }, (_, i) => (i * 7919).toString(16).padStart(16, "0"));
  const big = {
    id: "big",
    owner: "o",
    namespace: "n",
    blobId: "b",
    vector: [0, 1, 0, 0, 0, 0, 0, 0],
    createdAt: 5,
    terms,
  };
  await store.upsert([big, {
    ...big,
    id: "small",
    terms: ["x"],
    vector: [1, 0, 0, 0, 0, 0, 0, 0],
  }]);
  await store.close();
  store = await open(temp.dir);
  const rows = await store.terms("o", "n");
  assert.deepEqual(rows.find((r) => r.id === "big")?.terms, terms);
  assert.deepEqual((await store.search("o", "n", [0, 1, 0, 0, 0, 0, 0, 0], 2)).map((h) => h.id), [
    "big",
    "small",
  ]);
  await store.delete(["big"]);
  assert.deepEqual((await store.terms("o", "n")).map((r) => r.id), ["small"]);
  await store.close();
});

/** A row of owner "o", namespace "n", whose vector leans towards dimension `i`. */
function row(id: string, i: number) {
  return {
    id,
    owner: "o",
    namespace: "n",
    blobId: `blob-${id}`,
    vector: Array.from({ length: 8 }, (_, j) => (j === i ? 1 : 0.1)),
    createdAt: i,
  };
}

Deno.test("encrypted index: two stores on one index see and respect each other's writes", async () => {
  await using temp = await tempDir();
  const a = await open(temp.dir);
  const b = await open(temp.dir);
  await a.upsert([row("r1", 1)]);
  assert.deepEqual((await b.search("o", "n", row("", 1).vector, 5)).map((h) => h.id), ["r1"]);
  await b.upsert([row("r2", 2)]);
  assert.deepEqual((await a.search("o", "n", row("", 2).vector, 1)).map((h) => h.id), ["r2"]);
  await b.upsert([row("r3", 3)]); // a's copy of the namespace is now stale: its write must merge
  await a.upsert([row("r4", 4)]);
  await a.delete(["r1"]);
  for (const store of [a, b]) {
    const ids = (await store.search("o", "n", row("", 0).vector, 10)).map((h) => h.id).sort();
    assert.deepEqual(ids, ["r2", "r3", "r4"]);
    assert.equal(await store.count({ owner: "o", namespace: "n" }), 3);
  }
  await a.close();
  await b.close();
});

/** `storage`, counting the blocks its commits wrote and those it read with their bytes. */
function counted(storage: BlockStorage) {
  const counts = { written: 0, read: 0 };
  const wrapped = altered(storage, {
    async *blocks(...args) {
      for await (const block of storage.blocks(...args)) {
        if (block.bytes) counts.read++;
        yield block;
      }
    },
    async commit(change) {
      const version = await storage.commit(change);
      if (version) counts.written += change.putBlocks.length;
      return version;
    },
  });
  return { storage: wrapped, counts };
}

/** `storage`, but for the calls `calls` answers instead. */
function altered(storage: BlockStorage, calls: Partial<BlockStorage>): BlockStorage {
  return new Proxy(storage, {
    get(target, key) {
      if (Object.hasOwn(calls, key)) return calls[key as keyof BlockStorage];
      const value = Reflect.get(target, key);
      return typeof value === "function" ? value.bind(target) : value;
    },
  });
}

Deno.test("encrypted index: a store reads only the blocks another writer's commits wrote, and answers as the in-memory store", async () => {
  await using temp = await tempDir();
  const random = seededRandom(11);
  const reference = new MemoryVectorStore(8);
  const [a, b] = await Promise.all([1, 2].map(async () => {
    const { storage, counts } = counted(await SqliteBlockStorage.open(`${temp.dir}/index.sqlite`));
    const store = await EncryptedVectorStore.open({
      storage,
      secret,
      model: "test-model",
      dimensions: 8,
    });
    return { store, counts };
  }));
  const ids = Array.from({ length: 150 }, (_, i) => `m${i}`);
  const pick = <T>(list: T[]) => list[Math.floor(random() * list.length)];
  const row = (): VectorRow => ({
    id: pick(ids),
    owner: "o",
    namespace: pick(["n1", "n2"]),
    blobId: `blob-${Math.floor(random() * 1e9)}`,
    vector: Array.from({ length: 8 }, () => random() * 2 - 1),
    createdAt: Math.floor(random() * 1e12),
    terms: [pick(ids)],
    ...(random() < 0.5 ? { info: info(random) } : {}),
  });
  const query = [1, 0, 0, 0, 0, 0, 0, 0];
  const assertSeen = async () => {
    for (const namespace of ["n1", "n2"]) {
      const got = await b.store.search("o", namespace, query, 1000);
      const want = await reference.search("o", namespace, query, 1000);
      assert.deepEqual(got.map((h) => [h.id, h.blobId]), want.map((h) => [h.id, h.blobId]));
      const byId = (x: { id: string }, y: { id: string }) => x.id < y.id ? -1 : 1;
      assert.deepEqual(
        (await b.store.terms("o", namespace)).sort(byId),
        (await reference.terms("o", namespace)).sort(byId),
      );
    }
  };
  const first = ["n1", "n2"].map((namespace) => ({
    ...row(),
    id: `first-${namespace}`,
    namespace,
  }));
  await a.store.upsert(first);
  await reference.upsert(first);
  await assertSeen();
  for (let step = 0; step < 150; step++) {
    const [read, written] = [b.counts.read, a.counts.written];
    const roll = random();
    if (roll < 0.6) {
      const r = row();
      await a.store.upsert([r]);
      await reference.upsert([r]);
    } else if (roll < 0.8) {
      const rows = Array.from({ length: 1 + Math.floor(random() * 60) }, row);
      await a.store.upsert(rows);
      await reference.upsert(rows);
    } else {
      const gone = Array.from({ length: 1 + Math.floor(random() * 10) }, () => pick(ids));
      await a.store.delete(gone);
      await reference.delete(gone);
    }
    await assertSeen();
    assert.ok(
      b.counts.read - read <= a.counts.written - written,
      `step ${step}: read ${b.counts.read - read} blocks, ${a.counts.written - written} written`,
    );
  }
  await a.store.close();
  await b.store.close();
});

Deno.test("encrypted index: a sole writer searches what it holds, and its writes still merge another's", async () => {
  await using temp = await tempDir();
  const a = await open(temp.dir, { soleWriter: true });
  const b = await open(temp.dir);
  const found = async (store: EncryptedVectorStore) =>
    (await store.search("o", "n", row("", 0).vector, 10)).map((h) => h.id).sort();
  await a.upsert([row("r1", 1)]);
  assert.deepEqual(await found(a), ["r1"], "its own write at once");
  await b.upsert([row("r2", 2)]); // against the contract: another process writes
  assert.deepEqual(await found(a), ["r1"], "a search reads no stored version");
  await a.upsert([row("r3", 3)]);
  assert.deepEqual(await found(a), ["r1", "r2", "r3"], "the commit noticed the other write");
  assert.deepEqual(await found(b), ["r1", "r2", "r3"]);
  await a.close();
  await b.close();
});

Deno.test("encrypted index: writes apply in call order; a malformed vector is refused", async () => {
  await using temp = await tempDir();
  const store = await open(temp.dir);
  const row = (namespace: string, blobId: string) => ({
    id: "x",
    owner: "o",
    namespace,
    blobId,
    vector: [1, 0, 0, 0, 0, 0, 0, 0],
    createdAt: 1,
  });
  const writes = [
    store.upsert([row("n1", "first")]),
    store.delete(["x"]),
    store.upsert([row("n2", "second")]),
    store.upsert([row("n2", "third"), row("n2", "last")]),
  ];
  await Promise.all(writes);
  assert.deepEqual(await store.search("o", "n1", [1, 0, 0, 0, 0, 0, 0, 0], 5), []);
  const [hit] = await store.search("o", "n2", [1, 0, 0, 0, 0, 0, 0, 0], 5);
  assert.equal(hit.blobId, "last");
  for (const vector of [[1, 0], [NaN, 0, 0, 0, 0, 0, 0, 0]]) {
    await assert.rejects(
      store.upsert([{ ...row("n3", "bad"), vector }]),
      (error: SvcError) => error.code === "bad_request",
    );
  }
  assert.equal(await store.count({ owner: "o", namespace: "n3" }), 0);
  await store.close();
});

Deno.test("encrypted index: a format 1 index (version 1 blocks, AES-GCM) reads as rows without info, takes rows with one, and seals new blocks with ChaCha20-Poly1305", async () => {
  await using temp = await tempDir();
  const path = `${temp.dir}/index.sqlite`;
  let store = await open(temp.dir);
  await store.upsert([{ ...row("old1", 1), terms: ["h1"] }, row("old2", 2)]);
  await store.close();
  // Rows without info are written as version 1 wrote them but for the version number and the
  // cipher: make the blocks (sealed with AES-GCM) and the index what version 1 left.
  const keys = await IndexKeys.derive(secret);
  const ref = await keys.ref("o", "n");
  const db = new DatabaseSync(path);
  const blocks = db.prepare("SELECT id, bytes FROM blocks WHERE ns = ?").all(ref.ns) as {
    id: string;
    bytes: Uint8Array<ArrayBuffer>;
  }[];
  assert.ok(blocks.length >= 1);
  for (const { id, bytes } of blocks) {
    assert.deepEqual(bytes.subarray(0, 4), BLOCK_MAGIC);
    const plain = new Uint8Array(await keys.openBlock(ref, id, bytes));
    const view = new DataView(plain.buffer);
    assert.equal(view.getUint32(0, true), 2);
    const json = new TextDecoder().decode(plain.subarray(plain.length - view.getUint32(12, true)));
    assert.deepEqual(Object.keys(JSON.parse(json)), ["i", "b", "t"]);
    view.setUint32(0, 1, true);
    const sealed = await keys.seal(ref, `block ${id}`, plain);
    db.prepare("UPDATE blocks SET bytes = ? WHERE ns = ? AND id = ?").run(sealed, ref.ns, id);
  }
  const metaNote = () =>
    db.prepare("SELECT value FROM notes WHERE name = ?").get("\0meta") as {
      value: string;
    };
  const meta = JSON.parse(metaNote().value);
  db.prepare("UPDATE notes SET value = ? WHERE name = ?").run(
    JSON.stringify({ ...meta, format: 1 }),
    "\0meta",
  );

  store = await open(temp.dir);
  const byId = (a: { id: string }, b: { id: string }) => a.id < b.id ? -1 : 1;
  assert.deepEqual((await store.terms("o", "n")).sort(byId), [
    { id: "old1", terms: ["h1"], blobId: "blob-old1", createdAt: 1 },
    { id: "old2", terms: [], blobId: "blob-old2", createdAt: 2 },
  ]);
  assert.equal(JSON.parse(metaNote().value).format, 3, "marked as the format now written");
  const info: MemoryInfo = { tags: ["k1"], digest: "d", supersedes: "old2", firstCreatedAt: 2 };
  await store.upsert([{ ...row("new", 3), info }]);
  await store.delete(["old2"]);
  await store.close();
  store = await open(temp.dir);
  assert.deepEqual((await store.terms("o", "n")).sort(byId), [
    { id: "new", terms: [], blobId: "blob-new", createdAt: 3, info },
    { id: "old1", terms: ["h1"], blobId: "blob-old1", createdAt: 1 },
  ]);
  assert.deepEqual((await store.search("o", "n", row("", 3).vector, 5)).map((h) => h.id), [
    "new",
    "old1",
  ]);
  await store.close();
  const rewritten = db.prepare("SELECT bytes FROM blocks WHERE ns = ?").all(ref.ns) as {
    bytes: Uint8Array;
  }[];
  db.close();
  assert.ok(rewritten.length >= 1);
  for (const { bytes } of rewritten) assert.deepEqual(bytes.subarray(0, 4), BLOCK_MAGIC);
});

Deno.test("encrypted index: a namespace brought up to date while this store's own write is under way is copied, not changed under it", async () => {
  await using temp = await tempDir();
  const path = `${temp.dir}/index.sqlite`;
  const a = await open(temp.dir);
  const { storage: counting, counts } = counted(await SqliteBlockStorage.open(path));
  // B's storage tells of others' commits when told to, and holds its own commits' answers.
  let watcher: StorageWatcher | undefined;
  let gate = Promise.resolve();
  let landed = Promise.withResolvers<void>();
  const storage = altered(counting, {
    watch(w) {
      watcher = w;
      return () => {};
    },
    async commit(change) {
      const version = await counting.commit(change);
      landed.resolve();
      await gate;
      return version;
    },
  });
  const b = await EncryptedVectorStore.open({
    storage,
    secret,
    model: "test-model",
    dimensions: 8,
  });
  const found = async () =>
    (await b.search("o", "n", row("", 0).vector, 10)).map((h) => h.id).sort();
  await b.upsert([row("r1", 1)]);
  assert.deepEqual(await found(), ["r1"]);
  const opened = Promise.withResolvers<void>();
  gate = opened.promise;
  // Resolved by r2's commit, not the earlier one of r1.
  landed = Promise.withResolvers<void>();
  const writing = b.upsert([row("r2", 2)]);
  await landed.promise; // B's commit landed; B has not applied it yet
  await a.upsert([row("r3", 3)]);
  const [{ ref, version }] = await counting.headers();
  watcher!.changed(ref, version);
  assert.deepEqual(await found(), ["r1", "r2", "r3"]);
  const read = counts.read;
  opened.resolve();
  await writing;
  assert.deepEqual(await found(), ["r1", "r2", "r3"]);
  // What B holds stayed whole: nothing is read again but another writer's next block.
  await a.upsert([row("r4", 4)]);
  watcher!.changed(ref, (await counting.headers())[0].version);
  assert.deepEqual(await found(), ["r1", "r2", "r3", "r4"]);
  assert.equal(counts.read - read, 1);
  await a.close();
  await b.close();
});

Deno.test("encrypted index: a namespace evicted during its own write and read again before the commit landed does not hide the write", async () => {
  await using temp = await tempDir();
  const file = await SqliteBlockStorage.open(`${temp.dir}/index.sqlite`);
  let gate = Promise.resolve();
  let committing = Promise.withResolvers<void>();
  const storage = altered(file, {
    async commit(change) {
      committing.resolve();
      await gate;
      return await file.commit(change);
    },
  });
  // The relayer's case: the only writer, and a budget that holds one namespace at a time.
  const store = await EncryptedVectorStore.open({
    storage,
    secret,
    model: "test-model",
    dimensions: 8,
    soleWriter: true,
    memoryMb: 0.000_01,
  });
  const inA = async () =>
    (await store.search("o", "n", row("", 0).vector, 10)).map((h) => h.id).sort();
  await store.upsert([row("r1", 1)]);
  assert.deepEqual(await inA(), ["r1"]);
  const opened = Promise.withResolvers<void>();
  gate = opened.promise;
  committing = Promise.withResolvers<void>();
  // One write to two namespaces: loading the second evicts the first, which it still writes.
  const writing = store.upsert([row("r2", 2), { ...row("x1", 3), namespace: "other" }]);
  await committing.promise;
  assert.deepEqual(await inA(), ["r1"], "read again before the commit landed");
  opened.resolve();
  await writing;
  assert.deepEqual(await inA(), ["r1", "r2"]);
  await store.close();
});

Deno.test("encrypted index: a write that fails after its first chunk counts what that chunk added to memory", async () => {
  await using temp = await tempDir();
  const file = await SqliteBlockStorage.open(`${temp.dir}/index.sqlite`);
  let locates = 0;
  const storage = altered(file, {
    locate(ids) {
      if (++locates === 2) return Promise.reject(new Error("the disk went away"));
      return file.locate(ids);
    },
  });
  const options = { secret, model: "test-model", dimensions: 8, soleWriter: true };
  const store = await EncryptedVectorStore.open({ storage, ...options });
  const rows = Array.from({ length: 200 }, (_, i) => row(`r${i}`, i % 8));
  await assert.rejects(store.upsert(rows));
  // What the first chunk of 128 wrote stays written, and in memory, counted whole.
  assert.equal(await store.count(), 128);
  const reference = await EncryptedVectorStore.open({
    path: `${temp.dir}/reference.sqlite`,
    ...options,
  });
  await reference.upsert(rows.slice(0, 128));
  assert.deepEqual(store.memoryStats(), reference.memoryStats());
  await Promise.all([store.close(), reference.close()]);
});
