/**
 * Signature version 2 binds a request to its relayer: two relayers sharing one ledger (each
 * with its own KV handle on the same file, as two processes would have) and their own replay
 * guards; a request signed for one is refused by the other.
 */
import assert from "node:assert/strict";
import type { TestRelayer } from "./fixtures.ts";
import { reasonOf, recallRequest, sharedLedger } from "./ledger_fixtures.ts";

const A = "http://127.0.0.1:8000";
const B = "https://b.svc.example";

Deno.test("audience: a request signed for relayer A is refused by relayer B on the same ledger", async () => {
  await using shared = await sharedLedger();
  const a = await shared.relayer({ audiences: new Set([A, "http://localhost:8000"]) });
  const b = await shared.relayer({ audiences: new Set([B]) });
  const forA = await recallRequest(shared, A);
  const send = (relayer: TestRelayer) => relayer.send("POST", "/api/recall", forA).then(reasonOf);

  assert.equal(await send(b), "401 wrong_audience", "B refuses it before A has seen it");
  assert.equal(await send(a), "accepted");
  assert.equal(await send(b), "401 wrong_audience", "and after");
  assert.equal(await send(a), "409 replayed_request", "A accepts it once");
  assert.equal(
    await b.send("POST", "/api/recall", await recallRequest(shared, B)).then(reasonOf),
    "accepted",
    "B accepts its own",
  );
});

Deno.test("audience: version 1 is accepted unless the relayer requires version 2", async () => {
  await using shared = await sharedLedger();
  const lenient = await shared.relayer({ audiences: new Set([A]) });
  const strict = await shared.relayer({ audiences: new Set([A]), requireAudience: true });
  const v1 = () => recallRequest(shared);
  assert.equal(await lenient.send("POST", "/api/recall", await v1()).then(reasonOf), "accepted");
  assert.equal(
    await strict.send("POST", "/api/recall", await v1()).then(reasonOf),
    "401 audience_required",
  );
  assert.equal(
    await strict.send("POST", "/api/recall", await recallRequest(shared, A)).then(reasonOf),
    "accepted",
  );
  assert.equal(
    await strict.send("POST", "/api/recall", await recallRequest(shared, B)).then(reasonOf),
    "401 wrong_audience",
  );
});
