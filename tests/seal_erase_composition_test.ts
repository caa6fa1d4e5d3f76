/**
 * Network mode as the composition assembles it: the relayer's Seal cipher (from `openBackends`)
 * erases through the sidecar's gas station (from `openSponsor`, on its own port, behind its
 * token), against a fake Sui node with the `svc_account` module and three Seal key servers.
 */
import assert from "node:assert/strict";
import { SvcError } from "../src/errors.ts";
import { timeOrderedId } from "../src/ids.ts";
import { silentLogger } from "../src/log.ts";
import { openBackends, openSponsor, readConfig } from "../app/mod.ts";
import { createSidecar } from "../src/sidecar/server.ts";
import type { SidecarLink } from "../src/sidecar/link.ts";
import { Ed25519Keypair } from "@mysten/sui/keypairs/ed25519";
import { startFakeSui } from "./fixtures/sui_network.ts";
import { installSvcAccount, SvcAccountWallet } from "./fixtures/svc_account_emulation.ts";
import { startSealKeyServers } from "./fixtures/seal_key_servers.ts";
import { newDelegateKey } from "./fixtures/seal/seal_setup.ts";

const enc = (s: string) => new TextEncoder().encode(s);

Deno.test("composition: a Seal erase is paid by the sidecar's sponsor and destroys the key", async () => {
  await using sui = await startFakeSui();
  const ids = installSvcAccount(sui.network);
  await using seal = await startSealKeyServers(sui, { count: 3 });
  const wallet = new SvcAccountWallet(sui, ids);
  const gas = Ed25519Keypair.generate();
  for (let i = 0; i < 2; i++) sui.network.mintGas(gas.toSuiAddress(), 10_000_000_000n);
  const dataDir = await Deno.makeTempDir({ prefix: "svc-seal-erase-" });
  const env = {
    SVC_DATA_DIR: dataDir,
    SVC_CHAIN: "sui",
    SVC_CIPHER: "seal",
    SVC_SUI_RPC_URL: sui.url,
    SVC_PACKAGE_ID: ids.packageId,
    SVC_REGISTRY_ID: ids.registryId,
    SVC_SEAL_KEY_SERVERS: seal.envValue,
    SVC_SEAL_THRESHOLD: "2",
    SVC_SPONSOR_PRIVATE_KEY: gas.getSecretKey(),
    SVC_EMBEDDER: "lexical",
    SVC_LLM: "none",
    SVC_VECTOR_STORE: "memory",
  };
  const configIn = (dir: string) => {
    const result = readConfig({ ...env, SVC_DATA_DIR: dir });
    assert.ok(result.ok, JSON.stringify(!result.ok && result.problems));
    return result.config;
  };
  const config = configIn(dataDir);

  // The sidecar process's half: its sponsor, behind its token, on a port of its own.
  const token = crypto.getRandomValues(new Uint8Array(16)).toHex();
  const { sponsor, close: closeSponsor } = await openSponsor(config);
  const sidecar = createSidecar({
    token,
    relayerUrl: "http://127.0.0.1:1",
    sponsor,
    logger: silentLogger,
  });
  const server = Deno.serve(
    { hostname: "127.0.0.1", port: 0, onListen() {} },
    sidecar.handler,
  );
  let up = true;
  const link: SidecarLink = {
    url: `http://127.0.0.1:${server.addr.port}`,
    token,
    status: () => (up ? "up" : "down"),
    sessions: () => 0,
  };
  const backends = await openBackends(config, silentLogger, { sidecar: link });
  try {
    const owner = Ed25519Keypair.generate();
    const accountId = await wallet.createAccount(owner);
    const delegate = newDelegateKey();
    await wallet.addDelegateKey(owner, accountId, delegate.publicKey);
    const credentials = { delegatePrivateKey: delegate.seed };
    const address = owner.toSuiAddress();
    const { cipher } = backends.relayer;
    const memoryId = timeOrderedId();
    const sealed = await cipher.encrypt(address, enc("I am vegetarian"), { memoryId });

    up = false;
    await assert.rejects(
      cipher.erase(address, [memoryId], { credentials }),
      (error: unknown) => error instanceof SvcError && error.code === "backend_unavailable",
    );
    up = true;
    await cipher.erase(address, [memoryId], { credentials });
    const erased = sui.network.getObject(accountId)!.fields.erased as { fields: { size: string } };
    assert.equal(erased.fields.size, "1");
    // Another relayer on the same chain (no memory of this erase) is refused by the key servers.
    const other = await openBackends(configIn(`${dataDir}/other`), silentLogger);
    try {
      await assert.rejects(
        other.relayer.cipher.decrypt(address, sealed, { credentials }),
        (error: unknown) => error instanceof SvcError && error.code === "forbidden",
      );
      // Without a sidecar link, that relayer has no one to pay for an erase.
      await assert.rejects(
        other.relayer.cipher.erase(address, [timeOrderedId()], { credentials }),
        /SVC_SPONSOR_PRIVATE_KEY/,
      );
    } finally {
      await other.close();
    }
  } finally {
    await backends.close();
    await sidecar.close();
    await server.shutdown();
    closeSponsor();
    await Deno.remove(dataDir, { recursive: true });
  }
});
