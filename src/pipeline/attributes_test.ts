import assert from "node:assert/strict";
import { AttributeSeal, decodePayload, encodePayload, rememberedByOf } from "./attributes.ts";

const place = { memoryId: "m1", owner: "0xowner", namespace: "default" };
const by = { address: "0x" + "ab".repeat(32), label: "laptop", at: Date.UTC(2026, 0, 1) };

Deno.test("sealed attributes open at their place only, opened before or not", async () => {
  const seal = await AttributeSeal.fromSecret(crypto.getRandomValues(new Uint8Array(32)));
  const sealed = await seal.seal(place, { tags: ["diet"], by });
  assert.ok(!sealed.includes("laptop"));
  for (let i = 0; i < 2; i++) {
    assert.deepEqual(await seal.attributes(place, sealed), { tags: ["diet"], rememberedBy: by });
    assert.equal(await seal.open({ ...place, memoryId: "m2" }, sealed), null);
    assert.equal(await seal.open({ ...place, namespace: "work" }, sealed), null);
  }
  // What it answers is a copy: changing it changes nothing kept.
  const opened = await seal.open(place, sealed);
  opened!.tags.push("changed");
  opened!.by!.label = "changed";
  assert.deepEqual(await seal.open(place, sealed), { tags: ["diet"], by });
  const at = sealed.length - 2;
  const altered = sealed.slice(0, at) + (sealed[at] === "A" ? "B" : "A") + sealed.slice(at + 1);
  assert.notEqual(altered, sealed);
  assert.equal(await seal.open(place, altered), null);
  const other = await AttributeSeal.fromSecret(crypto.getRandomValues(new Uint8Array(32)));
  assert.deepEqual(await other.attributes(place, sealed), { tags: [], rememberedBy: null });
});

Deno.test("rows sealed before provenance answer no provenance", async () => {
  const seal = await AttributeSeal.fromSecret(crypto.getRandomValues(new Uint8Array(32)));
  const sealed = await seal.seal(place, { tags: ["diet"] });
  assert.deepEqual(await seal.attributes(place, sealed), { tags: ["diet"], rememberedBy: null });
  assert.deepEqual(await seal.attributes(place, undefined), { tags: [], rememberedBy: null });
  assert.equal(rememberedByOf(null), null);
  assert.deepEqual(rememberedByOf(by), { ...by, at: "2026-01-01T00:00:00.000Z" });
});

Deno.test("provenance travels in a job's payload", () => {
  const payload = encodePayload("I keep bees", { rememberedBy: { address: "0xa", label: "" } });
  assert.deepEqual(decodePayload(payload), {
    text: "I keep bees",
    attributes: { rememberedBy: { address: "0xa", label: "" } },
  });
  assert.equal(encodePayload("I keep bees"), "I keep bees");
});
