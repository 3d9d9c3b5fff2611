// Starts the real `server` binary on a free port with a fresh SQLite database, and a
// headless Chromium, for one test file. Everything is removed afterwards.
import { spawn, execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import net from 'node:net';
import { chromium } from 'playwright-core';

const BIN = resolve(process.env.APP_SERVER_BIN ?? 'target/debug/server');
const SITE = resolve(process.env.APP_SITE_ROOT ?? 'target/site');
export const SHOTS = resolve('target/screenshots');

function freePort() {
  return new Promise((ok, fail) => {
    const s = net.createServer();
    s.once('error', fail);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address();
      s.close(() => ok(port));
    });
  });
}

export async function startServer() {
  const dir = mkdtempSync(join(tmpdir(), 'mkt-browser-'));
  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  const env = {
    ...process.env,
    APP_DATABASE_URL: `sqlite://${join(dir, 'app.db')}?mode=rwc`,
    APP_BIND: `127.0.0.1:${port}`,
    APP_BASE_URL: base,
    APP_DATA_DIR: join(dir, 'data'),
    APP_SITE_ROOT: SITE,
    RUST_LOG: 'warn',
  };
  const cli = (...args) => execFileSync(BIN, args, { env, encoding: 'utf8' }).trim();
  const proc = spawn(BIN, ['serve'], { env, stdio: ['ignore', 'inherit', 'inherit'] });
  for (let i = 0; i < 200; i++) {
    try {
      const r = await fetch(`${base}/healthz`);
      if (r.ok) break;
    } catch { /* not up yet */ }
    await new Promise((r) => setTimeout(r, 100));
  }
  const stop = async () => {
    proc.kill('SIGTERM');
    await new Promise((r) => proc.once('exit', r));
    rmSync(dir, { recursive: true, force: true });
  };
  return { base, cli, stop, dbPath: join(dir, 'app.db') };
}

export async function launchBrowser() {
  mkdirSync(SHOTS, { recursive: true });
  return chromium.launch({
    executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
    args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update',
      '--disable-sync', '--no-first-run', '--disable-quic'],
  });
}

// Collects page errors and failed script loads so a broken hydration fails the test.
export function watchPage(page) {
  const problems = [];
  page.on('pageerror', (e) => problems.push(`page error: ${e.message}`));
  page.on('console', (m) => { if (m.type() === 'error' && /panicked|RuntimeError/.test(m.text())) problems.push(m.text()); });
  return problems;
}
