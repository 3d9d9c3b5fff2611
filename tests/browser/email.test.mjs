// The sign-in address (issue 54, part 2) through the real pages, with hydration and without
// JavaScript: a registration's address is confirmed through the mailed link's page, and the
// address is changed on the account page through a link to the new address.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { startServer, launchBrowser, watchPage, pageTools } from './harness.mjs';

let server; let browser;
const password = 'correct horse battery';
const { formWith } = pageTools(() => server.base, password);

before(async () => {
  server = await startServer();
  browser = await launchBrowser();
});

after(async () => {
  await browser?.close();
  await server?.stop();
});

// The link of the newest letter to `email` whose subject is `subject`.
async function mailedLink(email, subject) {
  const dir = join(server.dataDir, 'mailbox');
  for (let i = 0; i < 100; i++) {
    let letters = [];
    try {
      letters = readdirSync(dir).sort().map((f) => readFileSync(join(dir, f), 'utf8'));
    } catch { /* not yet */ }
    const link = letters.reverse()
      .map((l) => l.replace(/=\r\n/g, '').replace(/=([0-9A-F]{2})/g, (_, h) => String.fromCharCode(parseInt(h, 16))))
      .filter((l) => l.includes(`To: ${email}`) && l.includes(`Subject: ${subject}`))
      .map((l) => l.match(/https?:\/\/\S+\/confirm-email\?token=\S+/)?.[0])
      .find(Boolean);
    if (link) return link;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`no "${subject}" letter for ${email}`);
}

async function submit(page, label, fields = {}) {
  const form = formWith(page, label);
  await form.locator('input[name=csrf]:not([value=""])').waitFor({ state: 'attached' });
  for (const [name, value] of Object.entries(fields)) await form.locator(`input[name=${name}]`).fill(value);
  await form.locator('button[type=submit]').click();
}

async function emailThroughThePages(hydrated, email, newEmail) {
  const ctx = await browser.newContext({ javaScriptEnabled: hydrated });
  const page = await ctx.newPage();
  const problems = hydrated ? watchPage(page) : [];
  await page.goto(`${server.base}/register`);
  await submit(page, 'Create account', { company_name: 'Fresh Pages', email, password });
  await page.waitForURL(`${server.base}/publisher`);
  await page.goto(`${server.base}/account`);
  assert.equal((await page.locator('#email-state').textContent()).trim(), 'not confirmed yet');
  // The link's page confirms with a button, not by being opened.
  await page.goto(await mailedLink(email, 'Confirm your e-mail address'));
  await submit(page, 'Confirm');
  await page.waitForURL(`${server.base}/account?email=verified`);
  assert.equal((await page.locator('#email-state').textContent()).trim(), 'confirmed');
  // A change goes through the new address.
  await submit(page, 'Send a link to the new address', { new_email: newEmail, current_password: password });
  await page.locator('#email-change-sent').waitFor();
  await page.goto(await mailedLink(newEmail, 'Confirm your new e-mail address'));
  await submit(page, 'Confirm');
  await page.waitForURL(`${server.base}/account?email=changed`);
  assert.ok((await page.locator('#email').textContent()).includes(newEmail));
  if (hydrated) assert.deepEqual(problems, []);
  await ctx.close();
}

test('a registration is confirmed and the address changed through mailed links', async () => {
  await emailThroughThePages(true, 'fresh-js@example.com', 'moved-js@example.com');
});

test('without JavaScript the address is confirmed and changed the same', async () => {
  await emailThroughThePages(false, 'fresh-nojs@example.com', 'moved-nojs@example.com');
});
