/** Shared pieces of the browser tests: Chromium, the relayer stack, the wallet set-up, agents. */
import { type Browser, chromium, type Page } from "playwright-core";
import { dashboardUrl, ROOT, startRelayer, waitForSidecar } from "../relayer_process.ts";

const ARTIFACTS = `${ROOT}tests/artifacts`;

export function launch(): Promise<Browser> {
  return chromium.launch({
    executablePath: "/usr/bin/chromium",
    args: [
      "--headless",
      "--no-sandbox",
      "--disable-gpu",
      "--disable-background-networking",
      "--disable-component-update",
      "--disable-sync",
      "--no-first-run",
    ],
  });
}

export async function startStack(dataDir: string) {
  const relayer = await startRelayer(dataDir, { SVC_ACCOUNT_CACHE_SECONDS: "1" });
  await waitForSidecar(relayer.url);
  return { relayer, dashboard: await dashboardUrl(relayer) };
}

/** Creates the wallet (passing the backup offered right after) and the account. */
export async function setUpWallet(page: Page) {
  await page.getByRole("button", { name: "Create wallet" }).click();
  await page.getByRole("heading", { name: "Back up your wallet" }).waitFor();
  await page.getByRole("button", { name: "I saved it, continue" }).click();
  await page.getByRole("button", { name: "Create account" }).click();
}

export async function screenshot(page: Page, name: string) {
  await Deno.mkdir(ARTIFACTS, { recursive: true });
  await page.screenshot({ path: `${ARTIFACTS}/${name}.png`, fullPage: true });
}

/**
 * What of the page does not fit at its width: tables that scroll sideways (their box is wider
 * than the card) and buttons whose label wraps onto a second line.
 */
export async function unfitting(page: Page): Promise<string[]> {
  return await page.evaluate<string[]>(`(() => {
    const scrolled = [...document.querySelectorAll(".table-scroll")]
      .filter((box) => box.scrollWidth > box.clientWidth + 1)
      .map((box) => "table " + (box.getAttribute("aria-label") ?? "") + " scrolls sideways");
    const wrapped = [...document.querySelectorAll("button, .button")]
      .filter((button) => button.offsetParent !== null)
      .filter((button) => {
        const range = document.createRange();
        range.selectNodeContents(button);
        return new Set([...range.getClientRects()].map((r) => Math.round(r.top))).size > 1;
      })
      .map((button) => "button " + button.textContent.trim() + " wraps");
    return [...scrolled, ...wrapped];
  })()`);
}

/** Adds a delegate key labelled `label` to the wallet's account, as the consent page does. */
export async function addAgent(page: Page, label: string, publicKey: string): Promise<string> {
  return await page.evaluate<string>(`(async () => {
    const w = await import("/assets/wallet.js");
    const wallet = await w.loadWallet();
    const { account } = await (await fetch("/api/account?owner=" + wallet.address)).json();
    await w.transact(wallet, {
      kind: "add_delegate_key",
      account_id: account.id,
      public_key: ${JSON.stringify(publicKey)},
      label: ${JSON.stringify(label)},
    });
    return account.id;
  })()`);
}
