import assert from "node:assert/strict";
import { parseArgs } from "node:util";
import { argsMessage, callerPath, flagValues, repeatedFlag } from "./args.ts";

function refusal(args: string[]): unknown {
  try {
    parseArgs({ args, options: { relayer: { type: "string" } } });
  } catch (error) {
    return error;
  }
  assert.fail(`parseArgs took ${args.join(" ")}`);
}

Deno.test("argsMessage says an unknown flag or a value beginning with a dash in one line, and leaves other messages", () => {
  assert.equal(argsMessage(refusal(["--bogus"])), "unknown option --bogus");
  assert.equal(argsMessage(refusal(["-x"])), "unknown option -x");
  assert.match(argsMessage(refusal(["--relayer"])), /--relayer/);
  assert.equal(
    argsMessage(refusal(["-5 degrees outside"])),
    "unknown option -5 (a text that begins with a dash goes after --)",
  );
  assert.equal(
    argsMessage(refusal(["--relayer", "-1"])),
    "--relayer takes a value that begins with a dash as --relayer=VALUE",
  );
  assert.equal(
    argsMessage(new Error("the label must be 1 to 64 bytes")),
    "the label must be 1 to 64 bytes",
  );
  assert.equal(argsMessage("plain"), "plain");
});

function tokensOf(args: string[]) {
  return parseArgs({
    args,
    tokens: true,
    options: {
      namespace: { type: "string" },
      tag: { type: "string", multiple: true },
      output: { type: "string", short: "o" },
      json: { type: "boolean" },
    },
  }).tokens;
}

Deno.test("repeatedFlag refuses a flag of one value given twice, not one that collects", () => {
  assert.equal(
    repeatedFlag(tokensOf(["--namespace", "work", "--namespace=default"])),
    "--namespace is given twice: it takes one value",
  );
  assert.equal(
    repeatedFlag(tokensOf(["-o", "a", "-o", "b"])),
    "-o is given twice: it takes one value",
  );
  assert.equal(
    repeatedFlag(tokensOf(["--namespace", "a", "--namespace", "b"]), ["namespace"]),
    undefined,
  );
  assert.equal(repeatedFlag(tokensOf(["--tag", "a", "--tag", "b"]), ["tag"]), undefined);
  assert.equal(repeatedFlag(tokensOf(["--json", "--json", "--namespace", "a"])), undefined);
  assert.deepEqual(
    flagValues(tokensOf(["--namespace", "a", "-o", "x", "--namespace=b"]), "namespace"),
    [
      "a",
      "b",
    ],
  );
});

Deno.test("callerPath resolves a relative path against INIT_CWD in the task's folder only", () => {
  assert.equal(callerPath("x.svc", "/home/me", "/repo", "/repo"), "/home/me/x.svc");
  assert.equal(callerPath("../x.svc", "/home/me/a", "/repo", "/repo/"), "/home/me/x.svc");
  assert.equal(callerPath("/tmp/x.svc", "/home/me", "/repo", "/repo"), "/tmp/x.svc");
  assert.equal(callerPath("x.svc", undefined, "/repo", "/repo"), "x.svc");
  assert.equal(callerPath("x.svc", "", "/repo", "/repo"), "x.svc");
  assert.equal(callerPath("x.svc", "/home/me", "/elsewhere", "/repo"), "x.svc");
  assert.equal(callerPath("x.svc", "/home/me", "/repo", undefined), "x.svc");
});
