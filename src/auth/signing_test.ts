import assert from "node:assert/strict";
import { addressOf, generateKeyPair, keyPairFromSeed, sha256Hex } from "@svc/util/keys";
import { signingMessage, signRequest } from "./signing.ts";
import { checkSignedHeaders, DelegateKeyCheck, verifySignedRequest } from "./verify.ts";
import { MemoryReplayGuard } from "./replay_guard.ts";
import { MemoryAccountDirectory } from "../backends/memory.ts";
import { SvcError } from "../errors.ts";

// The known-answer vector published in docs/security.md.
const SEED = "9d61b19deffd5a60ba844af492ec2cc44449c5697b326919703bac031cae7f60";
const PUBLIC_KEY = "d75a980182b10ab7d54bfed3c964073a0ee172f3daa62325af021a68f707511a";
const BODY = '{"query":"what do I eat?","limit":3}';
const TIMESTAMP = 1767225600;
const NONCE = "kat-nonce-0000000001";
const MESSAGE =
  "1767225600.POST./api/recall.524769ffbf159edc0670ddadb0a67a1951ee7a54b941c68e16bf13b8788004b1.kat-nonce-0000000001";
// RFC 8032's test key 2: registered on the account too, but not the key that signed.
const OTHER_KEY = "3d4017c3e843895a92b70aa74d1b7ebc9c982ccf2ec4968cc0cd55f12af4660c";
const SIGNATURE =
  "81d9e18cae56fb44cc419a72f569b64b0232a630924e637ab83c3512638ae5a8d3a8e31466ddd324755ff506aba93bb7140b9b6015a3661992783dd8b345f70d";

Deno.test("key derivation matches RFC 8032 test 1", async () => {
  const pair = await keyPairFromSeed(SEED);
  assert.equal(pair.publicKey, PUBLIC_KEY);
  const empty = pair.sign(new Uint8Array());
  assert.equal(
    empty.toHex(),
    "e5564300c360ac729086e2cc806e828a84877f1eb8e5d974d873e065224901555fb8821590a33bacc61e39701cf9b46bd25bf5f0595bbe24655141438e7a100b",
  );
});

Deno.test("client signer reproduces the known-answer vector", async () => {
  assert.equal(
    signingMessage({
      timestamp: TIMESTAMP,
      method: "post",
      path: "/api/recall",
      bodySha256: await sha256Hex(BODY),
      nonce: NONCE,
    }),
    MESSAGE,
  );
  const headers = await signRequest({
    key: SEED,
    method: "POST",
    path: "/api/recall",
    body: BODY,
    timestamp: TIMESTAMP,
    nonce: NONCE,
  });
  assert.deepEqual(headers, {
    "x-public-key": PUBLIC_KEY,
    "x-signature": SIGNATURE,
    "x-timestamp": String(TIMESTAMP),
    "x-nonce": NONCE,
  });
});

function katRequest(overrides: Record<string, string> = {}, body = BODY): Request {
  return new Request("http://relayer.test/api/recall", {
    method: "POST",
    headers: {
      "x-public-key": PUBLIC_KEY,
      "x-signature": SIGNATURE,
      "x-timestamp": String(TIMESTAMP),
      "x-nonce": NONCE,
      ...overrides,
    },
    body,
  });
}

function katDeps() {
  const directory = new MemoryAccountDirectory();
  directory.add({ accountId: "0x01", owner: "0xowner", active: true }, [PUBLIC_KEY, OTHER_KEY]);
  return { directory, replayGuard: new MemoryReplayGuard(), now: () => TIMESTAMP * 1000 + 1000 };
}

async function reasonOf(promise: Promise<unknown>): Promise<string> {
  try {
    await promise;
  } catch (error) {
    assert.ok(error instanceof SvcError);
    return String(error.details.reason ?? error.code);
  }
  return "accepted";
}

Deno.test("server verifier accepts the known-answer vector once", async () => {
  const deps = katDeps();
  const caller = await verifySignedRequest(katRequest(), new TextEncoder().encode(BODY), deps);
  assert.deepEqual(caller, {
    publicKey: PUBLIC_KEY,
    owner: "0xowner",
    accountId: "0x01",
    address: addressOf(PUBLIC_KEY),
    label: "",
    scope: {},
    ownerKey: false,
    credentials: {},
  });
  assert.equal(
    await reasonOf(verifySignedRequest(katRequest(), new TextEncoder().encode(BODY), deps)),
    "replayed_request",
  );
});

Deno.test("x-delegate-key reaches the cipher only when it is the signer's private key", async () => {
  const body = new TextEncoder().encode(BODY);
  const delegateKeys = new DelegateKeyCheck();
  for (const deps of [katDeps, () => ({ ...katDeps(), delegateKeys })]) {
    const caller = await verifySignedRequest(
      katRequest({ "x-delegate-key": SEED.toUpperCase() }),
      body,
      deps(),
    );
    assert.deepEqual(caller.credentials, { delegatePrivateKey: SEED });
    for (const wrong of ["1".repeat(64), "not-a-key", SEED + "00"]) {
      await assert.rejects(
        verifySignedRequest(katRequest({ "x-delegate-key": wrong }), body, deps()),
        (error: SvcError) => {
          assert.equal(error.code, "bad_request");
          assert.ok(!error.message.includes(wrong));
          return true;
        },
      );
    }
  }
});

Deno.test("server verifier refuses every altered component", async () => {
  const body = new TextEncoder().encode(BODY);
  const cases: [string, Request, Uint8Array<ArrayBuffer>, string][] = [
    ["body", katRequest(), new TextEncoder().encode(BODY.replace("3", "4")), "bad_signature"],
    ["nonce", katRequest({ "x-nonce": "kat-nonce-0000000002" }), body, "bad_signature"],
    ["timestamp", katRequest({ "x-timestamp": String(TIMESTAMP + 1) }), body, "bad_signature"],
    ["signature", katRequest({ "x-signature": "0" + SIGNATURE.slice(1) }), body, "bad_signature"],
    ["key", katRequest({ "x-public-key": OTHER_KEY }), body, "bad_signature"],
    ["unknown key", katRequest({ "x-public-key": "0".repeat(64) }), body, "unknown_key"],
    ["missing", katRequest({ "x-signature": "" }), body, "missing_headers"],
    ["decimal ts", katRequest({ "x-timestamp": "1767225600.0" }), body, "bad_timestamp"],
    ["signed ts", katRequest({ "x-timestamp": "+1767225600" }), body, "bad_timestamp"],
    ["padded ts", katRequest({ "x-timestamp": "01767225600" }), body, "bad_timestamp"],
    ["short sig", katRequest({ "x-signature": "abcd" }), body, "bad_signature"],
    ["bad nonce", katRequest({ "x-nonce": "short" }), body, "bad_signature"],
    ["bad hint", katRequest({ "x-account-id": "nope" }), body, "bad_signature"],
    ["other account", katRequest({ "x-account-id": "0x02" }), body, "unknown_key"],
  ];
  for (const [name, request, bytes, reason] of cases) {
    assert.equal(await reasonOf(verifySignedRequest(request, bytes, katDeps())), reason, name);
  }
  const path = new Request("http://relayer.test/api/recall?limit=100", katRequest());
  assert.equal(await reasonOf(verifySignedRequest(path, body, katDeps())), "bad_signature");
});

Deno.test("timestamps are accepted within 300 s either way and refused past it", async () => {
  const body = new TextEncoder().encode(BODY);
  for (
    const [offset, expected] of [[299, "accepted"], [-299, "accepted"], [301, "stale_timestamp"], [
      -301,
      "stale_timestamp",
    ]] as const
  ) {
    const deps = { ...katDeps(), now: () => (TIMESTAMP + offset) * 1000 };
    assert.equal(
      await reasonOf(verifySignedRequest(katRequest(), body, deps)),
      expected,
      String(offset),
    );
  }
});

// The version 2 known-answer vector published in docs/security.md: the same request, for a relayer.
const AUDIENCE = "http://127.0.0.1:8000";
const MESSAGE_V2 =
  "svc-v2.http://127.0.0.1:8000.1767225600.POST./api/recall.524769ffbf159edc0670ddadb0a67a1951ee7a54b941c68e16bf13b8788004b1.kat-nonce-0000000001";
const SIGNATURE_V2 =
  "4443db8b09c8662066538a99ed623742fe48ddb1534cd5d85a364fcf3b6b80d41fcb0eb0ef0d55e01639329b43bd9f01d17dd8ed6baf277b83cc1779f5b04a00";

Deno.test("client signer reproduces the version 2 known-answer vector", async () => {
  assert.equal(
    signingMessage({
      timestamp: TIMESTAMP,
      method: "post",
      path: "/api/recall",
      bodySha256: await sha256Hex(BODY),
      nonce: NONCE,
      audience: AUDIENCE,
    }),
    MESSAGE_V2,
  );
  // A URL with a path or a trailing slash signs for its origin.
  const headers = await signRequest({
    key: SEED,
    method: "POST",
    path: "/api/recall",
    body: BODY,
    timestamp: TIMESTAMP,
    nonce: NONCE,
    audience: AUDIENCE + "/",
  });
  assert.deepEqual(headers, {
    "x-public-key": PUBLIC_KEY,
    "x-signature": SIGNATURE_V2,
    "x-timestamp": String(TIMESTAMP),
    "x-nonce": NONCE,
    "x-signature-version": "2",
    "x-audience": AUDIENCE,
  });
  assert.throws(() => signingMessage({ ...headersInput(), audience: AUDIENCE }), TypeError);
  const fresh = await signRequest({
    key: SEED,
    method: "GET",
    path: "/api/whoami",
    audience: AUDIENCE,
  });
  assert.match(fresh["x-nonce"], /^[0-9a-f]{32}$/, "version 2 always carries a nonce");
});

function headersInput() {
  return { timestamp: TIMESTAMP, method: "POST", path: "/api/recall", bodySha256: "00" };
}

function katRequestV2(overrides: Record<string, string> = {}): Request {
  return katRequest({
    "x-signature": SIGNATURE_V2,
    "x-signature-version": "2",
    "x-audience": AUDIENCE,
    ...overrides,
  });
}

Deno.test("server verifier accepts the version 2 vector for its own audiences only", async () => {
  const body = new TextEncoder().encode(BODY);
  const ours = { ...katDeps(), audiences: new Set([AUDIENCE, "http://localhost:8000"]) };
  const caller = await verifySignedRequest(katRequestV2(), body, ours);
  assert.equal(caller.accountId, "0x01");
  const theirs = { ...katDeps(), audiences: new Set(["http://127.0.0.1:8001"]) };
  assert.equal(
    await reasonOf(verifySignedRequest(katRequestV2(), body, theirs)),
    "wrong_audience",
  );
  // Naming the other relayer's audience instead breaks the signature.
  assert.equal(
    await reasonOf(
      verifySignedRequest(katRequestV2({ "x-audience": "http://127.0.0.1:8001" }), body, theirs),
    ),
    "bad_signature",
  );
  // Without configured audiences, any well-formed audience is accepted.
  assert.equal(
    await reasonOf(verifySignedRequest(katRequestV2(), body, katDeps())),
    "accepted",
  );
});

Deno.test("signature versions: v1 unless required, v2 well-formed, neither read as the other", async () => {
  const body = new TextEncoder().encode(BODY);
  const requiring = () => ({ ...katDeps(), requireAudience: true });
  assert.equal(
    await reasonOf(verifySignedRequest(katRequest(), body, requiring())),
    "audience_required",
  );
  assert.equal(await reasonOf(verifySignedRequest(katRequestV2(), body, requiring())), "accepted");
  assert.equal(
    await reasonOf(
      verifySignedRequest(katRequest({ "x-signature-version": "1" }), body, katDeps()),
    ),
    "accepted",
  );
  const cases: [string, Request, string][] = [
    [
      "v1 signature sent as v2",
      katRequest({ "x-signature-version": "2", "x-audience": AUDIENCE }),
      "bad_signature",
    ],
    ["v2 signature sent as v1", katRequest({ "x-signature": SIGNATURE_V2 }), "bad_signature"],
    ["audience on v1", katRequest({ "x-audience": AUDIENCE }), "bad_signature"],
    ["version 3", katRequestV2({ "x-signature-version": "3" }), "bad_signature"],
    ["no audience", katRequestV2({ "x-audience": "" }), "bad_signature"],
    ["audience with a path", katRequestV2({ "x-audience": AUDIENCE + "/" }), "bad_signature"],
    ["audience not a URL", katRequestV2({ "x-audience": "127.0.0.1:8000" }), "bad_signature"],
    [
      "audience in upper case",
      katRequestV2({ "x-audience": "HTTP://127.0.0.1:8000" }),
      "bad_signature",
    ],
  ];
  for (const [name, request, reason] of cases) {
    assert.equal(await reasonOf(verifySignedRequest(request, body, katDeps())), reason, name);
  }
  const withoutNonce = katRequestV2();
  withoutNonce.headers.delete("x-nonce");
  assert.equal(
    await reasonOf(verifySignedRequest(withoutNonce, body, katDeps())),
    "missing_headers",
  );
  const withoutAudience = katRequestV2();
  withoutAudience.headers.delete("x-audience");
  assert.equal(
    await reasonOf(verifySignedRequest(withoutAudience, body, katDeps())),
    "missing_headers",
  );
});

Deno.test("a request refused on its headers leaves its body unread and writes nothing", async () => {
  const deps = katDeps();
  deps.directory.add({ accountId: "0x02", owner: "0xidle", active: false }, ["ab".repeat(32)]);
  let claims = 0;
  const replayGuard = {
    claim: (key: string, ttl: number) => (claims++, deps.replayGuard.claim(key, ttl)),
  };
  const now = () => (TIMESTAMP + 1) * 1000;
  const cases: [string, Record<string, string>, string][] = [
    ["unknown key", { "x-public-key": "0".repeat(64) }, "unknown_key"],
    ["stale", { "x-timestamp": String(TIMESTAMP - 400) }, "stale_timestamp"],
    ["missing", { "x-signature": "" }, "missing_headers"],
    ["malformed", { "x-signature": "abcd" }, "bad_signature"],
    // Headers well-formed first, then the clock: as docs/security.md lists the checks.
    [
      "malformed, stale",
      { "x-signature": "ab", "x-timestamp": String(TIMESTAMP - 400) },
      "bad_signature",
    ],
    ["deactivated", { "x-public-key": "ab".repeat(32) }, "forbidden"],
  ];
  for (const [name, headers, reason] of cases) {
    let pulled = false;
    const body = new ReadableStream({
      pull() {
        pulled = true;
      },
    }, { highWaterMark: 0 });
    const request = new Request("http://relayer.test/api/recall", {
      method: "POST",
      headers: katRequest(headers).headers,
      body,
    });
    assert.equal(
      await reasonOf(checkSignedHeaders(request, { ...deps, replayGuard, now })),
      reason,
      name,
    );
    assert.equal(request.bodyUsed, false, name);
    assert.equal(pulled, false, name);
  }
  assert.equal(claims, 0);
  // A signature that does not match is refused before the replay guard is asked too.
  const forged = katRequest({ "x-signature": "0" + SIGNATURE.slice(1) });
  assert.equal(
    await reasonOf(
      verifySignedRequest(forged, new TextEncoder().encode(BODY), { ...deps, replayGuard, now }),
    ),
    "bad_signature",
  );
  assert.equal(claims, 0);
});

Deno.test("DelegateKeyCheck: a kept answer never accepts another private key for the same key", async () => {
  const check = new DelegateKeyCheck(2);
  const pairs = await Promise.all([1, 2, 3].map(() => generateKeyPair()));
  for (let round = 0; round < 2; round++) {
    for (const [i, pair] of pairs.entries()) {
      assert.equal(await check.matches(pair.privateKey, pair.publicKey), true);
      const other = pairs[(i + 1) % pairs.length].privateKey;
      assert.equal(await check.matches(other, pair.publicKey), false);
      assert.equal(await check.matches(pair.privateKey, pair.publicKey), true);
    }
  }
});
