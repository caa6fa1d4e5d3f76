/**
 * `deno task network:local`: the local Sui, Seal and Walrus it starts, with the settings file it
 * writes, carry a relayer and `svc` through remember and recall; Ctrl-C stops it and removes the
 * file, which holds private keys.
 */
import assert from "node:assert/strict";
import { ROOT, startRelayer, svcCli, waitForSidecar } from "../relayer_process.ts";
import { denoTasks, parseRunCommand } from "../task_flags.ts";

/** `deno task network:local` with `args`: its flags and file, read from deno.json. */
function networkLocal(args: string[]): string[] {
  const { flags, entry } = parseRunCommand(denoTasks()["network:local"]);
  return ["run", ...flags, `${ROOT}${entry}`, ...args];
}

Deno.test("network:local: its settings run a relayer in network mode; closing its terminal removes them", async () => {
  // A folder with a space and a quote in its name: the settings file is sourced by a shell.
  const dir = await Deno.makeTempDir({ prefix: "svc local network's " });
  const file = `${dir}/net.env`;
  const network = new Deno.Command(Deno.execPath(), {
    args: networkLocal(["--env", file]),
    cwd: ROOT,
    // The relayer's ports it writes: these, as set when it runs (8010 and 9010 without them).
    env: { SVC_PORT: "8020", SIDECAR_URL: "http://localhost:9020" },
    stdout: "piped",
    stderr: "null",
  }).spawn();
  const printed = network.stdout.pipeThrough(new TextDecoderStream()).getReader();
  try {
    let shown = "";
    while (!shown.includes("deno task svc recall")) {
      const { value, done } = await printed.read();
      assert.ok(!done, `it stopped early: ${shown}`);
      shown += value;
    }
    assert.equal((await Deno.stat(file)).mode! & 0o777, 0o600);
    // What a shell that sources the command it printed has.
    const command = /^ {2}(\. .*) && deno task start$/m.exec(shown)![1];
    const sourced = await new Deno.Command("sh", {
      args: ["-c", `${command} && env`],
      env: { PATH: Deno.env.get("PATH") ?? "" },
      clearEnv: true,
    }).output();
    assert.equal(sourced.code, 0, new TextDecoder().decode(sourced.stderr));
    const settings = Object.fromEntries(
      new TextDecoder().decode(sourced.stdout).split("\n")
        .filter((line) => /^(SVC_|SIDECAR_URL=)/.test(line))
        .map((line) => [line.slice(0, line.indexOf("=")), line.slice(line.indexOf("=") + 1)]),
    );
    assert.equal(settings.SVC_CHAIN, "sui");
    assert.match(shown, new RegExp(`account +${settings.SVC_ACCOUNT_ID}`));
    assert.deepEqual([settings.SVC_PORT, settings.SIDECAR_URL], ["8020", "http://localhost:9020"]);
    // The test's relayer takes free ports and a data directory of its own.
    const { SVC_DATA_DIR: _, SVC_PORT: _port, SIDECAR_URL: _sidecar, ...env } = settings;
    const relayer = await startRelayer(`${dir}/data`, {
      ...env,
      SVC_EMBEDDER: "lexical",
      SVC_ACCOUNT_CACHE_SECONDS: "1",
    });
    try {
      const svc = (args: string[], more: Record<string, string> = {}) =>
        svcCli(`${dir}/cli`, args, { ...env, SVC_SERVER_URL: relayer.url, ...more });
      assert.equal((await svc(["remember", "I am vegetarian", "--wait"])).status, "done");
      const { results } = await svc(["recall", "vegetarian"]);
      assert.deepEqual(results.map((r: { text: string }) => r.text), ["I am vegetarian"]);

      // The account's keys change on Sui with its owner key, the relayer paying the gas.
      await waitForSidecar(relayer.url);
      const account = ["--account", settings.SVC_ACCOUNT_ID];
      const phone = await svc(["key", "add", ...account, "--label", "phone", "--read-only"]);
      const listed = await svc(["key", "list", ...account]);
      assert.deepEqual(
        listed.keys.map((k: Record<string, unknown>) => [k.label, k.operations, k.created_at]),
        [["laptop", null, null], ["phone", ["read"], null]],
      );
      const asPhone = { SVC_DELEGATE_KEY: phone.privateKey };
      assert.equal((await svc(["recall", "vegetarian"], asPhone)).results.length, 1);
      await assert.rejects(svc(["remember", "I am a pilot"], asPhone), /"reason":"missing_scope"/);
      await svc(["key", "remove", ...account, "--address", phone.address]);
      await new Promise((resolve) => setTimeout(resolve, 1200)); // the relayer's cache: 1 s
      await assert.rejects(svc(["whoami"], asPhone), /exited 1: .*"code":"unauthorized"/);
      // Another owner key is refused, by name; a new account's is saved where it says.
      const other = "22".repeat(32);
      await assert.rejects(
        svc(["account", "deactivate", ...account], { SVC_OWNER_KEY: other }),
        /SVC_OWNER_KEY is the key of 0x[0-9a-f]{64}, not of its owner/,
      );
      // An id of another kind of object is named as such.
      await assert.rejects(
        svc(["key", "list", "--account", settings.SVC_REGISTRY_ID]),
        /exited 1: .* is a 0x[0-9a-f]+::account::AccountRegistry, not an account of SVC_PACKAGE_ID/,
      );
      // A relayer that sponsors nothing: no account, and no owner key left for it.
      const unpaid = Deno.serve(
        { hostname: "127.0.0.1", port: 0, onListen() {} },
        () =>
          Response.json({ error: "No sponsor is configured", code: "not_implemented" }, {
            status: 501,
          }),
      );
      const unpaidUrl = `http://127.0.0.1:${unpaid.addr.port}`;
      await assert.rejects(
        svc(["account", "create"], { SVC_OWNER_KEY: "", SVC_SERVER_URL: unpaidUrl }),
        /"code":"not_implemented"/,
      );
      await unpaid.shutdown();
      // No relayer at all: the same.
      await assert.rejects(
        svc(["account", "create"], { SVC_OWNER_KEY: "", SVC_SERVER_URL: unpaidUrl }),
        /Cannot reach the relayer at http:\/\/127\.0\.0\.1:\d+.*"reason":"unreachable"/,
      );
      assert.deepEqual([...Deno.readDirSync(`${dir}/cli/owner_keys`)], []);
      // The demo account's owner key makes no second account, and says what to do.
      await assert.rejects(
        svc(["account", "create"]),
        /SVC_OWNER_KEY's address 0x[0-9a-f]{64} has an account already; unset SVC_OWNER_KEY/,
      );
      // A registry id of another object is named before anything is signed; reading needs none.
      await assert.rejects(
        svc(["key", "add", ...account], { SVC_REGISTRY_ID: settings.SVC_ACCOUNT_ID }),
        /SVC_REGISTRY_ID 0x[0-9a-f]{64} is a 0x[0-9a-f]+::account::SvcAccount, not the AccountRegistry/,
      );
      assert.equal(
        (await svc(["key", "list", ...account], { SVC_REGISTRY_ID: "" })).keys.length,
        1,
      );
      const created = await svc(["account", "create"], { SVC_OWNER_KEY: "" });
      assert.equal(
        (await Deno.readTextFile(`${dir}/cli/owner_keys/${created.owner}.key`)).length,
        65,
      );
      const again = ["--account", created.accountId];
      assert.deepEqual((await svc(["key", "list", ...again], { SVC_OWNER_KEY: "" })).keys, []);
      const off = await svc(["account", "deactivate", ...again], { SVC_OWNER_KEY: "" });
      assert.equal(off.active, false);
    } finally {
      await relayer.stop();
    }
    // As when its terminal closes (Ctrl-C, SIGINT, is handled alike).
    network.kill("SIGHUP");
    assert.equal((await network.status).code, 0);
    assert.equal(await Deno.stat(file).catch(() => null), null);
  } finally {
    try {
      network.kill("SIGKILL");
    } catch { /* it has stopped */ }
    await printed.cancel();
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("network:local: a file of the user's at --env is refused, untouched; a path it cannot write, at once", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const file = `${dir}/.env`;
    await Deno.writeTextFile(file, "MY_OWN_SETTING=important\n");
    const { code, stderr } = await new Deno.Command(Deno.execPath(), {
      args: networkLocal(["--env", file]),
      cwd: ROOT,
      stdout: "null",
    }).output();
    assert.equal(code, 2);
    assert.match(new TextDecoder().decode(stderr), /exists and is not this command's/);
    // A flag it does not take, or --env without its file: the usage, and no stack trace.
    for (const args of [["--bogus"], ["--env"], ["extra"]]) {
      const run = await new Deno.Command(Deno.execPath(), {
        args: networkLocal(args),
        cwd: ROOT,
        stdout: "null",
      }).output();
      const said = new TextDecoder().decode(run.stderr);
      assert.equal(run.code, 2, said);
      assert.match(said, /^network:local: .*\n\nusage: deno task network:local \[--env FILE\]/);
      assert.doesNotMatch(said, /\n\s+at /);
    }
    assert.equal(await Deno.readTextFile(file), "MY_OWN_SETTING=important\n");
    for (const path of [dir, `${dir}/missing/net.env`]) {
      const run = await new Deno.Command(Deno.execPath(), {
        args: networkLocal(["--env", path]),
        cwd: ROOT,
        stdout: "null",
      }).output();
      assert.equal(run.code, 2, path);
      assert.match(new TextDecoder().decode(run.stderr), new RegExp(`^Cannot write ${path}: `));
    }
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
