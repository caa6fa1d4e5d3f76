import assert from "node:assert/strict";
import { parseIsoTime, utf8Header } from "./validate.ts";

Deno.test("utf8Header: a header's bytes read as UTF-8, else one character each", () => {
  const bytes = (text: string) => String.fromCharCode(...new TextEncoder().encode(text));
  assert.equal(utf8Header(bytes("café 日本")), "café 日本");
  assert.equal(utf8Header("caf\u00e9"), "café", "Latin-1, as older clients send it");
  assert.equal(utf8Header(bytes("\ufeffnotes")), "\ufeffnotes", "a BOM is kept, not dropped");
  assert.equal(utf8Header("plain"), "plain");
});

Deno.test("parseIsoTime: ISO 8601 only, and a time without an offset is UTC", () => {
  const newYear = Date.UTC(2027, 0, 1);
  for (
    const value of [
      "2027-01-01",
      "2027-01-01T00:00",
      "2027-01-01 00:00:00",
      "2027-01-01t00:00:00z",
      "2027-01-01T05:30:00+05:30",
      "2026-12-31T19:00:00-0500",
      "2026-12-31 19:00:00-05",
      "2027-01-01T00:00:00.000000+00:00",
    ]
  ) assert.equal(parseIsoTime(value), newYear, value);
  assert.equal(parseIsoTime("2027-01-01T00:00:00.123456Z"), newYear + 123);
  for (
    const value of [
      "2027-01-01 (note) 00:00",
      "2027-01-01T00:00:00 GMT",
      "2027-01-01T24:00:00Z",
      "2026-02-30T00:00:00Z",
      "+275760-09-13T00:00:00.000Z",
      "2027-1-1",
      "1 January 2027",
    ]
  ) assert.ok(Number.isNaN(parseIsoTime(value)), value);
});

Deno.test("parseIsoTime: the same instant in every time zone", async () => {
  const code = `import { parseIsoTime } from ${
    JSON.stringify(import.meta.resolve("./validate.ts"))
  };
    console.log(parseIsoTime("2027-01-01T00:00:00"));`;
  for (const tz of ["UTC", "Asia/Tokyo", "America/New_York"]) {
    const { stdout } = await new Deno.Command(Deno.execPath(), {
      args: ["eval", "--no-config", code],
      env: { TZ: tz },
    }).output();
    assert.equal(new TextDecoder().decode(stdout).trim(), String(Date.UTC(2027, 0, 1)), tz);
  }
});
