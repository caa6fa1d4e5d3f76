import assert from "node:assert/strict";
import {
  exportMemories,
  exportPath,
  type ImportLine,
  importMemories,
  type ImportProgress,
  type ImportSummary,
  textLines,
} from "./portability.ts";

/** A fake `POST /api/import`: fails lines whose text is "bad", imports the others. */
function fakeImport() {
  const bodies: string[] = [];
  const post = (body: string): Promise<ImportSummary> => {
    bodies.push(body);
    const lines = body.trimEnd().split("\n");
    const failed = lines.flatMap((line, i) =>
      JSON.parse(line).text === "bad" ? [{ line: i + 1, error: "bad text" }] : []
    );
    return Promise.resolve({
      imported: lines.length - failed.length,
      duplicates: 0,
      failed,
      job_ids: lines.flatMap((line, i) =>
        failed.some((f) => f.line === i + 1) ? [] : [`job-${JSON.parse(line).text}`]
      ),
    });
  };
  return { bodies, post };
}

Deno.test("import sends batches of at most 500 lines and numbers failures across them", async () => {
  const { bodies, post } = fakeImport();
  const lines: (ImportLine | string)[] = Array.from({ length: 1200 }, (_, i) => ({
    text: i === 699 || i === 1199 ? "bad" : `fact ${i}`,
  }));
  lines[9] = '{"text":\n"split over lines"}';
  lines[10] = "{broken\n";
  lines[11] = "  ";
  lines[12] = "\r\n";
  const progress: ImportProgress[] = [];
  const summary = await importMemories(post, lines, { onProgress: (p) => progress.push(p) });
  assert.deepEqual(bodies.map((body) => body.trimEnd().split("\n").length), [500, 500, 197]);
  assert.deepEqual(summary.failed, [
    { line: 11, error: "not valid JSON" },
    { line: 700, error: "bad text" },
    { line: 1200, error: "bad text" },
  ]);
  assert.equal(summary.imported, 1195);
  assert.equal(summary.job_ids[9], "job-split over lines");
  const last = { lines: 1200, imported: 1195, duplicates: 0, failed: 3, sending: 0 };
  assert.deepEqual(progress.at(-1), last);
  // Before each request, the lines it carries, which the relayer may take unanswered.
  assert.deepEqual(
    progress.map((p) => [p.lines, p.sending]),
    [[3, 500], [503, 0], [503, 500], [1003, 0], [1003, 197], [1200, 0]],
  );
});

Deno.test("import cuts batches by bytes too, and takes async iterables", async () => {
  const { bodies, post } = fakeImport();
  async function* lines() {
    for (let i = 0; i < 10; i++) yield { text: `${i}`.padEnd(300, "x") };
  }
  const summary = await importMemories(post, lines(), { batchBytes: 1000 });
  assert.equal(summary.imported, 10);
  assert.ok(bodies.every((body) => new TextEncoder().encode(body).length <= 1000));
  assert.equal(bodies.length, 4);
});

Deno.test("exportPath names each namespace asked for", () => {
  assert.equal(exportPath(), "/api/export");
  assert.equal(exportPath({ namespace: "a b" }), "/api/export?namespace=a+b");
  assert.equal(exportPath({ namespace: ["a", "b"] }), "/api/export?namespace=a&namespace=b");
});

Deno.test("textLines splits a stream of bytes at line ends, whatever the pieces", async () => {
  const text = "one\r\ntwo\n\nthrée\nlast";
  const bytes = new TextEncoder().encode(text);
  const pieces = Array.from(bytes, (byte) => new Uint8Array([byte]));
  const lines = [];
  for await (const line of textLines(ReadableStream.from(pieces))) lines.push(line);
  assert.deepEqual(lines, ["one", "two", "", "thrée", "last"]);
});

Deno.test("an export cut short fails its reader instead of ending quietly", async () => {
  const line = JSON.stringify({ text: "first", namespace: "default" }) + "\n";
  let sent = false;
  const body = new ReadableStream<Uint8Array>({
    pull(controller) {
      if (sent) return controller.error(new TypeError("connection reset"));
      sent = true;
      controller.enqueue(new TextEncoder().encode(line));
    },
  });
  const seen: string[] = [];
  await assert.rejects(async () => {
    for await (const memory of exportMemories(() => Promise.resolve(new Response(body)))) {
      seen.push(memory.text);
    }
  }, /connection reset/);
  assert.deepEqual(seen, ["first"]);
});
