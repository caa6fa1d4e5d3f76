import assert from "node:assert/strict";
import { SvcError } from "../errors.ts";
import {
  boundAddress,
  defaultAllowedHosts,
  hostGuard,
  isHostEntry,
  listeningOrigins,
  LOOPBACK_HOSTS,
  noProxy,
} from "./relayer_names.ts";

function allows(allowed: readonly string[], host: string): boolean {
  try {
    hostGuard(allowed)(new Request("http://ignored.test/api/mcp", { headers: { host } }));
    return true;
  } catch (error) {
    assert.ok(error instanceof SvcError);
    assert.equal(error.status, 403);
    assert.equal(error.details.reason, "host_not_allowed");
    return false;
  }
}

Deno.test("host guard: loopback names on any port; nothing else", () => {
  for (const host of ["localhost", "localhost:5173", "127.0.0.1:8000", "[::1]:8000", "LOCALHOST"]) {
    assert.ok(allows(LOOPBACK_HOSTS, host), host);
  }
  for (
    const host of [
      "attacker.example",
      "attacker.example:8000",
      "localhost.attacker.example",
      "localhost.",
      "127.0.0.2",
      "evil@localhost",
      "localhost/x",
      "",
      "[::2]",
    ]
  ) {
    assert.ok(!allows(LOOPBACK_HOSTS, host), host);
  }
});

Deno.test("host guard: an entry with a port allows that port only; * allows any host", () => {
  const allowed = ["svc.example", "lan.example:8443", "[fd00::1]"];
  assert.ok(allows(allowed, "svc.example:1234"));
  assert.ok(allows(allowed, "lan.example:8443"));
  assert.ok(!allows(allowed, "lan.example:8000"));
  assert.ok(!allows(allowed, "lan.example"));
  assert.ok(allows(allowed, "[fd00::1]:8000"));
  assert.ok(!allows(allowed, "localhost:8000"), "a configured list replaces the default");
  assert.ok(allows(["*"], "anything.example"));
});

Deno.test("host guard: without a Host header the URL's host is checked", () => {
  const guard = hostGuard(LOOPBACK_HOSTS);
  guard(new Request("http://localhost:8000/api/mcp"));
  assert.throws(() => guard(new Request("http://attacker.example/api/mcp")), SvcError);
});

Deno.test("default hosts: loopback, the public URLs' hosts, the bound host unless a wildcard", () => {
  assert.deepEqual(defaultAllowedHosts("127.0.0.1", []), [...LOOPBACK_HOSTS]);
  assert.deepEqual(
    defaultAllowedHosts("0.0.0.0", ["https://svc.example", "http://lan.example:8080"]),
    [...LOOPBACK_HOSTS, "svc.example", "lan.example:8080"],
  );
  assert.deepEqual(defaultAllowedHosts("192.168.1.5", []), [...LOOPBACK_HOSTS, "192.168.1.5"]);
  assert.deepEqual(defaultAllowedHosts("fd00::1", []), [...LOOPBACK_HOSTS, "[fd00::1]"]);
  assert.deepEqual(defaultAllowedHosts("::", []), [...LOOPBACK_HOSTS]);
  assert.deepEqual(defaultAllowedHosts("0.0.0.0", [], ["192.168.1.5", "fe80::1", "Box"]), [
    ...LOOPBACK_HOSTS,
    "192.168.1.5",
    "[fe80::1]",
    "box",
  ]);
  assert.deepEqual(defaultAllowedHosts("192.168.1.5", [], ["10.0.0.2"]), [
    ...LOOPBACK_HOSTS,
    "192.168.1.5",
  ]);
});

Deno.test("listening origins: the address, the loopback names on loopback, the machine's names on every address", () => {
  const loopback = ["http://localhost:8000", "http://127.0.0.1:8000", "http://[::1]:8000"];
  assert.deepEqual(listeningOrigins("127.0.0.1", 8000), loopback);
  assert.deepEqual(listeningOrigins("::1", 8000), loopback);
  assert.deepEqual(listeningOrigins("0.0.0.0", 8000), loopback);
  assert.deepEqual(listeningOrigins("192.168.1.5", 80), ["http://192.168.1.5"]);
  const machine = ["192.168.1.5", "fe80::1", "Box.local", "not a name"];
  assert.deepEqual(listeningOrigins("0.0.0.0", 8000, machine), [
    ...loopback,
    "http://192.168.1.5:8000",
    "http://[fe80::1]:8000",
    "http://box.local:8000",
  ]);
  assert.deepEqual(listeningOrigins("192.168.1.5", 80, machine), ["http://192.168.1.5"]);
});

Deno.test("host entries: names, addresses and ports, or *", () => {
  for (const entry of ["svc.example", "svc.example:8443", "[::1]:80", "10.0.0.1", "*"]) {
    assert.ok(isHostEntry(entry), entry);
  }
  for (const entry of ["", "https://svc.example", "svc.example/x", "a b", "svc.example:99999"]) {
    assert.ok(!isHostEntry(entry), entry);
  }
});

Deno.test("noProxy: the given list, loopback, and the hosts of the URLs a process calls", () => {
  assert.equal(noProxy(undefined), "localhost,127.0.0.0/8,::1");
  assert.equal(
    noProxy("corp.example", ["http://192.168.1.20:8000", "http://[fd00::1]:8000"]),
    "corp.example,localhost,127.0.0.0/8,::1,192.168.1.20,fd00::1",
  );
});

Deno.test("bound address: the address bound, wildcards included, IPv6 in brackets", () => {
  assert.equal(boundAddress("0.0.0.0", 8000), "0.0.0.0:8000");
  assert.equal(boundAddress("::", 8000), "[::]:8000");
  assert.equal(boundAddress("127.0.0.1", 8123), "127.0.0.1:8123");
  assert.equal(boundAddress("fd00::1", 80), "[fd00::1]:80");
});
