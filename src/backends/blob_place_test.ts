import assert from "node:assert/strict";
import { BlobPlaces } from "./blob_place.ts";

Deno.test("BlobPlaces: the places PostgreSQL's rows are filed under stay as they were", async () => {
  const places = await BlobPlaces.derive(new Uint8Array(32).fill(7));
  // HMAC-SHA-256 under HKDF(secret, "svc-postgres-blobs-v1", "blobs:place"), as 0.2.0 filed them.
  assert.equal(
    places.place("0xowner", "health").toHex(),
    "e5727384d9b097a96fe69605d94246acb3cececf2d4c6a5a42f7153768155184",
  );
});

Deno.test("BlobPlaces: a name opens only at its place, under its secret", async () => {
  const places = await BlobPlaces.derive(new Uint8Array(32).fill(7));
  const sealed = places.seal("0xowner", "health");
  const place = places.place("0xowner", "health");
  assert.deepEqual(places.open(place, sealed), { owner: "0xowner", namespace: "health" });
  assert.throws(() => places.open(places.place("0xowner", "work"), sealed));
  const other = await BlobPlaces.derive(new Uint8Array(32).fill(8));
  assert.throws(() => other.open(place, sealed));
  assert.ok(!new TextDecoder("latin1").decode(sealed).includes("health"));
});
