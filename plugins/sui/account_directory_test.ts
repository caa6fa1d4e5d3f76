import assert from "node:assert/strict";
import { Ed25519Keypair } from "@mysten/sui/keypairs/ed25519";
import { toBase64 } from "@mysten/sui/utils";
import { SvcError } from "@svc/relayer/kit";
import { FakeHttpServer } from "../../tests/fixtures/http_endpoint.ts";
import { startFakeSui } from "../../tests/fixtures/sui_network.ts";
import { installSvcAccount, SvcAccountWallet } from "../../tests/fixtures/svc_account_emulation.ts";
import { parseAccount } from "./account_directory.ts";
import { SuiAccountDirectory } from "./mod.ts";

const KEY = "5a".repeat(32);

async function withAccount() {
  const sui = await startFakeSui();
  const ids = installSvcAccount(sui.network);
  const wallet = new SvcAccountWallet(sui, ids);
  const owner = Ed25519Keypair.generate();
  const accountId = await wallet.createAccount(owner);
  await wallet.addDelegateKey(owner, accountId, KEY, "laptop");
  const directory = await SuiAccountDirectory.open({ rpcUrl: sui.url, ...ids });
  return {
    sui,
    ids,
    wallet,
    owner,
    accountId,
    directory,
    [Symbol.asyncDispose]: () => sui.close(),
  };
}

const unavailable = (error: unknown) => {
  assert.ok(error instanceof SvcError, String(error));
  assert.equal(error.code, "backend_unavailable");
  assert.equal(error.status, 503);
  assert.ok(!error.message.includes(KEY), "no key in the message");
  return true;
};

Deno.test("SuiAccountDirectory: an inactive account resolves with active false, as the ledger does", async () => {
  await using t = await withAccount();
  const me = t.owner.toSuiAddress();
  await t.wallet.setActive(t.owner, t.accountId, false);
  assert.deepEqual(await t.directory.resolve(KEY), {
    accountId: t.accountId,
    owner: me,
    active: false,
    label: "laptop",
    scope: {},
  });
  await t.wallet.setActive(t.owner, t.accountId, true);
  assert.deepEqual(await t.directory.resolve(KEY, t.accountId), {
    accountId: t.accountId,
    owner: me,
    active: true,
    label: "laptop",
    scope: {},
  });
});

Deno.test("SuiAccountDirectory: wrong object types, malformed ids and keys resolve to null", async () => {
  await using t = await withAccount();
  assert.equal(
    await t.directory.resolve(KEY, t.ids.registryId),
    null,
    "the registry is no account",
  );
  const coin = t.sui.network.mintGas(t.owner.toSuiAddress(), 5n);
  assert.equal(await t.directory.resolve(KEY, coin), null);
  // An account-shaped object of another package is not trusted.
  const copy = t.sui.network.getObject(t.accountId)!;
  const { id: _, ...fields } = copy.fields;
  const forged = t.sui.network.putObject({
    type: copy.type.replace(t.ids.packageId, "0x" + "f".repeat(64)),
    owner: "Shared",
    fields,
  });
  assert.equal(await t.directory.resolve(KEY, forged), null);
  for (const hint of ["", "0x", "abc", "0xzz", "0x" + "1".repeat(65)]) {
    assert.equal(await t.directory.resolve(KEY, hint), null, hint);
  }
  assert.equal(await t.directory.resolve(KEY.toUpperCase()), null);
  assert.equal(await t.directory.resolve("12"), null);
  // A short id hint is the same object id.
  assert.ok(await t.directory.resolve(KEY, t.accountId.replace(/^0x0+/, "0x")));
  // Without a registry, only hinted lookups work.
  const hintOnly = await SuiAccountDirectory.open({
    rpcUrl: t.sui.url,
    packageId: t.ids.packageId,
  });
  await assert.rejects(hintOnly.resolve(KEY), (error: SvcError) => {
    assert.equal(error.code, "unauthorized");
    assert.deepEqual(error.details, { reason: "unknown_key" });
    assert.match(error.message, /only from x-account-id \(it has no SVC_REGISTRY_ID\)/);
    return true;
  });
  assert.equal((await hintOnly.resolve(KEY, t.accountId))?.accountId, t.accountId);
  await assert.rejects(
    SuiAccountDirectory.open({ rpcUrl: "ftp://x", packageId: t.ids.packageId }),
    SvcError,
  );
});

Deno.test("SuiAccountDirectory: RPC failures are 503, never null", async () => {
  await using t = await withAccount();
  t.sui.network.outage = 502;
  await assert.rejects(() => t.directory.resolve(KEY), unavailable);
  await assert.rejects(() => t.directory.resolve(KEY, t.accountId), unavailable);
  t.sui.network.outage = null;
  assert.ok(await t.directory.resolve(KEY));

  const rpcError: typeof fetch = () =>
    Promise.resolve(
      Response.json({ jsonrpc: "2.0", id: 1, error: { code: -32603, message: "boom" } }),
    );
  const failing = await SuiAccountDirectory.open({ rpcUrl: t.sui.url, ...t.ids, fetch: rpcError });
  await assert.rejects(() => failing.resolve(KEY, t.accountId), unavailable);
  const garbage: typeof fetch = () => Promise.resolve(new Response("<html>", { status: 200 }));
  const broken = await SuiAccountDirectory.open({ rpcUrl: t.sui.url, ...t.ids, fetch: garbage });
  await assert.rejects(() => broken.resolve(KEY), unavailable);

  const controller = new AbortController();
  controller.abort(new DOMException("stop", "AbortError"));
  await assert.rejects(
    () => t.directory.resolve(KEY, t.accountId, { signal: controller.signal }),
    (error: unknown) => error instanceof DOMException,
    "the caller's abort passes through",
  );

  await t.sui.close();
  await assert.rejects(() => t.directory.resolve(KEY, t.accountId), unavailable);
});

Deno.test("SuiAccountDirectory: a node answering past the limit, or with a redirect, is 503", async () => {
  await using t = await withAccount();
  // A valid answer, padded past the 4 MiB an answer may take.
  const padded: typeof fetch = async (input, init) => {
    const answer = await (await fetch(input, init)).json();
    return Response.json({ ...answer, padding: "x".repeat(5 * 2 ** 20) });
  };
  const flooded = await SuiAccountDirectory.open({ rpcUrl: t.sui.url, ...t.ids, fetch: padded });
  await assert.rejects(() => flooded.resolve(KEY, t.accountId), unavailable);
  await assert.rejects(() => flooded.resolve(KEY), unavailable);

  // A redirect, even to the node itself, is not followed: the request goes nowhere else.
  await using redirecting = FakeHttpServer.start(
    "redirecting node",
    () => new Response(null, { status: 307, headers: { location: t.sui.url } }),
  );
  const moved = await SuiAccountDirectory.open({ rpcUrl: redirecting.url, ...t.ids });
  await assert.rejects(() => moved.resolve(KEY, t.accountId), unavailable);
  assert.ok(redirecting.count("POST") > 0, "the node was asked");
});

Deno.test("SuiAccountDirectory: a node answering result null is 503, never a 500 or null", async () => {
  await using t = await withAccount();
  const nothing: typeof fetch = (_input, init) => {
    const { id } = JSON.parse(String(init?.body));
    return Promise.resolve(Response.json({ jsonrpc: "2.0", id, result: null }));
  };
  const empty = await SuiAccountDirectory.open({ rpcUrl: t.sui.url, ...t.ids, fetch: nothing });
  await assert.rejects(() => empty.resolve(KEY, t.accountId), unavailable);
  await assert.rejects(() => empty.resolve(KEY), unavailable);
  await assert.rejects(() => empty.resolveOwner(t.owner.toSuiAddress()), unavailable);
  await assert.rejects(() => empty.checkIds(), unavailable);
});

Deno.test("parseAccount: byte arrays as numbers, base64 or hex; wrapped or bare structs", () => {
  const key = Uint8Array.fromHex(KEY);
  const owner = "0x" + "1".repeat(64);
  const parsed = parseAccount({
    type: "0x9::account::SvcAccount",
    fields: {
      owner,
      active: true,
      delegate_keys: [
        { type: "0x9::account::DelegateKey", fields: { public_key: Array.from(key) } },
        { public_key: toBase64(key.map((b) => b ^ 1)) },
        { fields: { public_key: "0x" + KEY.replace(/5a/g, "00") } },
        { public_key: KEY.replace(/5a/g, "11") },
      ],
    },
  });
  assert.deepEqual(parsed, {
    owner,
    active: true,
    keys: [KEY, "5b".repeat(32), "00".repeat(32), "11".repeat(32)].map((publicKey) => ({
      publicKey,
      label: "",
      scope: {},
    })),
  });
  assert.throws(() => parseAccount({ owner, active: true, delegate_keys: "nope" }), SvcError);
  assert.throws(() => parseAccount({ owner: 7, active: true, delegate_keys: [] }), SvcError);
  assert.throws(
    () => parseAccount({ owner, active: true, delegate_keys: [{ public_key: [300] }] }),
    SvcError,
  );
});

Deno.test("SuiAccountDirectory: a registry id naming another object is 503, and read again later", async () => {
  await using t = await withAccount();
  const wrong = await SuiAccountDirectory.open({
    rpcUrl: t.sui.url,
    packageId: t.ids.packageId,
    registryId: t.accountId,
  });
  await assert.rejects(() => wrong.resolve(KEY), (error: unknown) => {
    unavailable(error);
    assert.match((error as Error).message, /^Cannot resolve a delegate key: the registry object/);
    assert.match((error as Error).message, /check SVC_REGISTRY_ID and SVC_PACKAGE_ID\)$/);
    return true;
  });
  // An id no object has says so, and names the setting.
  const missing = await SuiAccountDirectory.open({
    rpcUrl: t.sui.url,
    packageId: t.ids.packageId,
    registryId: `0x${"5".repeat(64)}`,
  });
  await assert.rejects(() => missing.resolve(KEY), (error: unknown) => {
    unavailable(error);
    assert.match(
      (error as Error).message,
      /no object has the id 0x5{64} on this chain: check SVC_REGISTRY_ID\)$/,
    );
    return true;
  });
  // The shared read of the registry does not keep a caller's abort.
  const aborted = AbortSignal.abort(new Error("the caller left"));
  await assert.rejects(() => t.directory.resolve(KEY, undefined, { signal: aborted }), /left/);
  assert.equal((await t.directory.resolve(KEY))?.accountId, t.accountId);
});

Deno.test("SuiAccountDirectory.checkIds: a package or registry id naming something else is named", async () => {
  await using t = await withAccount();
  await t.directory.checkIds();
  const open = (ids: { packageId: string; registryId?: string }) =>
    SuiAccountDirectory.open({ rpcUrl: t.sui.url, ...ids });
  const refused = async (ids: { packageId: string; registryId?: string }, why: RegExp) =>
    await assert.rejects((await open(ids)).checkIds(), (error: SvcError) => {
      assert.equal(error.code, "bad_request");
      assert.match(error.message, why);
      return true;
    });
  const nothing = `0x${"6".repeat(64)}`;
  await refused(
    { packageId: nothing },
    /^Cannot use the Sui account settings: SVC_PACKAGE_ID 0x6{64} names no object on this chain, not a package$/,
  );
  await refused(
    { ...t.ids, packageId: t.accountId },
    /SVC_PACKAGE_ID 0x[0-9a-f]{64} is a 0x[0-9a-f]+::account::SvcAccount, not a package$/,
  );
  await refused(
    { ...t.ids, registryId: t.accountId },
    /SVC_REGISTRY_ID 0x[0-9a-f]{64} is a 0x[0-9a-f]+::account::SvcAccount, not the AccountRegistry of SVC_PACKAGE_ID$/,
  );
  await refused(
    { ...t.ids, registryId: t.ids.packageId },
    /SVC_REGISTRY_ID 0x[0-9a-f]{64} is a package, not the AccountRegistry of SVC_PACKAGE_ID$/,
  );
  await refused(
    { ...t.ids, registryId: nothing },
    /SVC_REGISTRY_ID 0x6{64} names no object on this chain, not the AccountRegistry/,
  );
  // Without a registry, the package alone.
  await (await open({ packageId: t.ids.packageId })).checkIds();
  // A node that does not answer is an outage, not a setting.
  t.sui.network.outage = 503;
  await assert.rejects(t.directory.checkIds(), unavailable);
  t.sui.network.outage = null;
});

Deno.test("SuiAccountDirectory: a key added with a scope and expiry resolves with them", async () => {
  await using t = await withAccount();
  const scoped = "6b".repeat(32);
  const expiresAt = Date.parse("2030-01-01T00:00:00Z");
  await t.wallet.addDelegateKey(t.owner, t.accountId, scoped, "reader", {
    scope: { namespaces: ["work", "notes"], operations: ["read", "audit"] },
    expiresAt,
  });
  assert.deepEqual(await t.directory.resolve(scoped), {
    accountId: t.accountId,
    owner: t.owner.toSuiAddress(),
    active: true,
    label: "reader",
    scope: { namespaces: ["notes", "work"], operations: ["read", "audit"] },
    expiresAt,
  });
  const fields = t.sui.network.getObject(t.accountId)!.fields.delegate_keys as {
    fields: Record<string, unknown>;
  }[];
  assert.deepEqual(
    [fields[1].fields.namespaces, fields[1].fields.operations, fields[1].fields.expires_at],
    [["work", "notes"], 9, String(expiresAt)],
    "namespaces as given, read|audit as the mask 9, the expiry in ms",
  );
});

Deno.test("parseAccount: keys of the layout before scopes read as full access without expiry", () => {
  const owner = "0x" + "1".repeat(64);
  const old = { public_key: Array.from(Uint8Array.fromHex(KEY)), label: "old", created_at: "5" };
  const current = (extra: Record<string, unknown>) => ({
    ...old,
    namespaces: [],
    operations: 0,
    expires_at: "0",
    ...extra,
  });
  const keysOf = (...entries: unknown[]) =>
    parseAccount({ owner, active: true, delegate_keys: entries }).keys.map(
      ({ scope, expiresAt }) => ({ scope, expiresAt }),
    );
  assert.deepEqual(keysOf(old, current({})), [{ scope: {}, expiresAt: undefined }, {
    scope: {},
    expiresAt: undefined,
  }]);
  assert.deepEqual(
    keysOf(current({ namespaces: ["b", "a", "b"], operations: "6", expires_at: 1_000 })),
    [{ scope: { namespaces: ["a", "b"], operations: ["write", "erase"] }, expiresAt: 1_000 }],
  );
  assert.deepEqual(keysOf(current({ operations: 16 }))[0].scope, { operations: [] });
  assert.equal(keysOf(current({ expires_at: "18446744073709551615" }))[0].expiresAt, undefined);
  for (const bad of [{ namespaces: "a" }, { operations: 256 }, { expires_at: "-1" }]) {
    assert.throws(() => keysOf(current(bad)), SvcError, JSON.stringify(bad));
  }
});
