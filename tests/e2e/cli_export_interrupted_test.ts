/**
 * `svc export` (cli/svc.ts run as a process) stopped before it ends — by the relayer, a signal
 * it catches, or SIGKILL — against a relayer on a loopback port that sends one line and waits:
 * no file is left behind, or the next export removes it. And `svc import` stopped by Ctrl-C says
 * how far it got.
 */
import assert from "node:assert/strict";
import type { Caller } from "../fixtures.ts";
import { taskCommand } from "../task_flags.ts";
import { PASSPHRASE, type Stack, svc } from "../cli_fixtures.ts";

/**
 * A relayer that answers the health check, then sends one line of an export of 5 and does what
 * `after` does (breaks off, or waits), told which export it is (from 1).
 */
function exportingOneLine(
  after: (controller: ReadableStreamDefaultController, nth: number) => Promise<void>,
) {
  let exports = 0;
  return Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, (request) => {
    if (new URL(request.url).pathname === "/health") {
      return Response.json({ backends: { cipher: "local" } });
    }
    const nth = ++exports;
    let sent = false;
    return new Response(
      new ReadableStream({
        async pull(controller) {
          if (sent) return await after(controller, nth);
          sent = true;
          controller.enqueue(new TextEncoder().encode('{"text":"first"}\n'));
        },
      }),
      { headers: { "x-svc-export-count": "5" } },
    );
  });
}

Deno.test("CLI: an export cut short by the relayer leaves no file behind", async () => {
  const dir = await Deno.makeTempDir({ prefix: "svc-export-cut-" });
  const server = exportingOneLine(async (controller) => {
    await new Promise((resolve) => setTimeout(resolve, 20));
    controller.error(new Error("the relayer went away"));
  });
  try {
    const who = { key: { privateKey: "11".repeat(32) }, accountId: "0x01" } as Caller;
    const stack = { url: `http://127.0.0.1:${server.addr.port}` } as Stack;
    const run = await svc(stack, who, ["export", "-o", `${dir}/cut.svc`], PASSPHRASE);
    assert.equal(run.code, 1, run.stdout);
    assert.match(run.stderr, /Cannot finish the export: it broke off after 1 memories/);
    assert.deepEqual([...Deno.readDirSync(dir)], [], "neither the file nor its temporary");
  } finally {
    await server.shutdown();
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("CLI: an export that cannot write its file says so, with code write_failed", async () => {
  const dir = await Deno.makeTempDir({ prefix: "svc-export-unwritable-" });
  const server = exportingOneLine((controller) => Promise.resolve(controller.close()));
  try {
    const who = { key: { privateKey: "11".repeat(32) }, accountId: "0x01" } as Caller;
    const stack = { url: `http://127.0.0.1:${server.addr.port}` } as Stack;
    // A name of 250 bytes may be made, but not its temporary file's, 17 bytes longer.
    const output = `${dir}/${"x".repeat(246)}.svc`;
    const run = await svc(stack, who, ["export", "-o", output, "--json"], PASSPHRASE);
    assert.equal(run.code, 1, run.stderr);
    const answer = JSON.parse(run.stdout);
    assert.equal(answer.code, "write_failed");
    assert.match(answer.error, new RegExp(`^Cannot write ${output}: .*; nothing was written to`));
    assert.deepEqual([...Deno.readDirSync(dir)], []);
    // A file where the folder should be is named as such.
    await Deno.writeTextFile(`${dir}/a-file`, "");
    const inFile = await svc(stack, who, ["export", "-o", `${dir}/a-file/x.svc`], PASSPHRASE);
    assert.equal(inFile.code, 2);
    assert.match(inFile.stderr, new RegExp(`^svc: there is no folder ${dir}/a-file to write `));
  } finally {
    await server.shutdown();
    await Deno.remove(dir, { recursive: true });
  }
});

/** `svc export -o x.svc` (and `flags`) in `dir` against `url`, its stdout and stderr piped. */
function exportIn(dir: string, url: string, flags: string[] = []): Deno.ChildProcess {
  return new Deno.Command(Deno.execPath(), {
    args: taskCommand("svc", ["export", "-o", "x.svc", ...flags]),
    env: {
      SVC_SERVER_URL: url,
      SVC_DELEGATE_KEY: "11".repeat(32),
      SVC_ACCOUNT_ID: "0x01",
      SVC_EXPORT_PASSPHRASE: PASSPHRASE,
    },
    clearEnv: true,
    cwd: dir,
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
}

/** The names in `dir`. */
const namesIn = (dir: string) => [...Deno.readDirSync(dir)].map((entry) => entry.name);

/** Waits until the export has begun writing its temporary file (not one of `others`); its name. */
async function partialOf(dir: string, child: Deno.ChildProcess, others: string[] = []) {
  let exited = false;
  child.status.then(() => exited = true);
  for (;;) {
    const name = namesIn(dir).find((name) =>
      name.startsWith("x.svc.partial-") && !others.includes(name)
    );
    if (name) return name;
    assert.ok(!exited, "the export ended before it wrote anything");
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

Deno.test("CLI: an export interrupted by Ctrl-C, SIGTERM or SIGHUP leaves no file behind", async () => {
  const dir = await Deno.makeTempDir({ prefix: "svc-export-interrupted-" });
  const waiting = Promise.withResolvers<void>();
  const server = exportingOneLine(async (controller) => {
    await waiting.promise;
    controller.close();
  });
  try {
    const url = `http://127.0.0.1:${server.addr.port}`;
    for (const [signal, code] of [["SIGINT", 130], ["SIGTERM", 143], ["SIGHUP", 129]] as const) {
      const child = exportIn(dir, url);
      await partialOf(dir, child);
      child.kill(signal);
      const { code: exited, stderr } = await child.output();
      assert.equal(exited, code, signal);
      assert.match(
        new TextDecoder().decode(stderr),
        /\nsvc: export interrupted; nothing was written to x\.svc\n$/,
      );
      assert.deepEqual(namesIn(dir), [], `${signal}: neither the file nor its temporary`);
    }
    // With --json, stdout holds one JSON object saying so.
    const child = exportIn(dir, url, ["--json"]);
    await partialOf(dir, child);
    child.kill("SIGINT");
    const { code, stdout } = await child.output();
    assert.equal(code, 130);
    assert.deepEqual(JSON.parse(new TextDecoder().decode(stdout)), {
      error: "export interrupted; nothing was written to x.svc",
      code: "interrupted",
    });
  } finally {
    waiting.resolve();
    await server.shutdown();
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("CLI: the temporary file of an export killed by SIGKILL is removed by the next export", async () => {
  const dir = await Deno.makeTempDir({ prefix: "svc-export-killed-" });
  const waiting = Promise.withResolvers<void>();
  // The first two exports wait (one to be killed, one running); the next ones end.
  const server = exportingOneLine(async (controller, nth) => {
    if (nth <= 2) await waiting.promise;
    controller.close();
  });
  try {
    const url = `http://127.0.0.1:${server.addr.port}`;
    const killed = exportIn(dir, url);
    const left = await partialOf(dir, killed);
    killed.kill("SIGKILL");
    await killed.output();
    assert.deepEqual(namesIn(dir), [left], "SIGKILL cannot be caught");
    const running = exportIn(dir, url);
    const held = await partialOf(dir, running, [left]);
    const old = new Date(Date.now() - 60_000);
    for (const name of namesIn(dir)) await Deno.utime(`${dir}/${name}`, old, old);

    const next = await exportIn(dir, url).output();
    const stderr = new TextDecoder().decode(next.stderr);
    assert.equal(next.code, 0, stderr);
    assert.match(stderr, new RegExp(`^svc: removed ${left}, left by an export that was killed`));
    assert.deepEqual(namesIn(dir).sort(), [held, "x.svc"].sort(), "the running export's stays");
    const written = await Deno.readFile(`${dir}/x.svc`);
    waiting.resolve();
    // The running export ends after the next one made x.svc: it does not replace it.
    const late = await running.output();
    assert.equal(late.code, 1);
    assert.match(
      new TextDecoder().decode(late.stderr),
      /^svc: x\.svc was made by another program while the export ran: it was left as it is/,
    );
    assert.deepEqual(await Deno.readFile(`${dir}/x.svc`), written);
    assert.deepEqual(namesIn(dir), ["x.svc"]);
  } finally {
    waiting.resolve();
    await server.shutdown();
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("CLI: an import interrupted by Ctrl-C, SIGTERM or SIGHUP says how many lines were taken", async () => {
  const dir = await Deno.makeTempDir({ prefix: "svc-import-interrupted-" });
  const file = `${dir}/lines.jsonl`;
  const lines = Array.from({ length: 600 }, (_, i) => JSON.stringify({ text: `fact ${i}` }));
  await Deno.writeTextFile(file, lines.join("\n") + "\n");
  // A relayer that takes each import's first request (500 lines) and holds its second.
  let second = Promise.withResolvers<void>();
  const waiting = Promise.withResolvers<void>();
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, async (request) => {
    const taken = (await request.text()).trim().split("\n").length;
    if (taken === 500) {
      const job_ids = Array.from({ length: taken }, () => crypto.randomUUID());
      return Response.json({ imported: taken, duplicates: 0, failed: [], job_ids });
    }
    second.resolve();
    await waiting.promise;
    return Response.json({ imported: 0, duplicates: 0, failed: [], job_ids: [] });
  });
  try {
    for (
      const [signal, expected] of [["SIGINT", 130], ["SIGTERM", 143], ["SIGHUP", 129]] as const
    ) {
      second = Promise.withResolvers<void>();
      const child = new Deno.Command(Deno.execPath(), {
        args: taskCommand("svc", ["import", "--from", "jsonl", file, "--json"]),
        env: {
          SVC_SERVER_URL: `http://127.0.0.1:${server.addr.port}`,
          SVC_DELEGATE_KEY: "11".repeat(32),
          SVC_ACCOUNT_ID: "0x01",
        },
        clearEnv: true,
        stdin: "null",
        stdout: "piped",
        stderr: "piped",
      }).spawn();
      await second.promise;
      child.kill(signal);
      const { code, stdout, stderr } = await child.output();
      assert.equal(code, expected, signal);
      // The held request's 100 lines may be taken yet, unanswered.
      const note = "import interrupted (the first 500 lines were taken before: 500 imported, " +
        "0 already known; the next 100 were being sent and may have been taken too; importing " +
        "the file again skips what was taken)";
      assert.ok(new TextDecoder().decode(stderr).endsWith(`svc: ${note}\n`), signal);
      // --json: stdout's one object says it too.
      assert.deepEqual(JSON.parse(new TextDecoder().decode(stdout)), {
        error: note,
        code: "interrupted",
      });
    }
  } finally {
    waiting.resolve();
    await server.shutdown();
    await Deno.remove(dir, { recursive: true });
  }
});
