import assert from "node:assert/strict";
import { parseArgs } from "node:util";
import { argsMessage } from "./args.ts";

function refusal(args: string[]): unknown {
  try {
    parseArgs({ args, options: { relayer: { type: "string" } } });
  } catch (error) {
    return error;
  }
  assert.fail(`parseArgs took ${args.join(" ")}`);
}

Deno.test("argsMessage names an unknown flag in a few words and leaves other messages", () => {
  assert.equal(argsMessage(refusal(["--bogus"])), "unknown option --bogus");
  assert.equal(argsMessage(refusal(["-x"])), "unknown option -x");
  assert.match(argsMessage(refusal(["--relayer"])), /--relayer/);
  assert.equal(
    argsMessage(new Error("the label must be 1 to 64 bytes")),
    "the label must be 1 to 64 bytes",
  );
  assert.equal(argsMessage("plain"), "plain");
});
