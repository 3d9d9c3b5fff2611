// The browser bundle split by route (issue 56): the sign-in page downloads only the code a
// visitor can use, and a dashboard page fetches its own chunk, on a first load (preloaded
// by the server) and on a client-side navigation.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startServer, launchBrowser, watchPage, createUsers, pageTools } from './harness.mjs';

let server; let browser;
const password = 'correct horse battery';
const { signIn, shot } = pageTools(() => server.base, password);

before(async () => {
  server = await startServer();
  browser = await launchBrowser();
  createUsers(server, password, ['pub@example.com', 'publisher']);
});

after(async () => {
  await browser?.close();
  await server?.stop();
});

// Every request of a page, in order, each with a promise of the bytes its answer took on
// the wire (body as sent, compressed when it was, and headers).
function recordTransfers(page) {
  const seen = [];
  page.on('request', (request) => {
    seen.push({
      url: request.url(),
      bytes: request.response()
        .then((r) => (r ? r.finished() : null))
        .then(() => request.sizes())
        .then((s) => s.responseBodySize + s.responseHeadersSize)
        .catch(() => 0),
    });
  });
  return seen;
}

// A page chunk, with or without the bundle's version in its path.
const isChunk = (url) => /\/pkg\/(?:[0-9a-f]{16}\/)?(?!frontend_bg\.wasm)[^/]+\.wasm$/.test(url);

test('the sign-in page loads under 500 KB and none of the dashboards\' code', async () => {
  const page = await browser.newPage();
  const problems = watchPage(page);
  const seen = recordTransfers(page);
  await page.goto(`${server.base}/sign-in`);
  await page.locator('body[data-hydrated=true]').waitFor();
  await page.waitForLoadState('networkidle');
  const bytes = await Promise.all(seen.map((r) => r.bytes));
  const total = bytes.reduce((sum, b) => sum + b, 0);
  const list = seen.map((r, i) => `${r.url.replace(server.base, '')} ${bytes[i]}`).join(', ');
  assert.ok(seen.some((r) => /frontend_bg\.wasm$/.test(r.url)), `the main module loads: ${list}`);
  assert.deepEqual(seen.filter((r) => isChunk(r.url)).map((r) => r.url), [], 'no page chunk is fetched');
  assert.ok(total < 500_000, `a first visit transfers ${total} bytes: ${list}`);
  // The page works: the form is hydrated and answers a wrong password in place.
  await page.fill('input[name=email]', 'pub@example.com');
  await page.fill('input[name=password]', 'not the password');
  await page.click('button[type=submit]');
  await page.getByRole('alert').getByText('e-mail or password is incorrect').waitFor();
  assert.deepEqual(problems, []);
  await page.close();
});

test('a dashboard page fetches its chunk on a first load and on navigation, and works', async () => {
  const page = await browser.newPage();
  const problems = watchPage(page);
  await signIn(page, 'pub@example.com', '/publisher');
  // A full load of a dashboard page: the server names the page's chunks for preloading.
  const seen = recordTransfers(page);
  const answer = await page.goto(`${server.base}/publisher/placements`);
  await page.locator('body[data-hydrated=true]').waitFor();
  assert.ok(seen.some((r) => isChunk(r.url)), `a chunk loads: ${seen.map((r) => r.url).join(', ')}`);
  // (Read from the HTML as sent: the head's preload links are the server's, not the app's.)
  // Leptos names the chunks of the routes whose view ran before it wrote the head: most
  // renders, not all (one CI run on PostgreSQL had none), so the test asserts that what is
  // preloaded is the page's own area, never another's.
  const preloads = ((await answer.text()).match(/<link[^>]*>/g) ?? []).filter((l) => /rel="preload"/.test(l));
  const areas = preloads.map((l) => /split_([a-z]+)_area_/.exec(l)?.[1]).filter(Boolean);
  assert.ok(areas.every((a) => a === 'publisher'), `only the page's area is preloaded: ${preloads}`);
  await page.locator('input[name=name]').first().waitFor();
  await shot(page, 'split-placements');
  // A client-side navigation within the dashboard needs no new code; to the account page
  // (another area) it fetches that area's chunk.
  seen.length = 0;
  await page.click('nav a[href="/publisher"]');
  await page.waitForURL(`${server.base}/publisher`);
  await page.getByText('Publisher dashboard').waitFor();
  assert.deepEqual(seen.filter((r) => isChunk(r.url)).map((r) => r.url), [], 'the publisher area is loaded');
  await page.click('nav a.who');
  await page.waitForURL(`${server.base}/account`);
  await page.getByRole('heading', { name: 'Your account' }).waitFor();
  assert.ok(seen.some((r) => isChunk(r.url)), `navigation loads a chunk: ${seen.map((r) => r.url).join(', ')}`);
  assert.deepEqual(problems, []);
  await page.close();
});

test('after a deploy an old page is sent to the current main module, never to the new chunks', async () => {
  const old = '0000000000000000';
  const main = await fetch(`${server.base}/pkg/${old}/frontend.js`, { redirect: 'manual' });
  assert.equal(main.status, 307);
  assert.match(main.headers.get('location'), /^\/pkg\/[0-9a-f]{16}\/frontend\.js$/);
  const current = main.headers.get('location').split('/')[2];
  assert.notEqual(current, old);
  // The current bundle's chunk answers; the same name under another bundle does not.
  const page = await browser.newPage();
  const chunks = [];
  page.on('request', (r) => { if (isChunk(r.url())) chunks.push(r.url().split('/').pop()); });
  await signIn(page, 'pub@example.com', '/publisher');
  await page.goto(`${server.base}/publisher`);
  await page.locator('body[data-hydrated=true]').waitFor();
  assert.ok(chunks.length > 0, 'the dashboard loaded its chunks');
  const now = await fetch(`${server.base}/pkg/${current}/${chunks[0]}`);
  assert.equal(now.status, 200);
  const stale = await fetch(`${server.base}/pkg/${old}/${chunks[0]}`);
  assert.equal(stale.status, 404, `a chunk under an old version: ${chunks[0]}`);
  await page.close();
});
