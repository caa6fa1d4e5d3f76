import assert from "node:assert/strict";
import { generateKeyPair } from "@svc/util/keys";
import { encryptExport } from "./portable/export_file.ts";
import { runPortabilityCommand } from "./svc_portability.ts";

Deno.test("import: a wrong passphrase is said on a line of its own, after the check's bar", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const file = `${dir}/memories.svc`;
    const lines = ReadableStream.from([new TextEncoder().encode('{"text":"I am vegetarian"}\n')]);
    await Deno.writeFile(file, lines.pipeThrough(await encryptExport("the right passphrase")));
    await Deno.writeTextFile(`${dir}/passphrase`, "not the passphrase\n");
    const written: string[] = [];
    const stderr = {
      isTerminal: () => true,
      writeSync(bytes: Uint8Array) {
        written.push(new TextDecoder().decode(bytes));
        return bytes.length;
      },
    };
    const stdin = {
      isTerminal: () => false,
      setRaw() {},
      read: () => Promise.resolve(null),
      readable: ReadableStream.from<Uint8Array>([]),
    };
    const env: Record<string, string> = {
      SVC_DELEGATE_KEY: (await generateKeyPair()).privateKey,
      SVC_ACCOUNT_ID: `0x${"ab".repeat(32)}`,
      SVC_SERVER_URL: "http://127.0.0.1:9",
    };
    await assert.rejects(
      runPortabilityCommand({
        command: "import",
        words: [file],
        flags: { "passphrase-file": `${dir}/passphrase` },
        io: { env, stdin, stderr, stdout: stderr, cwd: dir },
      }),
      /passphrase is wrong/,
    );
    const drawn = written.join("");
    assert.match(drawn, /^\rcheck /, "no bar was drawn");
    assert.ok(drawn.endsWith("\n"), "the bar's line was left open for the error");
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
