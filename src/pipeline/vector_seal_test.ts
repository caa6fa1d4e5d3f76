import assert from "node:assert/strict";
import { SvcError } from "../errors.ts";
import { VectorSeal } from "./vector_seal.ts";

const secret = () => crypto.getRandomValues(new Uint8Array(32));
const place = { memoryId: "m1", owner: "0xowner", namespace: "notes" };
const vector = [0.1, -0.25, 1e-300, Math.PI / 3, 0];

Deno.test("VectorSeal: a sealed vector opens to the same numbers, and reads as none of them", async () => {
  const seal = await VectorSeal.fromSecret(secret());
  const sealed = await seal.seal(place, vector);
  assert.match(sealed, /^[A-Za-z0-9_-]+$/);
  assert.deepEqual(await seal.open(place, sealed), vector, "float64: exactly the client's numbers");
  for (const x of vector.slice(0, 4)) assert.ok(!sealed.includes(String(x)));
  assert.notEqual(await seal.seal(place, vector), sealed, "a fresh nonce each time");
});

Deno.test("VectorSeal: a vector sealed for another memory, owner, namespace or secret does not open", async () => {
  const key = secret();
  const seal = await VectorSeal.fromSecret(key);
  const sealed = await seal.seal(place, vector);
  assert.deepEqual(await (await VectorSeal.fromSecret(key.slice())).open(place, sealed), vector);
  for (
    const other of [
      { ...place, memoryId: "m2" },
      { ...place, owner: "0xother" },
      { ...place, namespace: "work" },
    ]
  ) {
    assert.equal(await seal.open(other, sealed), null, JSON.stringify(other));
  }
  assert.equal(await (await VectorSeal.fromSecret(secret())).open(place, sealed), null);
});

Deno.test("VectorSeal: an altered or malformed sealed vector does not open", async () => {
  const seal = await VectorSeal.fromSecret(secret());
  const sealed = await seal.seal(place, vector);
  const flipped = sealed.slice(0, 20) + (sealed[20] === "A" ? "B" : "A") + sealed.slice(21);
  for (const bad of [flipped, sealed.slice(0, -4), "", "AAAA", "not base64!", "f64le:AAAA"]) {
    assert.equal(await seal.open(place, bad), null, bad);
  }
});

Deno.test("VectorSeal: a secret of another length is refused", async () => {
  await assert.rejects(
    () => VectorSeal.fromSecret(new Uint8Array(16)),
    (e: unknown) => e instanceof SvcError && /Cannot seal vectors/.test(e.message),
  );
});
