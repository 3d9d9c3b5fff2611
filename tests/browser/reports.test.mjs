// The publisher's offers report: an end user's impression, launch and signed conversion
// (driven through the SDK and postback APIs) show up as a row with earnings, a chart and a
// CSV download. With and without JavaScript.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createHmac } from 'node:crypto';
import { startServer, launchBrowser, watchPage, signIn as signInAs, api as apiAt } from './harness.mjs';

let server; let browser;
const password = 'correct horse battery';
const domain = 'play.pixelquest.example';

// A JSON call to the service's API with `headers`.
const call = (method, path, body, headers) => apiAt(server.base, method, path, body, undefined, headers);
const api = (method, path, body, token, extra = {}) =>
  call(method, path, body, token ? { authorization: `Bearer ${token}`, ...extra } : extra);
const token = async (email) => (await api('POST', '/auth/v1/tokens', { email, password })).token;

before(async () => {
  server = await startServer();
  browser = await launchBrowser();
  for (const [email, role] of [['admin@example.com', 'admin'], ['adv@example.com', 'advertiser'], ['pub@example.com', 'publisher']]) {
    server.cli('user', 'create', '--email', email, '--password', password, '--role', role);
  }
  const admin = await token('admin@example.com');
  const adv = await token('adv@example.com');
  const pub = await token('pub@example.com');
  // A funded advertiser with a live Custom S2S campaign.
  await api('PUT', '/performance-marketing/v2/billing/profile', { accountType: 'BUSINESS', legalName: 'Northwind', country: 'DE' }, adv);
  const wire = await api('POST', '/performance-marketing/v2/billing/funding/wire', { amount: 500000000, currency: 'USD', externalReference: 'WIRE-REPORT' }, adv);
  await api('POST', `/admin/v1/funding/${wire.fundingId}/approve`, {}, admin);
  const c = await api('POST', '/performance-marketing/v2/campaigns', {
    name: 'Dragon Quest install', destinationUrl: 'https://advertiser.example/i?c={click_id}', platforms: ['web'],
    countries: ['US'], category: 'GAMES', taskType: 'INSTALL', trackingProvider: 'CUSTOM_S2S', budgetMicros: 100000000,
    goals: [{ externalGoalId: 'install', name: 'Install', payoutMicros: 2000000 }],
  }, adv);
  const key = await api('POST', `/performance-marketing/v2/campaigns/${c.campaignId}/tracking/custom-s2s/credentials`, {}, adv);
  await api('POST', `/performance-marketing/v2/campaigns/${c.campaignId}/transition`, { to: 'IN_REVIEW' }, adv);
  await api('POST', `/admin/v1/offer-campaigns/${c.campaignId}/approve`, {}, admin);
  // A released website placement with an offerwall slot.
  const p = await api('POST', '/publisher/v2/placements', { type: 'WEBSITE', name: 'Pixel Quest web', platformIdentity: domain }, pub);
  await api('POST', `/publisher/v2/placements/${p.placementId}/request-review`, {}, pub);
  await api('POST', `/admin/v1/placements/${p.placementId}/review`, { decision: 'VERIFIED', note: 'ok' }, admin);
  await api('POST', `/admin/v1/placements/${p.placementId}/release`, {}, admin);
  const slot = await api('POST', `/publisher/v2/placements/${p.placementId}/ad-slots`, {
    name: 'Wall', type: 'OFFERWALL',
    currency: { name: 'Coins', decimals: 0, rateNumeratorMinorUnits: 100, rateDenominatorUsdMicros: 1000000, rounding: 'DOWN' },
  }, pub);
  // An end user sees the offer, launches it, and the advertiser reports the install.
  const s = await api('POST', '/sdk/v2/sessions', {
    placementId: p.placementId, adSlotId: slot.adSlotId, externalUserId: 'user-1', platform: 'web', sdkVersion: '2.0.0',
    packageBundleOrDomain: domain, environment: 'production', consent: 'GRANTED',
  });
  const imp = await api('POST', `/sdk/v2/offers/${c.campaignId}/impressions`, {}, s.token, { 'idempotency-key': 'imp-000001' });
  const launch = await api('POST', `/sdk/v2/offers/${c.campaignId}/launch`, { impressionId: imp.impressionId }, s.token, { 'idempotency-key': 'launch-0001' });
  const ts = String(Math.floor(Date.now() / 1000));
  const ev = { click_id: launch.clickId, transaction_id: 'order-1', goal_id: 'install', status: 'approved', occurred_at: new Date().toISOString() };
  const message = [ts, ev.click_id, ev.transaction_id, ev.goal_id, ev.status, ev.occurred_at].join('\n');
  const signature = createHmac('sha256', key.secret).update(message).digest('hex');
  const receipt = await api('POST', `/performance-marketing/v2/postbacks/custom-s2s/${c.campaignId}`, ev, null,
    { 'x-service-key-id': key.keyId, 'x-service-timestamp': ts, 'x-service-signature': signature });
  assert.equal(receipt.accepted, true);
  // Something for each home page's "Needs attention": a placement in review, a wire to credit.
  const second = await api('POST', '/publisher/v2/placements', { type: 'WEBSITE', name: 'Second site', platformIdentity: 'second.example' }, pub);
  await api('POST', `/publisher/v2/placements/${second.placementId}/request-review`, {}, pub);
  await api('POST', '/performance-marketing/v2/billing/funding/wire', { amount: 250000000, currency: 'USD', externalReference: 'WIRE-LATER' }, adv);
});

after(async () => {
  await browser?.close();
  await server?.stop();
});

const signIn = (page, hydrated, email = 'pub@example.com', landing = '/publisher') =>
  signInAs(page, server.base, email, password, { hydrated, landing });

for (const hydrated of [true, false]) {
  test(`${hydrated ? 'with' : 'without'} JavaScript: the offers report shows the conversion, a chart and a CSV`, async () => {
    const ctx = await browser.newContext({ javaScriptEnabled: hydrated, acceptDownloads: true });
    const page = await ctx.newPage();
    const problems = watchPage(page);
    await signIn(page, hydrated);
    await page.click('a:has-text("Offers report")');
    await page.waitForURL(`${server.base}/publisher/reports`);
    const row = page.locator('#report tbody tr', { hasText: 'Dragon Quest install' });
    await row.waitFor();
    const cells = await row.locator('td.num').allTextContents();
    // impressions, clicks, conversions, reversals, earnings (70 % of 2.00 USD)
    assert.deepEqual(cells, ['1', '1', '1', '0', '1.40']);
    assert.equal(await page.locator('#earnings-chart svg rect.bar').count() >= 30, true);
    const href = await page.locator('#report-csv').getAttribute('href');
    const csv = await page.request.get(`${server.base}${href}`);
    assert.equal(csv.status(), 200);
    assert.match(csv.headers()['content-type'], /text\/csv/);
    assert.match(await csv.text(), /Dragon Quest install,1,1,1,0,1400000,1\.400000/);
    // A range without activity is empty; a reversed range is refused with a message.
    await page.goto(`${server.base}/publisher/reports?from=2020-01-01&to=2020-01-31`);
    await page.getByText('No impressions, clicks or conversions in this period.').waitFor();
    await page.goto(`${server.base}/publisher/reports?from=2020-02-01&to=2020-01-01`);
    await page.locator('#report').getByText('from: must not be after to').waitFor();
    assert.deepEqual(problems, []);
    await ctx.close();
  });
}

test('the CSV download needs a signed-in publisher', async () => {
  const r = await fetch(`${server.base}/publisher/reports/offers.csv`);
  assert.equal(r.status, 401);
});

// The home pages lead with the figures: the publisher's 70 % of the 2.00 USD install, the
// advertiser's 2.00 USD spend and its balance, a chart of 30 days and what needs attention.
for (const hydrated of [true, false]) {
  test(`${hydrated ? 'with' : 'without'} JavaScript: both home pages lead with the last 7 and 30 days`, async () => {
    const ctx = await browser.newContext({ javaScriptEnabled: hydrated });
    const page = await ctx.newPage();
    const problems = watchPage(page);
    await signIn(page, hydrated);
    const figure = (period, what) => page.locator(`#figures-${period} .${what} dd`).textContent();
    assert.equal(await figure(7, 'money'), '1.40 USD');
    assert.equal(await figure(30, 'conversions'), '1');
    assert.equal(await figure(30, 'reversals'), '0');
    assert.equal(await page.locator('#overview-chart svg rect.bar').count(), 30);
    const review = page.locator('#attention li[data-code=placements_in_review] a');
    assert.equal(await review.textContent(), '1 placement is awaiting review by an administrator');
    await review.click();
    await page.waitForURL(`${server.base}/publisher/placements?status=PENDING_REVIEW`);
    await page.locator('text=Second site').first().waitFor();
    await page.click('button:has-text("Sign out")');
    await page.waitForURL(`${server.base}/sign-in`);

    await signIn(page, hydrated, 'adv@example.com', '/advertiser');
    assert.equal(await figure(7, 'money'), '2.00 USD');
    assert.equal(await figure(30, 'conversions'), '1');
    assert.equal(await page.locator('#figures-balance dd').textContent(), '400.00 USD');
    assert.match(await page.locator('#attention li[data-code=fundings_in_review]').textContent(),
      /1 wire transfer is awaiting an administrator's review/);
    assert.deepEqual(problems, []);
    await ctx.close();
  });
}
