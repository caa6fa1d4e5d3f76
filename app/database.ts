/**
 * The shared database of `SVC_STORE=postgres`, and the PostgreSQL plugin, which the composition
 * loads only with that setting.
 */
import type { Config } from "./config.ts";
import type { Logger } from "@svc/relayer/kit";
import type { Database } from "@svc/postgres";

/** The PostgreSQL plugin, loaded only with `SVC_STORE=postgres`. */
export const postgresPlugin = () => import("@svc/postgres");

/** The shared database of `SVC_STORE=postgres`, its schema brought up to date. */
export async function openDatabase(config: Config, logger?: Logger): Promise<Database | undefined> {
  if (config.store.kind !== "postgres") return undefined;
  const { Database, refuseUnfinishedCopy } = await postgresPlugin();
  const { url, pool } = config.store;
  const database = await Database.open({ url, pool, logger });
  try {
    await refuseUnfinishedCopy(database);
  } catch (error) {
    await database.close();
    throw error;
  }
  return database;
}
