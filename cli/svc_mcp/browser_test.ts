import assert from "node:assert/strict";
import { browserCommand, openBrowser } from "./browser.ts";

const URL_ = "http://localhost:5999/connect/mcp?port=1&state=ab";

Deno.test("browser: the opener of each system; headless Linux opens nothing", () => {
  assert.deepEqual(browserCommand(URL_, { os: "darwin", env: {} }), ["open", URL_]);
  assert.deepEqual(browserCommand(URL_, { os: "windows", env: {} }), [
    "cmd",
    "/c",
    "start",
    "",
    "http://localhost:5999/connect/mcp?port=1^&state=ab",
  ]);
  assert.deepEqual(browserCommand(URL_, { os: "linux", env: { DISPLAY: ":0" } }), [
    "xdg-open",
    URL_,
  ]);
  assert.deepEqual(browserCommand(URL_, { os: "linux", env: { WAYLAND_DISPLAY: "wayland-0" } }), [
    "xdg-open",
    URL_,
  ]);
  assert.equal(browserCommand(URL_, { os: "linux", env: {} }), null);
  assert.equal(browserCommand(URL_, { os: "freebsd", env: { DISPLAY: "" } }), null);
});

Deno.test("browser: a missing opener is not an error", () => {
  assert.equal(openBrowser(URL_, { os: "linux", env: {} }), false);
  const path = Deno.env.get("PATH");
  Deno.env.set("PATH", "/nonexistent");
  try {
    assert.equal(openBrowser(URL_, { os: "linux", env: { DISPLAY: ":0" } }), false);
  } finally {
    Deno.env.set("PATH", path ?? "");
  }
});
