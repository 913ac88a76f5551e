import fs from 'node:fs';
import { chromium, type Browser } from 'playwright-core';

/**
 * The real browser of the browser tests: Debian's Chromium (`apt-get install chromium`, which `.ci/run` does), driven by
 * playwright-core. CHROMIUM_PATH names another binary. Outside CI a missing browser skips those tests, loudly; under
 * CI=true it fails them.
 */
export const CHROMIUM_PATH = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

export type BrowserAvailability = { present: true } | { present: false; required: boolean; reason: string };

export function browserAvailability(): BrowserAvailability {
  if (fs.existsSync(CHROMIUM_PATH)) return { present: true };
  const required = process.env.CI === 'true';
  const reason = `no Chromium at ${CHROMIUM_PATH} (install Debian's package: apt-get install -y chromium, or set CHROMIUM_PATH)`;
  if (!required) {
    const line = '!'.repeat(100);
    console.warn(`\n${line}\n[browser tests] SKIPPED: ${reason}\n${line}\n`);
  }
  return { present: false, required, reason };
}

export function launchChromium(): Promise<Browser> {
  return chromium.launch({ executablePath: CHROMIUM_PATH, headless: true, args: ['--disable-dev-shm-usage'] });
}
