/**
 * Migration 3: the local ledger: accounts, keys, transactions. Nothing is readable without the
 * master key: rows are found by keyed hashes (HMAC-SHA-256) of account ids, owners and delegate
 * keys, and accounts and transactions are sealed (AES-256-GCM). The ledger is now kept in
 * `svc_state` (`ledger.ts`), and an upgrade (`@svc/upgrades`) moves these tables' rows there.
 */
import type { Migration } from "../migrations.ts";

export const LEDGER: Migration = {
  version: 3,
  name: "ledger",
  up: `
    create table svc_ledger_version (
      singleton boolean primary key default true check (singleton),
      version bigint not null,
      key_check bytea
    );
    insert into svc_ledger_version (singleton, version) values (true, 0);

    create table svc_ledger_accounts (
      account_hash bytea primary key,
      owner_hash bytea not null unique,
      sealed bytea not null
    );

    create table svc_ledger_keys (
      key_hash bytea primary key,
      account_hash bytea not null references svc_ledger_accounts (account_hash)
    );
    create index svc_ledger_keys_account on svc_ledger_keys (account_hash);

    create table svc_ledger_transactions (
      digest text primary key,
      executed boolean not null,
      sealed bytea not null,
      expires_at timestamptz not null
    );
    create index svc_ledger_transactions_expiry on svc_ledger_transactions (expires_at);
  `,
};
