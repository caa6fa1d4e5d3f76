import assert from "node:assert/strict";
import {
  FileWriteError,
  removeStalePartials,
  STALE_PARTIAL_MS,
  writeFileAtomically,
} from "./partial_file.ts";

Deno.test("removeStalePartials removes an export's old temporary files that no process holds", async () => {
  const dir = await Deno.makeTempDir({ prefix: "svc-partial-" });
  const held = await Deno.open(`${dir}/x.svc.partial-89abcdef`, { write: true, create: true });
  try {
    const names = [
      "x.svc.partial-0123abcd", // stale: removed
      "x.svc.partial-89abcdef", // held by a running export
      "x.svc.partial-ffffffff", // written a moment ago
      "x.svc.partial-0123abcd.bak",
      "x.svc.partial-0123ABCD",
      "y.svc.partial-01234567",
      "x.svc",
    ];
    for (const name of names) await Deno.writeTextFile(`${dir}/${name}`, "bytes");
    await held.lock(true);
    const old = new Date(Date.now() - STALE_PARTIAL_MS - 1000);
    for (const name of names.filter((name) => !name.endsWith("ffffffff"))) {
      await Deno.utime(`${dir}/${name}`, old, old);
    }
    await Deno.mkdir(`${dir}/x.svc.partial-00000000`);
    await Deno.symlink(`${dir}/y.svc.partial-01234567`, `${dir}/x.svc.partial-11111111`);

    assert.deepEqual(await removeStalePartials(`${dir}/x.svc`), ["x.svc.partial-0123abcd"]);
    const left = (await Array.fromAsync(Deno.readDir(dir))).map((entry) => entry.name).sort();
    assert.deepEqual(
      left,
      [...names.slice(1), "x.svc.partial-00000000", "x.svc.partial-11111111"].sort(),
    );
    assert.deepEqual(await removeStalePartials(`${dir}/nowhere/x.svc`), []);
  } finally {
    held.close();
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("writeFileAtomically holds its temporary file locked while it writes", async () => {
  const dir = await Deno.makeTempDir({ prefix: "svc-partial-" });
  try {
    const gate = Promise.withResolvers<void>();
    const stream = new ReadableStream<Uint8Array>({
      async pull(controller) {
        controller.enqueue(new TextEncoder().encode("first\n"));
        await gate.promise;
        controller.close();
      },
    });
    const writing = writeFileAtomically(`${dir}/x.svc`, stream);
    let name: string | undefined;
    while (!name) {
      await new Promise((resolve) => setTimeout(resolve, 5));
      name = (await Array.fromAsync(Deno.readDir(dir))).map((entry) => entry.name)[0];
    }
    const old = new Date(Date.now() - STALE_PARTIAL_MS - 1000);
    await Deno.utime(`${dir}/${name}`, old, old);
    assert.deepEqual(await removeStalePartials(`${dir}/x.svc`), [], "not while it is written");
    gate.resolve();
    assert.equal(await writing, 6);
    assert.equal(await Deno.readTextFile(`${dir}/x.svc`), "first\n");
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("writeFileAtomically tells a file it cannot write from a stream that broke off", async () => {
  const dir = await Deno.makeTempDir({ prefix: "svc-partial-" });
  try {
    const lines = () => ReadableStream.from([new TextEncoder().encode("first\n")]);
    await Deno.writeTextFile(`${dir}/a-file`, "");
    await assert.rejects(
      writeFileAtomically(`${dir}/a-file/x.svc`, lines()),
      (error: Error) =>
        error instanceof FileWriteError &&
        error.message.startsWith(`Cannot write ${dir}/a-file/x.svc: `),
    );
    const broken = new ReadableStream<Uint8Array>({
      pull: (controller) => controller.error(new TypeError("error reading a body from connection")),
    });
    await assert.rejects(
      writeFileAtomically(`${dir}/x.svc`, broken),
      (error: Error) => !(error instanceof FileWriteError) && /reading a body/.test(error.message),
    );
    // Neither left a temporary file behind.
    assert.deepEqual((await Array.fromAsync(Deno.readDir(dir))).map((e) => e.name), ["a-file"]);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
