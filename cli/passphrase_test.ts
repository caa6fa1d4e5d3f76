import assert from "node:assert/strict";
import { type PromptTerminal, readPassphrase } from "./passphrase.ts";
import { UsageError } from "./client_flags.ts";

/** A fake terminal whose keyboard types `keys`; keeps what is shown and the raw mode. */
function terminal(keys: string, isTerminal = true) {
  const input = new TextEncoder().encode(keys);
  let at = 0;
  const shown: string[] = [];
  const modes: boolean[] = [];
  const fake: PromptTerminal = {
    stdin: {
      isTerminal: () => isTerminal,
      setRaw: (mode) => void modes.push(mode),
      read(buffer) {
        if (at >= input.length) return Promise.resolve(null);
        buffer[0] = input[at++]; // one key at a time, as a person types
        return Promise.resolve(1);
      },
    },
    stderr: {
      writeSync(bytes) {
        shown.push(new TextDecoder().decode(bytes));
        return bytes.length;
      },
    },
  };
  return { fake, shown, modes };
}

const noEnv = () => undefined;

Deno.test("prompt: typed without echo, backspace taken back, asked twice for a new export", async () => {
  const { fake, shown, modes } = terminal("hunter22x\x7f!\rhunter22!\r");
  const passphrase = await readPassphrase({ env: noEnv, terminal: fake, confirm: true });
  assert.equal(passphrase, "hunter22!");
  assert.deepEqual(shown, ["Passphrase: ", "\n", "The same passphrase again: ", "\n"]);
  assert.deepEqual(modes, [true, false, true, false], "raw mode always restored");
});

Deno.test("prompt: a multi-byte character is taken back whole", async () => {
  const { fake } = terminal("pässwörö\x7fd\r");
  assert.equal(await readPassphrase({ env: noEnv, terminal: fake }), "pässwörd");
});

Deno.test("prompt: two different passphrases, Ctrl-C, or too short are refused", async () => {
  const cases: [string, RegExp][] = [
    ["first-one\rsecond-one\r", /differ/],
    ["abc\x03", /cancelled/],
    ["short\rshort\r", /at least 8/],
  ];
  for (const [keys, message] of cases) {
    const { fake, modes } = terminal(keys);
    await assert.rejects(
      readPassphrase({ env: noEnv, terminal: fake, confirm: true }),
      (e) => e instanceof UsageError && message.test(e.message),
    );
    assert.equal(modes.at(-1), false);
  }
});

Deno.test("the file's first line, else the environment; no terminal and neither: refused", async () => {
  const dir = await Deno.makeTempDir();
  try {
    await Deno.writeTextFile(`${dir}/p`, "from the file\r\nsecond line\n");
    const env = (name: string) => name === "SVC_EXPORT_PASSPHRASE" ? "from the env" : undefined;
    const { fake } = terminal("", false);
    assert.equal(
      await readPassphrase({ file: `${dir}/p`, env, terminal: fake }),
      "from the file",
    );
    assert.equal(await readPassphrase({ env, terminal: fake }), "from the env");
    await assert.rejects(readPassphrase({ env: noEnv, terminal: fake }), /no passphrase/);
    await Deno.writeTextFile(`${dir}/empty`, "\n");
    await assert.rejects(
      readPassphrase({ file: `${dir}/empty`, env, terminal: fake }),
      /is empty/,
    );
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
