/** Debian's chromium driven by playwright-core (no browser download): headless, WebGPU on SwiftShader, no background network. */
import { existsSync, mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type BrowserContext, chromium } from "playwright-core";

export const CHROMIUM = process.env.TESSERA_CHROMIUM ?? "/usr/bin/chromium";

export function chromiumInstalled(): boolean {
  return existsSync(CHROMIUM);
}

/** A browser on a fresh profile (a new user-data-dir), with the given viewport. */
export function launchChromium(viewport: { width: number; height: number }): Promise<BrowserContext> {
  return chromium.launchPersistentContext(mkdtempSync(join(tmpdir(), "tessera-chromium-")), {
    executablePath: CHROMIUM,
    viewport,
    args: [
      "--headless",
      "--no-sandbox",
      "--enable-unsafe-webgpu",
      "--disable-background-networking",
      "--disable-component-update",
      "--disable-sync",
      "--no-first-run",
      "--disable-quic",
    ],
  });
}
