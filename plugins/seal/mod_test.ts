import assert from "node:assert/strict";
import { EncryptedObject, InvalidKeyServerError } from "@mysten/seal";
import { Ed25519Keypair } from "@mysten/sui/keypairs/ed25519";
import { type Sponsor, SvcError } from "@svc/relayer/kit";
import { normalizeSuiAddress } from "@mysten/sui/utils";
import { FakeHttpServer } from "../../tests/fixtures/http_endpoint.ts";
import {
  newDelegateKey,
  type SealSetup,
  startSealSetup,
} from "../../tests/fixtures/seal/seal_setup.ts";
import {
  FakeSealKeyServer,
  IbeMasterKey,
  registerKeyServer,
} from "../../tests/fixtures/seal_key_servers.ts";
import { startSilentServer } from "../../tests/fixtures/silent_server.ts";
import { SealCipher, type SealCipherOptions, type SealKeyServer } from "./mod.ts";

const enc = (s: string) => new TextEncoder().encode(s);
const dec = (b: Uint8Array) => new TextDecoder().decode(b);

async function rejectsWith(promise: Promise<unknown>, code: string, pattern?: RegExp) {
  await assert.rejects(promise, (error: unknown) => {
    assert.ok(error instanceof SvcError, `expected an SvcError, got ${error}`);
    assert.equal(error.code, code, error.message);
    if (pattern) assert.match(error.message, pattern);
    return true;
  });
}

Deno.test("SealCipher: decrypts with one key server down (refused or 503); two down is 503", async () => {
  await using setup = await startSealSetup();
  const account = await setup.createAccount();
  const cipher = await setup.openCipher();
  const credentials = { delegatePrivateKey: account.delegateSeed };
  const [a, b, c] = await Promise.all(
    ["I am vegetarian", "I live in Oslo", "I have a dog"].map((t) =>
      cipher.encrypt(account.address, enc(t))
    ),
  );

  await setup.seal.servers[0].setDown("refused");
  assert.equal(dec(await cipher.decrypt(account.address, a, { credentials })), "I am vegetarian");
  await setup.seal.servers[0].setUp();
  await setup.seal.servers[1].setDown("unavailable");
  assert.equal(dec(await cipher.decrypt(account.address, b, { credentials })), "I live in Oslo");

  await setup.seal.servers[0].setDown("refused");
  const error = await cipher.decrypt(account.address, c, { credentials }).catch((e) => e);
  assert.ok(error instanceof SvcError);
  assert.equal(error.code, "backend_unavailable");
  assert.equal(error.status, 503);
  assert.ok(!error.message.includes(account.delegateSeed));
  // Keys fetched before the outage still decrypt from the session's cache, also in one round
  // with a key that cannot be fetched.
  assert.equal(dec(await cipher.decrypt(account.address, a, { credentials })), "I am vegetarian");
  const [cached, fresh] = await Promise.allSettled([
    cipher.decrypt(account.address, a, { credentials }),
    cipher.decrypt(account.address, c, { credentials }),
  ]);
  assert.equal(cached.status === "fulfilled" && dec(cached.value), "I am vegetarian");
  assert.ok(fresh.status === "rejected" && fresh.reason.code === "backend_unavailable");
});

Deno.test("SealCipher: a delegate removed from the account is refused (403)", async () => {
  await using setup = await startSealSetup();
  const account = await setup.createAccount();
  const cipher = await setup.openCipher();
  const credentials = { delegatePrivateKey: account.delegateSeed };
  const before = await cipher.encrypt(account.address, enc("before"));
  assert.equal(dec(await cipher.decrypt(account.address, before, { credentials })), "before");

  await setup.wallet.removeDelegateKey(account.owner, account.accountId, account.delegatePublicKey);
  const after = await cipher.encrypt(account.address, enc("after"));
  await rejectsWith(
    cipher.decrypt(account.address, after, { credentials }),
    "forbidden",
    /refuse/,
  );
  // A never-registered key is refused the same way.
  const stranger = { delegatePrivateKey: newDelegateKey().seed };
  await rejectsWith(cipher.decrypt(account.address, after, { credentials: stranger }), "forbidden");
});

Deno.test("SealCipher: another owner's key or ciphertext is refused (403)", async () => {
  await using setup = await startSealSetup();
  const alice = await setup.createAccount();
  const bob = await setup.createAccount();
  const cipher = await setup.openCipher();
  const sealed = await cipher.encrypt(alice.address, enc("alice's secret"));

  // Bob's delegate asking for Alice's memory: the key servers refuse.
  const bobs = { delegatePrivateKey: bob.delegateSeed };
  await rejectsWith(cipher.decrypt(alice.address, sealed, { credentials: bobs }), "forbidden");
  // Alice's memory presented as Bob's: refused before any key server is asked.
  const asked = setup.seal.fetchKeyRequests();
  await rejectsWith(
    cipher.decrypt(bob.address, sealed, { credentials: bobs }),
    "forbidden",
    /another owner/,
  );
  assert.equal(setup.seal.fetchKeyRequests(), asked);
  const alices = { delegatePrivateKey: alice.delegateSeed };
  assert.equal(
    dec(await cipher.decrypt(alice.address, sealed, { credentials: alices })),
    "alice's secret",
  );
});

Deno.test("SealCipher: concurrent decrypts share one fetch_key round per server", async () => {
  await using setup = await startSealSetup();
  const account = await setup.createAccount();
  const cipher = await setup.openCipher();
  const credentials = { delegatePrivateKey: account.delegateSeed };
  const texts = Array.from({ length: 10 }, (_, i) => `memory number ${i}`);
  const sealed = await Promise.all(texts.map((t) => cipher.encrypt(account.address, enc(t))));

  const plaintexts = await Promise.all(
    sealed.map((bytes) => cipher.decrypt(account.address, bytes, { credentials })),
  );
  assert.deepEqual(plaintexts.map(dec), texts);
  const perServer = setup.seal.servers.map((s) => s.fetchKeyRequests);
  assert.ok(perServer.every((n) => n <= 1), `one round at most per server: ${perServer}`);
  assert.ok(perServer.reduce((a, b) => a + b) >= 2, "at least the threshold was asked");
  const answered = setup.seal.servers.find((s) => s.fetchKeyRequests === 1)!;
  assert.equal(answered.requestedIds.length, 10, "all ten ids in one PTB");

  // Decrypting again within the session uses the cached keys.
  const again = await Promise.all(
    sealed.map((bytes) => cipher.decrypt(account.address, bytes, { credentials })),
  );
  assert.deepEqual(again.map(dec), texts);
  assert.deepEqual(setup.seal.servers.map((s) => s.fetchKeyRequests), perServer);
});

Deno.test("SealCipher: tampered or malformed ciphertexts are rejected", async () => {
  await using setup = await startSealSetup();
  const account = await setup.createAccount();
  const cipher = await setup.openCipher();
  const credentials = { delegatePrivateKey: account.delegateSeed };
  const sealed = await cipher.encrypt(account.address, enc("I am vegetarian"));
  const flip = (at: number) => {
    const copy = sealed.slice();
    copy[at] ^= 1;
    return copy;
  };
  const idStart = 1 + 32 + 1;
  const cases: [string, Uint8Array<ArrayBuffer>, string][] = [
    ["version", flip(0), "bad_request"],
    ["package", flip(5), "bad_request"],
    ["owner part of the id", flip(idStart + 3), "forbidden"],
    ["nonce part of the id", flip(idStart + 40), "bad_request"],
    ["IBE nonce", flip(sealed.length - 200), "bad_request"],
    ["AES-GCM body", flip(sealed.length - 5), "bad_request"],
    ["truncated", sealed.slice(0, 20), "bad_request"],
    ["empty", new Uint8Array(), "bad_request"],
  ];
  for (const [what, bytes, code] of cases) {
    const error = await cipher.decrypt(account.address, bytes, { credentials }).catch((e) => e);
    assert.ok(error instanceof SvcError, `${what}: ${error}`);
    assert.equal(error.code, code, `${what}: ${error.message}`);
  }
  assert.equal(
    dec(await cipher.decrypt(account.address, sealed, { credentials })),
    "I am vegetarian",
  );
});

Deno.test("SealCipher: without a delegate key it refuses, unless a server key is configured", async () => {
  await using setup = await startSealSetup();
  const serverKey = newDelegateKey();
  const account = await setup.createAccount({ delegate: serverKey });
  const plain = await setup.openCipher();
  const sealed = await plain.encrypt(account.address, enc("hello"));
  await rejectsWith(plain.decrypt(account.address, sealed), "forbidden", /x-delegate-key/);
  await rejectsWith(
    plain.decrypt(account.address, sealed, { credentials: { delegatePrivateKey: "zz" } }),
    "bad_request",
  );

  const withServerKey = await setup.openCipher({ serverKey: serverKey.seed });
  assert.equal(dec(await withServerKey.decrypt(account.address, sealed)), "hello");
});

Deno.test("SealCipher: an owner without an account is refused; a chain outage is 503", async () => {
  await using setup = await startSealSetup();
  const account = await setup.createAccount();
  const cipher = await setup.openCipher();
  const credentials = { delegatePrivateKey: account.delegateSeed };
  const stranger = "0x" + "ab".repeat(32);
  const sealed = await cipher.encrypt(stranger, enc("nobody's"));
  await rejectsWith(
    cipher.decrypt(stranger, sealed, { credentials }),
    "forbidden",
    /no svc account/,
  );
  await rejectsWith(cipher.encrypt("o1", enc("x")), "bad_request", /Sui address/);

  const mine = await cipher.encrypt(account.address, enc("mine"));
  setup.sui.network.outage = 503;
  const fresh = await setup.openCipher();
  await rejectsWith(fresh.encrypt(account.address, enc("x")), "backend_unavailable");
  await rejectsWith(fresh.decrypt(account.address, mine, { credentials }), "backend_unavailable");
  setup.sui.network.outage = null;
  assert.equal(dec(await fresh.decrypt(account.address, mine, { credentials })), "mine");
});

Deno.test("SealCipher.checkKeyServers: ids that name no key server, or a node down, are named", async () => {
  await using setup = await startSealSetup();
  await (await setup.openCipher()).checkKeyServers();
  const server = setup.options.keyServers[0];
  for (
    const [overrides, code, why] of [
      [
        { keyServers: [server, { objectId: `0x${"ab".repeat(32)}`, weight: 1 }] },
        "bad_request",
        /^Cannot use SVC_SEAL_KEY_SERVERS: .* and no object 0x(ab){32} exists$/,
      ],
      [
        { keyServers: [server, { objectId: setup.ids.registryId, weight: 1 }] },
        "bad_request",
        new RegExp(
          `^Cannot use SVC_SEAL_KEY_SERVERS: .* and ${setup.ids.registryId} is a 0x[0-9a-f]+::` +
            "[a-z_]+::[A-Za-z]+$",
        ),
      ],
      [
        { rpcUrl: "http://127.0.0.1:1/?key=s3cret", timeoutMs: 2000 },
        "backend_unavailable",
        /^Cannot read the Seal key servers: the Sui node at SVC_SUI_RPC_URL is unavailable$/,
      ],
    ] as [Partial<SealCipherOptions>, string, RegExp][]
  ) {
    const cipher = await setup.openCipher(overrides);
    await assert.rejects(cipher.checkKeyServers(), (error: SvcError) => {
      assert.equal(error.code, code);
      assert.match(error.message, why);
      return true;
    });
  }
  // A key server object the SDK refuses (versions it does not speak): the SDK's reason.
  const { name, url, publicKey } = setup.seal.servers[0];
  const future = { objectId: `0x${"cd".repeat(32)}`, name, url, publicKey };
  registerKeyServer(setup.sui.network, future, { firstVersion: 7, lastVersion: 9 });
  const refused = await setup.openCipher({
    keyServers: [server, { objectId: future.objectId, weight: 1 }],
  });
  await assert.rejects(refused.checkKeyServers(), (error: SvcError) => {
    assert.equal(error.code, "bad_request");
    assert.match(
      error.message,
      new RegExp(
        `and the Seal SDK says: Key server ${future.objectId} supports versions between 7`,
      ),
    );
    return true;
  });
});

Deno.test("SealCipher.open reports every bad option at once", async () => {
  const error = await SealCipher.open({
    rpcUrl: "not a url",
    packageId: "pkg",
    registryId: "0x1",
    keyServers: [{ objectId: "0x1", weight: 1 }, { objectId: "0x01", weight: 1 }],
    threshold: 3,
    serverKey: "secret",
  }).catch((e) => e);
  assert.ok(error instanceof SvcError);
  assert.equal(error.code, "bad_request");
  for (const part of ["rpcUrl", "packageId", "threshold", "serverKey", "twice"]) {
    assert.match(error.message, new RegExp(part));
  }
  assert.ok(!error.message.includes("secret"));
});

Deno.test("SealCipher: a session the key servers call expired is renewed and retried", async () => {
  let skewed = 0;
  await using setup = await startSealSetup({
    now: () => Date.now() + (skewed-- > 0 ? 31 * 60_000 : 0),
  });
  const account = await setup.createAccount();
  const cipher = await setup.openCipher();
  const credentials = { delegatePrivateKey: account.delegateSeed };
  const sealed = await cipher.encrypt(account.address, enc("still readable"));
  skewed = 3;
  const before = setup.seal.fetchKeyRequests();
  assert.equal(
    dec(await cipher.decrypt(account.address, sealed, { credentials })),
    "still readable",
  );
  const asked = setup.seal.fetchKeyRequests() - before;
  assert.ok(asked >= 4 && asked <= 6, `a refused round, then a new one: ${asked} requests`);
});

Deno.test("SealCipher: verifyKeyServers refuses a server that cannot prove its key; cold starts", async () => {
  await using setup = await startSealSetup();
  const account = await setup.createAccount();
  const credentials = { delegatePrivateKey: account.delegateSeed };
  const verified = await setup.openCipher({ verifyKeyServers: true });
  const sealed = await verified.encrypt(account.address, enc("proven"));
  assert.equal(dec(await verified.decrypt(account.address, sealed, { credentials })), "proven");

  // An on-chain key server whose registered key is not the one its server holds.
  const objectId = "0x" + crypto.getRandomValues(new Uint8Array(32)).toHex();
  await using impostor = FakeSealKeyServer.start({
    objectId,
    checkAccess: () => Promise.resolve("allowed"),
  });
  registerKeyServer(setup.sui.network, {
    objectId,
    name: "impostor",
    url: impostor.url,
    publicKey: new IbeMasterKey().publicKey,
  });
  const keyServers = [...setup.seal.serverConfigs.slice(0, 2), { objectId, weight: 1 }];
  const strict = await setup.openCipher({ verifyKeyServers: true, keyServers });
  const refused = await strict.encrypt(account.address, enc("x")).catch((e) => e);
  assert.ok(refused instanceof SvcError && refused.code === "backend_unavailable");
  assert.ok(refused.cause instanceof InvalidKeyServerError, String(refused.cause));

  // Starting while a server is down: fine without verification, refused with it.
  await setup.seal.servers[2].setDown("refused");
  const cold = await setup.openCipher();
  assert.equal(dec(await cold.decrypt(account.address, sealed, { credentials })), "proven");
  const coldVerified = await setup.openCipher({ verifyKeyServers: true });
  await rejectsWith(
    coldVerified.decrypt(account.address, sealed, { credentials }),
    "backend_unavailable",
  );
});

Deno.test("SealCipher: an abort ends one caller's wait; the shared round serves the others", async () => {
  await using setup = await startSealSetup();
  const account = await setup.createAccount();
  const cipher = await setup.openCipher();
  const credentials = { delegatePrivateKey: account.delegateSeed };
  const [a, b] = await Promise.all(
    ["first", "second"].map((t) => cipher.encrypt(account.address, enc(t))),
  );
  const controller = new AbortController();
  const aborted = cipher.decrypt(account.address, a, { credentials, signal: controller.signal });
  const served = cipher.decrypt(account.address, b, { credentials });
  controller.abort();
  await assert.rejects(aborted, (error) => error === controller.signal.reason);
  assert.equal(dec(await served), "second");
  assert.equal(dec(await cipher.decrypt(account.address, a, { credentials })), "first");
});

Deno.test("SealCipher: a Sui node that never answers makes decrypt fail with 503 after the deadline", async () => {
  await using setup = await startSealSetup();
  await using hung = startSilentServer();
  const account = await setup.createAccount();
  const sealed = await (await setup.openCipher()).encrypt(account.address, enc("hello"));
  const cipher = await setup.openCipher({ rpcUrl: hung.url, timeoutMs: 200 });
  const credentials = { delegatePrivateKey: account.delegateSeed };
  await rejectsWith(
    cipher.decrypt(account.address, sealed, { credentials }),
    "backend_unavailable",
    /^Cannot decrypt: Seal is unavailable/,
  );
  assert.ok(hung.accepted > 0, "the cipher asked the hung node");
  // The decryptor is free again: a later decrypt is not stuck behind the first one.
  await rejectsWith(
    cipher.decrypt(account.address, sealed, { credentials }),
    "backend_unavailable",
  );
});

/**
 * Key servers standing in front of the setup's, registered on its chain with the same keys:
 * `answer` answers each request to the front of `server`.
 */
function frontServers(
  setup: SealSetup,
  answer: (server: FakeSealKeyServer, request: Request) => Response | Promise<Response>,
) {
  const fronts = setup.seal.servers.map((server) => {
    const front = FakeHttpServer.start(`front of ${server.name}`, (r) => answer(server, r));
    const objectId = normalizeSuiAddress(crypto.getRandomValues(new Uint8Array(32)).toHex());
    const { name, publicKey } = server;
    registerKeyServer(setup.sui.network, { objectId, name, url: front.url, publicKey });
    return { front, objectId };
  });
  return {
    keyServers: fronts.map(({ objectId }) => ({ objectId, weight: 1 })),
    async [Symbol.asyncDispose]() {
      await Promise.all(fronts.map(({ front }) => front.close()));
    },
  };
}

/** `request`, sent on to `server`, and its answer with `padding` more characters. */
async function forwarded(server: FakeSealKeyServer, request: Request, padding: number) {
  const url = new URL(request.url);
  const headers = new Headers(request.headers);
  headers.delete("host");
  const answer = await fetch(server.url + url.pathname + url.search, {
    method: request.method,
    headers,
    body: request.method === "POST" ? await request.arrayBuffer() : undefined,
  });
  return Response.json({ ...await answer.json(), padding: "x".repeat(padding) }, {
    status: answer.status,
    headers: { "x-keyserver-version": answer.headers.get("x-keyserver-version") ?? "" },
  });
}

Deno.test("SealCipher: key servers answering past the limit, or with a redirect, are 503", async () => {
  await using setup = await startSealSetup();
  const account = await setup.createAccount();
  const credentials = { delegatePrivateKey: account.delegateSeed };
  const decrypt = async (keyServers: SealKeyServer[]) => {
    const cipher = await setup.openCipher({ keyServers });
    const sealed = await cipher.encrypt(account.address, enc("note"));
    return await cipher.decrypt(account.address, sealed, { credentials });
  };
  {
    await using fronts = frontServers(setup, (server, r) => forwarded(server, r, 0));
    assert.equal(dec(await decrypt(fronts.keyServers)), "note", "answers within it pass");
  }
  {
    // Valid keys, padded past the 1 MiB an answer may take.
    await using fronts = frontServers(setup, (server, r) => forwarded(server, r, 2 * 2 ** 20));
    await rejectsWith(decrypt(fronts.keyServers), "backend_unavailable");
  }
  // The request (its certificate and signature) goes to no other address.
  const asked = setup.seal.fetchKeyRequests();
  await using redirecting = frontServers(setup, (server, request) => {
    const { pathname, search } = new URL(request.url);
    return new Response(null, {
      status: 307,
      headers: { location: server.url + pathname + search },
    });
  });
  await rejectsWith(decrypt(redirecting.keyServers), "backend_unavailable");
  assert.equal(setup.seal.fetchKeyRequests(), asked, "the key servers behind were not asked");
});

Deno.test("SealCipher: a Sui node answering result null is 503, for erase as for decrypt", async () => {
  await using setup = await startSealSetup();
  const account = await setup.createAccount();
  const credentials = { delegatePrivateKey: account.delegateSeed };
  const memoryId = crypto.randomUUID();
  const sealed = await (await setup.openCipher()).encrypt(account.address, enc("x"), { memoryId });
  await using empty = FakeHttpServer.start("node answering null", async (request) => {
    const { id } = await request.json();
    return Response.json({ jsonrpc: "2.0", id, result: null });
  });
  const cipher = await setup.openCipher({ rpcUrl: empty.url });
  await rejectsWith(
    cipher.erase(account.address, [memoryId], { credentials }),
    "backend_unavailable",
  );
  await rejectsWith(
    cipher.decrypt(account.address, sealed, { credentials }),
    "backend_unavailable",
  );
});

Deno.test("SealCipher: at most maxDelegates sessions are kept, the least recently used dropped first", async () => {
  await using setup = await startSealSetup();
  const cipher = await setup.openCipher({ maxDelegates: 2 });
  const [a, b, c] = await Promise.all([1, 2, 3].map(() => setup.createAccount()));
  const sealed = await Promise.all([a, b, c].map((x) => cipher.encrypt(x.address, enc("note"))));
  const decrypt = async (i: number) => {
    const x = [a, b, c][i];
    const before = setup.seal.fetchKeyRequests();
    const credentials = { delegatePrivateKey: x.delegateSeed };
    assert.equal(dec(await cipher.decrypt(x.address, sealed[i], { credentials })), "note");
    return setup.seal.fetchKeyRequests() - before;
  };
  assert.ok(await decrypt(0) > 0);
  assert.ok(await decrypt(1) > 0);
  assert.equal(await decrypt(0), 0, "a's session holds the key; a is now the most recent");
  assert.ok(await decrypt(2) > 0, "c takes b's place");
  assert.equal(await decrypt(0), 0, "a was kept");
  assert.ok(await decrypt(1) > 0, "b was dropped: a new session fetches the key again");
});

Deno.test("SealCipher: a registry id naming another object is 503, as in the account directory", async () => {
  await using setup = await startSealSetup();
  const account = await setup.createAccount();
  const cipher = await setup.openCipher({ registryId: account.accountId });
  const sealed = await cipher.encrypt(account.address, enc("note"));
  await rejectsWith(
    cipher.decrypt(account.address, sealed, {
      credentials: { delegatePrivateKey: account.delegateSeed },
    }),
    "backend_unavailable",
    /^Cannot decrypt: the registry object is unusable \(0x[0-9a-f]+ is a 0x[0-9a-f]+::account::SvcAccount, not the AccountRegistry of 0x[0-9a-f]+: check SVC_REGISTRY_ID and SVC_PACKAGE_ID\)$/,
  );
});

Deno.test("SealCipher: a memory's identity is the owner's address and its id's 16 bytes", async () => {
  await using setup = await startSealSetup();
  const account = await setup.createAccount();
  const cipher = await setup.openCipher();
  const identity = (bytes: Uint8Array) => EncryptedObject.parse(bytes).id;
  const owner = account.address.slice(2);
  const memoryId = crypto.randomUUID();
  const [a, b] = await Promise.all(
    [1, 2].map(() => cipher.encrypt(account.address, enc("x"), { memoryId })),
  );
  assert.notDeepEqual(a, b, "still randomised");
  assert.equal(identity(a), owner + memoryId.replaceAll("-", ""));
  assert.equal(identity(b), identity(a));
  assert.equal(
    identity(await cipher.encrypt(account.address, enc("x"), { memoryId: memoryId.toUpperCase() })),
    identity(a),
  );
  // Any other id: the first 16 bytes of SHA-256("svc-seal-memory:<id>").
  const digest = new Uint8Array(
    await crypto.subtle.digest("SHA-256", enc("svc-seal-memory:m1")),
  );
  assert.equal(
    identity(await cipher.encrypt(account.address, enc("x"), { memoryId: "m1" })),
    owner + digest.slice(0, 16).toHex(),
  );
  // Without an id: a random nonce each time.
  const [c, d] = await Promise.all([1, 2].map(() => cipher.encrypt(account.address, enc("x"))));
  assert.notEqual(identity(c), identity(d));
  assert.ok(identity(c).startsWith(owner) && identity(c).length === 96);
});

Deno.test("SealCipher: erase drops the keys this process keeps, for every delegate", async () => {
  await using setup = await startSealSetup();
  const account = await setup.createAccount();
  const reader = newDelegateKey();
  await setup.wallet.addDelegateKey(account.owner, account.accountId, reader.publicKey, "reader");
  const cipher = await setup.openCipher();
  const [gone, kept] = [crypto.randomUUID(), crypto.randomUUID()];
  const sealedGone = await cipher.encrypt(account.address, enc("gone"), { memoryId: gone });
  const sealedKept = await cipher.encrypt(account.address, enc("kept"), { memoryId: kept });
  const readers = { delegatePrivateKey: reader.seed };
  await Promise.all(
    [sealedGone, sealedKept].map((s) =>
      cipher.decrypt(account.address, s, { credentials: readers })
    ),
  );
  const cached = setup.seal.fetchKeyRequests();
  assert.equal(
    dec(await cipher.decrypt(account.address, sealedKept, { credentials: readers })),
    "kept",
  );
  assert.equal(setup.seal.fetchKeyRequests(), cached, "both keys are in the reader's session");

  await cipher.erase(account.address, [gone], {
    credentials: { delegatePrivateKey: account.delegateSeed },
  });
  await rejectsWith(
    cipher.decrypt(account.address, sealedGone, { credentials: readers }),
    "forbidden",
    /erased/,
  );
  assert.equal(setup.seal.fetchKeyRequests(), cached, "refused without asking the key servers");
  // The reader's session held the erased key: it was dropped, so the kept key is fetched again.
  assert.equal(
    dec(await cipher.decrypt(account.address, sealedKept, { credentials: readers })),
    "kept",
  );
  assert.ok(setup.seal.fetchKeyRequests() > cached);
});

Deno.test("SealCipher: one erased memory in a round does not fail the others", async () => {
  await using setup = await startSealSetup();
  const account = await setup.createAccount();
  const credentials = { delegatePrivateKey: account.delegateSeed };
  const writer = await setup.openCipher();
  const ids = [crypto.randomUUID(), crypto.randomUUID(), crypto.randomUUID()];
  const sealed = await Promise.all(
    ids.map((memoryId, i) => writer.encrypt(account.address, enc(`memory ${i}`), { memoryId })),
  );
  await writer.erase(account.address, [ids[1]], { credentials });

  // Another relayer knows nothing of the erase: the key servers refuse the round, then the
  // erased identity alone.
  const other = await setup.openCipher();
  const results = await Promise.allSettled(
    sealed.map((bytes) => other.decrypt(account.address, bytes, { credentials })),
  );
  assert.equal(results[0].status === "fulfilled" && dec(results[0].value), "memory 0");
  assert.equal(results[2].status === "fulfilled" && dec(results[2].value), "memory 2");
  assert.ok(results[1].status === "rejected");
  // Refused to a caller given the others' keys: erased, not the caller refused.
  assert.ok(results[1].reason instanceof SvcError && results[1].reason.code === "forbidden");
  assert.equal(results[1].reason.details.reason, "erased");

  // Found so, it is refused as erased from then on, alone too (a get), for every caller.
  await assert.rejects(
    other.decrypt(account.address, sealed[1], { credentials }),
    (error: SvcError) => error.code === "forbidden" && error.details.reason === "erased",
  );
  // A caller refused every id of its round is refused as such: no `erased` reason.
  const stranger = { delegatePrivateKey: newDelegateKey().seed };
  const third = await setup.openCipher();
  const refused = await Promise.allSettled(
    [sealed[0], sealed[2]].map((bytes) =>
      third.decrypt(account.address, bytes, { credentials: stranger })
    ),
  );
  for (const result of refused) {
    assert.ok(result.status === "rejected" && result.reason instanceof SvcError);
    assert.equal(result.reason.code, "forbidden");
    assert.notEqual(result.reason.details.reason, "erased");
  }
});

Deno.test("SealCipher: an erased memory in a round of its own is refused as erased", async () => {
  await using setup = await startSealSetup();
  const account = await setup.createAccount();
  const credentials = { delegatePrivateKey: account.delegateSeed };
  const writer = await setup.openCipher();
  const [kept, gone] = [crypto.randomUUID(), crypto.randomUUID()];
  const sealed = await Promise.all(
    [kept, gone].map((memoryId) => writer.encrypt(account.address, enc(memoryId), { memoryId })),
  );
  await writer.erase(account.address, [gone], { credentials });

  // A relayer that knows nothing of the erase reads the two in rounds of their own (as a
  // recall does when one blob arrives after the other's round left): the chain says which.
  const other = await setup.openCipher();
  assert.equal(dec(await other.decrypt(account.address, sealed[0], { credentials })), kept);
  await assert.rejects(
    other.decrypt(account.address, sealed[1], { credentials }),
    (error: SvcError) => error.code === "forbidden" && error.details.reason === "erased",
  );
  // A key refused alone is refused as such.
  const stranger = { delegatePrivateKey: newDelegateKey().seed };
  await assert.rejects(
    (await setup.openCipher()).decrypt(account.address, sealed[0], { credentials: stranger }),
    (error: SvcError) => error.code === "forbidden" && error.details.reason !== "erased",
  );
});

Deno.test("SealCipher: who may erase, and who pays", async () => {
  await using setup = await startSealSetup();
  const account = await setup.createAccount();
  const cipher = await setup.openCipher();
  const delegate = { delegatePrivateKey: account.delegateSeed };
  const memoryId = crypto.randomUUID();
  const sealed = await cipher.encrypt(account.address, enc("note"), { memoryId });

  const unpaid = await setup.openCipher({ sponsor: undefined });
  await rejectsWith(
    unpaid.erase(account.address, [memoryId], { credentials: delegate }),
    "not_implemented",
    /SVC_SPONSOR_PRIVATE_KEY/,
  );
  await rejectsWith(
    cipher.erase(account.address, [memoryId], { credentials: { delegatePrivateKey: "zz" } }),
    "bad_request",
  );
  const stranger = { delegatePrivateKey: newDelegateKey().seed };
  await rejectsWith(
    cipher.erase(account.address, [memoryId], { credentials: stranger }),
    "forbidden",
    /not on the owner's account/,
  );
  await rejectsWith(
    cipher.erase("0x" + "ab".repeat(32), [memoryId], { credentials: delegate }),
    "forbidden",
    /^Cannot erase: the owner has no svc account/,
  );
  // An inactive account: its delegates may no longer erase; its owner may.
  await setup.wallet.setActive(account.owner, account.accountId, false);
  await rejectsWith(
    cipher.erase(account.address, [memoryId], { credentials: delegate }),
    "forbidden",
    /inactive/,
  );
  await cipher.erase(account.address, [memoryId], {
    credentials: { delegatePrivateKey: account.ownerSeed },
  });
  await setup.wallet.setActive(account.owner, account.accountId, true);
  const fresh = await setup.openCipher();
  await rejectsWith(fresh.decrypt(account.address, sealed, { credentials: delegate }), "forbidden");
  // The sponsor paid: the delegate holds no coin.
  const delegateAddress = Ed25519Keypair.fromSecretKey(Uint8Array.fromHex(account.delegateSeed))
    .toSuiAddress();
  assert.equal(setup.sui.network.ownedObjects(delegateAddress).length, 0);
});

Deno.test("SealCipher: erase sends one transaction per 32 ids", async () => {
  await using setup = await startSealSetup();
  const account = await setup.createAccount();
  let executed = 0;
  const sponsor: Sponsor = {
    name: "counting",
    sponsor: (kind, sender, options) => setup.sponsor.sponsor(kind, sender, options),
    execute: (digest, signature, options) => {
      executed++;
      return setup.sponsor.execute(digest, signature, options);
    },
  };
  const cipher = await setup.openCipher({ sponsor });
  const ids = Array.from({ length: 40 }, () => crypto.randomUUID());
  await cipher.erase(account.address, [...ids, ids[0]], {
    credentials: { delegatePrivateKey: account.delegateSeed },
  });
  assert.equal(executed, 2);
  const size = () =>
    (setup.sui.network.getObject(account.accountId)!.fields.erased as {
      fields: { size: string };
    }).fields.size;
  assert.equal(size(), "40");
  // Erased already (an erase sent again): nothing to pay for, no transaction.
  await cipher.erase(account.address, ids.slice(0, 5), {
    credentials: { delegatePrivateKey: account.delegateSeed },
  });
  assert.equal(executed, 2);
  // One of them new: one transaction, for it alone.
  await cipher.erase(account.address, [ids[0], crypto.randomUUID()], {
    credentials: { delegatePrivateKey: account.delegateSeed },
  });
  assert.equal(executed, 3);
  assert.equal(size(), "41");
});
