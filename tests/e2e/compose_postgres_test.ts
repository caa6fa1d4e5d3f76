/** The composition on PostgreSQL (a real server): what it refuses at start-up. */
import assert from "node:assert/strict";
import { silentLogger } from "../../src/log.ts";
import { SvcError } from "../../src/errors.ts";
import { openBackends } from "../../app/mod.ts";
import { testDatabase } from "../../plugins/postgres/testing/test_server.ts";
import { TEST_MODELS_DIR } from "../relayer_process.ts";
import { configOf, holdOne } from "../compose_fixtures.ts";

Deno.test("composition: on PostgreSQL, another embedder is refused naming the database and what works there", async () => {
  await using db = await testDatabase();
  const dataDir = await Deno.makeTempDir({ prefix: "svc-compose-pg-embedder-" });
  const env = {
    SVC_DATA_DIR: dataDir,
    SVC_MODELS_DIR: TEST_MODELS_DIR,
    SVC_STORE: "postgres",
    SVC_DATABASE_URL: db.url,
    SVC_MASTER_KEY: "ab".repeat(32),
  };
  try {
    const first = await openBackends(configOf({ ...env, SVC_EMBEDDER: "lexical" }), silentLogger);
    await holdOne(first);
    await first.close();
    await assert.rejects(
      openBackends(configOf({ ...env, SVC_EMBEDDER: "local" }), silentLogger),
      (error) =>
        error instanceof SvcError && error.code === "conflict" &&
        /in the database/.test(error.message) && !error.message.includes(dataDir) &&
        error.message.includes("SVC_EMBEDDER=lexical") &&
        /not supported with SVC_STORE=postgres/.test(error.message) &&
        !/SVC_REINDEX|svc reindex/.test(error.message),
    );
  } finally {
    await Deno.remove(dataDir, { recursive: true });
  }
});
