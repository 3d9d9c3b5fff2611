// The publisher's offer gallery: a live campaign (set up through the API) appears for a
// publisher, filters narrow it, and a category blacklist hides it. With and without
// JavaScript.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startServer, launchBrowser, watchPage, signIn as signInAt, api as apiAt, createUsers } from './harness.mjs';

let server; let browser;
const password = 'correct horse battery';

// A JSON call to the service's API.
const api = (...args) => apiAt(server.base, ...args);
const token = async (email) => (await api('POST', '/auth/v1/tokens', { email, password })).token;

before(async () => {
  server = await startServer();
  browser = await launchBrowser();
  createUsers(server, password, ['admin@example.com', 'admin'], ['adv@example.com', 'advertiser'], ['pub@example.com', 'publisher']);
  const admin = await token('admin@example.com');
  const adv = await token('adv@example.com');
  await api('PUT', '/performance-marketing/v2/billing/profile', { accountType: 'BUSINESS', legalName: 'Northwind', country: 'DE' }, adv);
  const wire = await api('POST', '/performance-marketing/v2/billing/funding/wire', { amount: 500000000, currency: 'USD', externalReference: 'WIRE-GALLERY' }, adv);
  await api('POST', `/admin/v1/funding/${wire.fundingId}/approve`, {}, admin);
  const c = await api('POST', '/performance-marketing/v2/campaigns', {
    name: 'Dragon Quest install', destinationUrl: 'https://advertiser.example/i?c={click_id}', platforms: ['android', 'web'],
    countries: ['US'], category: 'GAMES', taskType: 'INSTALL', trackingProvider: 'CUSTOM_S2S', budgetMicros: 100000000,
    description: 'Install and open the game.',
    goals: [{ externalGoalId: 'install', name: 'Install', payoutMicros: 2500000 }],
  }, adv);
  await api('POST', `/performance-marketing/v2/campaigns/${c.campaignId}/transition`, { to: 'IN_REVIEW' }, adv);
  await api('POST', `/admin/v1/offer-campaigns/${c.campaignId}/approve`, {}, admin);
});

after(async () => {
  await browser?.close();
  await server?.stop();
});

const signIn = (page, hydrated) =>
  signInAt(page, server.base, 'pub@example.com', password, { hydrated, landing: '/publisher' });

for (const hydrated of [true, false]) {
  test(`${hydrated ? 'with' : 'without'} JavaScript: the gallery lists live offers and follows filters`, async () => {
    const ctx = await browser.newContext({ javaScriptEnabled: hydrated });
    const page = await ctx.newPage();
    const problems = watchPage(page);
    await signIn(page, hydrated);
    await page.click('a:has-text("Offer gallery")');
    await page.waitForURL(`${server.base}/publisher/offers`);
    const offer = page.locator('#gallery li.offer', { hasText: 'Dragon Quest install' });
    await offer.waitFor();
    assert.match(await offer.textContent(), /2\.50 USD/);
    await page.selectOption('select[name=platform]', 'ios');
    await page.click('button:has-text("Filter")');
    await page.getByText('No live offer matches these filters.').waitFor();
    assert.match(page.url(), /platform=ios/);
    await page.goto(`${server.base}/publisher/offers?country=US&platform=web`);
    await offer.waitFor();
    assert.deepEqual(problems, []);
    await ctx.close();
  });
}

test('a category blacklist hides the offer', async () => {
  const pub = await token('pub@example.com');
  const entry = await api('POST', '/publisher/v2/blacklists', { kind: 'CATEGORY', value: 'GAMES' }, pub);
  const page = await browser.newPage();
  await signIn(page, true);
  await page.goto(`${server.base}/publisher/offers`);
  await page.getByText('No live offer matches these filters.').waitFor();
  await api('DELETE', `/publisher/v2/blacklists/${entry.blacklistId}`, undefined, pub);
  await page.close();
});
