/**
 * Network mode on one machine, to try it without Sui, Seal or Walrus: the local servers the tests
 * use, which speak their protocols (see `tests/fixtures/local_network.ts`), an account on that
 * chain with one delegate key, and a file of the settings that point a relayer and `svc` at them.
 * Everything is held in memory and ends with Ctrl-C (the file is removed then). Not for real data.
 *
 *   deno task network:local [--env FILE]     (default .svc-network.env)
 *
 * then, in another terminal: `. ./.svc-network.env && deno task start`. The relayer's ports in
 * the file are `SVC_PORT` and `SIDECAR_URL` as set when it runs, else 8010 and 9010.
 */
import { parseArgs } from "node:util";
import { Ed25519Keypair } from "@mysten/sui/keypairs/ed25519";
import { newDelegateKey } from "./fixtures/seal/seal_setup.ts";
import { startLocalNetwork } from "./fixtures/local_network.ts";

const USAGE = `usage: deno task network:local [--env FILE]

Starts local Sui, Seal and Walrus servers with an account and one delegate key, and writes the
settings that point a relayer and svc at them to FILE (.svc-network.env). The relayer's ports
there are SVC_PORT and SIDECAR_URL as set now, else 8010 and http://localhost:9010.`;
let values;
try {
  ({ values } = parseArgs({
    args: Deno.args,
    options: {
      env: { type: "string", default: ".svc-network.env" },
      help: { type: "boolean", short: "h" },
    },
  }));
} catch (error) {
  console.error(`network:local: ${(error as Error).message}\n\n${USAGE}`);
  Deno.exit(2);
}
if (values.help) {
  console.log(USAGE);
  Deno.exit(0);
}
const file = values.env;
/** `value` quoted for a POSIX shell. */
const quoted = (value: string) => `'${value.replaceAll("'", `'\\''`)}'`;
// `.` looks a name without a slash up in PATH.
const sourced = `. ${quoted(file.includes("/") ? file : `./${file}`)}`;
const dataDir = "./data-network";
/** The first line of the file, by which a file left by an earlier run is told from a user's. */
const MARK = "# written by deno task network:local, removed on Ctrl-C";
const existing = await Deno.readTextFile(file).catch(() => undefined);
if (existing !== undefined && !existing.startsWith(MARK)) {
  console.error(`${file} exists and is not this command's: name another file with --env FILE`);
  Deno.exit(2);
}
// Written now, so that a path it cannot be written to ends the command before the network starts.
try {
  await Deno.writeTextFile(file, MARK + "\n", { mode: 0o600 });
} catch (error) {
  console.error(
    `Cannot write ${file}: ${(error as Error).message}; name another file with --env FILE`,
  );
  Deno.exit(2);
}

const net = await startLocalNetwork();
const owner = Ed25519Keypair.generate();
const accountId = await net.wallet.createAccount(owner);
const delegate = newDelegateKey();
await net.wallet.addDelegateKey(owner, accountId, delegate.publicKey, "laptop");

const settings: Record<string, string> = {
  ...net.env,
  // Apart from a local-mode data directory: its index and keys are not this network's.
  SVC_DATA_DIR: dataDir,
  // Apart from a local-mode relayer's ports (8000, 9000), unless told otherwise.
  SVC_PORT: Deno.env.get("SVC_PORT") || "8010",
  SIDECAR_URL: Deno.env.get("SIDECAR_URL") || "http://localhost:9010",
  SVC_DELEGATE_KEY: delegate.seed,
  SVC_ACCOUNT_ID: accountId,
  // The account's owner key, with which `svc key` and `svc account` change it.
  SVC_OWNER_KEY: owner.getSecretKey(),
};
const lines = Object.entries(settings).map(([name, value]) => `export ${name}=${quoted(value)}`);
// It holds private keys: the user's alone.
await Deno.writeTextFile(file, [MARK, ...lines].join("\n") + "\n", { mode: 0o600 });

console.log(`Sui, Seal and Walrus run on this machine (in memory, until Ctrl-C):
  Sui JSON-RPC node     ${net.sui.url}
  Seal key servers      ${net.seal.envValue.split(",").length}, threshold 2
  Walrus publisher      ${net.walrus.publisher.url}
  account               ${accountId}
  delegate key "laptop" ${delegate.publicKey}

The settings are in ${file} (SVC_DATA_DIR=${dataDir}). In another terminal:
  ${sourced} && deno task start
and in a third:
  ${sourced} && deno task svc remember "I am vegetarian" --wait
  ${sourced} && deno task svc recall "what do I eat?"
  ${sourced} && deno task svc key add --account "$SVC_ACCOUNT_ID" --label phone --read-only`);
if (await Deno.stat(dataDir).catch(() => null)) {
  console.log(
    `\n${dataDir} holds the index of an earlier run's network, which is gone: remove it ` +
      `(rm -r ${dataDir}) before starting the relayer.`,
  );
}

await new Promise<void>((resolve) => {
  // SIGHUP: the terminal closed.
  for (const signal of ["SIGINT", "SIGTERM", "SIGHUP"] as const) {
    Deno.addSignalListener(signal, resolve);
  }
});
await Deno.remove(file).catch(() => {});
await net[Symbol.asyncDispose]();
Deno.exit(0);
