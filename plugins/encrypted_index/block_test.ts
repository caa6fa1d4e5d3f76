import assert from "node:assert/strict";
import type { MemoryInfo } from "@svc/relayer/kit";
import {
  type BlockRow,
  decodeBlock,
  encodeBlock,
  infoText,
  parseInfo,
  rowBytes,
  utf8Length,
} from "./block.ts";

const DIMENSIONS = 4;

function blockRow(id: string, info?: MemoryInfo): BlockRow {
  return {
    id,
    blobId: `blob-${id}`,
    createdAt: id.length,
    vector: Float32Array.from([1, 0, 0, 0]),
    terms: `${id}1 ${id}2`,
    info: infoText(info),
  };
}

/** Where the JSON part of a block's plaintext is (its times end where it starts). */
function jsonPlace(plain: Uint8Array<ArrayBuffer>): { jsonAt: number; jsonEnd: number } {
  const view = new DataView(plain.buffer);
  const [count, dimensions] = [view.getUint32(4, true), view.getUint32(8, true)];
  const vectorsEnd = 16 + count * dimensions * 4;
  const jsonAt = vectorsEnd + (vectorsEnd % 8) + count * 8;
  return { jsonAt, jsonEnd: jsonAt + view.getUint32(12, true) };
}

/** The JSON part of a block's plaintext. */
function jsonOf(plain: Uint8Array<ArrayBuffer>): Record<string, unknown> {
  const { jsonAt, jsonEnd } = jsonPlace(plain);
  return JSON.parse(new TextDecoder().decode(plain.subarray(jsonAt, jsonEnd)));
}

Deno.test("block: infos round-trip as JSON text, rows without one read as none", () => {
  const info: MemoryInfo = {
    tags: ["k1", "k2"],
    sealed: 'quote " backslash \\ é 😀',
    digest: "d1",
    expiresAt: 1_800_000_000_000,
    supersedes: "m0",
    firstCreatedAt: 1_700_000_000_000,
  };
  const rows = [blockRow("a", info), blockRow("b"), blockRow("c", {})];
  const plain = encodeBlock(rows, DIMENSIONS);
  assert.equal(new DataView(plain.buffer).getUint32(0, true), 2, "written as version 2");
  const texts = [JSON.stringify(info), "", "{}"];
  assert.deepEqual(jsonOf(plain).n, texts.map((t) => t.length));
  const { jsonEnd } = jsonPlace(plain);
  assert.equal(new TextDecoder().decode(plain.subarray(jsonEnd)), texts.join(""), "infos last");
  const columns = decodeBlock(plain.buffer, DIMENSIONS);
  assert.deepEqual(columns.ids, ["a", "b", "c"]);
  assert.deepEqual(columns.infos, [JSON.stringify(info), "", "{}"]);
  assert.deepEqual(columns.infos!.map(parseInfo), [info, undefined, {}]);
  assert.notEqual(parseInfo(columns.infos![0]), parseInfo(columns.infos![0]), "a new object");
});

Deno.test("block: a block none of whose rows has an info keeps no info column", () => {
  const plain = encodeBlock([blockRow("a"), blockRow("b")], DIMENSIONS);
  assert.deepEqual(Object.keys(jsonOf(plain)), ["i", "b", "t"]);
  assert.equal(decodeBlock(plain.buffer, DIMENSIONS).infos, null);
});

Deno.test("block: a version 1 block reads as rows without info", () => {
  // Laid out by hand as version 1 wrote it: header, vectors, times, JSON of ids, blobs, terms.
  const json = new TextEncoder().encode(JSON.stringify({ i: ["x"], b: ["bx"], t: ["t1 t2"] }));
  const plain = new Uint8Array(16 + 16 + 8 + json.length);
  const view = new DataView(plain.buffer);
  [1, 1, DIMENSIONS, json.length].forEach((n, i) => view.setUint32(i * 4, n, true));
  view.setFloat32(16 + 4, 1, true);
  view.setFloat64(32, 42, true);
  plain.set(json, 40);
  const columns = decodeBlock(plain.buffer, DIMENSIONS);
  assert.deepEqual(columns.ids, ["x"]);
  assert.deepEqual(columns.blobIds, ["bx"]);
  assert.deepEqual(columns.terms, ["t1 t2"]);
  assert.deepEqual([...columns.createdAt], [42]);
  assert.deepEqual([...columns.vectors], [0, 1, 0, 0]);
  assert.equal(columns.infos, null);
});

Deno.test("block: a damaged block is refused (version, row count, info lengths, length)", () => {
  const plain = encodeBlock([blockRow("a", { digest: "d" }), blockRow("b")], DIMENSIONS);
  const future = plain.slice();
  new DataView(future.buffer).setUint32(0, 3, true);
  assert.throws(() => decodeBlock(future.buffer, DIMENSIONS), /damaged \(unknown format\)/);
  const { jsonAt, jsonEnd } = jsonPlace(plain);
  const json = jsonOf(plain);
  const short = new TextEncoder().encode(JSON.stringify({ ...json, n: [2] }));
  const bad = new Uint8Array(plain.length - (jsonEnd - jsonAt) + short.length);
  bad.set(plain.subarray(0, jsonAt));
  bad.set(short, jsonAt);
  bad.set(plain.subarray(jsonEnd), jsonAt + short.length);
  new DataView(bad.buffer).setUint32(12, short.length, true);
  assert.throws(() => decodeBlock(bad.buffer, DIMENSIONS), /row count differs/);
  const cut = plain.slice(0, plain.length - 1);
  assert.throws(() => decodeBlock(cut.buffer, DIMENSIONS), /info lengths differ/);
  const longer = new Uint8Array(encodeBlock([blockRow("a")], DIMENSIONS).length + 1);
  longer.set(encodeBlock([blockRow("a")], DIMENSIONS));
  assert.throws(() => decodeBlock(longer.buffer, DIMENSIONS), /bad length/);
});

Deno.test("block: rowBytes covers what rows with infos add to a block", () => {
  const info = (i: number): MemoryInfo => ({
    tags: Array.from({ length: i % 5 }, (_, t) => `tag-hash-${t}`),
    sealed: `sealed "${"é".repeat(i)}" \\ ${"x".repeat(i * 3)}`,
    digest: `digest-${i}`,
  });
  const rows = Array.from({ length: 50 }, (_, i) => blockRow(`r${i}`, info(i)));
  const estimate = rows.reduce(
    (n, r) => n + rowBytes(DIMENSIONS, r.id, r.blobId, r.terms, r.info),
    0,
  );
  const actual = encodeBlock(rows, DIMENSIONS).length;
  assert.ok(estimate + 64 >= actual, `${estimate} estimated for ${actual} bytes`);
  assert.ok(estimate <= actual * 1.1, `${estimate} estimated for ${actual} bytes: close`);
  assert.equal(utf8Length("é€😀"), new TextEncoder().encode("é€😀").length);
});
