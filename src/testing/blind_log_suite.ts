/**
 * The conformance suite of `BlindLog` over a `StateStore`: the largest append a route takes lands
 * in one batch, appends racing from two relayers all land, numbered once each, a retried append is
 * skipped, an erase leaves a tombstone, the owner's namespaces are listed with their counts,
 * and a namespace's erase stopped half-way goes on, with a receipt for every memory it held.
 */
import assert from "node:assert/strict";
import { timeOrderedId } from "../ids.ts";
import {
  BlindLog,
  MAX_BLIND_APPEND,
  MAX_BLIND_APPEND_BYTES,
  MAX_BLIND_ENTRIES,
  MAX_BLIND_PAGE_BYTES,
} from "../services/blind_log.ts";
import { RelayerIdentity } from "../services/receipts.ts";
import type { StateBatch, StateEntry, StateKey, StateStore } from "../state/state_store.ts";

/** Two relayers' handles on one store (the same one twice where there is one process). */
export type SharedStates = { states: [StateStore, StateStore] } & Partial<AsyncDisposable>;

const OWNER = "0x" + "b1".repeat(32);
const SECRET = new Uint8Array(32).fill(9);
const entries = (count: number, bytes: number) =>
  Array.from({ length: count }, () => ({ id: timeOrderedId(), sealed: new Uint8Array(bytes) }));
const ids = (records: { id: string }[]) => records.map((record) => record.id);

/** Registers the suite's tests for the stores `open` makes (each test gets fresh ones). */
export function blindLogSuite(name: string, open: () => Promise<SharedStates>): void {
  const test = (title: string, body: (logs: BlindLog[], state: StateStore) => Promise<void>) =>
    Deno.test(`${name}: ${title}`, async () => {
      const shared = await open();
      const identity = await RelayerIdentity.fromSecret(SECRET);
      const logs = shared.states.map((state) => new BlindLog(state, SECRET, identity));
      try {
        await logs[0].enable(OWNER, "ns", { model: "m" }, {
          publicKey: "ab".repeat(32),
          wrapped: new Uint8Array(92),
        });
        await body(logs, shared.states[0]);
      } finally {
        await shared[Symbol.asyncDispose]?.();
      }
    });

  test("the largest append a route takes commits in one batch", async ([log]) => {
    const many = entries(MAX_BLIND_APPEND, Math.floor(MAX_BLIND_APPEND_BYTES / MAX_BLIND_APPEND));
    assert.equal(await log.append(OWNER, "ns", many), MAX_BLIND_APPEND);
    const { records } = await log.read(OWNER, "ns", 0, 1000);
    assert.deepEqual(ids(records), ids(many));
  });

  test("appends racing from two relayers all land, numbered once each", async (logs) => {
    const batches = Array.from({ length: 6 }, () => entries(3, 10));
    await Promise.all(batches.map((batch, i) => logs[i % 2].append(OWNER, "ns", batch)));
    const { head, records } = await logs[0].read(OWNER, "ns", 0, 1000);
    assert.equal(head.seq, 18);
    assert.deepEqual(records.map((r) => r.seq), Array.from({ length: 18 }, (_, i) => i + 1));
    // A retried append is skipped, and an erased entry leaves a tombstone.
    assert.equal(await logs[1].append(OWNER, "ns", batches[0]), 18);
    const receipt = await logs[1].erase(OWNER, "ns", batches[0][0].id);
    assert.equal(receipt?.memory_id, batches[0][0].id);
    const after = await logs[0].read(OWNER, "ns", 0, 1000);
    assert.equal(after.head.seq, 19);
    assert.deepEqual(after.records.at(-1), {
      seq: 19,
      id: batches[0][0].id,
      erased: Date.parse(receipt!.erased_at),
    });
    assert.ok(!after.records.some((r) => r.id === batches[0][0].id && "sealed" in r));
    const listed = await logs[1].namespaces(OWNER);
    assert.deepEqual(listed.map((n) => [n.namespace, n.count]), [["ns", 17]]);
    // Sent again, the erase answers its receipt again.
    assert.deepEqual(await logs[0].erase(OWNER, "ns", batches[0][0].id), receipt);
    assert.equal(await logs[0].erase(OWNER, "ns", "never-held"), null);
  });

  test(
    "a read answers about MAX_BLIND_PAGE_BYTES; a full namespace takes no more",
    async ([log], state) => {
      const big = Math.floor(MAX_BLIND_APPEND_BYTES / 6);
      const appends = Math.ceil(MAX_BLIND_PAGE_BYTES / MAX_BLIND_APPEND_BYTES) + 2;
      for (let i = 0; i < appends; i++) await log.append(OWNER, "ns", entries(6, big));
      const { records } = await log.read(OWNER, "ns", 0, 1000);
      assert.equal(records.length, Math.ceil(MAX_BLIND_PAGE_BYTES / big) + 1);
      for await (const entry of state.list<object>({ prefix: ["blind"] })) {
        if (entry.key.at(-1) === "head") {
          await state.set(entry.key, { ...entry.value, count: MAX_BLIND_ENTRIES });
        }
      }
      await assert.rejects(log.append(OWNER, "ns", entries(1, 10)), /at most 100000 memories/);
    },
  );

  test("a head written without its count is counted", async ([log], state) => {
    const three = entries(3, 10);
    await log.append(OWNER, "ns", [...three, ...entries(1, 10)]);
    await log.erase(OWNER, "ns", three[0].id);
    for await (const entry of state.list<{ count?: number }>({ prefix: ["blind"] })) {
      if (entry.key.at(-1) === "head") {
        const { count: _, ...head } = entry.value;
        await state.set(entry.key, head);
      }
    }
    assert.deepEqual((await log.namespaces(OWNER)).map((n) => n.count), [3]);
    assert.deepEqual(await log.namespaces("0x" + "c2".repeat(32)), []);
  });

  test("a namespace's erase stopped after its head was marked goes on", async ([log], state) => {
    const kept = entries(3, 10);
    await log.append(OWNER, "ns", kept);
    // Stopped right after marking the head: what a crash there leaves.
    for await (const entry of state.list<object>({ prefix: ["blind"] })) {
      if (entry.key.at(-1) === "head") {
        await state.set(entry.key, { ...entry.value, erasing: true });
      }
    }
    // Every call says so, until the erase runs again.
    await assert.rejects(log.append(OWNER, "ns", entries(1, 10)), /being erased/);
    await assert.rejects(log.head(OWNER, "ns", "ab".repeat(32)), /being erased/);
    await assert.rejects(log.refuseBlind(OWNER, ["ns"]), /"ns" is being erased/);
    const receipts = await log.eraseNamespace(OWNER, "ns");
    assert.deepEqual(receipts.map((r) => r.memory_id), ids(kept));
    let left = 0;
    for await (const _ of state.list({ prefix: ["blind"] })) left++;
    for await (const _ of state.list({ prefix: ["blind-names"] })) left++;
    assert.equal(left, 0);
    assert.deepEqual(await log.namespaces(OWNER), []);
  });

  test("a replace lands once: sent again it answers its receipt; a second one is refused", async ([log]) => {
    const [old] = entries(1, 10);
    await log.append(OWNER, "ns", [old]);
    const [first, second] = entries(2, 10);
    const done = await log.replace(OWNER, "ns", first, old.id);
    assert.equal(done.receipt.memory_id, old.id);
    assert.deepEqual(await log.replace(OWNER, "ns", first, old.id), done);
    await assert.rejects(log.replace(OWNER, "ns", second, old.id), /erased or updated meanwhile/);
    await assert.rejects(log.replace(OWNER, "ns", second, timeOrderedId()), /No such memory/);
    const { records } = await log.read(OWNER, "ns", 0, 10);
    assert.deepEqual(records.map((r) => [r.id, "sealed" in r]), [[first.id, true], [
      old.id,
      false,
    ]]);
  });

  test(
    "a namespace's erase cut short after its first deletes gives every receipt when run again",
    async ([log], state) => {
      const kept = await appended(log, 650);
      // A relayer whose store goes away after two batches of deletes (of 1,300 entries).
      const cut = new BlindLog(
        failingAfter(state, 2),
        SECRET,
        await RelayerIdentity.fromSecret(SECRET),
      );
      await assert.rejects(cut.eraseNamespace(OWNER, "ns"), /the store went away/);
      await assert.rejects(log.append(OWNER, "ns", entries(1, 10)), /being erased/);
      const receipts = await log.eraseNamespace(OWNER, "ns");
      assert.deepEqual(receipts.map((r) => r.memory_id).sort(), ids(kept).sort());
      let left = 0;
      for await (const _ of state.list({ prefix: ["blind"] })) left++;
      assert.equal(left, 0);
    },
  );
  test(
    "an erase that read the head before another listed the log keeps that list",
    async ([log], state) => {
      const kept = await appended(log, 650);
      const identity = await RelayerIdentity.fromSecret(SECRET);
      // A relayer reads the head, marked and not yet listed, then waits…
      for await (const entry of state.list<object>({ prefix: ["blind"] })) {
        if (entry.key.at(-1) === "head") {
          await state.set(entry.key, {
            ...entry.value,
            erasing: true,
          });
        }
      }
      let stale: StateEntry<unknown> | undefined;
      for await (const entry of state.list({ prefix: ["blind"] })) {
        if (entry.key.at(-1) === "head") stale = entry;
      }
      // …while another lists the log and deletes some of it before it stops.
      const cut = new BlindLog(failingAfter(state, 2), SECRET, identity);
      await assert.rejects(cut.eraseNamespace(OWNER, "ns"), /the store went away/);
      const late = new BlindLog(readingFirst(state, stale!), SECRET, identity);
      const receipts = await late.eraseNamespace(OWNER, "ns");
      assert.deepEqual(receipts.map((r) => r.memory_id).sort(), ids(kept).sort());
    },
  );
}

/** `count` entries appended to the namespace "ns", in appends a route takes. */
async function appended(log: BlindLog, count: number) {
  const kept = entries(count, 10);
  for (let at = 0; at < kept.length; at += MAX_BLIND_APPEND) {
    await log.append(OWNER, "ns", kept.slice(at, at + MAX_BLIND_APPEND));
  }
  return kept;
}

/** `state`, whose first read of `entry`'s key answers `entry` as it was. */
function readingFirst(state: StateStore, entry: StateEntry<unknown>): StateStore {
  let first = true;
  return new Proxy(state, {
    get(target, key) {
      if (key !== "get") return Reflect.get(target, key).bind(target);
      return (at: StateKey) => {
        if (!first || JSON.stringify(at) !== JSON.stringify(entry.key)) return target.get(at);
        first = false;
        return Promise.resolve(entry);
      };
    },
  });
}

/** `state`, whose batches that delete fail once `deletes` of them have committed. */
function failingAfter(state: StateStore, deletes: number): StateStore {
  return new Proxy(state, {
    get(target, key) {
      if (key !== "batch") return Reflect.get(target, key).bind(target);
      return () => {
        const batch = target.batch();
        let deleting = false;
        const wrapped: StateBatch = {
          check: (...args) => (batch.check(...args), wrapped),
          set: (...args) => (batch.set(...args), wrapped),
          delete: (...args) => (deleting = true, batch.delete(...args), wrapped),
          commit: () => {
            if (deleting && deletes-- <= 0) throw new Error("the store went away");
            return batch.commit();
          },
        };
        return wrapped;
      };
    },
  });
}
