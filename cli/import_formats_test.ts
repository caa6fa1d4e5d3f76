import assert from "node:assert/strict";
import { formatOfText, utf8Text } from "./import_formats.ts";

const entity = { type: "entity", name: "Alice", entityType: "person", observations: ["Runs"] };
const relation = { type: "relation", from: "Alice", to: "Acme", relationType: "works_at" };
const lines = (...values: unknown[]) => values.map((value) => JSON.stringify(value)).join("\n");

Deno.test("formatOfText tells each format from its first record", () => {
  const cases: [string, string | undefined][] = [
    [lines(entity, relation) + "\n", "mcp-memory"],
    [lines(relation), "mcp-memory"],
    [lines({ name: "Bob", observations: [] }), "mcp-memory"],
    [JSON.stringify({ entities: [entity], relations: [] }, null, 2), "mcp-memory"],
    [JSON.stringify({ results: [{ memory: "Likes tea" }] }, null, 2), "mem0"],
    [JSON.stringify({ memories: [] }), "mem0"],
    [JSON.stringify([{ memory: "Likes tea" }]), "mem0"],
    [lines({ text: "I am vegetarian", namespace: "default" }, { text: "Standup" }), "jsonl"],
    // The first line that is JSON tells: a broken first line is passed over.
    ["{not json\n\n" + lines({ text: "I am vegetarian" }, entity), "jsonl"],
    // So is a line of mem0's shape: its file is one value, not lines.
    [lines([1, 2], { results: [] }, { text: "after a list" }), "jsonl"],
    [lines({ format: "svc-export", version: 1 }) + "\n\u0000binary", "svc-export"],
    ["", undefined],
    ["a,b,c\n1,2,3\n", undefined],
    [lines({ id: 1 }), undefined],
    ["42", undefined],
  ];
  for (const [text, format] of cases) assert.equal(formatOfText(text), format, text);
});

Deno.test("utf8Text decodes UTF-8, else names the first line that is not", () => {
  const bytes = (...parts: (string | number[])[]) =>
    new Uint8Array(
      parts.flatMap((part) =>
        typeof part === "string" ? [...new TextEncoder().encode(part)] : part
      ),
    );
  assert.deepEqual(utf8Text(bytes('{"text":"caf\u00e9"}\n')), { text: '{"text":"caf\u00e9"}\n' });
  assert.deepEqual(utf8Text(bytes("a\n", [0xff], "\nc")), { badLine: 2 });
  assert.deepEqual(utf8Text(bytes("a\nb\n\n", [0xc3])), { badLine: 4 });
  assert.deepEqual(utf8Text(bytes([0xe2, 0x82], "\n")), { badLine: 1 });
});
