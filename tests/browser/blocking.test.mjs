// User bans and the blacklist in the publisher dashboard: a publisher bans a user, finds the
// ban, lifts and reinstates it, and adds and removes blacklist entries, once hydrated and once
// without JavaScript; the API sees every change the pages made.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startServer, launchBrowser, watchPage, signIn, api } from './harness.mjs';

let server; let browser; let token; let placementId;
const password = 'correct horse battery';

before(async () => {
  server = await startServer();
  browser = await launchBrowser();
  server.cli('user', 'create', '--email', 'pub@example.com', '--password', password, '--role', 'publisher');
  ({ token } = await api(server.base, 'POST', '/auth/v1/tokens', { email: 'pub@example.com', password }));
  ({ placementId } = await api(server.base, 'POST', '/publisher/v2/placements',
    { type: 'WEBSITE', name: 'Pixel Quest', platformIdentity: 'pq.example.com' }, token));
});

after(async () => {
  await browser?.close();
  await server?.stop();
});

for (const hydrated of [true, false]) {
  const user = hydrated ? 'cheater-js' : 'cheater-plain';
  test(`${hydrated ? 'with' : 'without'} JavaScript: the publisher bans ${user}, lifts and reinstates the ban`, async () => {
    const ctx = await browser.newContext({ javaScriptEnabled: hydrated });
    const page = await ctx.newPage();
    const problems = watchPage(page);
    await signIn(page, server.base, 'pub@example.com', password, { hydrated, landing: '/publisher' });
    await page.click('a:has-text("User bans")');
    await page.waitForURL(`${server.base}/publisher/bans`);
    if (hydrated) await page.locator('body[data-hydrated=true]').waitFor();
    const form = page.locator('#new-ban form');
    await form.locator('select[name=placement_id]').selectOption(placementId);
    await form.locator('input[name=external_user_id]').fill(user);
    await form.locator('select[name=days]').selectOption('7');
    await form.locator('input[name=reason]').fill('Chargeback fraud on three offers');
    await form.locator('button[type=submit]').click();
    const row = page.locator('#bans tr', { hasText: user });
    await row.locator('.badge', { hasText: 'IN FORCE' }).waitFor();
    assert.match(await row.textContent(), /Pixel Quest.*Chargeback fraud/s);
    const listed = await api(server.base, 'GET', `/publisher/v2/user-bans?externalUserId=${user}`, undefined, token);
    assert.equal(listed.items.length, 1);
    assert.equal(listed.items[0].effective, true);
    assert.ok(listed.items[0].expiresAt, 'a 7-day ban expires');

    await row.locator('button:has-text("Lift")').click();
    await row.locator('.badge', { hasText: 'LIFTED' }).waitFor();
    await row.locator('button:has-text("Reinstate")').click();
    await row.locator('.badge', { hasText: 'IN FORCE' }).waitFor();

    // A second active ban of the same user is refused with the reason shown.
    await form.locator('select[name=placement_id]').selectOption(placementId);
    await form.locator('input[name=external_user_id]').fill(user);
    await form.locator('input[name=reason]').fill('Again');
    await form.locator('button[type=submit]').click();
    await page.locator('.notice.error', { hasText: 'already has an active ban' }).waitFor();

    await page.goto(`${server.base}/publisher/bans?status=LIFTED`);
    await page.getByText('No ban matches.').waitFor();
    await page.goto(`${server.base}/publisher/bans?user=${user}`);
    assert.equal(await page.locator('#bans tbody tr').count(), 1);
    assert.deepEqual(problems, []);
    await ctx.close();
  });

  const domain = hydrated ? 'casino.example' : 'spam.example';
  test(`${hydrated ? 'with' : 'without'} JavaScript: the publisher blacklists ${domain} and removes it`, async () => {
    const ctx = await browser.newContext({ javaScriptEnabled: hydrated });
    const page = await ctx.newPage();
    const problems = watchPage(page);
    await signIn(page, server.base, 'pub@example.com', password, { hydrated, landing: '/publisher' });
    await page.click('a:has-text("Blacklist")');
    await page.waitForURL(`${server.base}/publisher/blacklist`);
    if (hydrated) await page.locator('body[data-hydrated=true]').waitFor();
    const form = page.locator('#new-blacklist form');
    await form.locator('select[name=kind]').selectOption('DOMAIN');
    await form.locator('input[name=value]').fill(domain);
    await form.locator('select[name=placement_id]').selectOption(placementId);
    await form.locator('input[name=reason]').fill('Gambling offers');
    await form.locator('button[type=submit]').click();
    const row = page.locator('#blacklist tr', { hasText: domain });
    await row.waitFor();
    assert.match(await row.textContent(), /DOMAIN.*Pixel Quest.*Gambling offers/s);
    let listed = await api(server.base, 'GET', '/publisher/v2/blacklists', undefined, token);
    assert.ok(listed.items.some((e) => e.value === domain && e.placementId === placementId));

    // The same entry twice is refused.
    await form.locator('select[name=kind]').selectOption('DOMAIN');
    await form.locator('input[name=value]').fill(domain);
    await form.locator('select[name=placement_id]').selectOption(placementId);
    await form.locator('button[type=submit]').click();
    await page.locator('.notice.error', { hasText: 'already on the blacklist' }).waitFor();

    await row.locator('button:has-text("Remove")').click();
    await row.waitFor({ state: 'detached' });
    listed = await api(server.base, 'GET', '/publisher/v2/blacklists', undefined, token);
    assert.ok(!listed.items.some((e) => e.value === domain));
    assert.deepEqual(problems, []);
    await ctx.close();
  });
}
