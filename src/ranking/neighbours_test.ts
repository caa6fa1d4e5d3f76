import assert from "node:assert/strict";
import { timeOrderedId } from "../ids.ts";
import { NamespaceIndex } from "./lexical_index.ts";
import { recallNeighbours } from "./neighbours.ts";

Deno.test("recallNeighbours: two places either side, within half an hour", () => {
  const start = Date.now();
  const ids = [0, 1, 2, 3, 4].map(() => timeOrderedId(start));
  const soon = timeOrderedId(start + 29 * 60_000);
  const late = timeOrderedId(start + 60 * 60_000);
  const index = NamespaceIndex.of(
    [...ids, soon, late].map((id) => ({ id, terms: ["x"], blobId: id, createdAt: 0 })),
  );
  const neighbours = recallNeighbours(index);
  assert.deepEqual(neighbours(ids[0]), [ids[1], ids[2]]);
  assert.deepEqual(neighbours(ids[2]), [ids[0], ids[1], ids[3], ids[4]]);
  assert.deepEqual(neighbours(ids[4]), [ids[2], ids[3], soon], "29 minutes later is near");
  assert.deepEqual(neighbours(soon), [ids[3], ids[4]], "31 minutes apart is not");
  assert.deepEqual(neighbours(late), []);
});
