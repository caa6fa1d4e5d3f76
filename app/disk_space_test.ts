import assert from "node:assert/strict";
import { DiskSpace, startRefusal } from "./disk_space.ts";
import { silentLogger } from "@svc/relayer/kit";

Deno.test("startRefusal: names the directory, the space free and the floor", () => {
  const MB = 1024 * 1024;
  assert.equal(startRefusal("/srv/svc", 65 * MB, 64 * MB), undefined);
  assert.equal(
    startRefusal("/srv/svc", 3.5 * MB, 64 * MB),
    "the disk of the data directory (/srv/svc) has 3 MB free; the relayer needs 64 MB " +
      "(SVC_MIN_FREE_MB). Free some space, or lower SVC_MIN_FREE_MB",
  );
  assert.equal(startRefusal("/srv/svc", 0, 0), undefined, "0 turns the check off");
});

Deno.test("DiskSpace: under the floor a write gets 503 disk_full with Retry-After", async () => {
  const full = await DiskSpace.watch(".", 100, silentLogger, () => Promise.resolve(99));
  const roomy = await DiskSpace.watch(".", 100, silentLogger, () => Promise.resolve(100));
  try {
    assert.equal(roomy.low, false);
    assert.equal(roomy.refusal(), undefined);
    assert.equal(full.low, true);
    const refusal = full.refusal()!;
    assert.equal(refusal.status, 503);
    assert.equal(refusal.details.reason, "disk_full");
    assert.equal(refusal.headers["retry-after"], "30");
    assert.match(refusal.message, /disk is full\. Reads and erases still work/);
  } finally {
    full.stop();
    roomy.stop();
  }
});
