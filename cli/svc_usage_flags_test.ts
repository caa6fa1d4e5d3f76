/**
 * Every flag `svc --help` shows for a command is one the command takes: a flag the help lists
 * but the command line refuses ("blind remember does not take --thread") is a broken promise.
 */
import assert from "node:assert/strict";
import { BLIND_USAGE } from "./svc_blind.ts";
import { LEDGER_USAGE } from "./svc_ledger.ts";
import { LOG_USAGE } from "./svc_log.ts";
import { MEMORY_USAGE } from "./svc_memories.ts";
import { MIGRATE_STORE_USAGE } from "./svc_migrate_store.ts";
import { PORTABILITY_USAGE } from "./svc_portability.ts";
import { REINDEX_USAGE } from "./svc_reindex.ts";
import { STORE_USAGE } from "./svc_store.ts";
import { checkCommandLine, parseCommandLine, subcommandsOf } from "./svc_command_line.ts";

const USAGES = [
  BLIND_USAGE,
  LEDGER_USAGE,
  LOG_USAGE,
  MEMORY_USAGE,
  MIGRATE_STORE_USAGE,
  PORTABILITY_USAGE,
  REINDEX_USAGE,
  STORE_USAGE,
];

/** A command the help shows ("blind remember", "account reactivate") and the flags it shows. */
interface Shown {
  command: string;
  words: string[];
  flags: string[];
}

/** The commands `usage` shows; a synopsis may go on over lines that start with `[` or `--`. */
function shownCommands(usage: string): Shown[] {
  const shown: Shown[] = [];
  let current: Shown[] = [];
  for (const line of usage.split("\n")) {
    // The synopsis ends where two spaces or more start the description.
    const synopsis = line.trimStart().split(/\s{2,}/)[0];
    if (/^ {2}[a-z]/.test(line)) {
      const [command, second = ""] = synopsis.split(" ");
      const subs = subcommandsOf(command);
      const named = subs.length ? second.split("|").filter((sub) => subs.includes(sub)) : [""];
      current = named.map((sub) => ({ command, words: sub ? [sub] : [], flags: [] }));
      shown.push(...current);
    } else if (!/^ {4,}(\[|--)/.test(line)) {
      current = [];
    }
    const flags = [...synopsis.matchAll(/--([a-z][a-z-]*)/g)].map((match) => match[1]);
    for (const entry of current) entry.flags.push(...flags);
  }
  return shown;
}

Deno.test("svc: every flag the help shows for a command is one the command takes", () => {
  let checked = 0;
  for (const usage of USAGES) {
    for (const { command, words, flags } of shownCommands(usage)) {
      for (const flag of flags) {
        const args = [command, ...words, `--${flag}`];
        let tokens;
        try {
          tokens = parseCommandLine(args).tokens;
        } catch {
          tokens = parseCommandLine([command, ...words, `--${flag}=x`]).tokens;
        }
        let refusal = "";
        try {
          checkCommandLine(command, words, tokens);
        } catch (error) {
          refusal = String(error); // another refusal (a value it reads) is not this test's
        }
        assert.doesNotMatch(refusal, /does not take/, `${[command, ...words].join(" ")} --${flag}`);
        checked++;
      }
    }
  }
  assert.ok(checked > 60, `${checked} flags checked`);
});
