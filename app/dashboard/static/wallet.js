// The owner's wallet, in the browser: an Ed25519 key made and kept by WebCrypto in IndexedDB,
// its Sui-style address, backups, and owner-signed ledger transactions sponsored by the relayer.
// Served by the dashboard from the pinned npm package (a computed specifier, so that type
// checking the project does not try to resolve a browser path).
const BLAKE2 = "/vendor/noble-hashes/blake2.js";
const { blake2b } = await import(BLAKE2);

const DB_NAME = "svc-wallet";
const STORE = "keys";
const PKCS8_PREFIX = "302e020100300506032b657004220420";

const hex = (bytes) => Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
const fromHex = (text) => new Uint8Array(text.match(/../g).map((b) => parseInt(b, 16)));
const utf8 = (text) => new TextEncoder().encode(text);
const base64 = (bytes) => btoa(String.fromCharCode(...bytes));
const fromBase64Url = (text) =>
  Uint8Array.from(atob(text.replace(/-/g, "+").replace(/_/g, "/")), (c) => c.charCodeAt(0));

export function addressOf(publicKey) {
  return "0x" + hex(blake2b(new Uint8Array([0, ...fromHex(publicKey)]), { dkLen: 32 }));
}

/** `XXXX-XXXX`: the code the MCP client shows next to its sign-in link. */
export async function confirmationCode(publicKey) {
  const digest = hex(
    new Uint8Array(await crypto.subtle.digest("SHA-256", utf8(`svc-login:${publicKey}`))),
  )
    .toUpperCase();
  return `${digest.slice(0, 4)}-${digest.slice(4, 8)}`;
}

function database() {
  return new Promise((resolve, reject) => {
    const request = indexedDB.open(DB_NAME, 1);
    request.onupgradeneeded = () => request.result.createObjectStore(STORE);
    request.onsuccess = () => resolve(request.result);
    request.onerror = () => reject(request.error);
  });
}

async function store(mode, action) {
  const db = await database();
  return await new Promise((resolve, reject) => {
    const request = action(db.transaction(STORE, mode).objectStore(STORE));
    request.onsuccess = () => resolve(request.result);
    request.onerror = () => reject(request.error);
  }).finally(() => db.close());
}

async function fromSeed(seed) {
  const privateKey = await crypto.subtle.importKey(
    "pkcs8",
    fromHex(PKCS8_PREFIX + seed),
    "Ed25519",
    true,
    ["sign"],
  );
  const jwk = await crypto.subtle.exportKey("jwk", privateKey);
  const publicKey = hex(fromBase64Url(jwk.x));
  return { privateKey, publicKey, address: addressOf(publicKey) };
}

/**
 * Keeps `wallet` as this browser's; never replaces another one (a second tab opened before the
 * first made its wallet would otherwise lose the key that owns the first's account).
 */
async function keep(wallet) {
  const owner = { privateKey: wallet.privateKey, publicKey: wallet.publicKey };
  try {
    await store("readwrite", (s) => s.add(owner, "owner"));
  } catch (error) {
    if (error?.name !== "ConstraintError") throw error;
    const kept = await loadWallet();
    if (kept?.publicKey !== wallet.publicKey) {
      throw new Error(
        `This browser keeps another wallet already (${kept?.address}), made in another tab: ` +
          "reload this page to use it. Nothing was replaced.",
      );
    }
  }
  return wallet;
}

/** Deletes the wallet kept at this address (the loopback page's copy, once moved). */
export async function forgetWallet() {
  await store("readwrite", (s) => s.delete("owner"));
}

/** The wallet kept in this browser, or `null`. */
export async function loadWallet() {
  const saved = await store("readonly", (s) => s.get("owner"));
  return saved ? { ...saved, address: addressOf(saved.publicKey) } : null;
}

export async function createWallet() {
  return await keep(await fromSeed(hex(crypto.getRandomValues(new Uint8Array(32)))));
}

/** The owner key's 32-byte seed, as its backup holds it. */
export async function ownerSeed(wallet) {
  const pkcs8 = new Uint8Array(await crypto.subtle.exportKey("pkcs8", wallet.privateKey));
  return pkcs8.slice(-32);
}

/** A JSON backup of the owner key: whoever has it controls the account. */
export async function exportBackup(wallet) {
  return JSON.stringify(
    {
      type: "svc-owner-key",
      version: 1,
      address: wallet.address,
      privateKey: hex(await ownerSeed(wallet)),
    },
    null,
    2,
  );
}

/** Restores a wallet from `exportBackup` output (or the bare 64-hex private key). */
export async function importBackup(text) {
  let seed = text.trim(), address;
  if (seed.startsWith("{")) {
    let parsed;
    try {
      parsed = JSON.parse(seed);
    } catch {
      throw new Error("The backup is not valid JSON.");
    }
    seed = String(parsed.privateKey ?? "");
    address = parsed.address;
  }
  if (!/^[0-9a-f]{64}$/.test(seed)) {
    throw new Error("The backup must hold a private key of 64 lowercase hex characters.");
  }
  const wallet = await fromSeed(seed);
  if (address && address !== wallet.address) {
    throw new Error("The backup's address does not match its key: it may be damaged.");
  }
  return await keep(wallet);
}

async function sign(wallet, bytes) {
  return new Uint8Array(await crypto.subtle.sign("Ed25519", wallet.privateKey, bytes));
}

/**
 * Whether an agent on this computer is waiting for this very sign-in link: its listener must
 * answer an HMAC, keyed by the link's state, of a fresh nonce and the link's other parameters. A
 * link sent by anyone else, or altered (label, relayer, scope), fails this (`false`). An agent of
 * 0.1.0, whose proof covers the public key alone, is told apart (`"older"`) and refused too.
 */
export async function agentIsWaiting(port, state, params) {
  const linkParams = new URLSearchParams(params);
  linkParams.delete("state");
  const nonce = hex(crypto.getRandomValues(new Uint8Array(16)));
  const answer = await fetch(`http://127.0.0.1:${port}/verify`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ nonce }),
  }).catch(() => null);
  if (!answer?.ok) return false;
  const { proof } = await answer.json().catch(() => ({}));
  const key = await crypto.subtle.importKey(
    "raw",
    fromHex(state),
    { name: "HMAC", hash: "SHA-256" },
    false,
    ["sign"],
  );
  const proofOf = async (over) =>
    hex(new Uint8Array(await crypto.subtle.sign("HMAC", key, utf8(`svc-login-verify:${over}`))));
  if (proof === await proofOf(`${nonce}:${linkParams}`)) return true;
  const older = proof === await proofOf(`${nonce}:${linkParams.get("publicKey")}`);
  return older ? "older" : false;
}

/** Tells the waiting agent that the person denied its sign-in; whether it heard. */
export async function denySignIn(port, state) {
  const answer = await fetch(`http://127.0.0.1:${port}/deny`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ state }),
  }).catch(() => null);
  return answer?.ok ?? false;
}

/**
 * `fetch` to this dashboard, a failure to connect told as such (the browser says only "Failed to
 * fetch").
 */
export function reach(url, init) {
  return fetch(url, init).catch(() => {
    throw new Error(`Cannot reach svc at ${location.origin}: is the relayer still running?`);
  });
}

/** POSTs JSON; throws an Error with the server's sentence on failure. */
async function post(url, body) {
  const response = await reach(url, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(body),
  });
  const answer = await response.json().catch(() => ({}));
  if (!response.ok) {
    const error = new Error(answer.error ?? `The server answered ${response.status}.`);
    error.status = response.status;
    error.reason = answer.reason; // a refused transaction's: `account_exists`, `unknown_key`…
    throw error;
  }
  return answer;
}

/**
 * Sponsors `kind`, checks that the sponsored transaction is that kind from this wallet and
 * that the digest is its hash, signs the digest with the owner key and executes it.
 */
export async function transact(wallet, kind) {
  const sponsored = await post("/sponsor", {
    transactionKind: base64(utf8(JSON.stringify(kind))),
    sender: wallet.address,
  });
  const bytes = Uint8Array.from(atob(sponsored.bytes), (c) => c.charCodeAt(0));
  const data = JSON.parse(new TextDecoder().decode(bytes));
  if (
    data.sender !== wallet.address || JSON.stringify(data.kind) !== JSON.stringify(kind) ||
    hex(blake2b(bytes, { dkLen: 32 })) !== sponsored.digest
  ) {
    throw new Error(
      "The sponsor returned a different transaction than asked for; nothing was signed.",
    );
  }
  const signature = await sign(wallet, fromHex(sponsored.digest));
  return await post("/sponsor/execute", {
    digest: sponsored.digest,
    signature: base64(new Uint8Array([0, ...signature, ...fromHex(wallet.publicKey)])),
  });
}

/**
 * The namespaces of `session`'s account (its wallet and account) with their memory counts, from
 * the relayer, signed by the owner key, sorted by name. An operator-blind one has `blind: true`
 * and its log's count, and `erasing: true` when its erase was cut short.
 */
export async function namespaces({ wallet, owned }) {
  const { audience } = await (await fetch("/api/config")).json();
  const get = (path) =>
    relayerRequest(wallet, { method: "GET", path, audience, accountId: owned.id });
  const [normal, blind] = await Promise.all([
    get("/api/namespaces"),
    get("/api/blind/namespaces").catch((error) => blindUnavailable(error) && { namespaces: [] }),
  ]);
  const merged = new Map(normal.namespaces.map((entry) => [entry.namespace, entry]));
  for (const { namespace, count, erasing } of blind.namespaces) {
    merged.set(namespace, { namespace, count, blind: true, erasing });
  }
  return { namespaces: [...merged.values()].sort((a, b) => a.namespace < b.namespace ? -1 : 1) };
}

/**
 * `true` when the relayer's refusal `error` means it shows the owner key no operator-blind
 * namespace: it keeps none (404), or does not open them to that key (403). Throws it otherwise.
 */
export function blindUnavailable(error) {
  if (error.status === 404 || error.status === 403) return true;
  throw error;
}

const HEX_BYTES = (text, bytes) =>
  typeof text === "string" && new RegExp(`^[0-9a-f]{${bytes * 2}}$`).test(text);

async function sha256Hex(bytes) {
  return hex(new Uint8Array(await crypto.subtle.digest("SHA-256", bytes)));
}

/**
 * Sends a request to the relayer, through this dashboard (which forwards it), signed with the
 * owner key as DESIGN §5.4 says (the port of `src/auth/signing.ts`): version 2 for `audience`
 * (the relayer's origin, as `/api/config` advertises it) with a fresh nonce, else version 1
 * with a nonce. `path` is the path as sent, with its query. Throws an Error with the relayer's
 * sentence (and its `status`, `code` and `reason`) on failure.
 */
export async function relayerRequest(wallet, { method, path, body, audience, accountId }) {
  const payload = body === undefined ? "" : JSON.stringify(body);
  const timestamp = Math.floor(Date.now() / 1000);
  const nonce = hex(crypto.getRandomValues(new Uint8Array(16)));
  const request = `${timestamp}.${method}.${path}.${await sha256Hex(utf8(payload))}`;
  const message = audience ? `svc-v2.${audience}.${request}.${nonce}` : `${request}.${nonce}`;
  const headers = {
    "x-public-key": wallet.publicKey,
    "x-signature": hex(await sign(wallet, utf8(message))),
    "x-timestamp": String(timestamp),
    "x-nonce": nonce,
  };
  if (audience) {
    headers["x-signature-version"] = "2";
    headers["x-audience"] = audience;
  }
  if (accountId) headers["x-account-id"] = accountId;
  if (body !== undefined) headers["content-type"] = "application/json";
  const response = await reach(path, {
    method,
    headers,
    body: body === undefined ? undefined : payload,
  });
  const answer = await response.json().catch(() => ({}));
  if (!response.ok) {
    const error = new Error(answer.error ?? `The relayer answered ${response.status}.`);
    error.status = response.status;
    error.code = answer.code;
    error.reason = answer.reason;
    error.current = answer.current;
    throw error;
  }
  return answer;
}

/**
 * Whether an erase receipt is signed by the relayer whose receipt key (`/health`'s
 * `receiptKey`) is `receiptKey`: Ed25519 over
 * `svc-erase-receipt:v1\n<memory_id>\n<owner>\n<blob_id>\n<erased_at>`. Never throws.
 */
export async function verifyReceipt(receipt, receiptKey) {
  const fields = [receipt?.memory_id, receipt?.owner, receipt?.blob_id, receipt?.erased_at];
  if (!fields.every((f) => typeof f === "string" && !f.includes("\n"))) return false;
  if (!HEX_BYTES(receipt.signature, 64) || !HEX_BYTES(receiptKey, 32)) return false;
  try {
    const key = await crypto.subtle.importKey("raw", fromHex(receiptKey), "Ed25519", false, [
      "verify",
    ]);
    const message = ["svc-erase-receipt:v1", ...fields].join("\n");
    return await crypto.subtle.verify("Ed25519", key, fromHex(receipt.signature), utf8(message));
  } catch {
    return false;
  }
}
