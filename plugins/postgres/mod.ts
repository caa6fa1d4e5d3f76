/**
 * The PostgreSQL plugin: the database many relayers share, and the stores built on it.
 * @module
 */
export { Database } from "./database.ts";
export { PgJobQueue } from "./job_queue.ts";
