import assert from "node:assert/strict";

/**
 * Runs `code` (a module using `serveLasting`, as `./lasting_serve.ts`) in a process that may hold
 * at most 64 open files; resolves to what it prints.
 */
async function underFileLimit(code: string): Promise<string> {
  const module = `import { serveLasting } from ${
    JSON.stringify(import.meta.resolve("./lasting_serve.ts"))
  };\n${code}`;
  const { stdout, stderr } = await new Deno.Command("bash", {
    args: ["-c", 'ulimit -n 64 && exec "$@"', "bash", Deno.execPath(), "eval", module],
  }).output();
  return new TextDecoder().decode(stdout).trim() || new TextDecoder().decode(stderr);
}

/** The module's server taking every descriptor through connections to itself, then `after`. */
const FLOOD = `
const events = [];
const failed = Promise.withResolvers();
const server = serveLasting({ hostname: "127.0.0.1", port: 0, onListen() {} }, () => new Response("ok"), {
  failed: () => { events.push("failed"); failed.resolve(); },
  resumed: () => events.push("resumed"),
});
const held = [];
while (!events.includes("failed")) {
  try { held.push(await Deno.connect({ hostname: "127.0.0.1", port: server.addr.port })); }
  catch { await new Promise((r) => setTimeout(r, 10)); }
}
await failed.promise;
for (const conn of held) conn.close();
`;

Deno.test("serveLasting: past the open-file limit it serves again once connections close", async () => {
  const printed = await underFileLimit(`${FLOOD}
    let answer;
    for (let i = 0; i < 50 && !answer?.ok; i++) {
      await new Promise((r) => setTimeout(r, 100));
      answer = await fetch(\`http://127.0.0.1:\${server.addr.port}/\`).catch(() => undefined);
    }
    console.log(events.join(","), await answer?.text());
    await server.shutdown();`);
  assert.equal(printed, "failed,resumed ok");
});

Deno.test("serveLasting: shut down while waiting to serve again, it does not", async () => {
  const printed = await underFileLimit(`${FLOOD}
    await server.shutdown();
    await new Promise((r) => setTimeout(r, 1500));
    const answer = await fetch(\`http://127.0.0.1:\${server.addr.port}/\`).then(() => "served", () => "refused");
    console.log(events.join(","), answer);
    Deno.exit(0);`);
  assert.equal(printed, "failed refused");
});
