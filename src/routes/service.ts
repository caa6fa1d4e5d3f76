/** Public service routes: health and version. */
import { jsonResponse } from "../http/respond.ts";
import { route } from "../http/router.ts";
import { API_VERSION, MIN_CLIENT_VERSION, VERSION } from "../version.ts";
import type { HandlerContext } from "./context.ts";

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
}

export function serviceRoutes(health: HealthInfo) {
  return [
    route<HandlerContext>(
      "GET",
      "/health",
      () =>
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
        })),
      {
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
              },
            },
            503: {
              description: "Stopping (`SVC_STOP_DRAIN_SECONDS`): the relayer still answers, but " +
                "a load balancer should send its requests elsewhere. The body is as for 200, its " +
                "status `stopping`.",
            },
          },
        },
      },
    ),
    route<HandlerContext>("GET", "/version", () =>
      Promise.resolve(jsonResponse(200, {
        version: VERSION,
        apiVersion: API_VERSION,
        minClientVersion: MIN_CLIENT_VERSION,
      })), {
      doc: {
        tag: "service",
        summary: "The relayer's version and the oldest client version it serves",
        responses: {
          200: {
            description: "Versions.",
            example: {
              version: VERSION,
              apiVersion: API_VERSION,
              minClientVersion: MIN_CLIENT_VERSION,
            },
          },
        },
      },
    }),
  ];
}
