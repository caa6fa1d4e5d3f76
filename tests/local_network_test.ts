/**
 * `deno task network:local`: the local Sui, Seal and Walrus it starts, with the settings file it
 * writes, carry a relayer and `svc` through remember and recall; Ctrl-C stops it and removes the
 * file, which holds private keys.
 */
import assert from "node:assert/strict";
import { ROOT, startRelayer, svcCli } from "./relayer_process.ts";

Deno.test("network:local: its settings run a relayer in network mode; Ctrl-C removes them", async () => {
  const dir = await Deno.makeTempDir({ prefix: "svc-local-network-" });
  const file = `${dir}/net.env`;
  const network = new Deno.Command(Deno.execPath(), {
    args: ["run", "--allow-all", `${ROOT}tests/local_network.ts`, "--env", file],
    cwd: ROOT,
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  try {
    const printed = network.stdout.pipeThrough(new TextDecoderStream()).getReader();
    let shown = "";
    while (!shown.includes("deno task svc recall")) {
      const { value, done } = await printed.read();
      assert.ok(!done, `it stopped early: ${shown}`);
      shown += value;
    }
    printed.releaseLock();
    assert.equal((await Deno.stat(file)).mode! & 0o777, 0o600);
    const settings = Object.fromEntries(
      (await Deno.readTextFile(file)).trim().split("\n").map((line) => {
        const [, name, value] = /^export ([A-Z_]+)='([^']*)'$/.exec(line)!;
        return [name, value];
      }),
    );
    assert.equal(settings.SVC_CHAIN, "sui");
    assert.match(shown, new RegExp(`account +${settings.SVC_ACCOUNT_ID}`));
    const { SVC_DATA_DIR: _, ...env } = settings;
    const relayer = await startRelayer(`${dir}/data`, { ...env, SVC_EMBEDDER: "lexical" });
    try {
      const svc = (args: string[]) =>
        svcCli(`${dir}/cli`, args, { ...env, SVC_SERVER_URL: relayer.url });
      assert.equal((await svc(["remember", "I am vegetarian", "--wait"])).status, "done");
      const { results } = await svc(["recall", "vegetarian"]);
      assert.deepEqual(results.map((r: { text: string }) => r.text), ["I am vegetarian"]);
    } finally {
      await relayer.stop();
    }
    network.kill("SIGINT");
    assert.equal((await network.status).code, 0);
    assert.equal(await Deno.stat(file).catch(() => null), null);
  } finally {
    try {
      network.kill("SIGKILL");
    } catch { /* it has stopped */ }
    await network.stdout.cancel().catch(() => {});
    await network.stderr.cancel();
    await Deno.remove(dir, { recursive: true });
  }
});
