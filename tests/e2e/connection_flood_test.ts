/**
 * A flood of connections that takes every file descriptor the relayer may hold stops it taking
 * connections for a while, not for good: it serves again once they close, in the same process.
 */
import assert from "node:assert/strict";
import { startRelayer } from "../relayer_process.ts";

/** Whether `done` holds within 30 s, asked every 100 ms. */
async function within(done: () => boolean | Promise<boolean>): Promise<boolean> {
  for (let i = 0; i < 300; i++) {
    if (await done()) return true;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return false;
}

Deno.test("e2e: a flood of connections past the open-file limit leaves the relayer serving once it ends", async () => {
  const dataDir = await Deno.makeTempDir({ prefix: "svc-flood-" });
  const relayer = await startRelayer(dataDir, {}, { maxFiles: 256 });
  try {
    const { hostname, port } = new URL(relayer.url);
    const held: Deno.TcpConn[] = [];
    for (let i = 0; i < 400; i++) {
      try {
        held.push(await Deno.connect({ hostname, port: Number(port) }));
      } catch {
        break; // refused: the accept loop failed
      }
    }
    // The kernel accepts each connection before the relayer takes it: wait until it tried.
    assert.ok(await within(() => relayer.log().includes("stopped taking")), relayer.log());
    for (const conn of held) conn.close();
    let health: Response | undefined;
    assert.ok(
      await within(async () => {
        await health?.body?.cancel();
        health = await fetch(`${relayer.url}/health`).catch(() => undefined);
        return health?.ok ?? false;
      }),
      relayer.log(),
    );
    assert.equal((await health!.json()).status, "ok");
    assert.match(relayer.log(), /"the relayer takes connections again"/);
  } finally {
    await relayer.stop();
    await Deno.remove(dataDir, { recursive: true });
  }
});
