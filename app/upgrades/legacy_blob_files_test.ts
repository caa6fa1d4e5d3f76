import assert from "node:assert/strict";
import { writeLegacyBlob } from "../../tests/fixtures/legacy_blob_files.ts";
import { LegacyBlobFiles } from "./legacy_blob_files.ts";

const meta = { owner: "0xowner", namespace: "n1", memoryId: "m1", createdAt: 1 };

Deno.test("legacy blob files: ids that are not 43 base64url characters are never made a path", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const blobs = `${dir}/data/blobs`;
    const blobId = await writeLegacyBlob(blobs, new TextEncoder().encode("x"), meta);
    // A file outside the store, which a path made from an id such as `../../../secret` reaches.
    await Deno.writeTextFile(`${dir}/secret`, "outside");
    await Deno.writeTextFile(`${dir}/secret.json`, JSON.stringify(meta));
    const [owner] = await Array.fromAsync(Deno.readDir(`${blobs}/index`));
    const [namespace] = await Array.fromAsync(Deno.readDir(`${blobs}/index/${owner.name}`));
    for (const name of ["1-..", "1-short", `1-${"a".repeat(44)}`]) {
      await Deno.writeTextFile(`${blobs}/index/${owner.name}/${namespace.name}/${name}`, "");
    }

    const files = (await LegacyBlobFiles.find(blobs))!;
    assert.deepEqual((await Array.fromAsync(files.entries())).map((e) => e.blobId), [blobId]);
    for (
      const bad of ["../../../secret", "../../secret", "", "a".repeat(44), `${"a".repeat(42)}/`]
    ) {
      assert.equal(await files.get(bad), null, bad);
    }
    assert.deepEqual(await files.get(blobId), new TextEncoder().encode("x"));
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("legacy blob files: a data directory without them has none", async () => {
  const dir = await Deno.makeTempDir();
  try {
    assert.equal(await LegacyBlobFiles.find(`${dir}/blobs`), null);
    assert.equal(await LegacyBlobFiles.holdsBlobs(`${dir}/blobs`), false);
    await Deno.mkdir(`${dir}/blobs/objects`, { recursive: true });
    assert.equal(await LegacyBlobFiles.holdsBlobs(`${dir}/blobs`), false, "an empty folder");
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
