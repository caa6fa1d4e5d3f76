import assert from "node:assert/strict";
import { whileRoom } from "./while_room.ts";

Deno.test("whileRoom: jobs delivered while the disk is full wait, then go once there is room", async () => {
  const disk = { low: false };
  const processed: string[] = [];
  const room = whileRoom(disk, (jobId) => Promise.resolve(void processed.push(jobId)), 5);
  try {
    await room.take("a");
    assert.deepEqual(processed, ["a"]);
    disk.low = true;
    await room.take("b");
    await room.take("c");
    await room.take("b"); // delivered again: once
    await new Promise((resolve) => setTimeout(resolve, 30));
    assert.deepEqual(processed, ["a"], "nothing taken while the disk is full");
    disk.low = false;
    for (let i = 0; i < 100 && processed.length < 3; i++) {
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
    assert.deepEqual(processed, ["a", "b", "c"]);
  } finally {
    room.stop();
  }
});
