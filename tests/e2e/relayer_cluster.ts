/**
 * Several relayer processes on one PostgreSQL database behind a test-side round-robin balancer,
 * as an operator deploys them: each relayer has its own data directory (and sidecar), all share
 * the database and the master key, and clients reach them through the balancer's origin (their
 * `SVC_PUBLIC_URL`, which version 2 signatures name as audience).
 */
import { type TestDatabase, testDatabase } from "../../plugins/postgres/testing/test_server.ts";
import { type RelayerProcess, startRelayer, svcCli } from "../relayer_process.ts";

export const CLUSTER_MASTER_KEY = "5a".repeat(32);

/** A cluster; `relayers[i]` may be killed and `restart(i)`ed. */
export interface Cluster extends AsyncDisposable {
  /** The balancer's origin. */
  url: string;
  database: TestDatabase;
  relayers: (RelayerProcess | undefined)[];
  /** The environment every relayer (and the CLI) runs with. */
  env: Record<string, string>;
  /** The data directory of relayer `i` (also where the CLI keeps owner keys). */
  dataDir(i: number): string;
  /** Starts relayer `i` again (after `kill`). */
  restart(i: number): Promise<RelayerProcess>;
  /** Requests the balancer forwarded to each relayer. */
  forwarded: number[];
}

/** Forwards a request to `origin`, body and headers as they came. */
async function forward(request: Request, origin: string): Promise<Response> {
  const url = new URL(request.url);
  const target = `${origin}${url.pathname}${url.search}`;
  const body = request.body ? await request.arrayBuffer() : undefined;
  return await fetch(target, {
    method: request.method,
    headers: request.headers,
    body,
    redirect: "manual",
  });
}

/**
 * Starts PostgreSQL (once per test process), `size` relayers on it and the balancer. The balancer
 * sends each request to the next live relayer; a relayer that refuses the connection is skipped.
 * `envOf(i)` adds settings of relayer `i` alone (say, a model server of its own).
 */
export async function startCluster(
  size: number,
  env: Record<string, string> = {},
  envOf: (i: number) => Record<string, string> = () => ({}),
): Promise<Cluster> {
  const database = await testDatabase();
  const root = await Deno.makeTempDir({ prefix: "svc-cluster-" });
  const relayers: (RelayerProcess | undefined)[] = new Array(size).fill(undefined);
  const forwarded = new Array(size).fill(0);
  // The balancer listens first, on a port of its own: the relayers' ports cannot take it.
  let next = 0;
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, async (request) => {
    for (let tries = 0; tries < size; tries++) {
      const i = next++ % size;
      const relayer = relayers[i];
      if (!relayer) continue;
      try {
        const response = await forward(request.clone(), relayer.url);
        forwarded[i]++;
        return response;
      } catch {
        // Killed, or restarting: the next one.
      }
    }
    return Response.json({ error: "no relayer is up", code: "backend_unavailable" }, {
      status: 503,
    });
  });
  const url = `http://127.0.0.1:${server.addr.port}`;
  const shared = {
    SVC_STORE: "postgres",
    SVC_DATABASE_URL: database.url,
    SVC_DATABASE_POOL: "4",
    SVC_MASTER_KEY: CLUSTER_MASTER_KEY,
    SVC_PUBLIC_URL: url,
    ...env,
  };
  const dataDir = (i: number) => `${root}/relayer-${i}`;
  const start = async (i: number) => {
    await Deno.mkdir(dataDir(i), { recursive: true });
    relayers[i] = await startRelayer(dataDir(i), { ...shared, ...envOf(i) }, {
      processGroup: true,
    });
    return relayers[i]!;
  };
  const cluster: Cluster = {
    url,
    database,
    relayers,
    env: shared,
    dataDir,
    forwarded,
    restart: start,
    async [Symbol.asyncDispose]() {
      await server.shutdown();
      for (const relayer of relayers) await relayer?.[Symbol.asyncDispose]();
      await database[Symbol.asyncDispose]();
      await Deno.remove(root, { recursive: true });
    },
  };
  // One after another: the first migrates the schema, the others find it ready.
  try {
    for (let i = 0; i < size; i++) await start(i);
  } catch (error) {
    await cluster[Symbol.asyncDispose]();
    throw error;
  }
  return cluster;
}

/** Creates an account and a delegate key in the cluster's ledger, through the CLI. */
export async function clusterAccount(cluster: Cluster) {
  const dir = cluster.dataDir(0);
  const { accountId, owner } = await svcCli(dir, ["account", "create"], cluster.env);
  const key = await svcCli(
    dir,
    ["key", "add", "--account", accountId, "--label", "cluster"],
    cluster.env,
  );
  return { accountId, owner, privateKey: key.privateKey as string, publicKey: key.publicKey };
}
