/** What the composition's tests share: a configuration read from settings, an index holding one row. */
import assert from "node:assert/strict";
import { openBackends, readConfig } from "../app/mod.ts";

/** The configuration of `env`, which must be valid. */
export function configOf(env: Record<string, string>) {
  const result = readConfig(env);
  assert.ok(result.ok, result.ok ? "" : result.problems.join("; "));
  return result.config;
}

/** Stores one row in the index the backends opened, so that it holds a memory. */
export async function holdOne(backends: Awaited<ReturnType<typeof openBackends>>) {
  await backends.relayer.vectors.upsert([{
    id: "m1",
    owner: "0xo",
    namespace: "n",
    blobId: "b",
    createdAt: 1,
    vector: (await backends.relayer.embedder.embed(["hello"]))[0],
  }]);
}
