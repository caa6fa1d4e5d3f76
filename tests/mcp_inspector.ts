/**
 * Checks a live relayer's MCP endpoint with the official MCP Inspector CLI (fetched by npx, so
 * it needs the npm registry; not part of `deno task test`):
 *
 *   deno task inspector
 *
 * It starts `main.ts` on a temporary data dir, creates an account and a delegate key with the
 * operator CLI, then runs `tools/list`, `svc_remember` and `svc_recall` through the Inspector
 * over Streamable HTTP and over SSE, then lists the tools of the stdio package (`svc-mcp`)
 * spawned by the Inspector; it exits non-zero on any failure.
 */
import assert from "node:assert/strict";
import { newAccountClient, startRelayer, waitForSidecar } from "./relayer_process.ts";
import { taskCommand } from "./task_flags.ts";

const INSPECTOR = "@modelcontextprotocol/inspector@0.19.0";

async function inspector(
  target: string,
  headers: string[],
  args: string[],
  env?: Record<string, string>,
) {
  const { code, stdout, stderr } = await new Deno.Command("npx", {
    args: ["-y", INSPECTOR, "--cli", target, ...headers, ...args],
    stdin: "null",
    env,
  }).output();
  const out = new TextDecoder().decode(stdout);
  if (code !== 0) {
    throw new Error(
      `inspector ${args.join(" ")} exited ${code}: ${new TextDecoder().decode(stderr)}`,
    );
  }
  return JSON.parse(out);
}

const dataDir = await Deno.makeTempDir({ prefix: "svc-inspector-" });
const relayer = await startRelayer(dataDir);
try {
  await waitForSidecar(relayer.url);
  const { privateKey, accountId } = await newAccountClient(dataDir, relayer.url);
  const headers = [
    "--header",
    `Authorization: Bearer ${privateKey}`,
    "--header",
    `x-svc-account-id: ${accountId}`,
  ];
  for (const [transport, target] of [["http", "/api/mcp"], ["sse", "/api/mcp/sse"]]) {
    const url = relayer.url + target;
    const via = ["--transport", transport];
    const { tools } = await inspector(url, headers, [...via, "--method", "tools/list"]);
    const names = tools.map((tool: { name: string }) => tool.name).sort();
    assert.deepEqual(names, [
      "svc_analyze",
      "svc_forget",
      "svc_get",
      "svc_list",
      "svc_namespaces",
      "svc_recall",
      "svc_remember",
      "svc_restore",
      "svc_update",
    ]);
    console.log(`${transport}: tools/list → ${names.join(", ")}`);

    const fact = `over ${transport} I drink my coffee black`;
    const saved = await inspector(url, headers, [
      ...via,
      "--method",
      "tools/call",
      "--tool-name",
      "svc_remember",
      "--tool-arg",
      `text=${fact}`,
    ]);
    assert.match(saved.content[0].text, /^Saved to memory/);
    console.log(`${transport}: svc_remember → ${saved.content[0].text}`);

    const found = await inspector(url, headers, [
      ...via,
      "--method",
      "tools/call",
      "--tool-name",
      "svc_recall",
      "--tool-arg",
      `query=how do I take my coffee over ${transport}?`,
      "limit=1",
    ]);
    assert.ok(found.content[0].text.includes(fact), found.content[0].text);
    console.log(`${transport}: svc_recall → ${found.content[0].text}`);
  }
  // The stdio package, signed out (a fresh HOME), as the Inspector spawns it.
  const home = await Deno.makeTempDir({ prefix: "svc-inspector-home-" });
  const stdio = await inspector(
    Deno.execPath(),
    [],
    [...taskCommand("svc-mcp", ["--local"]), "--method", "tools/list"],
    { HOME: home },
  );
  await Deno.remove(home, { recursive: true });
  const stdioNames = stdio.tools.map((tool: { name: string }) => tool.name).sort();
  assert.deepEqual(stdioNames, [
    "svc_analyze",
    "svc_forget",
    "svc_get",
    "svc_list",
    "svc_login",
    "svc_namespaces",
    "svc_recall",
    "svc_remember",
    "svc_restore",
    "svc_update",
  ]);
  console.log(`stdio svc-mcp (signed out): tools/list → ${stdioNames.join(", ")}`);
  console.log("MCP Inspector CLI: all checks passed");
} finally {
  await relayer.stop();
  await Deno.remove(dataDir, { recursive: true });
}
