/**
 * The file naming a `VectorIndexSet`'s active index (JSON `{"name": …}`), shared by the
 * encrypted index and LanceDB. It is written to a temporary file, synced and renamed over the
 * old one, and the folder synced: a crash leaves the old name or the new, never a mix.
 */
import { backendError, checkIndexName, SvcError } from "@svc/relayer/kit";
import { writeWhole } from "@svc/util/files";

/** The active index named in `dir/file`; `fallback` when there is no such file. */
export async function readActiveIndex(
  dir: string,
  file: string,
  fallback: string,
  backend: string,
): Promise<string> {
  let text: string;
  try {
    text = await Deno.readTextFile(`${dir}/${file}`);
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) return fallback;
    throw backendError(backend, "read the active index's name", error);
  }
  const name = (JSON.parse(text) as { name?: unknown }).name;
  if (typeof name !== "string") {
    throw new SvcError(
      "internal",
      `Cannot read the active index's name: ${dir}/${file} is damaged`,
    );
  }
  return checkIndexName(name);
}

/** Names `name` the active index in `dir/file`, in one step a crash leaves done or not. */
export async function writeActiveIndex(dir: string, file: string, name: string): Promise<void> {
  checkIndexName(name);
  await writeWhole(`${dir}/${file}`, JSON.stringify({ name }) + "\n");
  if (Deno.build.os === "windows") return;
  const folder = await Deno.open(dir, { read: true });
  try {
    await folder.sync();
  } finally {
    folder.close();
  }
}
