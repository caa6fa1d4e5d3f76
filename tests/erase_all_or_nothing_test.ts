/**
 * An erase is all or nothing. A step made to fail before the memory's key is erased leaves the
 * memory as it was: readable, listed, recallable, and not erased later either. A step made to
 * fail after it answers an error saying so; the memory can no longer be read, and the expiry
 * sweep finishes the erase within a minute (as it would after a crash there): no blob, row or
 * key is left, and the memory is recorded erased.
 */
import assert from "node:assert/strict";
import { LocalCipher } from "../plugins/local_cipher/mod.ts";
import { KvStateStore } from "../plugins/denokv/mod.ts";
import { StateLifecycleRecords } from "../src/services/lifecycle_records.ts";
import type { Cipher } from "../src/backends/types.ts";
import { backendError, SvcError } from "../src/errors.ts";
import {
  importAll,
  jsonOf as json,
  rememberAll,
  startTestRelayer,
  type TestRelayer,
} from "./fixtures.ts";

type Caller = Awaited<ReturnType<TestRelayer["newCaller"]>>;

/** The steps an erase takes, each of which a test can make fail. */
const STEPS = ["schedule", "keys", "blob", "row", "record"] as const;
type Step = typeof STEPS[number];

const failed = (step: Step) => backendError(`the ${step} store`, "erase", new Error("disk"));

/** `method` of `target` failing while `fails()` says so. */
function breakMethod<T extends object>(target: T, name: keyof T, fails: () => Error | null) {
  const original = (target[name] as (...args: unknown[]) => Promise<unknown>).bind(target);
  (target as Record<keyof T, unknown>)[name] = (...args: unknown[]) => {
    const error = fails();
    return error ? Promise.reject(error) : original(...args);
  };
}

/** A relayer whose erase fails at `step` once `broken.on` is set, on a clock tests move on. */
async function relayerFailingAt(step: Step) {
  // Real time, moved on by the tests (signatures allow five minutes of skew).
  let shift = 0;
  const broken = { on: false };
  const at = (which: Step) => () => step === which && broken.on ? failed(which) : null;
  const cipher = await LocalCipher.open({ masterKey: crypto.getRandomValues(new Uint8Array(32)) });
  // Erasing no key at all (a namespace erase's check) never fails.
  breakMethod(cipher, "erase", () => at("keys")());
  const kv = await Deno.openKv(":memory:");
  const records = new StateLifecycleRecords(
    new KvStateStore(kv),
    crypto.getRandomValues(new Uint8Array(32)),
  );
  breakMethod(records, "schedule", at("schedule"));
  breakMethod(records, "markErased", at("record"));
  const t = await startTestRelayer({ kv, cipher, records, now: () => Date.now() + shift });
  breakMethod(t.blobs, "delete", at("blob"));
  breakMethod(t.vectors, "delete", at("row"));
  return { t, broken, records, advance: (ms: number) => void (shift += ms) };
}

/** What the owner sees of memory `id`: its text (or status), whether listed and recalled. */
async function seen(t: TestRelayer, caller: Caller, id: string) {
  const got = await t.signed(caller, "GET", `/api/memories/${id}`);
  const text = got.status === 200 ? (await got.json()).text : got.status;
  if (got.status !== 200) await got.body?.cancel();
  const { memories } = await json(await t.signed(caller, "GET", "/api/memories?namespace=me"));
  const { results } = await json(
    await t.signed(caller, "POST", "/api/recall", {
      query: "vault",
      namespace: "me",
      min_score: 0,
    }),
  );
  return {
    text,
    listed: memories.some((m: { id: string }) => m.id === id),
    recalled: results.some((r: { id: string }) => r.id === id),
  };
}

for (const step of STEPS) {
  Deno.test(`erase, all or nothing: a failure at the ${step} step`, async () => {
    const { t, broken, records, advance } = await relayerFailingAt(step);
    await using _ = t;
    const alice = await t.newCaller();
    const [id] = await rememberAll(t, alice, [{ text: "The vault code is 4711", namespace: "me" }]);
    const before = await seen(t, alice, id);
    assert.deepEqual(before, { text: "The vault code is 4711", listed: true, recalled: true });

    broken.on = true;
    const answer = await t.signed(alice, "DELETE", `/api/memories/${id}`);
    const body = await answer.json();
    assert.equal(answer.status, 503, JSON.stringify(body));
    assert.equal(body.code, "backend_unavailable");
    const beforeKeys = step === "schedule" || step === "keys";
    if (beforeKeys) {
      // Nothing changed, now or after the sweep.
      assert.deepEqual(await seen(t, alice, id), before);
      broken.on = false;
      advance(120_000);
      await t.relayer.lifecycle.sweep();
      assert.deepEqual(await seen(t, alice, id), before, "not erased later either");
      return;
    }
    assert.match(body.error, /key is erased, so it can no longer be read/);
    assert.equal((await seen(t, alice, id)).recalled, false);
    // The sweep finishes it within a minute, once the store works again.
    broken.on = false;
    advance(61_000);
    await t.relayer.lifecycle.sweep();
    assert.deepEqual(await seen(t, alice, id), { text: 404, listed: false, recalled: false });
    assert.deepEqual(await t.blobs.list(alice.owner, "me"), []);
    assert.deepEqual([...await t.vectors.has([id])], []);
    assert.deepEqual(await records.erased(alice.owner, [id]), new Set([id]));
    assert.equal(await t.relayer.lifecycle.sweep(), 0, "nothing left to sweep");
  });
}

Deno.test("an erase cut short before its key, finished by the sweep that cannot erase keys, erases the key when sent again before it answers a receipt", async () => {
  // As Seal without a server key: no key is erased without the caller's.
  const cipher: Cipher = await LocalCipher.open({
    masterKey: crypto.getRandomValues(new Uint8Array(32)),
  });
  const erased: string[][] = [];
  const down = { on: false };
  const erase = cipher.erase.bind(cipher);
  cipher.erase = (owner, ids, options) => {
    if (!options?.credentials) {
      return Promise.reject(new SvcError("bad_request", "the caller's key is needed"));
    }
    if (down.on) return Promise.reject(failed("keys"));
    if (ids.length > 0) erased.push(ids);
    return erase(owner, ids);
  };
  const kv = await Deno.openKv(":memory:");
  const records = new StateLifecycleRecords(
    new KvStateStore(kv),
    crypto.getRandomValues(new Uint8Array(32)),
  );
  let shift = 0;
  await using t = await startTestRelayer({ kv, cipher, records, now: () => Date.now() + shift });
  const alice = await t.newCaller();
  const [id] = await rememberAll(t, alice, [{ text: "The vault code is 4711", namespace: "me" }]);
  // A crash right after the erase was scheduled, before its key went: the sweep finishes it.
  await records.schedule([{ memoryId: id, owner: alice.owner, namespace: "me", expiresAt: 0 }]);
  shift += 61_000;
  await t.relayer.lifecycle.sweep();
  assert.deepEqual(erased, [], "the sweep could not erase the key");
  assert.deepEqual(await records.erased(alice.owner, [id]), new Set([id]));

  // Sent again, the erase destroys the key before it answers; a cipher that fails answers 503.
  down.on = true;
  await json(await t.signed(alice, "DELETE", `/api/memories/${id}`), 503);
  down.on = false;
  const receipt = await json(await t.signed(alice, "DELETE", `/api/memories/${id}`));
  assert.equal(receipt.memory_id, id);
  assert.deepEqual(erased, [[id]]);
});

Deno.test("a namespace's erase that fails after its first 500 says how many were erased, and sent again erases the rest", async () => {
  const { t, broken } = await relayerFailingAt("blob");
  await using _ = t;
  const alice = await t.newCaller();
  const items = Array.from({ length: 600 }, (_, i) => ({ text: `fact ${i}`, namespace: "big" }));
  for (let i = 0; i < 600; i += 100) await importAll(t, alice, items.slice(i, i + 100));
  // The store fails once the first batch of 500 is done.
  let deleted = 0;
  const remove = t.blobs.delete.bind(t.blobs);
  t.blobs.delete = (...args) => (++deleted === 501 && (broken.on = true), remove(...args));
  const erase = () => t.signed(alice, "DELETE", "/api/memories?namespace=big&confirm=big");
  const failed = await json(await erase(), 503);
  assert.match(
    failed.error,
    /^Cannot erase the whole namespace now: at least 500 of its 600 memories were erased\. Cannot finish the erase now: .*\. Send the erase again to erase the rest$/,
  );
  assert.equal(failed.erased, 500);
  broken.on = false;
  const rest = await json(await erase());
  assert.equal(rest.erased, 100);
  const { namespaces } = await json(await t.signed(alice, "GET", "/api/namespaces"));
  assert.deepEqual(namespaces, []);
});

Deno.test("an erase sent again while the first is recording it (its rows gone) shares its receipt", async () => {
  const kv = await Deno.openKv(":memory:");
  const records = new StateLifecycleRecords(
    new KvStateStore(kv),
    crypto.getRandomValues(new Uint8Array(32)),
  );
  const recording = Promise.withResolvers<void>();
  const gate = Promise.withResolvers<void>();
  const markErased = records.markErased.bind(records);
  records.markErased = async (...args) => {
    recording.resolve();
    await gate.promise;
    return await markErased(...args);
  };
  await using t = await startTestRelayer({ kv, records });
  const alice = await t.newCaller();
  const [id] = await rememberAll(t, alice, [{ text: "The vault code is 4711", namespace: "me" }]);
  const first = t.signed(alice, "DELETE", `/api/memories/${id}`).then((r) => json(r));
  await recording.promise;
  const second = t.signed(alice, "DELETE", `/api/memories/${id}`).then((r) => json(r));
  await new Promise((resolve) => setTimeout(resolve, 20));
  gate.resolve();
  const [a, b] = await Promise.all([first, second]);
  assert.equal(a.memory_id, id);
  assert.deepEqual(b, a);
});
