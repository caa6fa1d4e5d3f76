/**
 * Migration 6: the encrypted index. Every table is scoped by the index's name (a set keeps one
 * index per embedder). What is stored is what the Deno KV index stores: sealed blocks and
 * names, keyed hashes of owners and namespaces, random block ids, memory ids, and the index's
 * clear record of itself (format, embedder, key check) and notes. The set's active index and a
 * reindex's progress (its namespaces under keyed hashes) have tables of their own.
 */
import type { Migration } from "../migrations.ts";

export const INDEX: Migration = {
  version: 6,
  name: "index",
  up: `
    create table svc_index_meta (
      index_name text primary key,
      meta jsonb not null
    );
    create table svc_index_notes (
      index_name text not null,
      name text not null,
      value text not null,
      primary key (index_name, name)
    );
    create sequence svc_index_versions;
    create table svc_index_headers (
      index_name text not null,
      ns_hash text not null,
      owner_hash text not null,
      name bytea not null,
      count int not null,
      version bigint not null,
      primary key (index_name, ns_hash)
    );
    create index svc_index_headers_owner on svc_index_headers (index_name, owner_hash);
    create table svc_index_blocks (
      index_name text not null,
      ns_hash text not null,
      block_id text not null,
      bytes bytea not null,
      primary key (index_name, ns_hash, block_id)
    );
    create table svc_index_ids (
      index_name text not null,
      memory_id text not null,
      owner_hash text not null,
      ns_hash text not null,
      primary key (index_name, memory_id)
    );
    create table svc_index_active (
      only_row boolean primary key default true check (only_row),
      name text not null
    );
    create table svc_index_reindex (
      key text primary key,
      value jsonb not null
    );
  `,
};
