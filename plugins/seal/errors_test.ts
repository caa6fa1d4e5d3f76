import assert from "node:assert/strict";
import { DecryptionError, InvalidCiphertextError, NoAccessError } from "@mysten/seal";
import { JsonRpcError } from "@mysten/sui/jsonRpc";
import { SvcError } from "@svc/relayer/kit";
import { decryptError } from "./errors.ts";

Deno.test("decryptError: only the SDK's ciphertext errors are 400; the rest is not blamed on it", () => {
  assert.equal(decryptError(new DecryptionError("bad tag")).code, "bad_request");
  assert.equal(decryptError(new InvalidCiphertextError("bad nonce")).code, "bad_request");
  const own = new SvcError("forbidden", "Cannot decrypt: no");
  assert.equal(decryptError(own), own);
  assert.equal(decryptError(new JsonRpcError("down", -32000)).code, "backend_unavailable");
  assert.equal(
    decryptError(new DOMException("late", "TimeoutError")).code,
    "backend_unavailable",
  );
  assert.equal(decryptError(new NoAccessError("req-1")).code, "forbidden");
  const unexpected = decryptError(new Error("Not enough shares. Please fetch more keys."));
  assert.equal(unexpected.code, "internal");
  assert.match(unexpected.message, /^Cannot decrypt: Seal failed unexpectedly$/);
});
