// Account recovery and the owner's own security (issue 54, part 2) through the real pages,
// with hydration and without JavaScript: a forgotten password is reset through the letter
// the development mailbox keeps, the account page changes the password and signs out
// everywhere, and administrators see the letters on the Mail page.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createHmac } from 'node:crypto';
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
    ['owner@example.com', 'publisher'], ['ops@example.com', 'admin'],
    ['keys-js@example.com', 'publisher'], ['keys-nojs@example.com', 'advertiser'],
    ['totp-js@example.com', 'publisher'], ['totp-nojs@example.com', 'advertiser']);
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
  // Where the account is signed in: this browser, marked.
  await page.locator('#sessions tbody tr', { hasText: 'this browser' }).waitFor();
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

// One API call's status and JSON body (the harness's `api` insists on success).
async function call(method, path, body, key) {
  const r = await fetch(`${server.base}${path}`, {
    method,
    headers: { 'content-type': 'application/json', authorization: `Bearer ${key}` },
    body: body == null ? undefined : JSON.stringify(body),
  });
  const text = await r.text();
  return { status: r.status, body: text ? JSON.parse(text) : null };
}

// Creates a key on the account page granting `area` read access, reads it off the page once,
// checks the API takes it within the grant, then revokes it on the page.
async function keyThroughThePage(page, { area, readPath, writePath }) {
  await page.goto(`${server.base}/account#api-keys`);
  const form = page.locator('form#new-api-key');
  await form.locator('input[name=csrf]:not([value=""])').waitFor({ state: 'attached' });
  await form.locator('input[name=name]').fill('Nightly report');
  await form.locator(`select[name=${area}]`).selectOption('read');
  await form.locator('button[type=submit]').click();
  const shown = page.locator('#api-key-shown code');
  await shown.waitFor();
  const key = (await shown.textContent()).trim();
  assert.match(key, /^mkt_key_[A-Za-z0-9_-]{40,}$/);
  const read = await call('GET', readPath, undefined, key);
  assert.equal(read.status, 200, JSON.stringify(read.body));
  const write = await call('POST', writePath, {}, key);
  assert.equal(write.status, 403);
  assert.equal(write.body.error.code, 'insufficient_scope');
  // Shown once: a new visit lists the key by its prefix only (a URL of its own: a change of
  // the fragment alone would not load the page again).
  await page.goto(`${server.base}/account?visit=again#api-keys`);
  const row = page.locator('table.api-keys tbody tr', { hasText: 'Nightly report' });
  await row.waitFor();
  assert.equal(await page.locator('#api-key-shown').count(), 0);
  assert.ok((await row.textContent()).includes(key.slice(0, 12)));
  assert.ok(!(await page.content()).includes(key));
  await row.locator('button:has-text("Revoke")').click();
  await page.locator('table.api-keys tbody tr', { hasText: 'revoked' }).waitFor();
  const after = await call('GET', readPath, undefined, key);
  assert.equal(after.status, 401);
}

test('API keys are created with a grant, shown once and revoked on the account page', async () => {
  const page = await browser.newPage();
  const problems = watchPage(page);
  await signIn(page, 'keys-js@example.com', '/publisher');
  await keyThroughThePage(page, { area: 'placements', readPath: '/publisher/v2/placements', writePath: '/publisher/v2/placements' });
  await shot(page, 'account-api-keys');
  assert.deepEqual(problems, []);
  await page.close();
});

test('without JavaScript API keys are created and revoked the same', async () => {
  const ctx = await browser.newContext({ javaScriptEnabled: false });
  const page = await ctx.newPage();
  await signInAs(page, 'keys-nojs@example.com', password, '/advertiser', false);
  await keyThroughThePage(page, { area: 'campaigns', readPath: '/performance-marketing/v2/campaigns', writePath: '/performance-marketing/v2/campaigns' });
  await ctx.close();
});

// The six-digit TOTP code of a base32 secret now (RFC 6238, SHA-1, 30 s), as an
// authenticator app computes it.
function totp(secret) {
  const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567';
  let bits = 0; let value = 0; const bytes = [];
  for (const c of secret.replace(/=+$/, '').toUpperCase()) {
    value = ((value << 5) | alphabet.indexOf(c)) & 0xffff;
    bits += 5;
    if (bits >= 8) { bytes.push((value >>> (bits - 8)) & 0xff); bits -= 8; }
  }
  const counter = Buffer.alloc(8);
  counter.writeBigUInt64BE(BigInt(Math.floor(Date.now() / 30000)));
  const h = createHmac('sha1', Buffer.from(bytes)).update(counter).digest();
  const o = h[h.length - 1] & 15;
  return String((h.readUInt32BE(o) & 0x7fffffff) % 1e6).padStart(6, '0');
}

// Turns the second factor on from the account page: scan (here: read) the key, confirm a
// code, and keep the recovery codes shown once. Then signing in asks for a code: a
// recovery code works.
async function secondFactorThroughThePages(page, email, landing, hydrated) {
  await page.goto(`${server.base}/account#second-factor`);
  const start = page.locator('form#start-second-factor');
  await start.locator('input[name=csrf]:not([value=""])').waitFor({ state: 'attached' });
  await start.locator('input[name=current_password]').fill(password);
  await start.locator('button[type=submit]').click();
  const secret = (await page.locator('#second-factor-secret').textContent()).trim();
  assert.match(secret, /^[A-Z2-7]{32}$/);
  assert.equal(await page.locator('#second-factor .qr svg').count(), 1, 'the QR code is drawn');
  await shot(page, `second-factor-enrol-${hydrated ? 'js' : 'nojs'}`);
  const confirm = page.locator('form#confirm-second-factor');
  await confirm.locator('input[name=csrf]:not([value=""])').waitFor({ state: 'attached' });
  await confirm.locator('input[name=code]').fill(totp(secret));
  await confirm.locator('button[type=submit]').click();
  const codes = (await page.locator('#recovery-codes code').textContent()).trim().split('\n');
  assert.equal(codes.length, 10);
  await page.locator('#second-factor-state[data-state=on]').waitFor();
  await shot(page, `second-factor-on-${hydrated ? 'js' : 'nojs'}`);
  // Signing in now needs a code: without one it is refused, a recovery code lets in.
  await page.context().clearCookies();
  await page.goto(`${server.base}/sign-in`);
  const form = formWith(page, 'Sign in');
  await form.locator('input[name=csrf]:not([value=""])').waitFor({ state: 'attached' });
  await form.locator('input[name=email]').fill(email);
  await form.locator('input[name=password]').fill(password);
  await form.locator('button[type=submit]').click();
  await page.getByRole('alert').getByText('this account has a second factor').waitFor();
  const again = formWith(page, 'Sign in');
  await again.locator('input[name=csrf]:not([value=""])').waitFor({ state: 'attached' });
  await again.locator('input[name=email]').fill(email);
  await again.locator('input[name=password]').fill(password);
  await again.locator('input[name=otp]').fill(codes[0]);
  await again.locator('button[type=submit]').click();
  await page.waitForURL(`${server.base}${landing}`);
}

test('a second factor is turned on from the account page and asked at sign-in', async () => {
  const page = await browser.newPage();
  const problems = watchPage(page);
  await signIn(page, 'totp-js@example.com', '/publisher');
  await page.locator('body[data-hydrated=true]').waitFor();
  await secondFactorThroughThePages(page, 'totp-js@example.com', '/publisher', true);
  assert.deepEqual(problems, []);
  await page.close();
});

test('without JavaScript the second factor is turned on and asked the same', async () => {
  const ctx = await browser.newContext({ javaScriptEnabled: false });
  const page = await ctx.newPage();
  await signInAs(page, 'totp-nojs@example.com', password, '/advertiser', false);
  await secondFactorThroughThePages(page, 'totp-nojs@example.com', '/advertiser', false);
  await ctx.close();
});
