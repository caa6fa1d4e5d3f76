/**
 * The LanceDB table of an index and the file beside it that records its embedder: opened (or
 * made), refused for another embedder, and given the columns later versions added.
 */
import * as lancedb from "@lancedb/lancedb";
import { Field, FixedSizeList, Float32, Float64, Schema, Utf8 } from "apache-arrow";
import { backendError, checkIndexName, SvcError } from "@svc/relayer/kit";

/** The table and the record of the default index, `"index"` (the only one before reindexing). */
const TABLE = "memories";
const META_FILE = "svc_index.json";

/** The table of index `name`, and the file recording its embedder, in the index's folder. */
export function indexFiles(name: string): { table: string; meta: string } {
  checkIndexName(name);
  return name === "index"
    ? { table: TABLE, meta: META_FILE }
    : { table: `${TABLE}-${name}`, meta: `svc_index.${name}.json` };
}

/** Where an index is and what embedder it is for (see `LanceDbOptions`). */
export interface TableOptions {
  dir: string;
  index?: string;
  model: string;
  dimensions: number;
}

/** Opens index `options.index` (default `"index"`) of folder `options.dir`; see the module. */
export async function openTable(
  options: TableOptions,
): Promise<{ db: lancedb.Connection; table: lancedb.Table }> {
  const { dir } = options;
  const { table: tableName, meta } = indexFiles(options.index ?? "index");
  await Deno.mkdir(dir, { recursive: true, mode: 0o700 });
  const metaPath = `${dir}/${meta}`;
  const wanted = { model: options.model, dimensions: options.dimensions };
  let recorded: typeof wanted | null = null;
  try {
    recorded = JSON.parse(await Deno.readTextFile(metaPath));
  } catch (error) {
    if (!(error instanceof Deno.errors.NotFound)) throw error;
  }
  if (
    recorded && (recorded.model !== wanted.model || recorded.dimensions !== wanted.dimensions)
  ) {
    throw new SvcError(
      "conflict",
      `Cannot open the vector index in ${dir}: it was built with embedder "${recorded.model}" ` +
        `(${recorded.dimensions} dimensions) but "${wanted.model}" (${wanted.dimensions}) is ` +
        `configured. Either configure the original embedder, or move ${dir} away and call ` +
        `POST /api/restore (or \`deno task svc restore\`) for each namespace to re-index ` +
        `from the blob store.`,
    );
  }
  try {
    const db = await lancedb.connect(dir);
    const schema = new Schema([
      new Field("id", new Utf8(), false),
      new Field("owner_id", new Utf8(), false),
      new Field("ns", new Utf8(), false),
      new Field("blob_id", new Utf8(), false),
      new Field("created_at", new Float64(), false),
      new Field("terms", new Utf8(), true),
      new Field("info", new Utf8(), true),
      new Field(
        "vector",
        new FixedSizeList(options.dimensions, new Field("item", new Float32(), true)),
        false,
      ),
    ]);
    // An existing table is opened as it is (creating it "if missing" refuses one whose
    // schema differs, as an earlier version's does).
    const table = (await db.tableNames()).includes(tableName)
      ? await db.openTable(tableName)
      : await db.createEmptyTable(tableName, schema, { existOk: true });
    // Tables made before lexical ranking or infos gain the columns, empty (no terms: dense
    // ranking only; no info: rows as they were remembered then).
    const fields = new Set((await table.schema()).fields.map((field) => field.name));
    const missing = ["terms", "info"].filter((name) => !fields.has(name));
    if (missing.length > 0) {
      await table.addColumns(
        missing.map((name) => ({ name, valueSql: "CAST(NULL AS STRING)" })),
      );
    }
    if (!recorded) await Deno.writeTextFile(metaPath, JSON.stringify(wanted), { mode: 0o600 });
    return { db, table };
  } catch (error) {
    throw backendError("LanceDB", "open the vector index", error);
  }
}
