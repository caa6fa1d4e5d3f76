import assert from "node:assert/strict";
import type { VerifiedCaller } from "../auth/verify.ts";
import { route } from "../http/router.ts";
import { AccessLog } from "../services/access_log.ts";
import { MemoryAccessLogStore } from "../services/access_log_store.ts";
import type { Accessed, HandlerContext } from "./context.ts";
import { withAccessLog } from "./access_log.ts";

const caller = {
  owner: "0xowner",
  address: "0x" + "ab".repeat(32),
  label: "exporter",
} as VerifiedCaller;

function contextOf(): HandlerContext {
  const accessed: Accessed = new Map();
  return {
    caller,
    accessed,
    touch(namespace, ids = []) {
      accessed.set(namespace, [...accessed.get(namespace) ?? [], ...ids]);
    },
    clientAddress: "127.0.0.1",
    requestId: "req-1",
  } as HandlerContext;
}

/** A route streaming one NDJSON line per memory, touching each as it is sent. */
const streaming = route<HandlerContext>("GET", "/stream", ({ touch }) => {
  let i = 0;
  const body = new ReadableStream<Uint8Array>({
    pull(controller) {
      if (i === 3) return controller.close();
      touch(i === 2 ? "b" : "a", [`m${i}`]);
      controller.enqueue(new TextEncoder().encode(`{"id":"m${i++}"}\n`));
    },
  });
  return Promise.resolve(
    new Response(body, { headers: { "content-type": "application/x-ndjson" } }),
  );
}, { signed: true, access: "export" });

Deno.test("a streamed answer is logged once sent, with what it touched meanwhile", async () => {
  const log = await AccessLog.open({
    store: new MemoryAccessLogStore(),
    secret: crypto.getRandomValues(new Uint8Array(32)),
  });
  const [wrapped] = withAccessLog([streaming], log);
  const response = await wrapped.handle(contextOf());
  assert.deepEqual((await log.query("0xowner")).entries, []);
  assert.equal((await response.text()).split("\n").length, 4);
  const entries = await log.query("0xowner");
  assert.deepEqual(
    entries.entries.map((e) => [e.op, e.namespace, e.memory_ids, e.request_id]).reverse(),
    [["export", "a", ["m0", "m1"], "req-1"], ["export", "b", ["m2"], "req-1"]],
  );
  await log.close();
});

Deno.test("a streamed answer its client leaves is logged with what was sent", async () => {
  const log = await AccessLog.open({
    store: new MemoryAccessLogStore(),
    secret: crypto.getRandomValues(new Uint8Array(32)),
  });
  const [wrapped] = withAccessLog([streaming], log);
  const response = await wrapped.handle(contextOf());
  const reader = response.body!.getReader();
  await reader.read();
  await reader.cancel();
  const { entries } = await log.query("0xowner");
  assert.equal(entries.length, 1);
  assert.equal(entries[0].namespace, "a");
  assert.ok(entries[0].memory_ids.includes("m0"));
  await log.close();
});

Deno.test("an answer of 400 or more is not logged; a route without access is left alone", async () => {
  const log = await AccessLog.open({
    store: new MemoryAccessLogStore(),
    secret: crypto.getRandomValues(new Uint8Array(32)),
  });
  const refused = route<HandlerContext>("GET", "/refused", ({ touch }) => {
    touch("a", ["m0"]);
    return Promise.resolve(new Response("{}", { status: 404 }));
  }, { signed: true, access: "get" });
  const plain = route<HandlerContext>("GET", "/plain", ({ touch }) => {
    touch("a", ["m0"]);
    return Promise.resolve(new Response("{}"));
  }, { signed: true });
  const wrapped = withAccessLog([refused, plain], log);
  assert.equal(wrapped[1], plain);
  await wrapped[0].handle(contextOf());
  await wrapped[1].handle(contextOf());
  assert.deepEqual((await log.query("0xowner")).entries, []);
  await log.close();
});

Deno.test("a JSON answer is logged and still sent with its length, not in chunks", async () => {
  const log = await AccessLog.open({
    store: new MemoryAccessLogStore(),
    secret: crypto.getRandomValues(new Uint8Array(32)),
  });
  const recall = route<HandlerContext>("POST", "/api/recall", ({ touch }) => {
    touch("a", ["m0"]);
    return Promise.resolve(Response.json({ results: [{ id: "m0" }] }));
  }, { signed: true, access: "recall" });
  const [wrapped] = withAccessLog([recall], log);
  await using server = Deno.serve(
    { hostname: "127.0.0.1", port: 0, onListen() {} },
    () => wrapped.handle(contextOf()),
  );
  const response = await fetch(`http://127.0.0.1:${server.addr.port}/api/recall`, {
    method: "POST",
  });
  assert.deepEqual(await response.json(), { results: [{ id: "m0" }] });
  assert.equal(response.headers.get("content-length"), "25");
  assert.equal(response.headers.get("transfer-encoding"), null);
  assert.deepEqual((await log.query("0xowner")).entries.map((e) => e.memory_ids), [["m0"]]);
  await log.close();
});
