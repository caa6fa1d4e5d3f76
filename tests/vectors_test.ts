/**
 * The known-answer vectors of `tests/vectors/signing.json`, which the Python SDK's tests read too:
 * the signer builds each message and signature, the relayer's verification accepts each, and a
 * receipt verifies under its key.
 */
import assert from "node:assert/strict";
import { MemoryAccountDirectory } from "../src/backends/memory.ts";
import { keyPairFromSeed, sha256Hex } from "@svc/util/keys";
import { MemoryReplayGuard } from "../src/auth/replay_guard.ts";
import { signingMessage } from "../src/auth/signing.ts";
import { verifySignedRequest } from "../src/auth/verify.ts";
import { verifyReceipt } from "../src/client/mod.ts";

const vectors = JSON.parse(
  await Deno.readTextFile(new URL("./vectors/signing.json", import.meta.url)),
);
const { key, request } = vectors;

Deno.test("vectors: each message and signature as the signer makes them", async () => {
  assert.equal((await keyPairFromSeed(key.seed)).publicKey, key.public_key);
  assert.equal(await sha256Hex(request.body), request.body_sha256);
  const pair = await keyPairFromSeed(key.seed);
  for (const { name, headers, message } of vectors.signatures) {
    const built = signingMessage({
      timestamp: request.timestamp,
      method: request.method,
      path: request.path,
      bodySha256: request.body_sha256,
      nonce: headers["x-nonce"],
      audience: headers["x-audience"],
      accountId: headers["x-audience"] ? undefined : headers["x-account-id"],
    });
    assert.equal(built, message, name);
    assert.equal(
      pair.sign(new TextEncoder().encode(message)).toHex(),
      headers["x-signature"],
      name,
    );
  }
});

Deno.test("vectors: the relayer's verification accepts each signed request", async () => {
  for (const { name, headers } of vectors.signatures) {
    const directory = new MemoryAccountDirectory();
    const accountId = headers["x-account-id"] ?? "0x" + "5c".repeat(32);
    directory.add({ accountId, owner: "0x" + "0a".repeat(32), active: true }, [key.public_key]);
    const caller = await verifySignedRequest(
      new Request(`http://127.0.0.1:8000${request.path}`, {
        method: request.method,
        headers,
        body: request.body,
      }),
      new TextEncoder().encode(request.body),
      {
        directory,
        replayGuard: new MemoryReplayGuard(),
        now: () => request.timestamp * 1000,
        audiences: new Set(["http://127.0.0.1:8000"]),
      },
    );
    assert.equal(caller.publicKey, key.public_key, name);
  }
});

Deno.test("vectors: the receipt verifies under its key, and not once changed", async () => {
  const { receipt, receipt_key } = vectors.receipt;
  assert.equal(await verifyReceipt(receipt, receipt_key), true);
  assert.equal(await verifyReceipt({ ...receipt, blob_id: "another" }, receipt_key), false);
});
