import assert from "node:assert/strict";
import { type Credentials, CredentialsFile } from "./credentials.ts";

const SAMPLE: Credentials = {
  version: 1,
  delegatePrivateKey: "a".repeat(64),
  delegatePublicKey: "b".repeat(64),
  delegateAddress: "0x" + "c".repeat(64),
  walletAddress: "0x" + "d".repeat(64),
  accountId: "0x" + "e".repeat(64),
  packageId: "0x" + "f".repeat(64),
  relayerUrl: "http://127.0.0.1:8000",
  label: "test",
  createdAt: "2026-11-21T00:00:00.000Z",
};

async function withHome(use: (home: string, file: CredentialsFile) => Promise<void>) {
  const home = await Deno.makeTempDir();
  try {
    await use(home, CredentialsFile.inHome(home));
  } finally {
    await Deno.remove(home, { recursive: true });
  }
}

const mode = async (path: string) => (await Deno.stat(path)).mode! & 0o777;

Deno.test("credentials: saved with 0700/0600, loaded back, removed", async () => {
  await withHome(async (home, file) => {
    assert.deepEqual(await file.load(), { kind: "missing" });
    await file.save(SAMPLE);
    assert.equal(await mode(`${home}/.svc`), 0o700);
    assert.equal(await mode(file.path), 0o600);
    assert.deepEqual(await file.load(), { kind: "ok", credentials: SAMPLE });
    const names = [...Deno.readDirSync(`${home}/.svc`)].map((e) => e.name);
    assert.deepEqual(names, ["credentials.json"], "no temporary file left behind");
    assert.equal(await file.remove(), true);
    assert.equal(await file.remove(), false);
    assert.deepEqual(await file.load(), { kind: "missing" });
  });
});

Deno.test("credentials: loose modes on existing files and directories are repaired", async () => {
  await withHome(async (home, file) => {
    await Deno.mkdir(`${home}/.svc`, { mode: 0o755 });
    await Deno.chmod(`${home}/.svc`, 0o755);
    await Deno.writeTextFile(file.path, JSON.stringify(SAMPLE));
    await Deno.chmod(file.path, 0o644);
    assert.equal((await file.load()).kind, "ok");
    assert.equal(await mode(file.path), 0o600);
    assert.equal(await mode(`${home}/.svc`), 0o700, "loading repairs the directory too");
    await file.save({ ...SAMPLE, label: "again" });
    assert.equal(await mode(`${home}/.svc`), 0o700);
    assert.equal(await mode(file.path), 0o600);
  });
});

Deno.test("credentials: replacing is atomic; readers never see a partial file", async () => {
  await withHome(async (_home, file) => {
    await file.save(SAMPLE);
    const long = "x".repeat(60);
    let writing = true;
    const writer = (async () => {
      for (let i = 0; i < 40; i++) await file.save({ ...SAMPLE, label: `${long}${i}`.slice(-64) });
      writing = false;
    })();
    let reads = 0;
    while (writing) {
      const loaded = await file.load();
      assert.equal(loaded.kind, "ok", JSON.stringify(loaded));
      reads++;
    }
    await writer;
    assert.ok(reads > 0);
    assert.equal((await file.load()).kind, "ok");
  });
});

Deno.test("credentials: signing out in another process while loading never throws", async () => {
  await withHome(async (_home, file) => {
    let running = true;
    const other = (async () => {
      for (let i = 0; i < 300; i++) {
        await file.save(SAMPLE);
        await file.remove();
      }
      running = false;
    })();
    const kinds = new Set<string>();
    while (running) kinds.add((await file.load()).kind);
    await other;
    assert.deepEqual([...kinds].filter((kind) => kind !== "ok" && kind !== "missing"), []);
  });
});

Deno.test("credentials: corrupt files are reported, never thrown", async () => {
  await withHome(async (home, file) => {
    await Deno.mkdir(`${home}/.svc`);
    const cases: [string, RegExp][] = [
      ["{not json", /not valid JSON/],
      ["[1,2]", /not a JSON object/],
      [JSON.stringify({ ...SAMPLE, version: 2 }), /unknown version/],
      [JSON.stringify({ ...SAMPLE, accountId: undefined }), /accountId is missing/],
      [JSON.stringify({ ...SAMPLE, delegatePrivateKey: "xyz" }), /delegatePrivateKey/],
      [JSON.stringify({ ...SAMPLE, relayerUrl: "nope" }), /relayerUrl/],
      ["", /not valid JSON/],
    ];
    for (const [content, reason] of cases) {
      await Deno.writeTextFile(file.path, content);
      const loaded = await file.load();
      assert.equal(loaded.kind, "corrupt", content);
      assert.match((loaded as { reason: string }).reason, reason);
    }
  });
});

Deno.test("credentials: a file where the folder should be, or a folder where the file should be, is reported", async () => {
  await withHome(async (home, file) => {
    await Deno.writeTextFile(`${home}/.svc`, "junk");
    const loaded = await file.load();
    assert.equal(loaded.kind, "corrupt");
    assert.match((loaded as { reason: string }).reason, /cannot read .*credentials\.json/);
    assert.equal(await file.remove(), false, "nothing to sign out of");
    await Deno.remove(`${home}/.svc`);
    await Deno.mkdir(`${file.path}/sub`, { recursive: true });
    assert.equal((await file.load()).kind, "corrupt");
    await assert.rejects(() => file.remove(), /is a folder, not credentials; move it away/);
    await Deno.stat(`${file.path}/sub`); // left as it was
  });
});

Deno.test("credentials: symbolic links are refused for reading and writing", async () => {
  await withHome(async (home, file) => {
    await Deno.mkdir(`${home}/.svc`);
    await Deno.writeTextFile(`${home}/elsewhere.json`, JSON.stringify(SAMPLE));
    await Deno.symlink(`${home}/elsewhere.json`, file.path);
    const loaded = await file.load();
    assert.equal(loaded.kind, "corrupt");
    assert.match((loaded as { reason: string }).reason, /symbolic link/);
    await assert.rejects(() => file.save(SAMPLE), /symbolic link/);
    assert.equal(await Deno.readTextFile(`${home}/elsewhere.json`), JSON.stringify(SAMPLE));

    await Deno.remove(file.path);
    await Deno.remove(`${home}/.svc`);
    await Deno.mkdir(`${home}/real`);
    await Deno.symlink(`${home}/real`, `${home}/.svc`);
    await assert.rejects(() => file.save(SAMPLE), /symbolic link/);
  });
});

Deno.test("credentials: temporary files a save cut short left are removed at the next load or sign-out, once stale", async () => {
  await withHome(async (home, file) => {
    await file.save(SAMPLE);
    const dir = `${home}/.svc`;
    const stale = `${file.path}.${crypto.randomUUID()}.tmp`;
    const fresh = `${file.path}.${crypto.randomUUID()}.tmp`; // a save under way
    const other = `${dir}/notes.tmp`;
    for (const path of [stale, fresh, other]) await Deno.writeTextFile(path, "{}");
    const minuteAgo = new Date(Date.now() - 60_000);
    await Deno.utime(stale, minuteAgo, minuteAgo);
    await Deno.utime(other, minuteAgo, minuteAgo);
    assert.equal((await file.load()).kind, "ok");
    const names = () => [...Deno.readDirSync(dir)].map((e) => e.name).sort();
    assert.deepEqual(
      names(),
      ["credentials.json", fresh.slice(dir.length + 1), "notes.tmp"].sort(),
    );
    await Deno.utime(fresh, minuteAgo, minuteAgo);
    assert.equal(await file.remove(), true);
    assert.deepEqual(names(), ["notes.tmp"]);
  });
});
