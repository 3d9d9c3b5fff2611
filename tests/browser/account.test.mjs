// Account recovery and the owner's own security (issue 54, part 2) through the real pages,
// with hydration and without JavaScript: a forgotten password is reset through the letter
// the development mailbox keeps, the account page changes the password and signs out
// everywhere, and administrators see the letters on the Mail page.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { startServer, launchBrowser, watchPage, createUsers, pageTools, signIn as signInAt } from './harness.mjs';

let server; let browser;
const password = 'correct horse battery';
const { shot, formWith, signIn } = pageTools(() => server.base, password);

before(async () => {
  server = await startServer();
  browser = await launchBrowser();
  createUsers(server, password, ['reset-js@example.com', 'publisher'], ['reset-nojs@example.com', 'advertiser'],
    ['owner@example.com', 'publisher'], ['ops@example.com', 'admin']);
});

after(async () => {
  await browser?.close();
  await server?.stop();
});

const signInAs = (page, email, pw, landing, hydrated) =>
  signInAt(page, server.base, email, pw, { hydrated, landing, timeout: 10000 });

// The newest reset link mailed to `email`, once the mail worker (every 2 s) has written it.
async function resetLink(email) {
  const dir = join(server.dataDir, 'mailbox');
  for (let i = 0; i < 100; i++) {
    let letters = [];
    try { letters = readdirSync(dir).map((f) => readFileSync(join(dir, f), 'utf8')); } catch { /* not yet */ }
    const mine = letters
      // Quoted-printable: soft line breaks and =XX escapes, as a mail reader decodes them.
      .map((l) => l.replace(/=\r\n/g, '').replace(/=([0-9A-F]{2})/g, (_, h) => String.fromCharCode(parseInt(h, 16))))
      .filter((l) => l.includes(`To: ${email}`) && l.includes('Subject: Choose a new password'));
    const link = mine.map((l) => l.match(/https?:\/\/\S+\/reset-password\?token=\S+/)?.[0]).find(Boolean);
    if (link) return link;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`no reset letter for ${email} in ${dir}`);
}

async function resetThroughThePages(page, email, newPassword) {
  await page.goto(`${server.base}/sign-in`);
  await page.click('a:has-text("Forgot your password?")');
  await page.waitForURL(`${server.base}/forgot-password`);
  const ask = formWith(page, 'Send me a link');
  await ask.locator('input[name=csrf]:not([value=""])').waitFor({ state: 'attached' });
  await ask.locator('input[name=email]').fill(email);
  await ask.locator('button[type=submit]').click();
  await page.locator('#reset-sent').waitFor();
  const link = await resetLink(email);
  await page.goto(link);
  const set = formWith(page, 'Set the new password');
  await set.locator('input[name=csrf]:not([value=""])').waitFor({ state: 'attached' });
  await set.locator('input[name=new_password]').fill(newPassword);
  await set.locator('button[type=submit]').click();
  await page.waitForURL(`${server.base}/sign-in?reset=1`);
  await page.locator('#password-changed').waitFor();
  return link;
}

test('a forgotten password is reset through the mailed link, which works once', async () => {
  const page = await browser.newPage();
  const problems = watchPage(page);
  await page.goto(`${server.base}/sign-in`);
  await page.locator('body[data-hydrated=true]').waitFor();
  const link = await resetThroughThePages(page, 'reset-js@example.com', 'a brand new passphrase');
  await shot(page, 'password-reset-done');
  // The old password no longer works; the new one does.
  const form = formWith(page, 'Sign in');
  await form.locator('input[name=csrf]:not([value=""])').waitFor({ state: 'attached' });
  await form.locator('input[name=email]').fill('reset-js@example.com');
  await form.locator('input[name=password]').fill(password);
  await form.locator('button[type=submit]').click();
  await page.getByRole('alert').getByText('e-mail or password is incorrect').waitFor();
  await signInAs(page, 'reset-js@example.com', 'a brand new passphrase', '/publisher', true);
  // The link was used: a second use is refused on the page.
  await page.goto(link);
  const again = formWith(page, 'Set the new password');
  await again.locator('input[name=csrf]:not([value=""])').waitFor({ state: 'attached' });
  await again.locator('input[name=new_password]').fill('yet another passphrase');
  await again.locator('button[type=submit]').click();
  await page.getByRole('alert').getByText('this link is not valid any more').waitFor();
  assert.deepEqual(problems, []);
  await page.close();
});

test('without JavaScript the reset pages work the same', async () => {
  const ctx = await browser.newContext({ javaScriptEnabled: false });
  const page = await ctx.newPage();
  await resetThroughThePages(page, 'reset-nojs@example.com', 'a brand new passphrase');
  await signInAs(page, 'reset-nojs@example.com', 'a brand new passphrase', '/advertiser', false);
  await ctx.close();
});

test('the account page changes the password and signs out everywhere', async () => {
  const page = await browser.newPage();
  const problems = watchPage(page);
  await signIn(page, 'owner@example.com', '/publisher');
  await page.click('nav a.who');
  await page.waitForURL(`${server.base}/account`);
  const change = formWith(page, 'Change the password');
  await change.locator('input[name=csrf]:not([value=""])').waitFor({ state: 'attached' });
  await change.locator('input[name=current_password]').fill('not the password');
  await change.locator('input[name=new_password]').fill('a brand new passphrase');
  await change.locator('button[type=submit]').click();
  await page.getByRole('alert').getByText('the current password is incorrect').waitFor();
  await change.locator('input[name=current_password]').fill(password);
  await change.locator('input[name=new_password]').fill('a brand new passphrase');
  await change.locator('button[type=submit]').click();
  await page.locator('#password-changed').waitFor();
  // This browser stays signed in.
  await page.goto(`${server.base}/publisher`);
  await page.getByText('owner@example.com').first().waitFor();
  await page.goto(`${server.base}/account`);
  await shot(page, 'account-page');
  await page.click('button:has-text("Sign out everywhere")');
  await page.waitForURL(`${server.base}/sign-in`);
  await page.locator('nav >> text=Sign in').waitFor();
  assert.deepEqual(problems, []);
  await page.close();
});

test('administrators see every letter on the Mail page', async () => {
  const page = await browser.newPage();
  await signIn(page, 'ops@example.com', '/admin');
  await page.click('a[href="/admin/mail"]');
  await page.waitForURL(`${server.base}/admin/mail`);
  await page.locator('#mail-mode[data-mode=DEVELOPMENT_MAILBOX]').waitFor();
  await page.locator('tr[data-status=SENT]', { hasText: 'reset-js@example.com' }).first().waitFor();
  await shot(page, 'admin-mail');
  await page.close();
});
