import assert from "node:assert/strict";
import { idTime, timeOrderedId } from "./ids.ts";

Deno.test("ids: version 7 UUIDs that sort in the order they were made", () => {
  const t = Date.now() + 1_000; // ahead of any id made before in this process
  const ids = Array.from({ length: 5000 }, () => timeOrderedId(t));
  assert.ok(
    ids.every((id) =>
      /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/.test(id)
    ),
  );
  assert.deepEqual([...ids].sort(), ids, "same millisecond: the counter keeps the order");
  assert.equal(new Set(ids).size, ids.length);
  assert.equal(idTime(ids[0]), t);
  assert.equal(idTime(ids.at(-1)!), t + 1, "past 4096 ids, the next millisecond");
  const later = timeOrderedId(t + 2_000);
  assert.ok(later > ids.at(-1)!);
  assert.equal(idTime(later), t + 2_000);
  assert.ok(timeOrderedId(t) > later, "a clock that steps back keeps the order");
  assert.equal(idTime(crypto.randomUUID()), undefined, "a version 4 id has no time");
});
