import assert from "node:assert/strict";
import { Ed25519Keypair } from "@mysten/sui/keypairs/ed25519";
import { Secp256k1Keypair } from "@mysten/sui/keypairs/secp256k1";
import { SvcError } from "@svc/relayer/kit";
import { suiKeypair } from "./keys.ts";

Deno.test("suiKeypair: an Ed25519 suiprivkey or a lowercase hex seed", () => {
  const seed = crypto.getRandomValues(new Uint8Array(32));
  const expected = Ed25519Keypair.fromSecretKey(seed).toSuiAddress();
  assert.equal(suiKeypair(seed.toHex()).toSuiAddress(), expected);
  const bech32 = Ed25519Keypair.fromSecretKey(seed).getSecretKey();
  assert.equal(suiKeypair(bech32).toSuiAddress(), expected);
});

Deno.test("suiKeypair: anything else is a clear bad_request that does not repeat the key", () => {
  const hex = crypto.getRandomValues(new Uint8Array(32)).toHex();
  const secp = Secp256k1Keypair.generate().getSecretKey();
  const ed = Ed25519Keypair.generate().getSecretKey();
  const broken = ed.slice(0, -1) + (ed.endsWith("q") ? "p" : "q");
  for (const key of [secp, broken, "0x" + hex, hex.toUpperCase(), ` ${hex}`, "nope", ""]) {
    assert.throws(() => suiKeypair(key), (error: unknown) => {
      assert.ok(error instanceof SvcError, `${key.slice(0, 12)}: ${error}`);
      assert.equal(error.code, "bad_request");
      assert.match(error.message, /^Cannot load the Sui key: /);
      if (key.length > 8) assert.ok(!error.message.includes(key.trim().slice(2, 40)));
      return true;
    });
  }
  assert.throws(() => suiKeypair(secp), /Secp256k1 key; only Ed25519/);
});
