import assert from "node:assert/strict";
import { SvcClient } from "../../src/client/mod.ts";
import { SvcError } from "../../src/errors.ts";
import { taskCommand } from "../task_flags.ts";
import { GloveEmbedder } from "../../plugins/glove_embedder/mod.ts";
import { EncryptedVectorStore } from "../../plugins/encrypted_index/mod.ts";
import {
  freePort,
  jobIdOf,
  newAccountClient,
  removeIndex,
  startRelayer,
  svcCli,
  TEST_KEYS_DIR,
  TEST_MODELS_DIR,
  testMasterKey,
} from "../relayer_process.ts";

Deno.test("e2e: remember, recall, restart, lose the index, restore", async () => {
  const dataDir = await Deno.makeTempDir({ prefix: "svc-e2e-" });
  let relayer = await startRelayer(dataDir);
  const { accountId, owner, privateKey, client } = await newAccountClient(dataDir, relayer.url);
  const facts = ["I am vegetarian", "My dog is called Rex", "I work night shifts at the hospital"];
  const jobs = [];
  for (const text of facts) jobs.push(jobIdOf(await client.remember(text)));
  for (const id of jobs) assert.equal((await client.waitForJob(id)).status, "done");
  const recallDog = async (c: SvcClient) =>
    (await c.recall("what is my dog called", { limit: 1 })).results[0]?.text;
  assert.equal(await recallDog(client), "My dog is called Rex");

  const viaCli = await svcCli(dataDir, ["recall", "vegetarian", "--account", accountId], {
    SVC_SERVER_URL: relayer.url,
    SVC_DELEGATE_KEY: privateKey,
  });
  assert.equal(viaCli.results[0].text, "I am vegetarian");

  assert.equal((await relayer.stop()).code, 0);
  relayer = await startRelayer(dataDir);
  const again = await SvcClient.create({ baseUrl: relayer.url, privateKey, accountId });
  assert.equal(await recallDog(again), "My dog is called Rex");

  await relayer.stop();
  await removeIndex(dataDir);
  relayer = await startRelayer(dataDir);
  const restoredClient = await SvcClient.create({ baseUrl: relayer.url, privateKey, accountId });
  assert.deepEqual((await restoredClient.recall("dog")).results, []);
  const summary = await restoredClient.restore("default");
  assert.deepEqual(summary, {
    restored: 3,
    skipped: 0,
    total: 3,
    remaining: 0,
    truncated: false,
    namespace: "default",
    owner,
  });
  assert.equal(await recallDog(restoredClient), "My dog is called Rex");
  assert.deepEqual(await restoredClient.restore("default"), {
    ...summary,
    restored: 0,
    skipped: 3,
  });

  await svcCli(dataDir, [
    "key",
    "remove",
    "--account",
    accountId,
    "--public-key",
    restoredClient.publicKey,
  ]);
  await relayer.stop();
  relayer = await startRelayer(dataDir);
  const revoked = await SvcClient.create({ baseUrl: relayer.url, privateKey, accountId });
  const error = await revoked.recall("dog").catch((e) => e);
  assert.ok(error instanceof SvcError);
  assert.equal(error.code, "unauthorized");
  assert.equal(error.details.reason, "unknown_key");
  await relayer.stop();
  await Deno.remove(dataDir, { recursive: true });
});

Deno.test("e2e: a mismatched embedder is refused at start with the fix named", async () => {
  const dataDir = await Deno.makeTempDir({ prefix: "svc-e2e-" });
  const store = await EncryptedVectorStore.open({
    path: `${dataDir}/index.sqlite`,
    secret: await testMasterKey(dataDir),
    model: "another-model",
    dimensions: 8,
  });
  await store.close();
  const { code, stderr } = await new Deno.Command(Deno.execPath(), {
    args: taskCommand("start"),
    env: {
      SVC_DATA_DIR: dataDir,
      SVC_PORT: "0",
      SVC_DASHBOARD_PORT: "0",
      SVC_MODELS_DIR: TEST_MODELS_DIR,
      SVC_KEYS_DIR: TEST_KEYS_DIR,
    },
  }).output();
  assert.equal(code, 1);
  const message = new TextDecoder().decode(stderr);
  assert.match(message, /another-model/);
  assert.match(message, /svc-use-lite-512-v1/, "the default embedder is named");
  assert.match(message, /svc reindex --embedder/);
  // SVC_EMBEDDER is unset, and no embedder of this relayer makes that index's vectors: a
  // reindex while serving, which answers with it meanwhile, is not offered.
  assert.match(message, /SVC_EMBEDDER is not set, and the index's own embedder is not one/);
  assert.doesNotMatch(message, /SVC_REINDEX=1/);
  await Deno.remove(dataDir, { recursive: true });
});

Deno.test("e2e: invalid configuration lists every problem and exits 2", async () => {
  const { code, stderr } = await new Deno.Command(Deno.execPath(), {
    args: taskCommand("start"),
    env: { SVC_PORT: "99999", SVC_EMBEDDER: "nope", SVC_MASTER_KEY: "short" },
  }).output();
  assert.equal(code, 2);
  const message = new TextDecoder().decode(stderr);
  for (const name of ["SVC_PORT", "SVC_EMBEDDER", "SVC_MASTER_KEY"]) {
    assert.match(message, new RegExp(name));
  }
});

Deno.test("e2e: a data directory under /dev is refused with the way out, not --allow-all", async () => {
  const { code, stderr } = await new Deno.Command(Deno.execPath(), {
    args: taskCommand("start"),
    env: {
      SVC_DATA_DIR: "/dev/shm/svc-e2e-data",
      SVC_KEYS_DIR: TEST_KEYS_DIR,
      SVC_PORT: "0",
      SVC_DASHBOARD_PORT: "0",
    },
  }).output();
  assert.equal(code, 1);
  assert.equal(
    new TextDecoder().decode(stderr).trim(),
    'svc: cannot start: "/dev/shm/svc-e2e-data" is out of reach: Deno lets a program use /dev, ' +
      "/proc and /sys only with --allow-all, which the relayer does not take. Choose a " +
      "directory elsewhere",
  );
});

Deno.test("e2e: SIGKILL with 200 jobs in flight loses none and duplicates none", async () => {
  const dataDir = await Deno.makeTempDir({ prefix: "svc-crash-" });
  let relayer = await startRelayer(dataDir, { SVC_WORKER_CONCURRENCY: "1" });
  const { accountId, privateKey, client } = await newAccountClient(dataDir, relayer.url);
  const batches = Array.from(
    { length: 10 },
    (_, b) =>
      Array.from(
        { length: 20 },
        (_, i) => ({ text: `crash fact number ${b * 20 + i} about topic ${b}` }),
      ),
  );
  const accepted = (await Promise.all(batches.map((items) => client.rememberBulk(items))))
    .flatMap((r) => r.job_ids);
  // Kill once the worker is part-way through, so jobs are caught in every stage.
  while (!(await client.jobs(accepted.slice(0, 100))).results.some((j) => j.status === "done")) {
    await new Promise((r) => setTimeout(r, 5));
  }
  await relayer.kill();
  assert.equal(accepted.length, 200);
  const kv = await Deno.openKv(`${dataDir}/jobs.kv`);
  let unfinished = 0;
  for await (const entry of kv.list<{ status: string }>({ prefix: ["job"] })) {
    if (entry.value.status !== "done") unfinished++;
  }
  kv.close();
  console.log(`${unfinished} of 200 jobs were unfinished at the kill`);
  assert.ok(unfinished > 0, "the kill must hit jobs in flight");

  relayer = await startRelayer(dataDir);
  const after = await SvcClient.create({ baseUrl: relayer.url, privateKey, accountId });
  const deadline = Date.now() + 120_000;
  let statuses: string[] = [];
  while (Date.now() < deadline) {
    statuses = [];
    for (let i = 0; i < accepted.length; i += 100) {
      const { results } = await after.jobs(accepted.slice(i, i + 100));
      statuses.push(...results.map((r) => r.status));
    }
    if (statuses.every((s) => s === "done" || s === "failed")) break;
    await new Promise((r) => setTimeout(r, 200));
  }
  assert.deepEqual(statuses, accepted.map(() => "done"));
  await relayer.stop();

  const embedder = await GloveEmbedder.open({ cacheDir: TEST_MODELS_DIR });
  const index = await EncryptedVectorStore.open({
    path: `${dataDir}/index.sqlite`,
    secret: await testMasterKey(dataDir),
    model: embedder.model,
    dimensions: embedder.dimensions,
  });
  assert.equal((await index.has(accepted)).size, 200);
  assert.equal(await index.count(), 200, "one row per job id");
  await index.close();
  await Deno.remove(dataDir, { recursive: true });
});

Deno.test("e2e: no memory text is stored in clear anywhere in the data directory", async () => {
  const dataDir = await Deno.makeTempDir({ prefix: "svc-e2e-" });
  try {
    await using relayer = await startRelayer(dataDir);
    const { client } = await newAccountClient(dataDir, relayer.url);
    const secret = "Quixotically zanzibarian marmalade for Xylophonist Wendeline";
    const job_id = jobIdOf(await client.remember(secret));
    assert.equal((await client.waitForJob(job_id)).status, "done");
    const { results } = await client.recall("zanzibarian marmalade");
    assert.equal(results[0].text, secret, "the memory is found, by its rare words too");
    await relayer.stop();
    const words = ["quixotically", "zanzibarian", "marmalade", "xylophonist", "wendeline"];
    for await (const path of walk(dataDir)) {
      const content = new TextDecoder("latin1").decode(await Deno.readFile(path)).toLowerCase();
      for (const word of words) assert.ok(!content.includes(word), `"${word}" found in ${path}`);
    }
  } finally {
    await Deno.remove(dataDir, { recursive: true });
  }
});

async function* walk(dir: string): AsyncGenerator<string> {
  for await (const entry of Deno.readDir(dir)) {
    const path = `${dir}/${entry.name}`;
    if (entry.isDirectory) yield* walk(path);
    else if (entry.isFile) yield path;
  }
}

Deno.test("e2e: a port in use, or a data directory in use, is named at start", async () => {
  const dataDir = await Deno.makeTempDir({ prefix: "svc-e2e-" });
  using taken = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const port = String((taken.addr as Deno.NetAddr).port);
  const start = (env: Record<string, string>) =>
    new Deno.Command(Deno.execPath(), {
      args: taskCommand("start"),
      env: {
        SVC_DATA_DIR: dataDir,
        SVC_MODELS_DIR: TEST_MODELS_DIR,
        SVC_KEYS_DIR: TEST_KEYS_DIR,
        SVC_PORT: "0",
        SVC_DASHBOARD_PORT: "0",
        SIDECAR_URL: `http://127.0.0.1:${freePort()}`,
        ...env,
      },
    }).output();
  for (const setting of ["SVC_PORT", "SVC_DASHBOARD_PORT"]) {
    const { code, stderr } = await start({ [setting]: port });
    assert.equal(code, 1, setting);
    const message = new TextDecoder().decode(stderr);
    assert.match(message, new RegExp(`127\\.0\\.0\\.1:${port}: the port is in use`));
    assert.match(message, new RegExp(`another port with ${setting}\\.`));
    assert.doesNotMatch(message, /AddrInUse|\n\s+at /, "no error type or stack trace");
    // Refused before the data directory is opened: nothing in it is made or changed (an older
    // relayer still serving it would otherwise keep writing where the new one cannot see).
    assert.deepEqual(await Array.fromAsync(Deno.readDir(dataDir)), [], setting);
  }
  // An address that is not this machine's (TEST-NET-1) names SVC_HOST.
  const elsewhere = await start({ SVC_HOST: "192.0.2.1" });
  assert.equal(elsewhere.code, 1);
  assert.match(
    new TextDecoder().decode(elsewhere.stderr),
    /^svc: cannot start: the relayer cannot listen on 192\.0\.2\.1:0: .*\. SVC_HOST must be an address of this machine/m,
  );
  // The sidecar's port: the relayer serves on, and its log names the port and SIDECAR_URL.
  await using relayer = await startRelayer(dataDir, { SIDECAR_URL: `http://127.0.0.1:${port}` });
  for (let i = 0; i < 200 && !/SIDECAR_URL/.test(relayer.log()); i++) {
    await new Promise((r) => setTimeout(r, 50));
  }
  assert.match(
    relayer.log(),
    new RegExp(`127\\.0\\.0\\.1:${port}: the port is in use.*SIDECAR_URL`),
  );
  // A second relayer on the same data directory is refused, said once.
  const second = await start({});
  assert.equal(second.code, 1);
  assert.match(
    new TextDecoder().decode(second.stderr),
    /^svc: Cannot start the relayer: another process holds the vector index of /m,
  );
  await Deno.remove(dataDir, { recursive: true });
});
