/** A local model hub, for tests: the protocol of the Hugging Face hub, serving the tiny model. */
import { createHash } from "node:crypto";
import { createLogger } from "@svc/relayer/kit";
import { writeTinyModel } from "./tiny_model.ts";
import type { ModelPins } from "../pins.ts";

/** The commit the fake hub's `main` resolves to. */
export const COMMIT = "0123456789abcdef0123456789abcdef01234567";

/** A file as the fake hub serves it; `serve` may alter or cut it (the stored one stays). */
export interface FakeHubOptions {
  /** The model's hub id. */
  model: string;
  /** Paths in the repository the hub lists; defaults to the tiny model in `onnx/`. */
  files: Map<string, Uint8Array<ArrayBuffer>>;
  /** What is sent for a path instead of its bytes. */
  serve?: (
    path: string,
    bytes: Uint8Array<ArrayBuffer>,
  ) => Uint8Array<ArrayBuffer> | ReadableStream<Uint8Array<ArrayBuffer>>;
  /** The size the listing gives a path instead of its own (a hub that lies about sizes). */
  listedSize?: (path: string, size: number) => number;
}

/**
 * A local server answering as the hub does for `options.model`: the revision API (with
 * `?blobs=true`: sizes, LFS SHA-256 of `*.onnx`, git blob ids of the rest) and `resolve/` URLs,
 * the large files through a redirect, as to the hub's CDN.
 */
export function fakeHub(options: FakeHubOptions) {
  const { model } = options;
  const requests: string[] = [];
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, (request) => {
    const url = new URL(request.url);
    requests.push(url.pathname + url.search);
    if (url.pathname === `/api/models/${model}/revision/main`) {
      // Without `?blobs=true` the hub lists the files' names alone.
      if (url.search !== "?blobs=true") {
        const siblings = [...options.files.keys()].map((rfilename) => ({ rfilename }));
        return Response.json({ id: model, sha: COMMIT, siblings });
      }
      const siblings = [...options.files].map(([path, bytes]) => {
        const size = options.listedSize?.(path, bytes.length) ?? bytes.length;
        const lfs = path.endsWith(".onnx") || path.endsWith(".safetensors");
        const blob = createHash("sha1").update(`blob ${bytes.length}\0`).update(bytes);
        return {
          rfilename: path,
          size: lfs ? 134 : size,
          blobId: lfs ? "f".repeat(40) : blob.digest("hex"),
          ...(lfs
            ? {
              lfs: {
                sha256: createHash("sha256").update(bytes).digest("hex"),
                size,
                pointerSize: 134,
              },
            }
            : {}),
        };
      });
      return Response.json({ id: model, sha: COMMIT, siblings });
    }
    const prefix = `/${model}/resolve/${COMMIT}/`;
    if (url.pathname.startsWith(prefix)) {
      const path = decodeURIComponent(url.pathname.slice(prefix.length));
      const bytes = options.files.get(path);
      if (!bytes) return new Response("Entry not found", { status: 404 });
      if (path.endsWith(".onnx")) return Response.redirect(new URL(`/cdn/${path}`, url), 302);
    }
    if (url.pathname.startsWith("/cdn/") || url.pathname.startsWith(prefix)) {
      const path = url.pathname.replace(/^\/cdn\/|^.*\/resolve\/[0-9a-f]+\//, "");
      const bytes = options.files.get(decodeURIComponent(path))!;
      return new Response(options.serve?.(path, bytes) ?? bytes);
    }
    return Response.json({ error: "Repository not found" }, { status: 404 });
  });
  return {
    endpoint: `http://127.0.0.1:${server.addr.port}`,
    requests,
    close: () => server.shutdown(),
  };
}

/** The tiny model's files as the hub holds them (graph in `onnx/`), with files it never needs. */
export async function tinyRepository(): Promise<Map<string, Uint8Array<ArrayBuffer>>> {
  const dir = await Deno.makeTempDir({ prefix: "svc-onnx-repo-" });
  try {
    await writeTinyModel(dir, { modelPath: "onnx/model.onnx" });
    const files = new Map<string, Uint8Array<ArrayBuffer>>();
    for (
      const path of [
        "onnx/model.onnx",
        "tokenizer.json",
        "config.json",
        "tokenizer_config.json",
        "special_tokens_map.json",
        "modules.json",
        "1_Pooling/config.json",
      ]
    ) files.set(path, await Deno.readFile(`${dir}/${path}`));
    files.set("README.md", new TextEncoder().encode("# tiny\n"));
    files.set("model.safetensors", new Uint8Array(64));
    return files;
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}

/** The files svc fetches from `files`, with their sizes and SHA-256: pins for tests. */
export function pinsOf(files: Map<string, Uint8Array<ArrayBuffer>>): ModelPins {
  const fetched = [...files].filter(([path]) => !/README|safetensors/.test(path));
  return Object.fromEntries(fetched.map(([path, bytes]) => [path, {
    size: bytes.length,
    sha256: createHash("sha256").update(bytes).digest("hex"),
  }]));
}

/** A stream that sends `bytes` one byte at a time, `everyMs` apart: a hub that never stalls. */
export function trickle(bytes: Uint8Array<ArrayBuffer>, everyMs: number) {
  let timer: ReturnType<typeof setTimeout> | undefined;
  let at = 0;
  return new ReadableStream<Uint8Array<ArrayBuffer>>({
    pull: (controller) =>
      new Promise<void>((resolve) => {
        timer = setTimeout(() => {
          if (at < bytes.length) controller.enqueue(bytes.slice(at, ++at));
          else controller.close();
          resolve();
        }, everyMs);
      }),
    cancel: () => clearTimeout(timer),
  });
}

/** A logger whose JSON lines a test reads back. */
export function capture(): {
  lines: Record<string, unknown>[];
  logger: ReturnType<typeof createLogger>;
} {
  const lines: Record<string, unknown>[] = [];
  return { lines, logger: createLogger("info", (line) => lines.push(JSON.parse(line))) };
}

/** Runs `run` with a fresh models directory, removed afterwards. */
export async function withModelsDir(run: (modelsDir: string) => Promise<void>): Promise<void> {
  const modelsDir = await Deno.makeTempDir({ prefix: "svc-models-" });
  try {
    await run(modelsDir);
  } finally {
    await Deno.remove(modelsDir, { recursive: true });
  }
}
