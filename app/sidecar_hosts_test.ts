import assert from "node:assert/strict";
import { readConfig } from "./config.ts";
import { databaseHosts, sidecarNetHosts } from "./sidecar_hosts.ts";

Deno.test("databaseHosts: the authority's hosts, without the credentials", () => {
  assert.deepEqual(databaseHosts("postgres://svc:p%40ss@db.internal:5433/svc"), [
    "db.internal:5433",
  ]);
  assert.deepEqual(databaseHosts("postgresql://a.example,b.example:6432/svc?sslmode=require"), [
    "a.example",
    "b.example:6432",
  ]);
  assert.deepEqual(databaseHosts("postgres:///svc?host=/run/postgresql"), []);
});

Deno.test("the sidecar may reach the database when its ledger is there", () => {
  const result = readConfig({
    SVC_STORE: "postgres",
    SVC_DATABASE_URL: "postgres://svc:secret@127.0.0.1:5432/svc",
    SVC_MASTER_KEY: "5a".repeat(32),
  });
  assert.ok(result.ok, result.ok ? "" : result.problems.join("; "));
  assert.deepEqual(sidecarNetHosts(result.config), ["127.0.0.1:5432"]);
  const embedded = readConfig({});
  assert.ok(embedded.ok);
  assert.deepEqual(sidecarNetHosts(embedded.config), []);
});
