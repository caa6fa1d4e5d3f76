import assert from "node:assert/strict";
import { SvcError } from "../errors.ts";
import { describeKeyLimits, keyLimitsJson, parseKeyLimits } from "./key_limits.ts";

Deno.test("key limits: the wire form names every limit, null for none", () => {
  assert.deepEqual(keyLimitsJson(undefined), {
    namespaces: null,
    operations: null,
    expires_at: null,
  });
  assert.deepEqual(
    keyLimitsJson({ namespaces: ["a"], operations: ["read"] }, Date.parse("2030-01-01T00:00:00Z")),
    { namespaces: ["a"], operations: ["read"], expires_at: "2030-01-01T00:00:00.000Z" },
  );
  assert.equal(describeKeyLimits({}), "full access");
  assert.equal(
    describeKeyLimits({ namespaces: ["a", "b"], operations: ["read", "audit"] }, 1000, 999),
    "operations read, audit; namespaces a, b; expires 1970-01-01T00:00:01.000Z",
  );
  assert.equal(describeKeyLimits({}, 1000, 1000), "full access; expired 1970-01-01T00:00:01.000Z");
});

Deno.test("key limits: parsed from the wire, nulls and absences meaning no limit", () => {
  assert.deepEqual(parseKeyLimits({}), { scope: {} });
  assert.deepEqual(parseKeyLimits({ namespaces: null, operations: null, expires_at: null }), {
    scope: {},
  });
  assert.deepEqual(
    parseKeyLimits({
      namespaces: ["b", "a", "b"],
      operations: ["write", "read"],
      expires_at: "2030-01-01T00:00:00Z",
    }),
    {
      scope: { namespaces: ["a", "b"], operations: ["read", "write"] },
      expiresAt: Date.parse("2030-01-01T00:00:00Z"),
    },
  );
  for (
    const bad of [
      { namespaces: [] },
      { operations: ["read", "fly"] },
      { expires_at: "tomorrow" },
      { expires_at: "2030-01-01 00:00:00" },
      { expires_at: "2030-02-30T00:00:00Z" },
      { expires_at: 1 },
    ]
  ) {
    assert.throws(() => parseKeyLimits(bad), SvcError, JSON.stringify(bad));
  }
});
