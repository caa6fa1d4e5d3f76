/** The names of a vector store's indexes (see `VectorIndexSet`). */
import { SvcError } from "../errors.ts";

/** The name of the index a backend has always used, active until another is activated. */
export const DEFAULT_INDEX = "index";

const INDEX_NAME = /^[a-z0-9][a-z0-9-]{0,39}$/;

/** `name` when it is a valid index name; otherwise throws `bad_request`. */
export function checkIndexName(name: string): string {
  if (!INDEX_NAME.test(name)) {
    throw new SvcError(
      "bad_request",
      `Cannot use the index name "${name}": a name is 1 to 40 characters of a-z, 0-9 and "-", ` +
        `starting with a letter or digit`,
    );
  }
  return name;
}
