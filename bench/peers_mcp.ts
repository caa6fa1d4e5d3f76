/**
 * The reference MCP memory server (`@modelcontextprotocol/server-memory`) for the peer
 * benchmark: the installed package run under Node, as `npx` would run it, over stdio through the
 * MCP SDK's client, its graph in a temporary `MEMORY_FILE_PATH`. Every memory is an entity
 * (`memory N`, type `fact`) whose one observation is the text; search is `search_nodes` with the
 * query as is. The server has no vectors and no namespaces: it matches substrings of names,
 * types and observations, and answers in graph order.
 */
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { installedVersion } from "./peers_mem0.ts";
import type { PeerSystem } from "./peers.ts";
import { ROOT } from "../tests/relayer_process.ts";

const SERVER = `${ROOT}node_modules/@modelcontextprotocol/server-memory/dist/index.js`;
const TIMEOUT = { timeout: 120_000 };

interface Entity {
  name: string;
  entityType: string;
  observations: string[];
}

/** Starts the server (Node must be installed) and connects to it. */
export async function startMcpMemory(): Promise<PeerSystem> {
  const version = await installedVersion("@modelcontextprotocol/server-memory");
  const dir = await Deno.makeTempDir({ prefix: "svc-peers-mcp-" });
  const transport = new StdioClientTransport({
    command: "node",
    args: [SERVER],
    env: { MEMORY_FILE_PATH: `${dir}/memory.jsonl`, PATH: Deno.env.get("PATH") ?? "", HOME: dir },
    cwd: dir,
    stderr: "ignore",
  });
  const client = new Client({ name: "svc-peers-bench", version: "1.0.0" });
  await client.connect(transport);
  let next = 0;
  const create = async (texts: string[]) => {
    const entities = texts.map((text) => ({
      name: `memory ${next++}`,
      entityType: "fact",
      observations: [text],
    }));
    const result = await client.callTool(
      { name: "create_entities", arguments: { entities } },
      undefined,
      TIMEOUT,
    );
    const created = (result.structuredContent as { entities: Entity[] }).entities.length;
    if (result.isError || created !== texts.length) {
      throw new Error(`create_entities created ${created} of ${texts.length}`);
    }
  };
  const search = async (query: string, limit: number) => {
    const started = performance.now();
    const result = await client.callTool(
      { name: "search_nodes", arguments: { query } },
      undefined,
      TIMEOUT,
    );
    const ms = performance.now() - started;
    if (result.isError) throw new Error(`search_nodes failed: ${JSON.stringify(result.content)}`);
    const { entities } = result.structuredContent as { entities: Entity[] };
    return { ms, texts: entities.slice(0, limit).map((entity) => entity.observations[0]) };
  };
  return {
    name: "mcp-memory",
    holder: `@modelcontextprotocol/server-memory ${version} in its own Node process, over stdio`,
    pid: transport.pid!,
    addBatch: (texts) => create(texts),
    addOne: (text) => create([text]),
    settle: () => Promise.resolve(),
    search: (query, _namespace, limit) => search(query, limit),
    async probe(text, _namespace, timeoutMs) {
      const started = performance.now();
      await create([text]);
      while (!(await search(text, 3)).texts.includes(text)) {
        if (performance.now() - started > timeoutMs) throw new Error("not searchable in time");
        await new Promise((r) => setTimeout(r, 2));
      }
      return performance.now() - started;
    },
    async close() {
      await client.close();
      await Deno.remove(dir, { recursive: true });
    },
  };
}
