// Starts the real `server` binary on a free port with a fresh database, and a headless
// Chromium, for one test file. Everything is removed afterwards.
//
// The database is SQLite unless BROWSER_DB=postgres: then a database `browser_<random>` is
// created on the PostgreSQL server of TEST_POSTGRES_URL (default
// postgres://postgres@127.0.0.1:5432/postgres, trust auth, reached with psql) and dropped at
// stop. Tests that seed rows directly use `server.sql(statement, params)`, which runs on
// either database (`?` placeholders; write booleans as true/false, not 1/0).
import { spawn, execFileSync } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import net from 'node:net';
import assert from 'node:assert/strict';
import { chromium } from 'playwright-core';

const BIN = resolve(process.env.APP_SERVER_BIN ?? 'target/debug/server');
const SITE = resolve(process.env.APP_SITE_ROOT ?? 'target/site');
export const DB = process.env.BROWSER_DB ?? 'sqlite';
if (DB !== 'sqlite' && DB !== 'postgres') throw new Error(`BROWSER_DB must be sqlite or postgres, not ${DB}`);
// Per database: the two legs run side by side (scripts/test.sh).
export const SHOTS = resolve(DB === 'sqlite' ? 'target/screenshots' : `target/screenshots-${DB}`);
const PG_URL = process.env.TEST_POSTGRES_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';

const psql = (url, args, input) => execFileSync('psql', [url, '-v', 'ON_ERROR_STOP=1', '-qtA', ...args],
  { encoding: 'utf8', input, stdio: ['pipe', 'pipe', 'inherit'] });

// `?` placeholders (outside quoted literals) become psql variables :'pN', which psql quotes.
function pgStatement(statement, params) {
  const vars = [];
  let out = ''; let quoted = false; let n = 0;
  for (const ch of statement) {
    if (ch === "'") quoted = !quoted;
    if (ch === '?' && !quoted) {
      const v = params[n]; n += 1;
      if (v === null || v === undefined) out += 'NULL';
      else { vars.push('-v', `p${n}=${v}`); out += `:'p${n}'`; }
    } else out += ch;
  }
  if (n !== params.length) throw new Error(`sql: ${params.length} parameters for ${n} placeholders`);
  return { text: `${out};\n`, vars };
}

async function createDatabase(dir) {
  if (DB === 'sqlite') {
    const path = join(dir, 'app.db');
    return {
      url: `sqlite://${path}?mode=rwc`,
      dbPath: path,
      sql: (statement, params = []) => execFileSync('python3', ['-c', `
import json, sqlite3, sys
c = sqlite3.connect(sys.argv[1])
c.execute(sys.argv[2], json.loads(sys.argv[3]))
c.commit()`, path, statement, JSON.stringify(params)]),
      drop: () => {},
    };
  }
  const name = `browser_${randomBytes(6).toString('hex')}`;
  psql(PG_URL, ['-c', `CREATE DATABASE ${name}`]);
  const url = new URL(PG_URL);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    dbPath: null,
    sql: (statement, params = []) => {
      const { text, vars } = pgStatement(statement, params);
      psql(url.toString(), vars, text);
    },
    drop: () => psql(PG_URL, ['-c', `DROP DATABASE IF EXISTS ${name} WITH (FORCE)`]),
  };
}

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

// `seed`: CLI commands run on the database before the server starts (`[['demo']]`), as an
// operator seeds before a start: a change another process makes while this one runs is
// seen only within the cross-process bound (docs/operations.md, "Caches and staleness").
// `anyAddress`: listen on every interface, as a development server reachable from other
// machines, which switches the simulated payment provider off (as production without one).
export async function startServer({ seed = [], anyAddress = false } = {}) {
  const dir = mkdtempSync(join(tmpdir(), 'mkt-browser-'));
  const db = await createDatabase(dir);
  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  const env = {
    ...process.env,
    APP_DATABASE_URL: db.url,
    APP_BIND: `${anyAddress ? '0.0.0.0' : '127.0.0.1'}:${port}`,
    APP_BASE_URL: base,
    APP_DATA_DIR: join(dir, 'data'),
    APP_SITE_ROOT: SITE,
    RUST_LOG: 'warn',
  };
  const cli = (...args) => execFileSync(BIN, args, { env, encoding: 'utf8' }).trim();
  for (const args of seed) cli(...args);
  const proc = spawn(BIN, ['serve'], { env, stdio: ['ignore', 'inherit', 'inherit'] });
  for (let i = 0; i < 200; i++) {
    try {
      const r = await fetch(`${base}/readyz`);
      if (r.ok) break;
    } catch { /* not up yet */ }
    await new Promise((r) => setTimeout(r, 100));
  }
  const stop = async () => {
    if (proc.exitCode === null && proc.signalCode === null) {
      proc.kill('SIGTERM');
      await new Promise((r) => proc.once('exit', r));
    }
    db.drop();
    rmSync(dir, { recursive: true, force: true });
  };
  // dataDir: the development mailbox is `${dataDir}/mailbox/*.eml` (no APP_MAIL_URL here).
  return { base, cli, stop, db: DB, dbPath: db.dbPath, sql: db.sql, dataDir: join(dir, 'data') };
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

// Signs in through the form and waits for the home page `landing` (hydrated or not).
export async function signIn(page, base, email, password, { hydrated, landing, timeout = 30000 }) {
  await page.goto(`${base}/sign-in`);
  if (hydrated) await page.locator('body[data-hydrated=true]').waitFor();
  const form = page.locator('form', { has: page.locator('button:has-text("Sign in")') });
  // The token arrives with the session read; a form posted before it is refused.
  await form.locator('input[name=csrf]:not([value=""])').waitFor({ state: 'attached' });
  await form.locator('input[name=email]').fill(email);
  await form.locator('input[name=password]').fill(password);
  await form.locator('button[type=submit]').click();
  try {
    await page.waitForURL(`${base}${landing}`, { timeout });
  } catch (e) {
    // Name what the page said (a refused form shows its error) instead of only the timeout.
    const said = await page.locator('[role=alert]').allTextContents().catch(() => []);
    throw new Error(`sign-in as ${email} did not reach ${landing} (at ${page.url()}): ${said.join(' | ') || e.message}`);
  }
}

// The page helpers of a test file whose users share `password`: `base()` is read when a
// helper is called (the server starts in the file's `before`).
export function pageTools(base, password) {
  return {
    shot: (page, name) => page.screenshot({ path: `${SHOTS}/${name}.png`, fullPage: true }),
    // The form that holds the submit button labelled `label`.
    formWith: (page, label) => page.locator('form', { has: page.locator(`button:has-text("${label}")`) }),
    signIn: (page, email, home, { hydrated = true } = {}) =>
      signIn(page, base(), email, password, { hydrated, landing: home, timeout: 10000 }),
    signOut: (page) => signOut(page, base()),
  };
}

// Signs out through the header's button and waits for the header of the sign-in page.
export async function signOut(page, base) {
  await page.click('button:has-text("Sign out")');
  await page.waitForURL(`${base}/sign-in`);
  await page.locator('nav >> text=Sign in').waitFor();
}

// A JSON call to the API as `token` (or anonymous), with `extra` headers; fails the test on
// a non-2xx answer. The parsed body, or null for an empty one.
export async function api(base, method, path, body, token, extra = {}) {
  const headers = { 'content-type': 'application/json', ...extra };
  if (token) headers.authorization = `Bearer ${token}`;
  const r = await fetch(`${base}${path}`, { method, headers, body: body == null ? undefined : JSON.stringify(body) });
  const text = await r.text();
  assert.ok(r.ok, `${method} ${path}: ${r.status} ${text}`);
  return text ? JSON.parse(text) : null;
}

// A bearer token for `email`.
export async function tokenOf(base, email, password) {
  return (await api(base, 'POST', '/auth/v1/tokens', { email, password })).token;
}

// Creates accounts through the service's CLI: `[email, role]` pairs, one password.
export function createUsers(server, password, ...users) {
  for (const [email, role] of users) {
    server.cli('user', 'create', '--email', email, '--password', password, '--role', role);
  }
}

// A publisher made through the CLI with one website placement (Pixel Quest): its token,
// account and placement.
export async function publisherWithPlacement(server, email, password) {
  createUsers(server, password, [email, 'publisher']);
  const { token, account } = await api(server.base, 'POST', '/auth/v1/tokens', { email, password });
  const placement = await api(server.base, 'POST', '/publisher/v2/placements',
    { type: 'WEBSITE', name: 'Pixel Quest', platformIdentity: 'pq.example.com' }, token);
  return { token, account, placement };
}

// Registers an advertiser through the API and has the administrator approve it; its id.
export async function approvedAdvertiser(base, adminToken, { email, password, companyName }) {
  const acc = await api(base, 'POST', '/auth/v1/accounts', { email, password, role: 'ADVERTISER', companyName });
  assert.equal(acc.status, 'PENDING');
  await api(base, 'POST', `/admin/v1/advertisers/${acc.accountId}/approve`, undefined, adminToken);
  return acc.accountId;
}

// A signed survey API call (`enc` is the SHA3-256 of URL, body and secret) with a key from
// `POST …/survey-api/credentials` or copied from the page; fails the test on a non-2xx answer.
export async function surveyApi(base, key, method, path, body) {
  const url = `${base}${path}`;
  const text = body ? JSON.stringify(body) : '';
  const enc = createHash('sha3-256').update(url + text + key.secret).digest('hex');
  const r = await fetch(`${url}?enc=${enc}`, {
    method, headers: { 'x-api-key': key.apiKey, ...(body ? { 'content-type': 'application/json' } : {}) }, body: text || undefined,
  });
  const out = await r.text();
  assert.ok(r.ok, `${method} ${path}: ${r.status} ${out}`);
  return JSON.parse(out);
}
