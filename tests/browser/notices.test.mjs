// Being told (issue 54, part 6) through the real pages, with hydration and without
// JavaScript: a publisher reads the notices of its placement's review and release and marks
// them seen, chooses per topic what it gets by e-mail and on the dashboard, and registers an
// account webhook (its secret shown once) and removes it.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startServer, launchBrowser, watchPage, createUsers, pageTools, signIn as signInAt, api, tokenOf } from './harness.mjs';

let server; let browser;
const password = 'correct horse battery';
const { shot } = pageTools(() => server.base, password);

before(async () => {
  server = await startServer();
  browser = await launchBrowser();
  createUsers(server, password, ['ops@example.com', 'admin'], ['told-js@example.com', 'publisher'], ['told-nojs@example.com', 'publisher']);
  const admin = await tokenOf(server.base, 'ops@example.com', password);
  // Each publisher's placement is reviewed and released: two notices each.
  for (const [email, domain] of [['told-js@example.com', 'js.example.com'], ['told-nojs@example.com', 'nojs.example.com']]) {
    const pub = await tokenOf(server.base, email, password);
    const p = await api(server.base, 'POST', '/publisher/v2/placements', { type: 'WEBSITE', name: `Pixel Quest ${domain}`, platformIdentity: domain }, pub);
    await api(server.base, 'POST', `/publisher/v2/placements/${p.placementId}/request-review`, {}, pub);
    await api(server.base, 'POST', `/admin/v1/placements/${p.placementId}/review`, { decision: 'VERIFIED', note: 'ok' }, admin);
    await api(server.base, 'POST', `/admin/v1/placements/${p.placementId}/release`, {}, admin);
  }
});

after(async () => {
  await browser?.close();
  await server?.stop();
});

async function ready(form) {
  await form.locator('input[name=csrf]:not([value=""])').first().waitFor({ state: 'attached' });
}

async function toldThroughThePages(page, email, tag) {
  const token = await tokenOf(server.base, email, password);
  await page.goto(`${server.base}/account/notifications`);
  await page.locator('#notice-list li[data-topic="placement.verified"]').waitFor();
  assert.equal(await page.locator('#notice-list li.unread').count(), 2);
  assert.equal((await page.locator('#unread-count').textContent()).trim(), '2 unread');
  await shot(page, `notifications-${tag}`);
  const seen = page.locator('form#mark-seen');
  await ready(seen);
  await seen.locator('button[type=submit]').click();
  await page.locator('#unread-count:has-text("0 unread")').waitFor();
  assert.equal(await page.locator('#notice-list li.unread').count(), 0);

  // Preferences: placement reviews by e-mail off and off the dashboard; releases by e-mail on.
  const prefs = page.locator('form#preferences-form');
  await ready(prefs);
  const row = (topic) => prefs.locator(`tr[data-topic="${topic}"]`);
  assert.ok(await row('placement.verified').locator('input[name^=email]').isChecked(), 'an owner is mailed by default');
  await row('placement.verified').locator('input[name^=email]').uncheck();
  await row('placement.verified').locator('input[name^=dashboard]').uncheck();
  await row('payout.paid').locator('input[name^=email]').uncheck();
  await prefs.locator('button[type=submit]').click();
  await page.locator('#notice-list li[data-topic="placement.verified"]').waitFor({ state: 'detached' });
  const chosen = await api(server.base, 'GET', '/auth/v1/notification-preferences', undefined, token);
  const of = (t) => chosen.topics.find((c) => c.topic === t);
  assert.deepEqual(of('placement.verified'), { topic: 'placement.verified', email: false, dashboard: false });
  assert.deepEqual(of('payout.paid'), { topic: 'payout.paid', email: false, dashboard: true });
  assert.deepEqual(of('placement.released'), { topic: 'placement.released', email: true, dashboard: true });
  assert.equal(await page.locator('#notice-list li[data-topic="placement.released"]').count(), 1);

  // An account webhook: registered with one topic, its secret shown once, then removed.
  const form = page.locator('form#new-webhook');
  await ready(form);
  await form.locator('input[name=url]').fill(`https://hooks.${tag}.example.com/market`);
  await form.locator('input[name=description]').fill('Ops channel');
  await form.locator('input[value="payout.failed"]').check();
  await form.locator('button[type=submit]').click();
  const secret = (await page.locator('#webhook-secret code').textContent()).trim();
  assert.match(secret, /^whsec_[A-Za-z0-9+/=]{20,}$/);
  const listed = await api(server.base, 'GET', '/auth/v1/webhooks', undefined, token);
  assert.equal(listed.items.length, 1);
  assert.deepEqual(listed.items[0].topics, ['payout.failed']);
  await page.goto(`${server.base}/account/notifications?visit=again`);
  const hook = page.locator('#webhook-list tbody tr', { hasText: `hooks.${tag}.example.com` });
  await hook.waitFor();
  assert.equal(await page.locator('#webhook-secret').count(), 0, 'shown once');
  assert.ok(!(await page.content()).includes(secret));
  await shot(page, `webhooks-${tag}`);
  await ready(hook);
  await hook.locator('button:has-text("Remove")').click();
  await hook.waitFor({ state: 'detached' });
  assert.equal((await api(server.base, 'GET', '/auth/v1/webhooks', undefined, token)).items.length, 0);
}

test('notices are read, chosen and sent to an account webhook on the notifications page', async () => {
  const page = await browser.newPage();
  const problems = watchPage(page);
  await signInAt(page, server.base, 'told-js@example.com', password, { hydrated: true, landing: '/publisher', timeout: 10000 });
  await page.click('#nav-notifications');
  await page.waitForURL(`${server.base}/account/notifications`);
  await toldThroughThePages(page, 'told-js@example.com', 'js');
  assert.deepEqual(problems, []);
  await page.close();
});

test('without JavaScript the notifications page works the same', async () => {
  const ctx = await browser.newContext({ javaScriptEnabled: false });
  const page = await ctx.newPage();
  await signInAt(page, server.base, 'told-nojs@example.com', password, { hydrated: false, landing: '/publisher', timeout: 10000 });
  await toldThroughThePages(page, 'told-nojs@example.com', 'nojs');
  await ctx.close();
});
