import assert from "node:assert/strict";
import { SvcError } from "@svc/relayer/kit";
import { fromMcpMemory, fromMem0 } from "./foreign.ts";

/** A memory.jsonl as the reference MCP memory server's `saveGraph` writes it. */
const MCP_MEMORY = [
  {
    type: "entity",
    name: "Alice",
    entityType: "person",
    observations: ["Speaks fluent Spanish", "Prefers morning meetings"],
  },
  { type: "entity", name: "Acme", entityType: "organization", observations: [] },
  { type: "relation", from: "Alice", to: "Acme", relationType: "works_at" },
].map((item) => JSON.stringify(item)).join("\n");

Deno.test("mcp-memory: observations and relations become tagged memories", () => {
  const read = fromMcpMemory(MCP_MEMORY);
  assert.deepEqual(read.failed, []);
  assert.deepEqual(read.lines, [
    {
      origin: "line 1",
      line: { text: "Alice: Speaks fluent Spanish", tags: ["Alice", "person"] },
    },
    {
      origin: "line 1",
      line: { text: "Alice: Prefers morning meetings", tags: ["Alice", "person"] },
    },
    { origin: "line 2", line: { text: "Acme is an organization", tags: ["Acme", "organization"] } },
    { origin: "line 3", line: { text: "Alice works_at Acme", tags: ["Alice", "Acme"] } },
  ]);
});

Deno.test("mcp-memory: a bad line is reported by number, the rest read", () => {
  const text = [
    JSON.stringify({ type: "entity", name: "Bob", entityType: "person", observations: ["Hi"] }),
    "{oops",
    "",
    JSON.stringify({ type: "relation", from: "Bob" }),
    JSON.stringify({ type: "mystery" }),
    JSON.stringify({ type: "relation", from: "Bob", to: "Alice", relationType: "knows" }),
  ].join("\n");
  const read = fromMcpMemory(text);
  assert.deepEqual(read.lines.map(({ origin, line }) => [origin, line.text]), [
    ["line 1", "Bob: Hi"],
    ["line 6", "Bob knows Alice"],
  ]);
  assert.deepEqual(read.failed, [
    { origin: "line 2", error: "not valid JSON" },
    { origin: "line 4", error: "a relation needs from, to and relationType" },
    { origin: "line 5", error: 'unknown type "mystery"' },
  ]);
});

Deno.test("mcp-memory: what is left out of an entity or a graph is reported, not dropped", () => {
  const text = [
    { type: "entity", name: "Bob" },
    { type: "entity", name: "Carl", entityType: "person", observations: "not a list" },
    { type: "entity", name: "Dora", entityType: "person", observations: [123, null, "Sings"] },
  ].map((item) => JSON.stringify(item)).join("\n");
  const read = fromMcpMemory(text);
  assert.deepEqual(read.lines.map(({ origin, line }) => [origin, line.text]), [
    ["line 3", "Dora: Sings"],
  ]);
  assert.deepEqual(read.failed, [
    { origin: "line 1", error: "an entity needs observations or an entityType: it says nothing" },
    { origin: "line 2", error: "an entity's observations must be a list of texts" },
    { origin: "line 3", error: "2 of its observations are not text: left out" },
  ]);
  const graph = fromMcpMemory(JSON.stringify({ entities: [], relations: "bad" }));
  assert.deepEqual(graph.failed, [{
    origin: "relations",
    error: "relations must be a list: left out",
  }]);
});

Deno.test("mcp-memory: read_graph's answer, one object, is read too", () => {
  const graph = {
    entities: [{ name: "Carol", entityType: "person", observations: ["Owns a cat"] }],
    relations: [{ from: "Carol", to: "Dave", relationType: "is_married_to" }],
  };
  const read = fromMcpMemory(JSON.stringify(graph, null, 2));
  assert.deepEqual(read.lines.map(({ origin, line }) => [origin, line.text]), [
    ["entities[0]", "Carol: Owns a cat"],
    ["relations[0]", "Carol is_married_to Dave"],
  ]);
});

Deno.test("mem0: memory text, metadata and owners as tags, created_at kept", () => {
  // As mem0's OSS `Memory.getAll()` answers (TypeScript), and the Python one.
  const file = {
    results: [
      {
        id: "2f8e6c1a-0000-4000-8000-000000000001",
        memory: "Is allergic to peanuts",
        hash: "abc",
        createdAt: "2025-02-03T04:05:06.789Z",
        updatedAt: "2025-02-03T04:05:06.789Z",
        metadata: { category: "health", sources: ["chat", "form"], nested: { x: 1 } },
        user_id: "alice",
      },
      {
        id: "2f8e6c1a-0000-4000-8000-000000000002",
        memory: "Likes hiking",
        created_at: "2024-07-20T10:00:00.123456-07:00",
        metadata: null,
        categories: ["hobbies"],
        agent_id: "travel-bot",
      },
      { id: "3", memory: "", metadata: {} },
      { id: "4", memory: "Unix time", created_at: 1700000000 },
      "not a memory",
      { id: "6", memory: "Likes tea", created_at: "not a date" },
      { id: "7", memory: "No time", created_at: null },
    ],
  };
  const read = fromMem0(JSON.stringify(file));
  assert.deepEqual(read.lines, [
    {
      origin: "memory 1",
      line: {
        text: "Is allergic to peanuts",
        tags: ["category:health", "sources:chat", "sources:form", "user:alice"],
        created_at: "2025-02-03T04:05:06.789Z",
      },
    },
    {
      origin: "memory 2",
      line: {
        text: "Likes hiking",
        tags: ["hobbies", "agent:travel-bot"],
        created_at: "2024-07-20T17:00:00.123Z",
      },
    },
    {
      origin: "memory 4",
      line: { text: "Unix time", created_at: "2023-11-14T22:13:20.000Z" },
    },
    { origin: "memory 7", line: { text: "No time" } },
  ]);
  assert.deepEqual(read.failed, [
    { origin: "memory 3", error: "it has no memory text" },
    { origin: "memory 5", error: "not a JSON object" },
    // Its time would be lost: the memory would be imported as remembered now.
    { origin: "memory 6", error: 'created_at "not a date" is not a time' },
  ]);
  // A bare list is taken as well.
  assert.equal(fromMem0(JSON.stringify(file.results)).lines.length, 4);
});

Deno.test("mem0: a time without an offset is UTC in every time zone", async () => {
  const code = `import { fromMem0 } from ${JSON.stringify(import.meta.resolve("./foreign.ts"))};
    const [{ line }] = fromMem0('[{"memory": "x", "created_at": "2024-05-01T10:00:00"}]').lines;
    console.log(line.created_at);`;
  for (const tz of ["UTC", "Asia/Tokyo", "America/New_York"]) {
    const { stdout } = await new Deno.Command(Deno.execPath(), {
      args: ["eval", "--node-modules-dir=auto", code],
      env: { TZ: tz },
    }).output();
    assert.equal(new TextDecoder().decode(stdout).trim(), "2024-05-01T10:00:00.000Z", tz);
  }
});

Deno.test("mem0: tags are cut to what the relayer takes", () => {
  const metadata = Object.fromEntries(
    Array.from({ length: 20 }, (_, i) => [`k${i}`, i === 0 ? "v".repeat(100) : `v${i}`]),
  );
  const [{ line }] = fromMem0(JSON.stringify([{ memory: "Many tags", metadata }])).lines;
  assert.equal(line.tags!.length, 16);
  assert.equal([...line.tags![0]].length, 64);
});

Deno.test("mem0: a file that is not mem0's JSON is refused whole", () => {
  for (const text of ["{oops", '{"entities": []}', "42"]) {
    assert.throws(() => fromMem0(text), (e) => e instanceof SvcError && /mem0/.test(e.message));
  }
});
