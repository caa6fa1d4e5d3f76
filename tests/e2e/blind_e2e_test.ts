/**
 * Operator-blind memory against the relayer as users run it (`deno task start`'s flags): a
 * client remembers 200 distinctive texts in an operator-blind namespace and recalls them, the CLI
 * (`svc blind`) one more in a namespace of its own (the Python SDK's test does the same), then
 * the relayer's data directory, its log and its process memory (`/proc/<pid>/mem`) are searched
 * for the texts, their tags, a vector and the content key. None may be there. The same texts'
 * twins, remembered in a normal namespace of the same relayer, are found in its memory: the
 * search can fail.
 */
import assert from "node:assert/strict";
import { Buffer } from "node:buffer";
import { BlindMemory } from "../../src/client/blind.ts";
import { blindKeys, unwrapWith } from "../../src/client/blind_keys.ts";
import { LexicalEmbedder } from "../../plugins/lexical_embedder/mod.ts";
import {
  exitWithin,
  newAccountClient,
  saveCredentials,
  spawnStdioHost,
  startRelayer,
  svcCli,
  TEST_MODELS_DIR,
} from "../relayer_process.ts";
import { writeTinyModel } from "../../plugins/onnx_embedder/testing/tiny_model.ts";

const COUNT = 200;
/** Every blind text holds this word, every normal one the other: one search finds any of them. */
const BLIND = "qzblindcanary";
const NORMAL = "qznormalcanary";
const BLIND_TAG = "qzblindtag";

/** The readable regions of process `pid`'s memory, as `/proc/<pid>/maps` lists them. */
function readableRegions(pid: number): [number, number][] {
  return Deno.readTextFileSync(`/proc/${pid}/maps`).split("\n").flatMap((line) => {
    const [range, perms] = line.split(" ");
    if (!perms?.startsWith("r")) return [];
    const [start, end] = range.split("-").map((hex) => parseInt(hex, 16));
    return [[start, end] as [number, number]];
  });
}

/** Which of `needles` process `pid`'s memory holds. */
async function inMemory(pid: number, needles: Map<string, Uint8Array>): Promise<Set<string>> {
  const found = new Set<string>();
  using file = await Deno.open(`/proc/${pid}/mem`);
  const chunk = 16 * 2 ** 20;
  for (const [start, end] of readableRegions(pid)) {
    for (let at = start; at < end; at += chunk) {
      const buffer = new Uint8Array(Math.min(chunk + 256, end - at));
      let read: number | null = null;
      try {
        await file.seek(at, Deno.SeekMode.Start);
        read = await file.read(buffer);
      } catch {
        break; // an unreadable region (a guard page): on to the next
      }
      if (!read) break;
      const bytes = Buffer.from(buffer.buffer, 0, read);
      for (const [name, needle] of needles) {
        if (!found.has(name) && bytes.indexOf(needle) >= 0) found.add(name);
      }
    }
  }
  return found;
}

/** Every file of `dir`, as one byte string. */
async function filesOf(dir: string): Promise<Buffer> {
  const parts: Uint8Array[] = [];
  for await (const entry of Deno.readDir(dir)) {
    const path = `${dir}/${entry.name}`;
    if (entry.isDirectory) parts.push(await filesOf(path));
    else if (entry.isFile) parts.push(await Deno.readFile(path));
  }
  return Buffer.concat(parts);
}

const latin1 = (text: string) => Buffer.from(text, "latin1");
const utf16 = (text: string) => Buffer.from(text, "utf16le");

Deno.test("blind e2e: the relayer holds no text, tag, vector or content key of a blind namespace", async () => {
  const dataDir = await Deno.makeTempDir({ prefix: "svc-blind-e2e-" });
  try {
    await using relayer = await startRelayer(dataDir);
    const { client, privateKey, accountId } = await newAccountClient(dataDir, relayer.url);
    const embedder = new LexicalEmbedder();
    const memory = await BlindMemory.open({
      baseUrl: relayer.url,
      privateKey,
      accountId,
      embedder,
      namespace: "private",
    });
    await memory.enable();
    const texts = Array.from(
      { length: COUNT },
      (_, i) => `Memory ${i}: the ${BLIND} word ${i * 7919} is kept for lantern ${i}`,
    );
    for (let i = 0; i < COUNT; i += 50) {
      await memory.remember(texts.slice(i, i + 50).map((text) => ({ text, tags: [BLIND_TAG] })));
    }
    for (const i of [0, 99, 199]) {
      const { results } = await memory.recall(`lantern ${i} word ${i * 7919}`, { limit: 3 });
      assert.equal(results[0]?.text, texts[i]);
      assert.deepEqual(results[0]?.tags, [BLIND_TAG]);
    }
    // The CLI (its task's flags, the ONNX model) writes and reads a blind namespace of its own.
    const modelDir = `${dataDir}/model`;
    await Deno.mkdir(modelDir);
    await writeTinyModel(modelDir);
    const cliEnv = {
      SVC_SERVER_URL: relayer.url,
      SVC_DELEGATE_KEY: privateKey,
      SVC_ACCOUNT_ID: accountId,
      SVC_ONNX_MODEL_DIR: modelDir,
      SVC_MODELS_DIR: TEST_MODELS_DIR,
    };
    const cli = (...args: string[]) =>
      svcCli(dataDir, ["blind", ...args, "--namespace", "by-cli"], cliEnv);
    await cli("enable");
    await cli("remember", `From a terminal: the ${BLIND} word`, "--tag", BLIND_TAG);
    assert.equal((await cli("recall", "terminal word")).results[0].tags[0], BLIND_TAG);
    // Their twins in a normal namespace, read back once: the positive control.
    const normal = texts.slice(0, 20).map((text) => text.replace(BLIND, NORMAL));
    const accepted = await client.rememberBulk(normal.map((text) => ({ text })));
    for (const id of accepted.job_ids) await client.waitForJob(id);
    assert.equal((await client.recall("lantern 3", { limit: 1 })).results.length, 1);

    const head = await (await fetch(`${relayer.url}/health`)).json();
    assert.ok(head.receiptKey);
    const wrapped = await client.request<{ wrapped: string }>(
      "GET",
      "/api/blind?namespace=private",
    );
    const contentKey = await unwrapWith(
      Uint8Array.fromBase64(wrapped.wrapped),
      privateKey,
      "private",
    );
    const keys = await blindKeys(contentKey);
    const [vector] = await embedder.embed([texts[5]]);
    const needles = new Map<string, Uint8Array>([
      ["blind text", latin1(BLIND)],
      ["blind text (UTF-16)", utf16(BLIND)],
      ["blind tag", latin1(BLIND_TAG)],
      ["blind tag (UTF-16)", utf16(BLIND_TAG)],
      ["a vector", new Uint8Array(vector.buffer, 0, 64)],
      ["the content key", contentKey],
      ["the entries' key", keys.entries],
      ["normal text", latin1(NORMAL)],
    ]);
    const found = await inMemory(relayer.process.pid, needles);
    assert.ok(found.has("normal text"), "the control: a normal memory's text is in memory");
    assert.deepEqual([...found].filter((name) => name !== "normal text"), []);

    await relayer.stop();
    const files = await filesOf(dataDir);
    for (const [name, needle] of needles) {
      if (name !== "normal text") assert.equal(files.indexOf(needle), -1, `${name} on disk`);
    }
    for (const word of [BLIND, BLIND_TAG]) assert.ok(!relayer.log().includes(word));
  } finally {
    await Deno.remove(dataDir, { recursive: true });
  }
});

Deno.test("blind e2e: svc blind enables, moves, remembers, recalls, updates, lets in and forgets", async () => {
  const dataDir = await Deno.makeTempDir({ prefix: "svc-blind-cli-" });
  const modelDir = `${dataDir}-model`;
  try {
    await Deno.mkdir(modelDir);
    await writeTinyModel(modelDir);
    await using relayer = await startRelayer(dataDir);
    const { client, privateKey, accountId } = await newAccountClient(dataDir, relayer.url);
    const earlier = await client.rememberBulk([{ text: "The spare key is under the blue pot" }]);
    await client.waitForJob(earlier.job_ids[0]);
    const env = {
      SVC_SERVER_URL: relayer.url,
      SVC_DELEGATE_KEY: privateKey,
      SVC_ACCOUNT_ID: accountId,
      SVC_ONNX_MODEL_DIR: modelDir,
      SVC_MODELS_DIR: TEST_MODELS_DIR,
    };
    const blind = (...args: string[]) => svcCli(dataDir, ["blind", ...args], env);
    assert.deepEqual(await blind("enable"), { namespace: "default", blind: true });
    assert.deepEqual(await blind("move"), { namespace: "default", moved: 1 });
    const cache = `${dataDir}-cache`;
    const { id } = await blind(
      "remember",
      "I",
      "am",
      "vegetarian",
      "--tag",
      "diet",
      "--cache",
      cache,
    );
    const found = await blind("recall", "vegetarian", "--limit", "1", "--cache", cache);
    assert.equal(found.results[0].text, "I am vegetarian");
    assert.deepEqual(found.results[0].tags, ["diet"]);
    const moved = await blind("recall", "spare key blue pot", "--limit", "1");
    assert.equal(moved.results[0].text, "The spare key is under the blue pot");
    assert.equal((await client.list()).memories.length, 0);
    assert.deepEqual((await svcCli(dataDir, ["whoami"], env)).operator_blind, ["default"]);

    const { id: typo } = await blind("remember", "My locker code is 4471");
    const updated = await blind("update", typo, "--text", "My locker code is 4417");
    assert.equal(updated.receipt.memory_id, typo);
    const listed = await blind("list");
    const texts = listed.memories.map((m: { text: string }) => m.text);
    assert.deepEqual(texts, ["My locker code is 4417", "I am vegetarian", listed.memories[2].text]);
    await blind("forget", updated.id);

    const phone = await svcCli(dataDir, ["key", "add", "--account", accountId]);
    await blind("let-in", "--public-key", phone.publicKey);
    const onPhone = await svcCli(dataDir, ["blind", "recall", "vegetarian", "--limit", "1"], {
      ...env,
      SVC_DELEGATE_KEY: phone.privateKey,
    });
    assert.equal(onPhone.results[0].id, id);

    const receipt = await blind("forget", id);
    assert.equal(receipt.verified, true);
    const after = await blind("recall", "vegetarian", "--cache", cache, "--min-score", "0");
    assert.ok(!after.results.some((r: { id: string }) => r.id === id));
    await assert.rejects(
      svcCli(dataDir, ["remember", "I eat fish"], env),
      /operator-blind/,
    );
    const exportFile = `${dataDir}-export.jsonl`;
    assert.equal((await blind("export", "--output", exportFile)).exported, 1);
    await blind("enable", "--namespace", "copy");
    assert.equal((await blind("import", exportFile, "--namespace", "copy")).imported, 1);
    const again = await blind("import", exportFile, "--namespace", "copy");
    assert.deepEqual([again.imported, again.duplicates], [0, 1]);
    const latin1 = `${dataDir}-latin1.jsonl`;
    await Deno.writeFile(
      latin1,
      Uint8Array.from([...'\n\n{"text":"caf'].map((c) => c.charCodeAt(0)).concat(0xe9, 0x22, 0x7d)),
    );
    await assert.rejects(blind("import", latin1, "--namespace", "copy"), /line 3 is not UTF-8/);
    // A line the client refuses is named by its number in the file, blank lines counted.
    await Deno.writeTextFile(latin1, '\n{"text":"fine"}\n\n{"text":" "}\n');
    await assert.rejects(blind("import", latin1, "--namespace", "copy"), /line 4: text must not/);
    await Deno.remove(latin1);
    const copied = await blind("recall", "spare key", "--namespace", "copy", "--limit", "1");
    assert.equal(copied.results[0].text, "The spare key is under the blue pot");
    await Deno.remove(exportFile);
    // The relayer's export holds no operator-blind memory: it says so rather than exporting none.
    const passphrase = `${dataDir}-passphrase`;
    await Deno.writeTextFile(passphrase, "correct horse battery staple\n");
    const exported = (...args: string[]) =>
      svcCli(dataDir, ["export", "-o", exportFile, "--passphrase-file", passphrase, ...args], env);
    const one = await exported("--namespace", "copy");
    assert.deepEqual([one.memories, one.blind_left_out], [0, ["copy"]]);
    await Deno.remove(exportFile);
    assert.deepEqual((await exported()).blind_left_out, ["copy", "default"]);
    await Deno.remove(exportFile);
    await Deno.remove(passphrase);
    await assert.rejects(blind("erase", "--namespace", "default"), /--confirm/);
    const erased = await blind("erase", "--namespace", "default", "--confirm", "default");
    assert.equal(erased.erased, 1);
    await blind("enable"); // a namespace erased can be made operator-blind again
  } finally {
    await Deno.remove(dataDir, { recursive: true });
    await Deno.remove(modelDir, { recursive: true });
    await Deno.remove(`${dataDir}-cache`).catch(() => {});
  }
});

Deno.test("blind e2e: svc-mcp --blind serves the memory tools over a blind namespace", async () => {
  const dataDir = await Deno.makeTempDir({ prefix: "svc-blind-mcp-" });
  const home = await Deno.makeTempDir();
  const modelDir = `${dataDir}-model`;
  try {
    await Deno.mkdir(modelDir);
    await writeTinyModel(modelDir);
    await using relayer = await startRelayer(dataDir);
    const { accountId } = await svcCli(dataDir, ["account", "create"]);
    const key = await svcCli(dataDir, ["key", "add", "--account", accountId]);
    await saveCredentials(home, relayer.url, accountId, key);
    const models = { SVC_ONNX_MODEL_DIR: modelDir, SVC_MODELS_DIR: TEST_MODELS_DIR };
    await svcCli(dataDir, ["blind", "enable", "--namespace", "private"], {
      ...models,
      SVC_SERVER_URL: relayer.url,
      SVC_DELEGATE_KEY: key.privateKey,
      SVC_ACCOUNT_ID: accountId,
    });
    await using host = await spawnStdioHost(["--blind", "--namespace", "private"], home, models);

    assert.match(await host.callTool("svc_remember", { text: "I swim on Tuesdays" }), /^Saved/);
    const recalled = await host.callTool("svc_recall", { query: "swim Tuesdays" });
    assert.match(recalled, /^1\. \[score [0-9.]+\] I swim on Tuesdays \(id ([0-9a-f-]{36})\)/);
    const id = recalled.match(/\(id ([0-9a-f-]{36})\)/)![1];
    assert.match(await host.callTool("svc_list", {}), /I swim on Tuesdays/);
    // The same text again is held already; a cursor no page gave out is refused.
    const again = await host.callTool("svc_remember", { text: "I swim on Tuesdays" });
    assert.match(again, new RegExp(`^Already in memory \\(namespace "private", id ${id}\\)`));
    for (const cursor of ["abc", "-1", "1.5"]) {
      assert.match(await host.callTool("svc_list", { cursor }), /cursor is not a cursor/, cursor);
    }
    assert.match(await host.callTool("svc_get", { id }), /I swim on Tuesdays/);
    const update = await host.callTool("svc_update", { id, text: "I swim on Thursdays" });
    assert.match(update, /^Updated: the new version \(id [0-9a-f-]{36}\) replaces memory/);
    assert.match(await host.callTool("svc_analyze", { text: "x" }), /operator-blind/);
    assert.match(await host.callTool("svc_recall", { query: "x", namespace: "work" }), /only/);
    const newId = update.match(/\(id ([0-9a-f-]{36})\)/)![1];
    assert.match(await host.callTool("svc_get", { id: newId }), /I swim on Thursdays/);
    assert.match(await host.callTool("svc_forget", { id: newId }), new RegExp(newId));
    assert.equal(
      await host.callTool("svc_recall", { query: "swim Tuesdays" }),
      "No matching memories found",
    );

    await host.closeStdin();
    assert.equal((await exitWithin(host.process, 5000))?.code, 0);

    // With --cache, the log stays on this machine, sealed, for the next start.
    const cache = `${home}/private.cache`;
    const cached = ["--blind", "--namespace", "private", "--cache", cache];
    {
      await using first = await spawnStdioHost(cached, home, models);
      assert.match(await first.callTool("svc_remember", { text: "I cycle to work" }), /^Saved/);
      await first.closeStdin();
      assert.equal((await exitWithin(first.process, 5000))?.code, 0);
    }
    assert.equal((await Deno.stat(cache)).mode! & 0o777, 0o600);
    assert.doesNotMatch(await Deno.readTextFile(cache), /cycle/);
    await using restarted = await spawnStdioHost(cached, home, models);
    const recalled2 = await restarted.callTool("svc_recall", { query: "cycle to work" });
    assert.match(recalled2, /I cycle to work/);
  } finally {
    await Deno.remove(dataDir, { recursive: true });
    await Deno.remove(home, { recursive: true });
    await Deno.remove(modelDir, { recursive: true });
  }
});
