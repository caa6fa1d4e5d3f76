import assert from "node:assert/strict";
import { durationMs, expiryFromFlag, parseScopeFlag, scopeFromFlags } from "./key_scope_flags.ts";
import { UsageError } from "./client_flags.ts";

Deno.test("svc key add flags: namespaces, --read-only, --operations and --audit", () => {
  assert.deepEqual(scopeFromFlags({}), {});
  assert.deepEqual(scopeFromFlags({ namespace: "work, notes,work" }), {
    namespaces: ["notes", "work"],
  });
  assert.deepEqual(scopeFromFlags({ "read-only": true }), { operations: ["read"] });
  assert.deepEqual(scopeFromFlags({ "read-only": true, audit: true }), {
    operations: ["read", "audit"],
  });
  assert.deepEqual(scopeFromFlags({ operations: "write,read", namespace: "a" }), {
    namespaces: ["a"],
    operations: ["read", "write"],
  });
  // `all` is every operation, as svc-mcp's --scope all is.
  assert.deepEqual(scopeFromFlags({ operations: "all", namespace: "a" }), { namespaces: ["a"] });
  for (
    const [flags, message] of [
      [{ audit: true }, /--audit adds/],
      [{ operations: "all", audit: true }, /--audit adds/],
      [
        { operations: "read,all" },
        /unknown operation all \(use read, write, erase, audit, or all alone\)/,
      ],
      [{ "read-only": true, operations: "read" }, /not both/],
      [{ operations: "read,delete" }, /unknown operation delete/],
      [{ operations: "" }, /without empty items/],
      [{ namespace: "a,,b" }, /without empty items/],
      [{ namespace: Array.from({ length: 33 }, (_, i) => `n${i}`).join(",") }, /1 to 32/],
    ] as const
  ) {
    assert.throws(() => scopeFromFlags(flags), (e: Error) => {
      assert.ok(e instanceof UsageError);
      assert.match(e.message, message);
      return true;
    });
  }
});

Deno.test("svc-mcp --scope: operations, then namespaces after a colon", () => {
  assert.deepEqual(parseScopeFlag("read"), { operations: ["read"] });
  assert.deepEqual(parseScopeFlag("write,read:work,notes"), {
    namespaces: ["notes", "work"],
    operations: ["read", "write"],
  });
  assert.deepEqual(parseScopeFlag("all:work"), { namespaces: ["work"] });
  assert.deepEqual(parseScopeFlag("*"), {});
  for (const bad of ["", "read:", "reed", "read,,write", ":work"]) {
    assert.throws(() => parseScopeFlag(bad), UsageError, bad);
  }
});

Deno.test("--expires: a duration from now or a time, never the past", () => {
  const now = Date.parse("2026-01-01T00:00:00Z");
  assert.equal(durationMs("30d"), 30 * 86_400_000);
  assert.equal(durationMs("0d"), undefined);
  assert.equal(durationMs("30"), undefined);
  assert.equal(expiryFromFlag("12h", "--expires", now), now + 12 * 3_600_000);
  assert.equal(
    expiryFromFlag("2026-07-01T00:00:00Z", "--expires", now),
    Date.parse("2026-07-01T00:00:00Z"),
  );
  assert.equal(durationMs("36500d"), 36_500 * 86_400_000);
  assert.equal(durationMs("36501d"), undefined, "longer than 100 years");
  for (
    const bad of [
      "2025-07-01T00:00:00Z",
      "2026-02-30T00:00:00Z", // no such day
      "soon",
      "30x",
      "-1d",
      "42",
      "99999999d",
      "9999999w",
    ]
  ) {
    assert.throws(() => expiryFromFlag(bad, "--expires", now), UsageError, bad);
  }
});
