import assert from "node:assert/strict";
import { SvcError } from "../errors.ts";
import { array, base64, integer, nonEmptyString, object, oneOf, string, text } from "./fields.ts";
import { expiry, memoryId, namespace, tags, time, vector } from "./memory_fields.ts";

/** The sentence of the 400 `parse` throws. */
function refusal(parse: () => unknown): string {
  try {
    parse();
  } catch (error) {
    assert.ok(error instanceof SvcError && error.code === "bad_request", String(error));
    return error.message;
  }
  assert.fail("the value was accepted");
}

const ID = "0190f5a2-7c1e-7b3a-9f00-3c2d1e0f4a5b";

Deno.test("fields parse with the sentences of validate.ts and name the field they are given", () => {
  assert.equal(text({ max: 5 }).parse("hello", "text"), "hello");
  assert.equal(refusal(() => text({ max: 5 }).parse(undefined, "query")), "query is required");
  assert.equal(refusal(() => text({ max: 5 }).parse(" ", "text")), "text must not be empty");
  assert.equal(
    refusal(() => text({ max: 5 }).parse("héllo", "text")),
    "text must be at most 5 bytes of UTF-8",
  );
  assert.equal(namespace().parse(undefined, "namespace"), "default");
  assert.equal(namespace().parse(null, "namespace"), "default");
  assert.equal(
    refusal(() => namespace({ required: true }).parse(undefined, "namespace")),
    "namespace is required",
  );
  assert.equal(
    refusal(() =>
      namespace({ required: "namespace is required to erase it" }).parse(null, "namespace")
    ),
    "namespace is required to erase it",
  );
  assert.equal(
    refusal(() => namespace().parse("a\u0007", "namespace")),
    "namespace must not contain control characters",
  );
  // Where memories are written, none blank, padded or reordered; read, older names still are.
  const written = namespace({ written: true });
  for (const look of [" ", "work ", " work", "\twork"]) {
    assert.match(
      refusal(() => written.parse(look, "namespace")),
      /namespace must not (be blank|contain control)/,
    );
  }
  assert.equal(
    refusal(() => written.parse("\u202eexample", "namespace")),
    "namespace must not contain bidirectional controls (U+202A to U+202E, U+2066 to U+2069)",
  );
  for (
    const [look, code] of [
      ["wo\u200brk", "200B"],
      ["scr\u009batch", "009B"],
      ["wo\ufeffrk", "FEFF"],
      ["\u3164", "3164"],
      ["work\u{e0041}", "E0041"],
    ]
  ) {
    assert.equal(
      refusal(() => written.parse(look, "namespace")),
      `namespace must not contain characters that show as nothing (U+${code})`,
    );
    assert.equal(namespace().parse(look, "namespace"), look, "an older name is still read");
  }
  // Joiners stay: scripts and emoji sequences need them.
  assert.equal(written.parse("می\u200cخواهم", "namespace"), "می\u200cخواهم");
  assert.equal(written.parse("👩\u200d💻", "namespace"), "👩\u200d💻");
  assert.equal(written.parse("❤\ufe0f", "namespace"), "❤\ufe0f");
  assert.equal(written.parse("my work", "namespace"), "my work");
  assert.equal(namespace().parse("work ", "namespace"), "work ");
  const limit = integer({ fallback: 10, min: 1, max: 100 });
  assert.equal(limit.parse(undefined, "limit"), 10);
  assert.equal(refusal(() => limit.parse(101, "limit")), "limit must be between 1 and 100");
  assert.equal(refusal(() => limit.parse("5", "limit")), "limit must be an integer");
  assert.deepEqual(tags().parse(["a", "b", "a"], "tags"), ["a", "b"]);
  assert.equal(
    refusal(() => tags().parse([""], "tags")),
    "tags[0] must be a string of 1 to 64 characters",
  );
  // A memory's tags hide no characters either; a filter still takes older tags that do.
  const writtenTags = tags({ written: true });
  assert.equal(
    refusal(() => writtenTags.parse(["diet", "‮teid"], "tags")),
    "tags[1] must not contain bidirectional controls (U+202A to U+202E, U+2066 to U+2069)",
  );
  assert.equal(
    refusal(() => writtenTags.parse(["di​et"], "tags")),
    "tags[0] must not contain characters that show as nothing (U+200B)",
  );
  assert.deepEqual(tags().parse(["‮teid"], "tags"), ["‮teid"]);
  assert.deepEqual(writtenTags.parse(["👩‍💻", "diet"], "tags"), ["👩‍💻", "diet"]);
  assert.equal(time().parse("2026-05-01T12:00:00Z", "since"), Date.parse("2026-05-01T12:00:00Z"));
  for (const wrong of ["soon", "2030-02-30T00:00:00Z", "2026-02-29", "2026-04-31T00:00:00Z"]) {
    assert.equal(
      refusal(() => time().parse(wrong, "since")),
      "since must be an ISO 8601 date and time",
    );
  }
  assert.equal(time().parse("2028-02-29", "since"), Date.UTC(2028, 1, 29));
  assert.equal(memoryId().parse(undefined, "replaces"), undefined);
  assert.equal(memoryId({ required: true }).parse(ID, "id"), ID);
  assert.equal(
    refusal(() => memoryId({ required: true }).parse(undefined, "id")),
    "id must be a memory id (a lowercase UUID)",
  );
  assert.deepEqual(vector({ dimensions: () => 2 }).parse([0.5, 1], "vector"), [0.5, 1]);
  assert.equal(
    refusal(() => vector({ dimensions: () => 2 }).parse([1], "vector")),
    "vector must have exactly 2 numbers (the index's dimensions)",
  );
  assert.deepEqual(base64().parse("YQ==", "encrypted_data"), new Uint8Array([97]));
  assert.equal(string().parse(5, "cursor"), undefined);
  assert.equal(
    refusal(() => nonEmptyString().parse("", "job_ids[3]")),
    "job_ids[3] must be a non-empty string",
  );
});

Deno.test("objects read their members in order, nested ones with bare names; groups and checks", () => {
  const item = object({ text: text({ max: 100 }), namespace: namespace() });
  const bulk = object({ items: array(item, { min: 1, max: 2 }) });
  assert.deepEqual(bulk.parseObject({ items: [{ text: "a" }], extra: true }), {
    items: [{ text: "a", namespace: "default" }],
  });
  assert.equal(
    refusal(() => bulk.parseObject({ items: [] })),
    "items must have between 1 and 2 entries",
  );
  assert.equal(refusal(() => bulk.parseObject({ items: ["x"] })), "items[0] must be an object");
  assert.equal(
    refusal(() => bulk.parseObject({ items: [{ text: "" }] })),
    "text must not be empty",
  );
  // The first member in order is the one named.
  assert.equal(refusal(() => item.parseObject({ text: 5, namespace: 7 })), "text must be a string");

  const remember = object({ text: text({ max: 100 }), expiresAt: expiry() });
  const now = Date.now();
  const { expiresAt } = remember.parseObject({ text: "a", ttl_seconds: 60 });
  assert.ok(expiresAt! >= now + 60_000 && expiresAt! <= Date.now() + 60_000);
  assert.equal(
    refusal(() => remember.parseObject({ text: "a", ttl_seconds: 60, expires_at: "2999-01-01" })),
    "Send either ttl_seconds or expires_at, not both",
  );

  const erase = object({ namespace: namespace({ required: true }), confirm: string() }, {
    check: ({ namespace, confirm }) => {
      if (confirm !== namespace) throw new SvcError("bad_request", "confirm must repeat it");
    },
  });
  assert.deepEqual(erase.parseObject({ namespace: "a", confirm: "a" }), {
    namespace: "a",
    confirm: "a",
  });
  assert.equal(refusal(() => erase.parseObject({ namespace: "a" })), "confirm must repeat it");
});

Deno.test("queries: repeated parameters for lists, digits as integers, a field's own parameter name", () => {
  const list = object({
    limit: integer({ fallback: 50, min: 1, max: 500 }),
    tags: tags({ param: "tag" }),
    cursor: string(),
  });
  const read = (query: string) => list.parseQuery(new URLSearchParams(query));
  assert.deepEqual(read("limit=5&tag=a&tag=b&cursor=c"), {
    limit: 5,
    tags: ["a", "b"],
    cursor: "c",
  });
  assert.deepEqual(read(""), { limit: 50, tags: undefined, cursor: undefined });
  assert.equal(refusal(() => read("limit=ten")), "limit must be an integer");
  assert.equal(refusal(() => read("limit=-1")), "limit must be between 1 and 500");
  assert.equal(refusal(() => read("limit=0")), "limit must be between 1 and 500");
  assert.equal(refusal(() => read("limit=1&limit=2")), "limit must be given once");
  assert.equal(refusal(() => read("cursor=a&cursor=b")), "cursor must be given once");
  assert.equal(
    refusal(() => read(`tag=${"x".repeat(65)}`)),
    "tags[0] must be a string of 1 to 64 characters",
  );
});

Deno.test("objects describe themselves as JSON Schema: properties, required, defaults, constraints", () => {
  const shape = object({
    text: text({ max: 1024 }),
    namespace: namespace(),
    limit: integer({ fallback: 10, min: 1, max: 100, description: "How many." }),
    tags: tags(),
    vector: vector({ dimensions: () => 3 }),
    expiresAt: expiry(),
  });
  const schema = shape.schema();
  assert.equal(schema.type, "object");
  assert.deepEqual(schema.required, ["text", "vector"]);
  const properties = schema.properties as Record<string, Record<string, unknown>>;
  assert.deepEqual(Object.keys(properties), [
    "text",
    "namespace",
    "limit",
    "tags",
    "vector",
    "ttl_seconds",
    "expires_at",
  ]);
  assert.equal(properties.text.maxLength, 1024);
  assert.equal(properties.namespace.default, "default");
  // An optional field may be null (it then takes its default), as the parser reads it.
  assert.deepEqual(
    { ...properties.limit },
    { type: ["integer", "null"], minimum: 1, maximum: 100, default: 10, description: "How many." },
  );
  assert.equal(properties.text.type, "string", "a required field may not be null");
  for (const name of ["namespace", "tags", "ttl_seconds", "expires_at"]) {
    assert.ok((properties[name].type as string[]).includes("null"), name);
  }
  const nulls = { namespace: null, limit: null, tags: null, ttl_seconds: null, expires_at: null };
  const parsed = shape.parse({ text: "x", vector: [1, 2, 3], ...nulls }, "body");
  assert.deepEqual([parsed.namespace, parsed.limit, parsed.tags], ["default", 10, undefined]);
  assert.equal(properties.tags.maxItems, 16);
  assert.deepEqual([properties.vector.minItems, properties.vector.maxItems], [3, 3]);
  assert.deepEqual(schema.allOf, [{
    not: {
      required: ["ttl_seconds", "expires_at"],
      properties: { ttl_seconds: { not: { type: "null" } }, expires_at: { not: { type: "null" } } },
    },
  }]);
  // A choice of strings may be null too.
  const kinds = object({ kind: oneOf(["a", "b"]) }).schema().properties as Record<
    string,
    Record<string, unknown>
  >;
  assert.deepEqual([kinds.kind.type, kinds.kind.enum], [["string", "null"], ["a", "b", null]]);
  assert.equal(namespace({ required: true }).schema().default, undefined);
});
