/**
 * The real relayer (`main.ts`) and the sidecar it supervises, as processes: a killed sidecar
 * is restarted, and no sidecar outlives its relayer, whether it stops or is killed.
 */
import assert from "node:assert/strict";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { addressOf, generateKeyPair } from "@svc/util/keys";
import { encodeKind, signDigest } from "../../plugins/local_ledger/transactions.ts";
import { testDatabase } from "../../plugins/postgres/testing/test_server.ts";
import { textOf } from "../mcp_fixtures.ts";
import { taskCommand } from "../task_flags.ts";
import { sidecarRunArgs } from "../../app/sidecar/supervisor.ts";
import { databaseHosts } from "../../app/sidecar_hosts.ts";
import { newAccountClient, type RelayerProcess, ROOT, startRelayer } from "../relayer_process.ts";

async function waitFor(what: string, check: () => Promise<boolean> | boolean, ms = 30_000) {
  const deadline = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting until ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

async function sidecarStatus(relayer: RelayerProcess): Promise<string> {
  return (await (await fetch(`${relayer.url}/health`)).json()).sidecar;
}

/** Process ids of the sidecars the relayer has started, oldest first. */
function sidecarPids(relayer: RelayerProcess): number[] {
  return [...relayer.log().matchAll(/"msg":"sidecar started","pid":(\d+)/g)].map((m) =>
    Number(m[1])
  );
}

/** Whether a process runs (a zombie waiting to be reaped counts as gone). */
function alive(pid: number): boolean {
  try {
    return !/^\d+ \(.*\) Z/.test(Deno.readTextFileSync(`/proc/${pid}/stat`));
  } catch {
    return false;
  }
}

async function connect(url: string, privateKey: string, accountId: string) {
  const client = new Client({ name: "e2e", version: "1.0.0" });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(`${url}/api/mcp`), {
      requestInit: {
        headers: { authorization: `Bearer ${privateKey}`, "x-svc-account-id": accountId },
      },
    }),
  );
  return client;
}

Deno.test("e2e sidecar: killed, it is restarted; a stopped relayer leaves none", async () => {
  const dataDir = await Deno.makeTempDir();
  try {
    await using relayer = await startRelayer(dataDir);
    await waitFor("the sidecar is up", async () => (await sidecarStatus(relayer)) === "up");
    const [first] = sidecarPids(relayer);
    const { privateKey, accountId } = await newAccountClient(dataDir, relayer.url);
    // The sidecar sponsors transactions of the relayer's own ledger file.
    const owner = await generateKeyPair();
    const post = (path: string, body: unknown) =>
      fetch(relayer.url + path, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify(body),
      }).then((r) => r.json());
    const { digest } = await post("/sponsor", {
      transactionKind: encodeKind({ kind: "create_account" }).toBase64(),
      sender: addressOf(owner.publicKey),
    });
    const executed = await post("/sponsor/execute", {
      digest,
      signature: signDigest(owner, digest),
    });
    assert.equal(executed.effects.kind, "create_account");
    const before = await connect(relayer.url, privateKey, accountId);
    assert.equal((await before.listTools()).tools.length, 9);

    Deno.kill(first, "SIGKILL");
    await waitFor("/health shows it down", async () => (await sidecarStatus(relayer)) === "down");
    await waitFor(
      "it is restarted",
      async () => sidecarPids(relayer).length === 2 && (await sidecarStatus(relayer)) === "up",
    );
    assert.match(relayer.log(), /"msg":"sidecar exited; restarting"[^\n]*"signal":"SIGKILL"/);
    await before.close();
    // The metrics (read from loopback, no token set) count the restart.
    const metrics = await (await fetch(`${relayer.url}/metrics`)).text();
    assert.match(metrics, /^svc_sidecar_restarts_total 1$/m);
    assert.match(metrics, /^svc_sidecar_up 1$/m);

    const after = await connect(relayer.url, privateKey, accountId);
    const saved = await after.callTool({
      name: "svc_remember",
      arguments: { text: "I restart my sidecars on Sundays" },
    });
    assert.match(textOf(saved), /^Saved to memory/);
    const found = await after.callTool({ name: "svc_recall", arguments: { query: "sidecars" } });
    assert.match(textOf(found), /I restart my sidecars on Sundays/);
    await after.close();

    const second = sidecarPids(relayer)[1];
    assert.equal((await relayer.stop()).code, 0);
    assert.equal(alive(second), false);
    assert.equal(alive(first), false);
  } finally {
    await Deno.remove(dataDir, { recursive: true });
  }
});

Deno.test("e2e sidecar: a relayer killed with SIGKILL leaves no orphan sidecar", async () => {
  const dataDir = await Deno.makeTempDir();
  try {
    await using relayer = await startRelayer(dataDir);
    await waitFor("the sidecar is up", async () => (await sidecarStatus(relayer)) === "up");
    const [pid] = sidecarPids(relayer);
    assert.equal(alive(pid), true);
    await relayer.kill();
    await waitFor("the orphaned sidecar exits", () => !alive(pid), 10_000);
    // It shares the relayer's stderr, so its last words are in the log.
    assert.match(
      relayer.log(),
      /"msg":"sidecar stopping","reason":"the relayer stopped it, or is gone"/,
    );
  } finally {
    await Deno.remove(dataDir, { recursive: true });
  }
});

Deno.test("e2e sidecar: a proxy set for outbound traffic takes none of the loopback calls", async () => {
  const dataDir = await Deno.makeTempDir();
  const closed = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const proxy = `http://127.0.0.1:${closed.addr.port}`; // nothing answers there
  closed.close();
  const env = { HTTP_PROXY: proxy, http_proxy: proxy, no_proxy: "corp.example" };
  try {
    await using relayer = await startRelayer(dataDir, env);
    await waitFor("the sidecar is up", async () => (await sidecarStatus(relayer)) === "up");
    const { accountId, privateKey } = await newAccountClient(dataDir, relayer.url);
    const { code, stdout, stderr } = await new Deno.Command(Deno.execPath(), {
      args: taskCommand("svc", ["recall", "tea", "--json"]),
      env: {
        ...env,
        SVC_SERVER_URL: relayer.url,
        SVC_DELEGATE_KEY: privateKey,
        SVC_ACCOUNT_ID: accountId,
      },
      cwd: new URL("../..", import.meta.url),
    }).output();
    assert.equal(code, 0, new TextDecoder().decode(stderr));
    assert.deepEqual(JSON.parse(new TextDecoder().decode(stdout)).results, []);
  } finally {
    await Deno.remove(dataDir, { recursive: true });
  }
});

Deno.test("e2e sidecar: on PostgreSQL it is given what the database client reads besides the URL", async () => {
  await using db = await testDatabase();
  const dataDir = await Deno.makeTempDir();
  // The user is not in the URL but in PGUSER, as a password may be in PGPASSWORD.
  const url = new URL(db.url);
  const user = decodeURIComponent(url.username);
  url.username = "";
  const env = {
    SVC_STORE: "postgres",
    SVC_DATABASE_URL: url.href,
    SVC_MASTER_KEY: "ab".repeat(32),
  };
  try {
    await using relayer = await startRelayer(dataDir, { ...env, PGUSER: user });
    await waitFor("the sidecar is up", async () => await sidecarStatus(relayer) === "up");
    assert.doesNotMatch(relayer.log(), /svc sidecar: cannot start/);
    await relayer.stop();
    // Without the user, the sidecar cannot open the database: it says so in one line.
    const sidecar = await new Deno.Command(Deno.execPath(), {
      args: sidecarRunArgs({ hosts: [...databaseHosts(url.href), "127.0.0.1:9"], dataDir }),
      env: {
        ...env,
        SVC_DATA_DIR: dataDir,
        SVC_SIDECAR_TOKEN: "t".repeat(32),
        SVC_RELAYER_URL: "http://127.0.0.1:9",
        PGUSER: "nobody",
      },
      cwd: ROOT,
      stdin: "null",
      stdout: "null",
      stderr: "piped",
    }).output();
    const said = new TextDecoder().decode(sidecar.stderr).trim().split("\n");
    assert.equal(sidecar.code, 1);
    assert.equal(said.length, 1, said.join("\n"));
    const line = JSON.parse(said[0]);
    assert.equal(line.msg, "sidecar cannot start");
    assert.match(line.error.message, /^Cannot connect to PostgreSQL at /);
  } finally {
    await Deno.remove(dataDir, { recursive: true });
  }
});
