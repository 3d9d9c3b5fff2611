// Sign-in, registration and sign-out through the real forms, with hydration and without
// JavaScript (progressive enhancement).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startServer, launchBrowser, watchPage, SHOTS, createUsers } from './harness.mjs';

let server; let browser;
const password = 'correct horse battery';

before(async () => {
  server = await startServer();
  browser = await launchBrowser();
  createUsers(server, password, ['pub@example.com', 'publisher'], ['admin@example.com', 'admin']);
});

after(async () => {
  await browser?.close();
  await server?.stop();
});

test('the page hydrates and a publisher signs in and out through the form', async () => {
  const page = await browser.newPage();
  const problems = watchPage(page);
  // The page names the bundle by its content hash (/pkg/<16 hex>/…), cached for a year.
  const wasm = page.waitForResponse((r) => /\/pkg\/[0-9a-f]{16}\/frontend_bg\.wasm$/.test(r.url()));
  await page.goto(`${server.base}/sign-in`);
  const bundle = await wasm;
  assert.equal(bundle.status(), 200, 'the wasm bundle is served');
  await page.locator('body[data-hydrated=true]').waitFor();
  // The bundle that hydrated is the wasm-opt output, sent precompressed: brotli (or gzip).
  // Since issue 56 it holds only what a visitor can use: every page behind a sign-in is a
  // chunk of its dashboard (bundle_split.test.mjs), so a first visit stays under 500 KB in
  // all (1.43 MB before the split).
  const headers = await bundle.allHeaders();
  assert.match(headers['cache-control'], /immutable/, 'a hashed bundle is cached for good');
  const encoding = headers['content-encoding'];
  assert.ok(['br', 'gzip'].includes(encoding), `wasm content-encoding: ${encoding}`);
  const sizes = await bundle.request().sizes();
  assert.ok(sizes.responseBodySize > 100_000 && sizes.responseBodySize < 500_000,
    `wasm transferred ${sizes.responseBodySize} bytes`);
  await page.fill('input[name=email]', 'pub@example.com');
  await page.fill('input[name=password]', password);
  await page.click('button[type=submit]');
  await page.waitForURL(`${server.base}/publisher`);
  await page.getByText('Publisher dashboard').waitFor();
  assert.ok(await page.getByText('pub@example.com').first().isVisible());
  await page.screenshot({ path: `${SHOTS}/publisher-home.png`, fullPage: true });
  await page.click('button:has-text("Sign out")');
  await page.waitForURL(`${server.base}/sign-in`);
  await page.locator('nav >> text=Sign in').waitFor();
  assert.deepEqual(problems, []);
  await page.close();
});

test('a wrong password shows the error on the form', async () => {
  const page = await browser.newPage();
  await page.goto(`${server.base}/sign-in`);
  await page.fill('input[name=email]', 'pub@example.com');
  await page.fill('input[name=password]', 'not the password');
  await page.click('button[type=submit]');
  await page.getByRole('alert').getByText('e-mail or password is incorrect').waitFor();
  await page.screenshot({ path: `${SHOTS}/sign-in-error.png`, fullPage: true });
  await page.close();
});

test('without JavaScript the forms still work: register an advertiser, approve it as admin', async () => {
  const ctx = await browser.newContext({ javaScriptEnabled: false });
  const page = await ctx.newPage();
  await page.goto(`${server.base}/register`);
  await page.fill('input[name=company_name]', 'Northwind Apps');
  await page.fill('input[name=email]', 'adv@example.com');
  await page.fill('input[name=password]', password);
  await page.check('input[value=ADVERTISER]');
  await page.click('button[type=submit]');
  await page.waitForURL(`${server.base}/advertiser`);
  await page.getByText('awaiting review').waitFor();
  await page.screenshot({ path: `${SHOTS}/advertiser-pending.png`, fullPage: true });
  await page.click('button:has-text("Sign out")');
  await page.waitForURL(`${server.base}/sign-in`);

  await page.fill('input[name=email]', 'admin@example.com');
  await page.fill('input[name=password]', password);
  await page.click('button[type=submit]');
  await page.waitForURL(`${server.base}/admin`);
  await page.getByText('adv@example.com').waitFor();
  await page.screenshot({ path: `${SHOTS}/admin-queue.png`, fullPage: true });
  await page.click('button:has-text("Approve")');
  await page.getByText('Nobody is waiting.').waitFor();
  await ctx.close();
});
