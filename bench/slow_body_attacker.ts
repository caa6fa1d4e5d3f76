/**
 * The attacker of `slow_body.ts`, in a worker so that its work does not delay the normal
 * client's requests on the benchmark's own event loop. Told `{port, heads, sent}`, it opens one
 * connection per head, writes the head and `sent` bytes of the body, never the rest, and answers
 * `{opened: true}`; told `{close: true}`, it closes them all and answers with the statuses of the
 * responses they got (`none` for no response), ready for another attack.
 */
/// <reference no-default-lib="true" />
/// <reference lib="deno.worker" />

interface Start {
  port: number;
  heads: string[];
  sent: number;
  /** Whether `sent` bytes go as one chunk of a chunked body. */
  chunked?: boolean;
}

const encoder = new TextEncoder();
const connections: { conn: Deno.Conn; status: string; done: Promise<void> }[] = [];

async function attack(port: number, head: string, body: Uint8Array) {
  const conn = await Deno.connect({ hostname: "127.0.0.1", port });
  const state = { conn, status: "none", done: Promise.resolve() };
  const writing = (async () => {
    for (const bytes of [encoder.encode(head), body]) {
      for (let at = 0; at < bytes.length;) at += await conn.write(bytes.subarray(at));
    }
  })().catch(() => {});
  const reading = (async () => {
    const buffer = new Uint8Array(1024);
    const n = await conn.read(buffer);
    if (n) state.status = new TextDecoder().decode(buffer.subarray(0, n)).split(" ")[1];
  })().catch(() => {});
  state.done = Promise.all([writing, reading]).then(() => {});
  return state;
}

self.onmessage = async (event: MessageEvent<Start | { close: true }>) => {
  if ("close" in event.data) {
    for (const c of connections) {
      try {
        c.conn.close();
      } catch { /* already closed */ }
    }
    await Promise.all(connections.map((c) => c.done));
    const statuses: Record<string, number> = {};
    for (const c of connections) statuses[c.status] = (statuses[c.status] ?? 0) + 1;
    connections.length = 0; // ready for another attack
    self.postMessage({ statuses });
    return;
  }
  const { port, heads, sent, chunked } = event.data;
  const bytes = new Uint8Array(sent).fill(0x20);
  const body = chunked
    ? new Uint8Array([...encoder.encode(`${sent.toString(16)}\r\n`), ...bytes])
    : bytes;
  for (let i = 0; i < heads.length; i += 100) {
    connections.push(
      ...await Promise.all(heads.slice(i, i + 100).map((h) => attack(port, h, body))),
    );
  }
  self.postMessage({ opened: true });
};
