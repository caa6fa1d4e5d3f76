import assert from "node:assert/strict";
import { type Session, SessionRegistry } from "./sessions.ts";

function session(id: string, identity: string, closed: string[]): Session {
  return {
    id,
    identity,
    address: "127.0.0.1",
    lastSeen: 0,
    inFlight: 0,
    close: () => Promise.resolve(void closed.push(id)),
  };
}

Deno.test("sessions: at a key's cap, its least recently used idle session makes room", () => {
  let now = 0;
  const closed: string[] = [];
  const registry = new SessionRegistry({ maxPerIdentity: 3 }, () => now);
  for (const id of ["a", "b", "c"]) {
    assert.deepEqual(registry.admit("127.0.0.1", "key-1"), { ok: true });
    registry.add(session(id, "key-1", closed));
    now += 10;
  }
  registry.touch("a");
  registry.get("b")!.inFlight = 1; // answering a call: not idle

  assert.deepEqual(registry.admit("127.0.0.1", "key-1"), { ok: true });
  assert.deepEqual(closed, ["c"], "b is busy and a was used last");
  assert.equal(registry.size, 2);
  assert.equal(registry.get("c"), undefined);

  // Another key from the same address is admitted without closing anything.
  registry.add(session("d", "key-1", closed));
  assert.deepEqual(registry.admit("127.0.0.1", "key-2"), { ok: true });
  assert.deepEqual(closed, ["c"]);
});

Deno.test("sessions: a key whose sessions are all busy is refused with Retry-After", () => {
  const registry = new SessionRegistry({ maxPerIdentity: 2 });
  for (const id of ["a", "b"]) {
    registry.admit("10.0.0.1", "key-1");
    registry.add(session(id, "key-1", []));
    registry.get(id)!.inFlight = 1;
  }
  const refused = registry.admit("10.0.0.1", "key-1");
  assert.equal(refused.ok, false);
  assert.ok(!refused.ok && refused.retryAfterSeconds > 0);
  assert.match(!refused.ok ? refused.reason : "", /2 sessions, all busy/);
  assert.equal(registry.size, 2);
});

Deno.test("sessions: closing all waits for the calls being answered, within its grace", async () => {
  const closed: string[] = [];
  const registry = new SessionRegistry();
  for (const id of ["a", "b"]) registry.add(session(id, `key-${id}`, closed));
  registry.get("a")!.inFlight = 1;
  const answered: string[] = [];
  setTimeout(() => {
    answered.push("a");
    registry.get("a")!.inFlight = 0;
  }, 120);
  await registry.closeAll(10_000);
  assert.deepEqual(answered, ["a"], "closed before the call was answered");
  assert.deepEqual(closed.sort(), ["a", "b"]);

  // A call that never ends is cut at the grace.
  registry.add(session("c", "key-c", closed));
  registry.get("c")!.inFlight = 1;
  await registry.closeAll(100);
  assert.deepEqual(closed.sort(), ["a", "b", "c"]);
});

Deno.test("sessions: an opening refused for a full server or busy sessions is not counted", () => {
  const closed: string[] = [];
  const registry = new SessionRegistry({
    maxPerIdentity: 1,
    maxTotal: 2,
    maxNewPerAddressPerMinute: 3,
  });
  for (const [id, key] of [["a", "key-1"], ["b", "key-2"]]) {
    assert.deepEqual(registry.admit("10.0.0.1", key), { ok: true });
    registry.add(session(id, key, closed));
    registry.get(id)!.inFlight = 1;
  }
  for (let i = 0; i < 5; i++) {
    assert.match(JSON.stringify(registry.admit("10.0.0.1", "key-1")), /all busy/);
    assert.match(JSON.stringify(registry.admit("10.0.0.1", "key-3")), /too many open sessions/);
  }
  registry.get("a")!.inFlight = 0;
  assert.deepEqual(registry.admit("10.0.0.1", "key-1"), { ok: true }, "one opening left");
  assert.deepEqual(closed, ["a"]);
  assert.match(JSON.stringify(registry.admit("10.0.0.1", "key-9")), /in the last minute/);
  assert.deepEqual(closed, ["a"], "a refused opening closes nothing");
});

Deno.test("sessions: an address past its cap is refused, not evicted; loopback is held to its keys' caps only", () => {
  const closed: string[] = [];
  const registry = new SessionRegistry({ maxPerAddress: 2, maxPerIdentity: 16 });
  const remote = "203.0.113.9";
  for (const [id, key] of [["a", "key-1"], ["b", "key-2"]]) {
    assert.deepEqual(registry.admit(remote, key), { ok: true });
    registry.add({ ...session(id, key, closed), address: remote });
  }
  const refused = registry.admit(remote, "key-3");
  assert.equal(refused.ok, false);
  assert.match(!refused.ok ? refused.reason : "", /this address already has 2 sessions open/);
  assert.deepEqual(closed, [], "no one's session was closed for it");
  assert.deepEqual(registry.admit("198.51.100.2", "key-3"), { ok: true }, "another address");
  for (let i = 0; i < 5; i++) {
    assert.deepEqual(registry.admit("127.0.0.1", `local-${i}`), { ok: true });
    registry.add(session(`l${i}`, `local-${i}`, closed));
  }
  registry.remove("a");
  assert.deepEqual(
    registry.admit(remote, "key-3"),
    { ok: true },
    "a closed session frees its slot",
  );
});

Deno.test("sessions: on this machine, each key has its own rate of new sessions", () => {
  const closed: string[] = [];
  const registry = new SessionRegistry({ maxNewPerAddressPerMinute: 3, maxPerIdentity: 2 });
  // One local key opening and re-opening sessions (its older ones closed for room) all minute.
  for (let i = 0; i < 3; i++) {
    assert.deepEqual(registry.admit("127.0.0.1", "busy-key"), { ok: true });
    registry.add(session(`b${i}`, "busy-key", closed));
  }
  const refused = registry.admit("127.0.0.1", "busy-key");
  assert.match(!refused.ok ? refused.reason : "", /opened too many sessions in the last minute/);
  assert.deepEqual(registry.admit("127.0.0.1", "another-agent"), { ok: true });
  // Off this machine, the address's rate holds, whichever key opens.
  for (let i = 0; i < 3; i++) {
    assert.deepEqual(registry.admit("203.0.113.9", `remote-${i}`), { ok: true });
  }
  assert.equal(registry.admit("203.0.113.9", "remote-9").ok, false);
});
