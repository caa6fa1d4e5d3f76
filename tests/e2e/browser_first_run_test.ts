/**
 * A new user's first run in headless Chromium: signing in from a terminal (`svc-mcp login`),
 * denying a sign-in, one dashboard origin, the wallet backup offered at creation, navigation,
 * and pages that fit a 390 px wide phone. Screenshots land in `tests/artifacts/`.
 */
import assert from "node:assert/strict";
import type { Browser, Page } from "playwright-core";
import { addAgent, launch, screenshot, setUpWallet, startStack } from "./browser_fixtures.ts";
import { dashboardButtons, readme } from "../readme_blocks.ts";
import {
  exitWithin,
  type RelayerProcess,
  spawnStdioHost,
  startTerminalLogin,
} from "../relayer_process.ts";

/** A fresh data dir, home and stack, Chromium, and clean-up whatever happens in `use`. */
async function withStack(
  use: (
    stack: { relayer: RelayerProcess; dashboard: string },
    browser: Browser,
    home: string,
  ) => Promise<void>,
) {
  const dataDir = await Deno.makeTempDir();
  const home = await Deno.makeTempDir();
  const stack = await startStack(dataDir);
  const browser = await launch();
  try {
    await use(stack, browser, home);
  } finally {
    await browser.close();
    await stack.relayer.stop();
    await Deno.remove(dataDir, { recursive: true });
    await Deno.remove(home, { recursive: true });
  }
}

/** Every button a new user presses, from the sign-in link of `svc-mcp login` to Connected. */
const SIGN_IN_BUTTONS = ["Create wallet", "I saved it, continue", "Create account", "Approve"];

/** The page's width overflow in CSS pixels (0 when nothing scrolls sideways). */
const overflow = (page: Page) =>
  page.evaluate<number>("document.documentElement.scrollWidth - window.innerWidth");

Deno.test("browser: svc-mcp login from a terminal ends on Connected, and the command exits 0", async () => {
  await withStack(async (stack, browser, home) => {
    const login = await startTerminalLogin(
      ["--relayer", stack.relayer.url, "--web-url", stack.dashboard],
      home,
    );
    const page = await browser.newPage();
    await page.goto(login.link.href);
    // The README's quick start names the very buttons pressed here, in this order.
    assert.deepEqual(dashboardButtons(await readme()), SIGN_IN_BUTTONS);
    for (const name of SIGN_IN_BUTTONS) {
      await page.getByRole("button", { name, exact: true }).click();
    }
    await page.getByRole("heading", { name: "Connected" }).waitFor();
    await screenshot(page, "terminal-login-connected");
    assert.doesNotMatch(await page.locator("main").innerText(), /did not receive/);

    const status = await exitWithin(login.process, 10_000);
    assert.ok(status, "svc-mcp login did not exit after the approval");
    assert.equal(status.code, 0);
    const printed = await login.stderr();
    assert.match(printed, /Open this link within 5 minutes/);
    assert.match(printed, /Signed in: account 0x[0-9a-f]{64}, saved to /);
    assert.equal(new TextDecoder().decode(await new Response(login.process.stdout).bytes()), "");
    const credentials = JSON.parse(await Deno.readTextFile(`${home}/.svc/credentials.json`));
    assert.equal(credentials.relayerUrl, stack.relayer.url);
  });
});

Deno.test("browser: Deny on the dashboard reaches the agent waiting in its host", async () => {
  await withStack(async (stack, browser, home) => {
    await using host = await spawnStdioHost(
      ["--relayer", stack.relayer.url, "--web-url", stack.dashboard, "--no-browser"],
      home,
    );
    const login = await host.callTool("svc_login");
    const link = login.match(/http:\/\/localhost:\d+\/connect\/mcp\?\S+/)![0];
    const page = await browser.newPage({ viewport: { width: 390, height: 844 } });
    await page.goto(link);
    await setUpWallet(page);
    await page.getByRole("heading", { name: "Connect an agent to your memory" }).waitFor();
    await screenshot(page, "consent-390");
    assert.equal(await overflow(page), 0, "the consent page overflows at 390 px");
    // While Approve runs (the agent slow to answer, then gone), Deny cannot be pressed.
    const checked = Promise.withResolvers<void>();
    await page.route("**/verify", async (route) => {
      await checked.promise;
      await route.abort();
    });
    await page.getByRole("button", { name: "Approve" }).click();
    assert.equal(await page.getByRole("button", { name: "Deny" }).isDisabled(), true);
    checked.resolve();
    await page.getByRole("heading", { name: "No agent is waiting for this sign-in" }).waitFor();
    await page.unroute("**/verify");
    await page.goto(link);
    await page.getByRole("button", { name: "Deny" }).click();
    await page.getByRole("heading", { name: "Not connected" }).waitFor();
    assert.match(await page.locator("main").innerText(), /your agent was told/);
    await screenshot(page, "denied");
    const recall = await host.callTool("svc_recall", { query: "what do I like?" });
    assert.match(recall, /denied on the dashboard/);
    const owner = await page.evaluate(async () => {
      const { loadWallet } = await import("/assets/wallet.js");
      return (await loadWallet()).address;
    });
    const { account } = await (await fetch(`${stack.dashboard}/api/account?owner=${owner}`))
      .json();
    assert.deepEqual(account.delegate_keys, [], "a denied sign-in adds no key");
  });
});

Deno.test("browser: one origin, the backup at creation, navigation, and no overflow at 390 px", async () => {
  await withStack(async (stack, browser) => {
    const page = await browser.newPage({ viewport: { width: 390, height: 844 } });
    // 127.0.0.1 and localhost would be two sites with two wallets: the dashboard has one.
    const port = new URL(stack.dashboard).port;
    await page.goto(`http://127.0.0.1:${port}/agents?x=1`);
    await page.waitForURL(`${stack.dashboard}/agents?x=1`);

    await page.getByRole("button", { name: "Create wallet" }).click();
    await page.getByRole("heading", { name: "Back up your wallet" }).waitFor();
    const backup = page.getByLabel("Wallet backup");
    assert.doesNotMatch(await backup.innerText(), /svc-owner-key/, "the key is hidden at first");
    await page.getByRole("button", { name: "Reveal key" }).click();
    assert.match(await backup.innerText(), /"type": "svc-owner-key"/);
    await screenshot(page, "backup-at-creation-390");
    assert.equal(await overflow(page), 0);
    const download = page.waitForEvent("download");
    await page.getByRole("button", { name: "Download backup" }).click();
    const saved = await download;
    assert.match(saved.suggestedFilename(), /^svc-wallet-[0-9a-f]{8}\.json$/);
    const file = JSON.parse(await Deno.readTextFile(await saved.path()));
    assert.equal(file.type, "svc-owner-key");
    await page.getByRole("button", { name: "Hide key" }).click();
    assert.doesNotMatch(await backup.innerText(), /svc-owner-key/);
    // Reloaded before it was confirmed, the backup is offered again.
    await page.reload();
    await page.getByRole("heading", { name: "Back up your wallet" }).waitFor();
    await page.getByRole("button", { name: "I saved it, continue" }).click();
    await page.getByRole("button", { name: "Create account" }).click();
    await page.getByRole("heading", { name: "Connected agents" }).waitFor();

    const nav = page.getByRole("navigation", { name: "Main" });
    for (
      const [name, heading, shot] of [
        ["Agents", "Connected agents", "agents-390"],
        ["Home", "Your account", "home-390"],
      ]
    ) {
      await nav.getByRole("link", { name }).click();
      await page.getByRole("heading", { name: heading }).waitFor();
      assert.equal(await nav.getByRole("link", { name }).getAttribute("aria-current"), "page");
      await screenshot(page, shot);
      assert.equal(await overflow(page), 0, `${name} overflows at 390 px`);
    }
    await page.getByRole("button", { name: "Show backup" }).click();
    assert.equal(await overflow(page), 0, "the backup overflows at 390 px");
    assert.equal(await page.getByRole("button", { name: "Show backup" }).isVisible(), false);
    // The focus, where Show backup was, is on what took its place.
    assert.equal(await page.evaluate<string>("document.activeElement.textContent"), "Reveal key");
    // One top heading, for those who move from heading to heading.
    assert.equal(await page.getByRole("heading", { level: 1 }).innerText(), "svc dashboard");
    await page.reload();
    await page.getByRole("heading", { name: "Your account", exact: true }).waitFor();
  });
});

Deno.test("browser: a wallet an earlier version made at 127.0.0.1 is offered to move to localhost", async () => {
  await withStack(async (stack, browser) => {
    const page = await browser.newPage();
    const loopback = `http://127.0.0.1:${new URL(stack.dashboard).port}`;
    // As an earlier version let a person do: a wallet made at the loopback address.
    await page.goto(`${loopback}/assets/app.css`);
    const address = await page.evaluate(async () => {
      const { createWallet } = await import("/assets/wallet.js");
      return (await createWallet()).address;
    });
    await page.goto(`${loopback}/agents`);
    await page.getByRole("heading", { name: "Move your wallet to the dashboard's address" })
      .waitFor();
    assert.equal(new URL(page.url()).origin, loopback, "a wallet here is not left behind");
    assert.match(await page.locator("main").innerText(), new RegExp(address));
    await screenshot(page, "move-wallet");
    const download = page.waitForEvent("download");
    await page.getByRole("button", { name: "Download backup" }).click();
    const backup = await Deno.readTextFile(await (await download).path());

    await page.getByRole("link", { name: "Open the dashboard" }).click();
    await page.waitForURL(`${stack.dashboard}/agents`);
    await page.getByText("Restore from a backup").click();
    await page.getByLabel("Paste the backup you exported earlier").fill(backup);
    await page.getByRole("button", { name: "Restore wallet" }).click();
    await page.getByRole("button", { name: "Create account" }).waitFor();
    const moved = await page.evaluate(async () => {
      const { loadWallet } = await import("/assets/wallet.js");
      return (await loadWallet()).address;
    });
    assert.equal(moved, address);

    // Forgotten at the loopback address once moved, that address goes straight to localhost.
    await page.goto(`${loopback}/`);
    page.once("dialog", (dialog) => dialog.accept());
    await page.getByRole("button", { name: "Forget it at this address" }).click();
    await page.waitForURL(`${stack.dashboard}/`);
    await page.goto(`${loopback}/agents`);
    await page.waitForURL(`${stack.dashboard}/agents`);
  });
});

Deno.test("browser: a tab opened before the wallet was made never replaces it", async () => {
  await withStack(async (stack, browser) => {
    const context = await browser.newContext();
    const [first, stale] = [await context.newPage(), await context.newPage()];
    for (const page of [first, stale]) {
      await page.goto(stack.dashboard);
      await page.getByRole("button", { name: "Create wallet" }).waitFor();
    }
    await setUpWallet(first);
    await first.getByRole("heading", { name: "Your account", exact: true }).waitFor();
    const address = await first.evaluate(async () => {
      const { loadWallet } = await import("/assets/wallet.js");
      return (await loadWallet()).address;
    });

    await stale.getByRole("button", { name: "Create wallet" }).click();
    const refused = /keeps another wallet already \(0x[0-9a-f]{64}\), made in another tab: reload/;
    await stale.getByRole("status").filter({ hasText: refused }).waitFor();
    await stale.getByText("Restore from a backup").click();
    await stale.getByLabel("Paste the backup you exported earlier").fill("ab".repeat(32));
    await stale.getByRole("button", { name: "Restore wallet" }).click();
    await stale.getByRole("status").filter({ hasText: refused }).waitFor();

    await first.reload();
    await first.getByRole("heading", { name: "Your account", exact: true }).waitFor();
    const kept = await first.evaluate(async () => {
      const { loadWallet } = await import("/assets/wallet.js");
      return (await loadWallet()).address;
    });
    assert.equal(kept, address, "the account's owner key was replaced");
    await context.close();
  });
});

Deno.test("browser: a second tab whose account was made, or agent revoked, in the first moves on", async () => {
  await withStack(async (stack, browser) => {
    const context = await browser.newContext();
    const [first, second] = [await context.newPage(), await context.newPage()];
    await first.goto(stack.dashboard);
    await first.getByRole("button", { name: "Create wallet" }).click();
    await first.getByRole("button", { name: "I saved it, continue" }).click();
    await second.goto(stack.dashboard);
    for (const page of [first, second]) {
      await page.getByRole("button", { name: "Create account" }).waitFor();
    }
    await first.getByRole("button", { name: "Create account" }).click();
    await first.getByRole("heading", { name: "Your account", exact: true }).waitFor();
    await second.getByRole("button", { name: "Create account" }).click();
    await second.getByRole("heading", { name: "Your account", exact: true }).waitFor();

    await addAgent(first, "twice revoked", "ab".repeat(32));
    for (const page of [first, second]) {
      await page.goto(`${stack.dashboard}/agents`);
      await page.getByRole("cell", { name: "twice revoked" }).waitFor();
      page.on("dialog", (dialog) => dialog.accept());
    }
    await first.getByRole("button", { name: "Revoke" }).click();
    await first.getByRole("cell", { name: "twice revoked" }).waitFor({ state: "detached" });
    await second.getByRole("button", { name: "Revoke" }).click();
    await second.getByRole("cell", { name: "twice revoked" }).waitFor({ state: "detached" });
    assert.notEqual(await second.locator("#status").getAttribute("data-tone"), "error");
    await context.close();
  });
});
