/**
 * The dashboard's layout in headless Chromium at a desktop's width (1280 px) and a phone's
 * (375 px): the navigation stays beside the logo on every page, the activity table shows its
 * Client column whole, its rows keep their column names on a phone, and the memories page does
 * not scroll sideways.
 */
import assert from "node:assert/strict";
import type { Browser, Page } from "playwright-core";
import { generateKeyPair } from "@svc/util/keys";
import { SvcClient } from "../../src/client/mod.ts";
import { addAgent, launch, screenshot, setUpWallet, startStack } from "./browser_fixtures.ts";
import { jobIdOf, type RelayerProcess } from "../relayer_process.ts";

/** Whether the navigation sits on the logo's line (its top above the logo's bottom). */
const navBesideLogo = (page: Page) =>
  page.evaluate<boolean>(`(() => {
    const brand = document.querySelector("header .brand").getBoundingClientRect();
    return document.querySelector("header nav").getBoundingClientRect().top < brand.bottom;
  })()`);

/** How far the page scrolls sideways, in pixels. */
const sideways = (page: Page) =>
  page.evaluate<number>(
    "document.documentElement.scrollWidth - document.documentElement.clientWidth",
  );

Deno.test("browser layout: the navigation beside the logo, the activity table whole, no sideways scroll on a phone", async () => {
  const dataDir = await Deno.makeTempDir();
  let relayer: RelayerProcess | undefined;
  let browser: Browser | undefined;
  try {
    const stack = await startStack(dataDir);
    relayer = stack.relayer;
    browser = await launch();
    const page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
    await page.goto(stack.dashboard);
    await page.getByRole("button", { name: "Create wallet" }).waitFor();
    assert.equal(await navBesideLogo(page), true, "the sign-in page wraps its navigation");
    await setUpWallet(page);
    await page.getByRole("region", { name: "Your account", exact: true }).waitFor();

    // An agent named as a host names itself, and a long namespace: the widest columns.
    const key = await generateKeyPair();
    const label = "Claude Desktop via svc-mcp on a-rather-long-hostname";
    const accountId = await addAgent(page, label, key.publicKey);
    const client = await SvcClient.create({
      baseUrl: relayer.url,
      privateKey: key.privateKey,
      accountId,
    });
    const namespace = "projects-and-plans-for-the-year";
    const job = jobIdOf(await client.remember("My dog Rex loves the beach", { namespace }));
    assert.equal((await client.waitForJob(job)).status, "done");
    await client.recall("Where does Rex like to go?", { namespace });

    await page.goto(`${stack.dashboard}/memories?${new URLSearchParams({ namespace })}`);
    await page.getByText("Showing 1, newest first.").waitFor();
    assert.equal(await navBesideLogo(page), true, "the memories page wraps its navigation");

    await page.goto(`${stack.dashboard}/activity`);
    await page.getByText(/^Showing \d+ entries, newest first\.$/).waitFor();
    assert.equal(await navBesideLogo(page), true, "the activity page wraps its navigation");
    await screenshot(page, "layout-activity-1280");
    // Every Client cell is whole and inside the table's box, which does not scroll.
    const clients = await page.evaluate<{ text: string; whole: boolean; inside: boolean }[]>(
      `(() => {
      const box = document.querySelector(".table-scroll").getBoundingClientRect();
      return [...document.querySelectorAll("table.activity tbody tr")].map((row) => {
        const cell = row.children[5];
        return {
          text: cell.textContent,
          whole: cell.scrollWidth <= cell.clientWidth,
          inside: cell.getBoundingClientRect().right <= box.right + 0.5,
        };
      });
    })()`,
    );
    assert.ok(clients.length >= 2);
    for (const client of clients) {
      assert.deepEqual(client, { text: "127.0.0.1", whole: true, inside: true });
    }

    // On a phone each value keeps its column's name; the time heads the entry.
    await page.setViewportSize({ width: 375, height: 800 });
    await screenshot(page, "layout-activity-375");
    const labels = await page.evaluate<string[][]>(`[...document.querySelectorAll(
      "table.activity tbody tr")].map((row) => [...row.children].slice(1).map((cell) =>
        getComputedStyle(cell, "::before").content))`);
    const names = ["Operation", "Agent", "Namespace", "Memories", "Client"];
    for (const row of labels) {
      assert.deepEqual(
        row.map((content, i) => content.includes(names[i])),
        names.map(() => true),
        `a row without its column names: ${JSON.stringify(row)}`,
      );
    }
    assert.equal(await sideways(page), 0, "the activity page scrolls sideways at 375 px");

    await page.goto(`${stack.dashboard}/memories?${new URLSearchParams({ namespace })}`);
    await page.getByText("Showing 1, newest first.").waitFor();
    await screenshot(page, "layout-memories-375");
    assert.equal(await sideways(page), 0, "the memories page scrolls sideways at 375 px");
  } finally {
    await browser?.close();
    await relayer?.stop();
    await Deno.remove(dataDir, { recursive: true });
  }
});
