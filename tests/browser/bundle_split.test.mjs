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

const isChunk = (url) => /\/pkg\/[0-9a-f]{16}\/(?!frontend_bg\.wasm)[^/]+\.wasm$/.test(url);

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
  const preloads = ((await answer.text()).match(/<link[^>]*>/g) ?? []).filter((l) => /rel="preload"/.test(l));
  assert.ok(preloads.some((l) => /split_publisher_area_/.test(l)), `the page's chunk is preloaded: ${preloads}`);
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
