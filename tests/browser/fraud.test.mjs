// Fraud review in the dashboards (issue 51), once hydrated and once without JavaScript: the
// demo advertiser's campaign holds every conversion reported within an hour of its click
// (its fraud rules), users of the demo placement convert at once, and their conversions are
// held. The administrator reviews the queue by placement and reason and decides in bulk; the
// advertiser sees the reasons on its conversions page and approves its own; the publisher
// sees its placement's held share and why conversions were held; the advertiser sets the
// campaign's fraud rules on its tracking page. How decisions move money is covered by the
// integration tests (tests/integration/fraud_decisions.rs).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createHmac } from 'node:crypto';
import { startServer, launchBrowser, watchPage, signIn, api as apiAt } from './harness.mjs';

const PASSWORD = 'demo-password-2026';
const ADMIN = 'fraud-admin@example.com';
const DOMAIN = 'play.pixelquest.example';
let server; let browser; let demo;
// Per mode: the conversion ids held for the administrator (3), the advertiser (1) and the
// publisher's view (1), by transaction id.
const held = {};

// A JSON call to the service's API.
const call = (...args) => apiAt(server.base, ...args);
const tokenOf = async (email, password = PASSWORD) => (await call('POST', '/auth/v1/tokens', { email, password })).token;

// A user of the demo placement launches the demo campaign; the advertiser reports the
// install at once (held: the campaign's floor is an hour).
async function heldConversion(user, txn) {
  const s = await call('POST', '/sdk/v2/sessions', {
    placementId: demo.placement, adSlotId: demo.slot, externalUserId: user, platform: 'web',
    sdkVersion: '2.1.0', packageBundleOrDomain: DOMAIN, environment: 'production', consent: 'GRANTED',
  });
  const imp = await call('POST', `/sdk/v2/offers/${demo.campaign}/impressions`, {}, s.token, { 'idempotency-key': `imp-${user}` });
  const l = await call('POST', `/sdk/v2/offers/${demo.campaign}/launch`, { impressionId: imp.impressionId }, s.token,
    { 'idempotency-key': `launch-${user}` });
  const ts = String(Math.floor(Date.now() / 1000));
  const ev = { click_id: l.clickId, transaction_id: txn, goal_id: 'install', status: 'approved', occurred_at: new Date().toISOString() };
  const message = [ts, ev.click_id, ev.transaction_id, ev.goal_id, ev.status, ev.occurred_at].join('\n');
  const signature = createHmac('sha256', demo.key.secret).update(message).digest('hex');
  await call('POST', `/performance-marketing/v2/postbacks/custom-s2s/${demo.campaign}`, ev, null,
    { 'x-service-key-id': demo.key.keyId, 'x-service-timestamp': ts, 'x-service-signature': signature });
  const list = await call('GET', `/performance-marketing/v2/conversions?transactionId=${txn}`, null, demo.adv);
  assert.equal(list.items[0].settlement, 'HELD', JSON.stringify(list.items[0]));
  return list.items[0].conversionId;
}

before(async () => {
  server = await startServer({ seed: [['demo']] });
  browser = await launchBrowser();
  server.cli('user', 'create', '--email', ADMIN, '--password', PASSWORD, '--role', 'admin');
  const pub = await tokenOf('publisher@demo.test');
  const adv = await tokenOf('advertiser@demo.test');
  const placement = (await call('GET', '/publisher/v2/placements', null, pub)).items[0];
  const slots = (await call('GET', `/publisher/v2/placements/${placement.placementId}/ad-slots`, null, pub)).items;
  const campaign = (await call('GET', '/performance-marketing/v2/campaigns', null, adv)).items[0].campaignId;
  const key = await call('POST', `/performance-marketing/v2/campaigns/${campaign}/tracking/custom-s2s/credentials`, {}, adv);
  await call('PUT', `/performance-marketing/v2/campaigns/${campaign}/fraud-rules`, { minSecondsToConvert: 3600 }, adv);
  demo = { placement: placement.placementId, slot: slots.find((s) => s.type === 'OFFERWALL').adSlotId, campaign, key, adv };
  for (const mode of ['js', 'plain']) {
    held[mode] = {};
    for (const n of [1, 2, 3, 4, 5]) {
      const txn = `${mode}-order-${n}`;
      held[mode][txn] = await heldConversion(`${mode}-user-${n}`, txn);
    }
  }
});

after(async () => {
  await browser?.close();
  await server?.stop();
});

async function open(hydrated, email, landing) {
  const ctx = await browser.newContext({ javaScriptEnabled: hydrated });
  const page = await ctx.newPage();
  const problems = watchPage(page);
  await signIn(page, server.base, email, PASSWORD, { hydrated, landing });
  return { ctx, page, problems };
}

for (const hydrated of [true, false]) {
  const mode = hydrated ? 'js' : 'plain';
  const how = hydrated ? 'with' : 'without';

  test(`${how} JavaScript: the publisher sees its held share and why`, async () => {
    const { ctx, page, problems } = await open(hydrated, 'publisher@demo.test', '/publisher');
    await page.click('a:has-text("Fraud and holds")');
    await page.waitForURL(`${server.base}/publisher/fraud`);
    if (hydrated) await page.locator('body[data-hydrated=true]').waitFor();
    const row = page.locator(`#fraud-rates tr[data-placement="${demo.placement}"]`);
    await row.waitFor();
    assert.match(await row.textContent(), /Delivering/);
    const mine = page.locator(`#held tr[data-conversion="${held[mode][`${mode}-order-5`]}"]`);
    await mine.waitFor();
    assert.match(await mine.textContent(), /Converted too fast/);
    assert.match(await mine.textContent(), /floor is 3600 s/);
    assert.deepEqual(problems, []);
    await ctx.close();
  });

  test(`${how} JavaScript: the administrator reviews the queue and decides in bulk`, async () => {
    const { ctx, page, problems } = await open(hydrated, ADMIN, '/admin');
    await page.click('a:has-text("Fraud review")');
    await page.waitForURL(`${server.base}/admin/fraud`);
    if (hydrated) await page.locator('body[data-hydrated=true]').waitFor();
    await page.locator(`#fraud-placements tr[data-placement="${demo.placement}"]`).waitFor();
    assert.match(await page.locator('#held-by-signal').textContent(), /Converted too fast/);
    const form = page.locator('#hold-decisions');
    await form.locator('input[name=csrf]:not([value=""])').waitFor({ state: 'attached' });
    for (const n of [1, 2]) await form.locator(`tr[data-conversion="${held[mode][`${mode}-order-${n}`]}"] input[type=checkbox]`).check();
    await form.locator('input[name=note]').fill('One address, seconds after the click');
    await form.locator('button:has-text("Reject selected")').click();
    await page.waitForURL(/decided=/);
    assert.match(await page.locator('[data-decided]').textContent(), /0 approved, 2 rejected/);
    const again = page.locator('#hold-decisions');
    await again.locator('input[name=csrf]:not([value=""])').waitFor({ state: 'attached' });
    assert.equal(await again.locator(`tr[data-conversion="${held[mode][`${mode}-order-1`]}"]`).count(), 0, 'decided ones leave the queue');
    await again.locator(`tr[data-conversion="${held[mode][`${mode}-order-3`]}"] input[type=checkbox]`).check();
    await again.locator('button:has-text("Approve selected")').click();
    await page.waitForURL(/decided=1%20approved|decided=1\+approved|decided=1 approved/);
    assert.match(await page.locator('[data-decided]').textContent(), /1 approved, 0 rejected/);
    const list = await call('GET', `/performance-marketing/v2/conversions?transactionId=${mode}-order-3`, null, demo.adv);
    assert.equal(list.items[0].settlement, 'APPROVED');
    assert.deepEqual(problems, []);
    await ctx.close();
  });

  test(`${how} JavaScript: the advertiser sees the reasons and approves its own`, async () => {
    const { ctx, page, problems } = await open(hydrated, 'advertiser@demo.test', '/advertiser');
    await page.goto(`${server.base}/advertiser/conversions?status=HELD&transaction=${mode}-order-4`);
    if (hydrated) await page.locator('body[data-hydrated=true]').waitFor();
    const row = page.locator(`#conversions tr[data-transaction="${mode}-order-4"]`);
    await row.waitFor();
    assert.match(await row.textContent(), /Converted too fast/);
    await row.locator('input[name=csrf]:not([value=""])').first().waitFor({ state: 'attached' });
    await row.locator('button:has-text("Approve")').click();
    await page.locator(`#conversions tr[data-transaction="${mode}-order-4"] [data-settlement=HELD]`).waitFor({ state: 'detached' });
    const list = await call('GET', `/performance-marketing/v2/conversions?transactionId=${mode}-order-4`, null, demo.adv);
    assert.equal(list.items[0].settlement, 'APPROVED');
    assert.deepEqual(problems, []);
    await ctx.close();
  });

  test(`${how} JavaScript: the advertiser sets the campaign's fraud rules`, async () => {
    const { ctx, page, problems } = await open(hydrated, 'advertiser@demo.test', '/advertiser');
    await page.goto(`${server.base}/advertiser/campaigns/${demo.campaign}/tracking`);
    if (hydrated) await page.locator('body[data-hydrated=true]').waitFor();
    const panel = page.locator('#fraud-rules');
    await panel.locator('input[name=csrf]:not([value=""])').waitFor({ state: 'attached' });
    const score = hydrated ? '70' : '60';
    await panel.locator('input[name=hold_score]').fill(score);
    await Promise.all([
      page.waitForResponse((r) => r.url().includes('/fn/campaigns_fraud_rules')),
      panel.locator('button:has-text("Save fraud rules")').click(),
    ]);
    if (hydrated) await panel.locator('text=Fraud rules saved.').waitFor();
    const rules = await call('GET', `/performance-marketing/v2/campaigns/${demo.campaign}/fraud-rules`, null, demo.adv);
    assert.equal(rules.holdScore, Number(score));
    assert.match(await page.locator('#web-pixel').textContent(), /Custom S2S campaign takes no pixel/);
    assert.deepEqual(problems, []);
    await ctx.close();
  });
}
