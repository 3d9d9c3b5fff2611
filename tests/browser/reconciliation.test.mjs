// The advertiser's conversion list and bulk reconciliation in the dashboard: find a
// conversion by transaction id, paste transaction ids to reverse, read the preview, apply it,
// watch the worker finish and find the conversions reversed; then the same by a CSV file
// upload (a file without ids comes back with the reason). Once hydrated and once without
// JavaScript. How a reversal moves money is covered by the integration tests; here the
// approved conversions (of a real campaign, without payout) are seeded straight into the
// database.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startServer, launchBrowser, watchPage, signIn, api } from './harness.mjs';

let server; let browser;
const password = 'correct horse battery';
const now = () => new Date().toISOString().replace('T', ' ').replace('Z', '+00:00');

const campaignBody = {
  name: 'Play to level 10', destinationUrl: 'https://advertiser.example/install?click={click_id}',
  platforms: ['android'], countries: ['US'], category: 'GAMES', taskType: 'INSTALL',
  trackingProvider: 'CUSTOM_S2S', budgetMicros: 10000000,
  goals: [{ externalGoalId: 'install', name: 'Install', payoutMicros: 1500000, pendingMinutes: 0 }],
};

before(async () => {
  server = await startServer();
  browser = await launchBrowser();
  for (const who of ['adv-js', 'adv-plain']) {
    server.cli('user', 'create', '--email', `${who}@example.com`, '--password', password, '--role', 'advertiser');
    const { token, account } = await api(server.base, 'POST', '/auth/v1/tokens', { email: `${who}@example.com`, password });
    const c = await api(server.base, 'POST', '/performance-marketing/v2/campaigns', campaignBody, token);
    for (const n of [1, 2, 3]) {
      const at = now();
      server.sql(`insert into conversions (id, campaign_id, advertiser_id, transaction_id, click_id, goal_id, status,
          settlement, payout_micros, publisher_earnings_micros, reward_minor_units, occurred_at, created_at, updated_at)
        values (?, ?, ?, ?, ?, 'install', 'approved', 'APPROVED', 0, 0, 0, ?, ?, ?)`,
      [`cnv_seed_${who}_${n}`, c.campaignId, account.accountId, `${who}-tx-${n}`, `clk_seed_${who}_${n}`, at, at, at]);
    }
  }
});

after(async () => {
  await browser?.close();
  await server?.stop();
});

// The worker applies a batch within seconds; the page refreshes itself meanwhile (the page
// without script is reloaded now and then).
async function untilDone(page) {
  const done = page.locator('#reconciliation[data-status=DONE]');
  for (let i = 0; i < 30 && !(await done.count()); i++) {
    await page.waitForTimeout(1000);
    if (!(await done.count()) && i % 5 === 4) await page.reload();
  }
  await done.waitFor({ timeout: 5000 });
}

for (const hydrated of [true, false]) {
  const who = hydrated ? 'adv-js' : 'adv-plain';
  test(`${hydrated ? 'with' : 'without'} JavaScript: ${who} reverses conversions in bulk`, async () => {
    const ctx = await browser.newContext({ javaScriptEnabled: hydrated });
    const page = await ctx.newPage();
    const problems = watchPage(page);
    await signIn(page, server.base, `${who}@example.com`, password, { hydrated, landing: '/advertiser' });
    await page.click('a:has-text("Conversions and reconciliation")');
    await page.waitForURL(`${server.base}/advertiser/conversions`);
    if (hydrated) await page.locator('body[data-hydrated=true]').waitFor();
    assert.equal(await page.locator('#conversions tr[data-transaction]').count(), 3);

    const filters = page.locator('#conversions form.filters');
    await filters.locator('input[name=transaction]').fill(`${who}-tx-2`);
    await filters.locator('button:has-text("Filter")').click();
    await page.waitForURL(/transaction=/);
    // With JavaScript the list is fetched again after the address changes: wait for the
    // rows the filter drops to go (under load the address changes well before the list).
    await page.locator('#conversions tr[data-transaction]').nth(1).waitFor({ state: 'detached' });
    await page.locator('#conversions tr[data-transaction]').first().waitFor();
    assert.equal(await page.locator('#conversions tr[data-transaction]').count(), 1);

    const form = page.locator('#reconcile form:not(#reconcile-upload)');
    await form.locator('input[name=csrf]:not([value=""])').waitFor({ state: 'attached' });
    await form.locator('select[name=action]').selectOption('reverse');
    await form.locator('input[name=reason]').fill('Fraud review November');
    await form.locator('textarea[name=lines]').fill(`${who}-tx-1\n${who}-tx-2\nnobody-knows`);
    await form.locator('button:has-text("Preview")').click();
    await page.waitForURL(/\/advertiser\/reconciliations\/rcn_/);
    if (hydrated) await page.locator('body[data-hydrated=true]').waitFor();
    const preview = page.locator('[data-part=preview]');
    await preview.locator('tr[data-state=WILL_APPLY]').waitFor();
    assert.equal((await preview.locator('tr[data-state=WILL_APPLY] td').first().textContent()).trim(), '2');
    assert.equal((await preview.locator('tr[data-state=UNKNOWN] td').first().textContent()).trim(), '1');
    assert.equal(await page.locator('#reconciliation').getAttribute('data-status'), 'PREVIEWED');

    await page.locator('#reconciliation button:has-text("Apply")').click();
    await untilDone(page);
    const results = page.locator('[data-part=results]');
    assert.equal((await results.locator('tr[data-state=APPLIED] td').first().textContent()).trim(), '2');
    assert.equal(await page.locator('#lines td[data-result=APPLIED]').count(), 2);

    await page.goto(`${server.base}/advertiser/conversions?status=REVERSED`);
    await page.locator('#conversions tr[data-transaction]').first().waitFor();
    assert.equal(await page.locator('#conversions td[data-settlement=REVERSED]').count(), 2);
    assert.deepEqual(problems, []);
    await ctx.close();
  });
}

for (const hydrated of [true, false]) {
  const who = hydrated ? 'adv-js' : 'adv-plain';
  test(`${hydrated ? 'with' : 'without'} JavaScript: ${who} uploads a CSV file to reconcile`, async () => {
    const ctx = await browser.newContext({ javaScriptEnabled: hydrated });
    const page = await ctx.newPage();
    const problems = watchPage(page);
    await signIn(page, server.base, `${who}@example.com`, password, { hydrated, landing: '/advertiser' });
    await page.goto(`${server.base}/advertiser/conversions`);
    if (hydrated) await page.locator('body[data-hydrated=true]').waitFor();
    const form = page.locator('#reconcile-upload');
    await form.locator('input[name=csrf]:not([value=""])').waitFor({ state: 'attached' });

    // A file without a transaction id comes back with the reason.
    await form.locator('input[name=reason]').fill('Chargebacks');
    await form.locator('input[name=file]').setInputFiles({ name: 'empty.csv', mimeType: 'text/csv', buffer: Buffer.from('transaction_id\n') });
    await form.locator('button[type=submit]').click();
    await page.locator('[data-upload-error]', { hasText: 'lines' }).waitFor();

    if (hydrated) await page.locator('body[data-hydrated=true]').waitFor();
    await form.locator('input[name=csrf]:not([value=""])').waitFor({ state: 'attached' });
    await form.locator('input[name=reason]').fill('Chargebacks');
    const csv = `transaction_id,campaign_id\n${who}-tx-3\n`;
    await form.locator('input[name=file]').setInputFiles({ name: 'chargebacks.csv', mimeType: 'text/csv', buffer: Buffer.from(csv) });
    await form.locator('button[type=submit]').click();
    await page.waitForURL(/\/advertiser\/reconciliations\/rcn_/);
    if (hydrated) await page.locator('body[data-hydrated=true]').waitFor();
    const preview = page.locator('[data-part=preview]');
    assert.equal((await preview.locator('tr[data-state=WILL_APPLY] td').first().textContent()).trim(), '1');
    await page.locator('#reconciliation button:has-text("Apply")').click();
    await untilDone(page);
    assert.equal(await page.locator('#lines td[data-result=APPLIED]').count(), 1);
    assert.deepEqual(problems, []);
    await ctx.close();
  });
}
