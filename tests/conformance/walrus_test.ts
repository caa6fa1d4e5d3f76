/**
 * The Walrus blob store passes the BlobStore suite against a local Walrus publisher and
 * aggregators on a fake Sui network. The network is shared by the suite's tests (the suite's
 * factory has no teardown) and closed by the last test of this file.
 */
import { WalrusBlobStore } from "../../plugins/walrus/mod.ts";
import { startWalrusTestbed } from "../fixtures/walrus_network.ts";
import { blobStoreSuite } from "./suites.ts";

const bed = await startWalrusTestbed({ aggregators: 2 });
const cacheDirs: string[] = [];

blobStoreSuite("WalrusBlobStore", async () => {
  // A fresh operator per store, so each test lists only its own blobs.
  const operator = await bed.newOperator();
  const cacheDir = await Deno.makeTempDir();
  cacheDirs.push(cacheDir);
  return WalrusBlobStore.open({
    publisherUrl: bed.walrus.publisherUrl,
    aggregatorUrls: bed.walrus.aggregatorUrls,
    cacheDir,
    rpcUrl: bed.sui.url,
    walrusPackageId: bed.chain.packageId,
    operatorKey: operator,
  });
});

Deno.test("WalrusBlobStore: close the local Walrus and Sui networks", async () => {
  await bed.close();
  for (const dir of cacheDirs) await Deno.remove(dir, { recursive: true });
});
