import assert from "node:assert/strict";
import { rejected, silentLogger, type Sponsor, SvcError } from "@svc/relayer/kit";
import { createSidecar, type SidecarLink } from "@svc/relayer/sidecar";
import { SidecarSponsor } from "./sponsor_client.ts";

const TOKEN = "0123456789abcdef0123456789abcdef";

/** A real sidecar handler with `sponsor`, reached in process through the client's `fetch`. */
function linked(sponsor: Sponsor | undefined, token = TOKEN) {
  const sidecar = createSidecar({
    token: TOKEN,
    relayerUrl: "http://relayer.test",
    sponsor,
    logger: silentLogger,
    fetch: () => Promise.reject(new Error("no relayer in this test")),
  });
  let status: "up" | "down" = "up";
  const link: SidecarLink = {
    url: "http://127.0.0.1:9000",
    token,
    status: () => status,
    sessions: () => 0,
  };
  const client = new SidecarSponsor(link, {
    fetch: (input, init) => sidecar.handler(new Request(input, init)),
  });
  return {
    client,
    setStatus: (next: "up" | "down") => (status = next),
    [Symbol.asyncDispose]: () => sidecar.close(),
  };
}

async function refusal(promise: Promise<unknown>): Promise<SvcError> {
  const error = await promise.catch((e) => e);
  assert.ok(error instanceof SvcError, String(error));
  return error;
}

Deno.test("SidecarSponsor: sponsors and executes through the sidecar's sponsor", async () => {
  const seen: unknown[] = [];
  await using s = linked({
    name: "fake",
    sponsor(kind, sender) {
      seen.push([Array.from(kind), sender]);
      return Promise.resolve({ bytes: new Uint8Array([7, 8, 9]), digest: "d1" });
    },
    execute(digest, signature) {
      seen.push([digest, signature]);
      if (signature !== "good") throw rejected("not_owner", "Only the owner may do this");
      return Promise.resolve({ digest, effects: { status: "success" } });
    },
  });
  const sponsored = await s.client.sponsor(new Uint8Array([1, 2]), "0xabc");
  assert.deepEqual(sponsored, { bytes: new Uint8Array([7, 8, 9]), digest: "d1" });
  assert.deepEqual(await s.client.execute("d1", "good"), {
    digest: "d1",
    effects: { status: "success" },
  });
  // A refusal comes back as the sponsor's error: code, sentence and reason.
  const refused = await refusal(s.client.execute("d1", "bad"));
  assert.equal(refused.code, "bad_request");
  assert.equal(refused.message, "Only the owner may do this");
  assert.deepEqual(refused.details, { reason: "not_owner" });
  assert.deepEqual(seen, [[[1, 2], "0xabc"], ["d1", "good"], ["d1", "bad"]]);
});

Deno.test("SidecarSponsor: no sponsor, a wrong token, a sidecar down or unreachable", async () => {
  await using none = linked(undefined);
  assert.equal(
    (await refusal(none.client.sponsor(new Uint8Array([1]), "0xabc"))).code,
    "not_implemented",
  );

  await using wrong = linked(undefined, "not the token");
  assert.equal((await refusal(wrong.client.execute("d", "s"))).code, "forbidden");

  none.setStatus("down");
  const down = await refusal(none.client.execute("d", "s"));
  assert.equal(down.code, "backend_unavailable");
  assert.match(down.message, /not running/);

  const unreachable = new SidecarSponsor({
    url: "http://127.0.0.1:9",
    token: TOKEN,
    status: () => "up",
    sessions: () => 0,
  }, { fetch: () => Promise.reject(new TypeError("connection refused")) });
  const error = await refusal(unreachable.execute("d", "s"));
  assert.equal(error.code, "backend_unavailable");
  assert.ok(!error.message.includes(TOKEN));

  const controller = new AbortController();
  controller.abort();
  await assert.rejects(
    none.client.sponsor(new Uint8Array([1]), "0xabc", { signal: controller.signal }),
    (e) => e === controller.signal.reason,
  );
});
