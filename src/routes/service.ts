/**
 * Public service routes: health, version, and what the reference system's clients (`memwal`) read
 * before their first signed call: `/config` (the package, and a Sui node to check its version
 * at) and, in embedded mode, that node: `/config/sui` answers `sui_getObject` for the local
 * ledger's package, whose version is 1.
 */
import { jsonResponse } from "../http/respond.ts";
import { field, object, text } from "../http/fields.ts";
import { API_VERSION, MIN_CLIENT_VERSION, MIN_SUPPORTED_SDK, VERSION } from "../version.ts";
import { route } from "./context.ts";

export interface HealthInfo {
  mode: string;
  packageId: string;
  backends: Record<string, string>;
  /** The public key erase receipts are signed with (hex). */
  receiptKey: string;
  sidecar: () => "up" | "down";
  /** Open MCP sessions, as the sidecar last reported them. */
  mcpSessions: () => number;
  /** Whether the relayer is about to stop (see `Relayer.drain`). */
  stopping: () => boolean;
  /** Whether memories are stored now, or refused (a full disk). */
  writes: () => "accepted" | "refused";
  /**
   * Remember jobs unfinished (as the reconciler last counted them) and dead-lettered since the
   * relayer started (failed for good after their attempts; each job's status says why).
   */
  jobs: () => { unfinished: number; deadLettered: number };
  /** The relayer's own origins, `SVC_PUBLIC_URL`'s among them (see `RelayerOptions.audiences`). */
  origins?: ReadonlySet<string>;
  /** Whether it keeps operator-blind namespaces (`/api/blind`; it needs a state store). */
  operatorBlind: boolean;
}

/**
 * The origin a client reached: of the relayer's own origins, the one with the request's host
 * (so that behind a TLS proxy it is `https://`), else the request's.
 */
export function reachedOrigin(request: Request, origins: Iterable<string> = []): string {
  const { host, origin } = new URL(request.url);
  return [...origins].find((known) => new URL(known).host === host) ?? origin;
}

/** The public service routes; see the module documentation. */
export function serviceRoutes(health: HealthInfo) {
  return [
    route("GET", "/health", () =>
      Promise.resolve(jsonResponse(health.stopping() ? 503 : 200, {
        status: health.stopping() ? "stopping" : "ok",
        version: VERSION,
        apiVersion: API_VERSION,
        mode: health.mode,
        packageId: health.packageId,
        backends: health.backends,
        receiptKey: health.receiptKey,
        sidecar: health.sidecar(),
        mcpSessions: health.mcpSessions(),
        writes: health.writes(),
        jobs: health.jobs(),
        operatorBlind: health.operatorBlind,
      })), {
      doc: {
        tag: "service",
        summary: "Whether the relayer is up, and what it runs on",
        responses: {
          200: {
            description: "Up.",
            example: {
              status: "ok",
              version: VERSION,
              apiVersion: API_VERSION,
              mode: "embedded",
              packageId: "0x…",
              backends: {
                chain: "local-ledger",
                cipher: "local-envelope-aes-256-gcm",
                blobStore: "sqlite",
                vectorStore: "encrypted",
                embedder: "svc-glove100-sif-oov28-v1",
                llm: "local-extractive",
              },
              receiptKey: "5f0c…",
              sidecar: "up",
              mcpSessions: 2,
              writes: "accepted",
              jobs: { unfinished: 0, deadLettered: 0 },
              operatorBlind: true,
            },
          },
          503: {
            description: "Stopping (`SVC_STOP_DRAIN_SECONDS`): the relayer still answers, but " +
              "a load balancer should send its requests elsewhere. The body is as for 200, its " +
              "status `stopping`.",
          },
        },
      },
    }),
    route("GET", "/version", () => Promise.resolve(jsonResponse(200, VERSIONS)), {
      doc: {
        tag: "service",
        summary: "The relayer's version and the oldest client versions it serves",
        responses: { 200: { description: "Versions.", example: VERSIONS } },
      },
    }),
    // Network mode names no node: SVC_SUI_RPC_URL may carry a provider's key.
    route("GET", "/config", ({ request }) =>
      Promise.resolve(jsonResponse(
        200,
        health.mode === "network" ? { packageId: health.packageId, network: "custom" } : {
          packageId: health.packageId,
          network: "local",
          suiRpcUrl: `${reachedOrigin(request, health.origins)}/config/sui`,
        },
      )), {
      doc: {
        tag: "service",
        summary: "The package and the Sui node a client checks it at (the reference SDKs do)",
        responses: {
          200: {
            description: "The package id, the network (`local` in embedded mode) and, in " +
              "embedded mode, the node to read it at.",
            example: {
              packageId: "0x…",
              network: "local",
              suiRpcUrl: "http://127.0.0.1:8000/config/sui",
            },
          },
        },
      },
    }),
    route("POST", "/config/sui", ({ input: { body } }) => {
      const { id, method, params } = body;
      const answer = health.mode !== "network" && method === "sui_getObject" &&
          params[0] === health.packageId
        ? { result: { data: { objectId: health.packageId, version: "1" } } }
        : {
          error: { code: -32601, message: "Only sui_getObject of the local package is answered" },
        };
      return Promise.resolve(jsonResponse(200, { jsonrpc: "2.0", id, ...answer }));
    }, {
      maxBodyBytes: 4096,
      input: { body: SUI_CALL },
      doc: {
        tag: "service",
        summary: "Embedded mode: sui_getObject of the local ledger's package (version 1)",
        example: {
          body: { jsonrpc: "2.0", id: 1, method: "sui_getObject", params: ["0x…", {}] },
        },
        responses: { 200: { description: "A JSON-RPC answer." } },
      },
    }),
  ];
}

/** A JSON-RPC call to `/config/sui`. */
const SUI_CALL = object({
  method: text({ max: 128, description: "The JSON-RPC method: `sui_getObject`." }),
  params: field(
    (value) => Array.isArray(value) ? value as unknown[] : [],
    () => ({ type: "array", description: "The object id, then its options." }),
  ),
  id: field(
    (value) => typeof value === "number" || typeof value === "string" ? value : null,
    () => ({ description: "The call's id, echoed." }),
  ),
});

/** What `/version` answers. */
const VERSIONS = {
  version: VERSION,
  relayerVersion: VERSION,
  apiVersion: API_VERSION,
  minClientVersion: MIN_CLIENT_VERSION,
  minSupportedSdk: MIN_SUPPORTED_SDK,
};
