// Offer campaigns through the real pages. With hydration: the create form (field error
// first), an edit, the Custom S2S key shown once, the local test with its curl command,
// submission, approval by an administrator from the admin page, a measurement-partner
// campaign (token once, approval refused until the live test is verified), the reserve on
// the wallet, pause (reserve released), end, report with a date range, clone. Without
// JavaScript: create (field error first), the key through the session flash, the local
// test, submission; the administrator's approval is refused for a short balance and the
// campaign is rejected with a reason the advertiser sees.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startServer, launchBrowser, watchPage, api as apiAt, createUsers, approvedAdvertiser, pageTools } from './harness.mjs';

let server; let browser; let adminToken; let advToken;
const password = 'correct horse battery';

// A JSON call to the service's API.
const api = (...args) => apiAt(server.base, ...args);

// An approved advertiser with a complete billing profile and `amount` USD credited by wire.
async function fundedAdvertiser(email, companyName, amount) {
  await approvedAdvertiser(server.base, adminToken, { email, password, companyName });
  const { token } = await api('POST', '/auth/v1/tokens', { email, password });
  await api('PUT', '/performance-marketing/v2/billing/profile',
    { accountType: 'BUSINESS', legalName: `${companyName} GmbH`, country: 'DE' }, token);
  const f = await api('POST', '/performance-marketing/v2/billing/funding/wire',
    { amount, currency: 'USD', externalReference: `WIRE-${email}` }, token);
  await api('POST', `/admin/v1/funding/${f.fundingId}/approve`, {}, adminToken);
  return token;
}

before(async () => {
  server = await startServer();
  browser = await launchBrowser();
  createUsers(server, password, ['admin@example.com', 'admin']);
  ({ token: adminToken } = await api('POST', '/auth/v1/tokens', { email: 'admin@example.com', password }));
  advToken = await fundedAdvertiser('adv@example.com', 'Northwind Apps', '1000.00');
  await fundedAdvertiser('plain@example.com', 'Plain Forms', '100.00');
});

after(async () => {
  await browser?.close();
  await server?.stop();
});

const { shot, formWith, signIn, signOut } = pageTools(() => server.base, password);

async function landed(page, url, { hydrated = true } = {}) {
  await page.waitForURL(url);
  if (hydrated) await page.locator('body[data-hydrated=true]').waitFor();
}

const status = (page, value) => page.locator('#campaign .badge', { hasText: value }).waitFor();

// A measurement-partner campaign created through the API (CONTRACT section 5 body).
async function mmpCampaign(name) {
  const c = await api('POST', '/performance-marketing/v2/campaigns', {
    name,
    destinationUrl: 'https://advertiser.example/mmp?click={click_id}',
    platforms: ['android', 'ios'],
    countries: ['US'],
    category: 'GAMES',
    taskType: 'INSTALL',
    trackingProvider: 'MMP:APPSFLYER',
    budgetMicros: 100000000,
    goals: [{ externalGoalId: 'install', name: 'Install', payoutMicros: 1000000, pendingMinutes: 0 }],
  }, advToken);
  return `${server.base}/advertiser/campaigns/${c.campaignId}`;
}

// Fills the create form; `destination` and the first goal's payout are chosen by the test.
async function fillCampaign(page, { name, destination, budget, payout }) {
  const form = page.locator('#new-campaign form');
  await form.locator('input[name=name]').fill(name);
  await form.locator('input[name=destination_url]').fill(destination);
  await form.locator('input[name=category]').fill('GAMES');
  await form.locator('input[name=task_type]').fill('INSTALL');
  await form.locator('input[name=countries]').fill('US, de');
  await form.locator('select[name=tracking_provider]').selectOption('CUSTOM_S2S');
  await form.locator('input[name=budget]').fill(budget);
  await form.locator('input[name="goals[0][external_goal_id]"]').fill('install');
  await form.locator('input[name="goals[0][name]"]').fill('Install');
  await form.locator('input[name="goals[0][payout]"]').fill(payout);
  await form.locator('input[name="goals[0][pending_minutes]"]').fill('0');
  return form;
}

// The wallet card on the campaign list: available and reserved amounts.
async function wallet(page, available, reserved) {
  await page.locator('#balance .available .amount', { hasText: available }).waitFor();
  await page.locator('#balance .reserved .amount', { hasText: reserved }).waitFor();
}

test('with JavaScript: create, S2S key once, local test, review, approval, reserve, pause, end', async () => {
  const page = await browser.newPage();
  const problems = watchPage(page);
  await signIn(page, 'adv@example.com', '/advertiser');
  await page.locator('body[data-hydrated=true]').waitFor();
  await page.click('a:has-text("Offer campaigns")');
  await landed(page, `${server.base}/advertiser/campaigns`);
  await page.getByText('No campaigns yet.').waitFor();
  await wallet(page, '1,000.00', '0.00');
  await page.click('#campaigns a:has-text("New campaign")');
  await landed(page, `${server.base}/advertiser/campaigns/new`);

  // Without the {click_id} macro the destination is refused next to the field.
  const form = await fillCampaign(page, {
    name: 'Play to level 10', destination: 'https://advertiser.example/install', budget: '500', payout: '1.50',
  });
  await form.locator('button[type=submit]').click();
  await page.locator('#basics .field-error', { hasText: '{click_id}' }).waitFor();
  await page.getByRole('alert').locator('code', { hasText: 'destinationUrl' }).waitFor();
  assert.match(page.url(), /\/advertiser\/campaigns\/new$/);
  assert.equal(await form.locator('input[name=name]').inputValue(), 'Play to level 10', 'a refused form keeps its input');
  await shot(page, 'campaign-create-error');
  await form.locator('input[name=destination_url]').fill('https://advertiser.example/install?click={click_id}');
  await form.locator('button[type=submit]').click();
  await page.waitForURL(/\/advertiser\/campaigns\/cmp_[^/]+$/, { timeout: 10000 });
  const detail = page.url();
  await page.locator('#campaign h1', { hasText: 'Play to level 10' }).waitFor();
  await status(page, 'DRAFT');
  await page.locator('#targeting', { hasText: 'DE, US' }).waitFor();
  await page.locator('#readiness li[data-code=tracking_credential_missing]').waitFor();
  await shot(page, 'campaign-draft');

  // An edit of the draft.
  const edit = page.locator('#edit form');
  await edit.locator('input[name=name]').fill('Play to level 12');
  await edit.locator('button[type=submit]').click();
  await page.locator('#edit').getByText('Saved.').waitFor();
  await page.locator('#campaign h1', { hasText: 'Play to level 12' }).waitFor();

  // Device and region targeting: a region outside the campaign's countries is refused at
  // its field; a good one is saved and shown again.
  const targeting = page.locator('#device-targeting form');
  await targeting.locator('input[name=phone]').check();
  await targeting.locator('input[name=regions]').fill('FR-IDF');
  await targeting.locator('button[type=submit]').click();
  await page.locator('#device-targeting .field-error', { hasText: 'FR-IDF' }).waitFor();
  await targeting.locator('input[name=regions]').fill('us-ca');
  await targeting.locator('input[name=min_ios]').fill('16.4');
  await targeting.locator('button[type=submit]').click();
  await page.locator('#device-targeting').getByText('Targeting saved.').waitFor();
  await page.locator('#device-targeting input[name=regions][value="US-CA"]').waitFor();

  // Tracking: the key's secret is shown once; a reload does not show it again.
  await page.click('a:has-text("Tracking setup")');
  await landed(page, `${detail}/tracking`);
  await page.locator('.callback-auth', { hasText: 'HMAC_SHA256' }).waitFor();
  await page.locator('.endpoint-url', { hasText: '/postbacks/custom-s2s/' }).waitFor();
  await page.getByText('No credential yet.').waitFor();
  await page.click('button:has-text("Create S2S key")');
  const secret = page.locator('#secrets .secret-value');
  await secret.waitFor();
  assert.match(await secret.textContent(), /^mkt_s2s/);
  await page.locator('#credentials tr[data-status=ACTIVE] .key-id').waitFor();
  await page.locator('button:has-text("Rotate S2S key")').waitFor();
  await shot(page, 'campaign-tracking-secret');
  await page.reload();
  await page.locator('body[data-hydrated=true]').waitFor();
  await page.locator('#credentials tr[data-status=ACTIVE]').waitFor();
  assert.equal(await page.locator('.secret-value').count(), 0, 'the secret is shown once');

  // The local test: valid, nothing delivered, nothing accounted, with a curl command.
  await page.click('button:has-text("Run local test")');
  await page.locator('.s2s-test[data-valid=true] .badge', { hasText: 'valid' }).waitFor();
  assert.equal(await page.locator('.s2s-test .delivered').textContent(), 'false');
  assert.equal(await page.locator('.s2s-test .accounting').textContent(), '0');
  const curl = await page.locator('.s2s-test pre.curl').textContent();
  assert.match(curl, /^curl -X POST '.*\/postbacks\/custom-s2s\/cmp_/);
  assert.match(curl, /X-Service-Signature: [0-9a-f]{64}/);
  assert.match(curl, /"goal_id":"install"/);
  await shot(page, 'campaign-tracking-test');

  // Submit for review.
  await page.click('a:has-text("← Campaign")');
  await landed(page, detail);
  await page.click('button:has-text("Submit for review")');
  await status(page, 'IN_REVIEW');
  await page.locator('button:has-text("Withdraw")').waitFor();

  // A measurement-partner campaign: its campaign token is shown once, then it is submitted.
  const mmp = await mmpCampaign('Partner tracked install');
  await page.goto(`${mmp}/tracking`);
  await page.locator('body[data-hydrated=true]').waitFor();
  await page.locator('.callback-auth', { hasText: 'CAMPAIGN_TOKEN' }).waitFor();
  await page.locator('.endpoint-url', { hasText: '/postbacks/mmp/' }).waitFor();
  await page.click('button:has-text("Create campaign token")');
  await page.locator('#secrets .secret-value', { hasText: 'mkt_mmp' }).waitFor();
  await page.locator('button:has-text("Rotate campaign token")').waitFor();
  assert.equal(await page.locator('#signing').count(), 0, 'no signing recipe for a token provider');
  await page.click('a:has-text("← Campaign")');
  await landed(page, mmp);
  await page.locator('#readiness li[data-code=mmp_verification_missing]').waitFor();
  await page.click('button:has-text("Submit for review")');
  await status(page, 'IN_REVIEW');
  assert.deepEqual(problems, []);
  await signOut(page);

  // The administrator approves it from the admin page.
  await signIn(page, 'admin@example.com', '/admin');
  await page.locator('body[data-hydrated=true]').waitFor();
  const row = page.locator('#campaign-review tr', { hasText: 'Play to level 12' });
  await row.waitFor();
  assert.match(await row.textContent(), /Northwind Apps/);
  await shot(page, 'admin-campaign-review');
  await row.locator('button:has-text("Approve")').click();
  await page.locator('#campaign-review').getByText('Play to level 12 is now LIVE.').waitFor();
  // The partner campaign needs the live-test verification before it can be approved.
  const mmpRow = page.locator('#campaign-review tr', { hasText: 'Partner tracked install' });
  await mmpRow.locator('button:has-text("Approve")').click();
  await page.locator('#campaign-review [role=alert]', { hasText: 'verify a live test' }).waitFor();
  await mmpRow.locator('textarea[name=reason]').fill('Test install seen in the partner dashboard.');
  await mmpRow.locator('button:has-text("Verify live test")').click();
  await page.locator('#campaign-review').getByText('Partner tracked install is now IN_REVIEW.').waitFor();
  await mmpRow.locator('button:has-text("Approve")').click();
  await page.locator('#campaign-review').getByText('Partner tracked install is now LIVE.').waitFor();
  await page.locator('#campaign-review').getByText('No campaign is waiting for review.').waitFor();
  assert.deepEqual(problems, []);
  await signOut(page);

  // LIVE, with the budget reserved from the wallet.
  await signIn(page, 'adv@example.com', '/advertiser');
  await page.goto(detail);
  await page.locator('body[data-hydrated=true]').waitFor();
  await status(page, 'LIVE');
  await page.locator('#campaign .reserved', { hasText: '500.00' }).waitFor();
  await page.click('a:has-text("← Campaigns")');
  await landed(page, `${server.base}/advertiser/campaigns`);
  await wallet(page, '400.00', '600.00');
  const listed = page.locator('#campaigns tbody tr', { hasText: 'Play to level 12' });
  await listed.locator('.badge', { hasText: 'LIVE' }).waitFor();
  assert.equal(await listed.locator('.reserved').textContent(), '500.00');
  await shot(page, 'campaign-list-live');

  // Pause releases the reserve; end.
  await listed.locator('a').click();
  await landed(page, detail);
  await page.click('button:has-text("Pause")');
  await status(page, 'PAUSED');
  await page.locator('#campaign .reserved', { hasText: /^\s*0\.00/ }).waitFor();
  await page.locator('#campaign .wallet', { hasText: '900.00 USD available' }).waitFor();
  await page.click('button:has-text("End")');
  await status(page, 'ENDED');
  await page.locator('button:has-text("Archive")').waitFor();
  await page.locator('#audit', { hasText: 'campaign.approved' }).waitFor();
  await page.locator('#audit tr', { hasText: 'campaign.updated' }).locator('.detail', { hasText: '"fields":["name"]' }).waitFor();
  await page.locator('#revisions tr[data-revision="1"] .badge', { hasText: 'LIVE' }).waitFor();
  await shot(page, 'campaign-ended');

  // The report: days with spend, a chart, totals.
  await page.click('a:has-text("Report")');
  await landed(page, `${detail}/report`);
  await page.locator('#spend-chart svg').waitFor();
  await page.locator('table.report tfoot', { hasText: '0.00' }).waitFor();
  assert.equal(await page.locator('table.report tbody tr').count(), 30);
  const range = page.locator('form.range-form');
  const today = await range.locator('input[name=to]').inputValue();
  const weekAgo = new Date(Date.parse(`${today}T00:00:00Z`) - 6 * 86400000).toISOString().slice(0, 10);
  await range.locator('input[name=from]').fill(today);
  await range.locator('input[name=to]').fill(weekAgo);
  await range.locator('button[type=submit]').click();
  await page.locator('#report [role=alert]', { hasText: 'must not be after to' }).waitFor();
  await page.locator('form.range-form input[name=from]').fill(weekAgo);
  await page.locator('form.range-form input[name=to]').fill(today);
  await page.locator('form.range-form button[type=submit]').click();
  await page.waitForURL(/report\?from=/);
  await page.locator('table.report tbody tr').nth(6).waitFor();
  assert.equal(await page.locator('table.report tbody tr').count(), 7);
  await shot(page, 'campaign-report');
  await page.click('a:has-text("← Campaign")');
  await landed(page, detail);

  // A clone is a new draft with the same configuration and no money.
  await formWith(page, 'Clone campaign').locator('button[type=submit]').click();
  await page.waitForURL((u) => /\/advertiser\/campaigns\/cmp_[^/]+$/.test(u.href) && u.href !== detail);
  await page.locator('#campaign h1', { hasText: 'Copy of Play to level 12' }).waitFor();
  await status(page, 'DRAFT');
  await page.locator('#campaign .reserved', { hasText: /^\s*0\.00/ }).waitFor();
  await page.click('a:has-text("← Campaigns")');
  await landed(page, `${server.base}/advertiser/campaigns`);
  await wallet(page, '900.00', '100.00');
  assert.equal(await page.locator('#campaigns tbody tr').count(), 3);
  assert.deepEqual(problems, []);
  await page.close();
});

test('without JavaScript: create, key through the flash, local test, submit; refused approval and rejection', async () => {
  const ctx = await browser.newContext({ javaScriptEnabled: false });
  const page = await ctx.newPage();
  const nojs = { hydrated: false };
  await signIn(page, 'plain@example.com', '/advertiser', nojs);
  await page.click('a:has-text("Offer campaigns")');
  await landed(page, `${server.base}/advertiser/campaigns`, nojs);
  await page.click('#campaigns a:has-text("New campaign")');
  await landed(page, `${server.base}/advertiser/campaigns/new`, nojs);

  // An unreadable payout comes back next to its goal row.
  let form = await fillCampaign(page, {
    name: 'Plain offer', destination: 'https://plain.example/go?c={click_id}', budget: '500', payout: 'abc',
  });
  await form.locator('button[type=submit]').click();
  await page.locator('.goal-row[data-row="0"] .field-error', { hasText: 'decimal amount' }).waitFor();
  assert.match(page.url(), /\/advertiser\/campaigns\/new/);
  await shot(page, 'nojs-campaign-create-error');
  form = await fillCampaign(page, {
    name: 'Plain offer', destination: 'https://plain.example/go?c={click_id}', budget: '500', payout: '2',
  });
  await form.locator('button[type=submit]').click();
  await page.waitForURL(/\/advertiser\/campaigns\/cmp_[^/?]+$/);
  const detail = page.url();
  await status(page, 'DRAFT');

  // The key's secret comes back through the session flash, once.
  await page.click('a:has-text("Tracking setup")');
  await landed(page, `${detail}/tracking`, nojs);
  await page.click('button:has-text("Create S2S key")');
  await page.locator('#secrets .secret-value', { hasText: 'mkt_s2s' }).waitFor();
  await shot(page, 'nojs-campaign-tracking-secret');
  await page.reload();
  await page.locator('#credentials tr[data-status=ACTIVE]').waitFor();
  assert.equal(await page.locator('.secret-value').count(), 0, 'the flash is shown once');
  await page.click('button:has-text("Run local test")');
  await page.locator('.s2s-test[data-valid=true]').waitFor();
  assert.equal(await page.locator('.s2s-test .accounting').textContent(), '0');

  await page.click('a:has-text("← Campaign")');
  await landed(page, detail, nojs);
  await page.click('button:has-text("Submit for review")');
  await status(page, 'IN_REVIEW');

  // The administrator (scripted) cannot approve it: the balance is short. Rejected instead.
  const admin = await browser.newPage();
  await signIn(admin, 'admin@example.com', '/admin');
  await admin.locator('body[data-hydrated=true]').waitFor();
  const row = admin.locator('#campaign-review tr', { hasText: 'Plain offer' });
  await row.locator('button:has-text("Approve")').click();
  await admin.locator('#campaign-review [role=alert]', { hasText: 'does not cover the campaign' }).waitFor();
  await shot(admin, 'admin-campaign-insufficient');
  await row.locator('textarea[name=reason]').fill('The landing page does not load.');
  await row.locator('button:has-text("Reject")').click();
  await admin.locator('#campaign-review').getByText('Plain offer is now REJECTED.').waitFor();
  await admin.close();

  await page.goto(detail);
  await status(page, 'REJECTED');
  await page.locator('#rejection', { hasText: 'The landing page does not load.' }).waitFor();
  await page.locator('button:has-text("Submit for review")').waitFor();
  await shot(page, 'nojs-campaign-rejected');
  await ctx.close();
});

// The offer section of the campaign page: description, creatives, schedule, caps and a
// second goal are saved as one revision; an end before the start is refused at its field;
// clearing a goal row removes the goal. Once hydrated, once without JavaScript.
for (const hydrated of [true, false]) {
  test(`${hydrated ? 'with' : 'without'} JavaScript: the offer, schedule, caps and goals of a campaign`, async () => {
    const c = await api('POST', '/performance-marketing/v2/campaigns', {
      name: `Offer form ${hydrated}`, destinationUrl: 'https://advertiser.example/o?click={click_id}', platforms: ['web'],
      countries: ['US'], category: 'GAMES', taskType: 'INSTALL', trackingProvider: 'CUSTOM_S2S', budgetMicros: 50000000,
      goals: [{ externalGoalId: 'install', name: 'Install', payoutMicros: 1500000 }],
    }, advToken);
    const ctx = await browser.newContext({ javaScriptEnabled: hydrated });
    const page = await ctx.newPage();
    const problems = watchPage(page);
    await signIn(page, 'adv@example.com', '/advertiser', { hydrated });
    await page.goto(`${server.base}/advertiser/campaigns/${c.campaignId}`);
    if (hydrated) await page.locator('body[data-hydrated=true]').waitFor();
    const form = page.locator('#offer form');
    assert.equal(await form.locator('input[name="goals[0][payout]"]').inputValue(), '1.5');
    await form.locator('input[name=start_at]').fill('2030-01-10T09:00');
    await form.locator('input[name=end_at]').fill('2030-01-01T09:00');
    await form.locator('button[type=submit]').click();
    await page.locator('#offer .field-error', { hasText: 'must be after startAt' }).waitFor();

    await page.goto(`${server.base}/advertiser/campaigns/${c.campaignId}`);
    if (hydrated) await page.locator('body[data-hydrated=true]').waitFor();
    await form.locator('textarea[name=description]').fill('Reach level 5 in Dragon Quest within 7 days.');
    await form.locator('textarea[name=creatives]').fill('ICON https://cdn.example.com/icon.png\nBANNER https://cdn.example.com/banner.png');
    await form.locator('input[name=start_at]').fill('2030-01-10T09:00');
    await form.locator('input[name=end_at]').fill('2030-02-01T09:00');
    await form.locator('input[name=daily_conversions]').fill('50');
    await form.locator('input[name=daily_budget]').fill('20');
    await form.locator('input[name="goals[1][external_goal_id]"]').fill('level5');
    await form.locator('input[name="goals[1][name]"]').fill('Reach level 5');
    await form.locator('input[name="goals[1][payout]"]').fill('3.25');
    await form.locator('button[type=submit]').click();
    let saved = (await api('GET', `/performance-marketing/v2/campaigns/${c.campaignId}`, undefined, advToken));
    for (let i = 0; i < 50 && saved.goals.length < 2; i++) {
      await new Promise((r) => setTimeout(r, 100));
      saved = await api('GET', `/performance-marketing/v2/campaigns/${c.campaignId}`, undefined, advToken);
    }
    assert.equal(saved.description, 'Reach level 5 in Dragon Quest within 7 days.');
    assert.deepEqual(saved.creatives.map((x) => x.kind), ['ICON', 'BANNER']);
    assert.equal(saved.schedule.startAt, '2030-01-10T09:00:00Z');
    assert.equal(saved.caps.dailyConversions, 50);
    assert.equal(saved.caps.dailyBudgetMicros, 20000000);
    assert.deepEqual(saved.goals.map((g) => [g.externalGoalId, g.payoutMicros]), [['install', 1500000], ['level5', 3250000]]);

    // Clearing the second row removes that goal.
    await page.goto(`${server.base}/advertiser/campaigns/${c.campaignId}`);
    if (hydrated) await page.locator('body[data-hydrated=true]').waitFor();
    for (const f of ['external_goal_id', 'name', 'payout', 'pending_minutes']) {
      await page.locator(`#offer input[name="goals[1][${f}]"]`).fill('');
    }
    await page.locator('#offer button[type=submit]').click();
    for (let i = 0; i < 50 && saved.goals.length > 1; i++) {
      await new Promise((r) => setTimeout(r, 100));
      saved = await api('GET', `/performance-marketing/v2/campaigns/${c.campaignId}`, undefined, advToken);
    }
    assert.deepEqual(saved.goals.map((g) => g.externalGoalId), ['install']);
    assert.deepEqual(problems, []);
    await ctx.close();
  });
}
