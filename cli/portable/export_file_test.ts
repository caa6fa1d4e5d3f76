import assert from "node:assert/strict";
import { SvcError } from "@svc/relayer/kit";
import {
  decryptExport,
  DEFAULT_ITERATIONS,
  encryptExport,
  EXPORT_VERSION,
  type ExportWriteOptions,
} from "./export_file.ts";

const PASSPHRASE = "correct horse battery staple";
const FAST: ExportWriteOptions = { iterations: 1000, chunkBytes: 1024 };

/** `plaintext` written as an export file, fed in pieces of 100 bytes. */
async function encrypt(
  plaintext: Uint8Array,
  options: ExportWriteOptions = FAST,
  passphrase = PASSPHRASE,
): Promise<Uint8Array<ArrayBuffer>> {
  const pieces = [];
  for (let i = 0; i < plaintext.length; i += 100) pieces.push(plaintext.slice(i, i + 100));
  const file = ReadableStream.from(pieces).pipeThrough(await encryptExport(passphrase, options));
  return new Uint8Array(await new Response(file).arrayBuffer());
}

/** The file read back whole, in pieces of 777 bytes. */
async function decrypt(file: Uint8Array, passphrase = PASSPHRASE): Promise<Uint8Array> {
  const pieces = [];
  for (let i = 0; i < file.length; i += 777) pieces.push(file.slice(i, i + 777));
  const { plaintext } = await decryptExport(ReadableStream.from(pieces), passphrase);
  return new Uint8Array(await new Response(plaintext).arrayBuffer());
}

async function refusal(promise: Promise<unknown>): Promise<SvcError> {
  const error = await promise.then(() => null, (e) => e);
  assert.ok(error instanceof SvcError, `expected an SvcError, got ${error}`);
  return error;
}

function randomText(bytes: number): Uint8Array {
  const words = ["bees", "coffee", "Lisbon", "vegetarian", "bicycle", "\n"];
  let text = "";
  while (text.length < bytes) text += words[text.length % words.length] + " ";
  return new TextEncoder().encode(text.slice(0, bytes));
}

Deno.test("export file: plaintext of any length comes back whole", async () => {
  for (const length of [0, 1, 1023, 1024, 1025, 2048, 5000]) {
    const plaintext = randomText(length);
    const file = await encrypt(plaintext);
    assert.deepEqual(await decrypt(file), plaintext, `length ${length}`);
    const chunks = Math.max(1, Math.ceil(length / 1024));
    const header = file.indexOf(0x0a) + 1;
    assert.equal(file.length - header, length + 16 * chunks, `chunks of ${length}`);
  }
});

Deno.test("export file: the header names the format, its version and the KDF", async () => {
  const file = await encrypt(randomText(10), {});
  const header = JSON.parse(new TextDecoder().decode(file.subarray(0, file.indexOf(0x0a))));
  assert.equal(header.format, "svc-export");
  assert.equal(header.version, EXPORT_VERSION);
  assert.deepEqual(
    [header.kdf.name, header.kdf.iterations, header.cipher, header.chunk_bytes],
    ["PBKDF2-SHA256", DEFAULT_ITERATIONS, "AES-256-GCM", 65536],
  );
  assert.equal(Uint8Array.fromBase64(header.kdf.salt).length, 16);
  // Nothing of the plaintext is in the file.
  assert.equal(new TextDecoder().decode(file).includes("bees"), false);
});

Deno.test("export file: a wrong passphrase is a clear error, at once", async () => {
  const file = await encrypt(randomText(3000));
  const error = await refusal(decrypt(file, "correct horse battery stapler"));
  assert.equal(error.code, "unauthorized");
  assert.equal(error.details.reason, "wrong_passphrase");
  assert.match(error.message, /passphrase is wrong/);
});

Deno.test("export file: any flipped byte is refused", async () => {
  const plaintext = randomText(3000);
  const file = await encrypt(plaintext);
  const header = file.indexOf(0x0a) + 1;
  const positions = [10, header - 5, header, header + 500, header + 1024 + 16, file.length - 1];
  for (const at of positions) {
    const altered = file.slice();
    altered[at] ^= 0x01;
    const error = await refusal(decrypt(altered));
    assert.ok(["bad_request", "unauthorized"].includes(error.code), `byte ${at}: ${error.code}`);
    if (at >= header) assert.match(error.message, /does not authenticate/, `byte ${at}`);
  }
});

Deno.test("export file: a file cut short, grown, or with chunks swapped is refused", async () => {
  const file = await encrypt(randomText(3000));
  const header = file.indexOf(0x0a) + 1;
  const chunk = 1024 + 16;
  // Cut at a chunk boundary: the last chunk left was not written as the last.
  const cut = file.slice(0, header + 2 * chunk);
  assert.match((await refusal(decrypt(cut))).message, /chunk 2 does not authenticate/);
  assert.match((await refusal(decrypt(file.slice(0, header + 5)))).message, /ends inside/);
  const grown = new Uint8Array([...file, ...file.slice(header, header + 40)]);
  await refusal(decrypt(grown));
  const swapped = file.slice();
  swapped.set(file.slice(header + chunk, header + 2 * chunk), header);
  swapped.set(file.slice(header, header + chunk), header + chunk);
  assert.match((await refusal(decrypt(swapped))).message, /chunk 1 does not authenticate/);
});

Deno.test("export file: not an export, or a newer version, is named as such", async () => {
  const notOurs = new TextEncoder().encode('{"type":"entity","name":"Alice"}\n');
  assert.match((await refusal(decrypt(notOurs))).message, /not an svc export/);
  const binary = crypto.getRandomValues(new Uint8Array(8000)).map((b) => b === 10 ? 11 : b);
  assert.match((await refusal(decrypt(binary))).message, /not an svc export/);

  const file = await encrypt(randomText(10));
  const end = file.indexOf(0x0a);
  const header = JSON.parse(new TextDecoder().decode(file.subarray(0, end)));
  const newer = new TextEncoder().encode(JSON.stringify({ ...header, version: 2 }) + "\n");
  const error = await refusal(decrypt(new Uint8Array([...newer, ...file.subarray(end + 1)])));
  assert.match(error.message, /format version 2/);
});

Deno.test("export file: the key of a first read opens the same file again, not another", async () => {
  const plaintext = randomText(2500);
  const file = await encrypt(plaintext);
  const first = await decryptExport(ReadableStream.from([file]), PASSPHRASE);
  await first.plaintext.cancel();
  const again = await decryptExport(ReadableStream.from([file]), first.key);
  assert.deepEqual(new Uint8Array(await new Response(again.plaintext).arrayBuffer()), plaintext);
  const other = await encrypt(plaintext);
  await refusal(decryptExport(ReadableStream.from([other]), first.key));
});
