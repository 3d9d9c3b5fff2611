// Survey campaigns in the dashboards: the advertiser issues a survey API key (shown once),
// creates a survey through the signed API, pays it from the wallet and submits it from the
// page, edits its quotas, qualifications and custom questions, and downloads the responses
// CSV; the publisher's survey page shows fetches, entries, completes and earnings after a
// respondent's paid complete. With and without JavaScript.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startServer, launchBrowser, watchPage, surveyApi, signIn as signInAt, signOut as signOutAt, api as apiAt } from './harness.mjs';

let server; let browser;
const password = 'correct horse battery';
const domain = 'play.pixelquest.example';
let admin; let adv; let pub; let placement; let appKey;

// A JSON call to the service's API with `headers`.
const call = (method, path, body, headers) => apiAt(server.base, method, path, body, undefined, headers);
const api = (method, path, body, token) => call(method, path, body, token ? { authorization: `Bearer ${token}` } : {});
const token = async (email) => (await api('POST', '/auth/v1/tokens', { email, password })).token;

// A signed survey API call with a key copied from the page ("X-Api-Key: …\nSecret: …").
const signed = (key, method, path, body) => surveyApi(server.base, key, method, path, body);

before(async () => {
  server = await startServer();
  browser = await launchBrowser();
  for (const [email, role] of [['admin@example.com', 'admin'], ['adv@example.com', 'advertiser'], ['pub@example.com', 'publisher']]) {
    server.cli('user', 'create', '--email', email, '--password', password, '--role', role);
  }
  admin = await token('admin@example.com');
  adv = await token('adv@example.com');
  pub = await token('pub@example.com');
  await api('PUT', '/performance-marketing/v2/billing/profile', { accountType: 'BUSINESS', legalName: 'Northwind', country: 'DE' }, adv);
  const wire = await api('POST', '/performance-marketing/v2/billing/funding/wire', { amount: 500000000, currency: 'USD', externalReference: 'WIRE-SURVEYS' }, adv);
  await api('POST', `/admin/v1/funding/${wire.fundingId}/approve`, {}, admin);
  const p = await api('POST', '/publisher/v2/placements', { type: 'WEBSITE', name: 'Pixel Quest web', platformIdentity: domain }, pub);
  placement = p.placementId;
  await api('POST', `/publisher/v2/placements/${placement}/request-review`, {}, pub);
  await api('POST', `/admin/v1/placements/${placement}/review`, { decision: 'VERIFIED', note: 'ok' }, admin);
  await api('POST', `/admin/v1/placements/${placement}/release`, {}, admin);
  await api('POST', `/publisher/v2/placements/${placement}/ad-slots`, {
    name: 'Wall', type: 'OFFERWALL',
    currency: { name: 'Coins', decimals: 0, rateNumeratorMinorUnits: 100, rateDenominatorUsdMicros: 1000000, rounding: 'DOWN' },
  }, pub);
  appKey = (await api('POST', `/publisher/v2/placements/${placement}/app-key`, {}, pub)).appKey;
});

after(async () => {
  await browser?.close();
  await server?.stop();
});

const signIn = (page, email, home, hydrated) => signInAt(page, server.base, email, password, { hydrated, landing: home });

for (const hydrated of [true, false]) {
  test(`${hydrated ? 'with' : 'without'} JavaScript: a survey from key to paid complete, in both dashboards`, async () => {
    const ctx = await browser.newContext({ javaScriptEnabled: hydrated });
    const page = await ctx.newPage();
    const problems = watchPage(page);
    await signIn(page, 'adv@example.com', '/advertiser', hydrated);
    await page.click('a:has-text("Survey campaigns")');
    await page.waitForURL(`${server.base}/advertiser/surveys`);
    await page.selectOption('#survey-key select[name=encryption_type]', 'SHA3-256');
    await page.click('#survey-key button:has-text("Issue a new key")');
    const shown = await page.locator('#survey-key .secret-value').textContent();
    const key = {
      apiKey: shown.match(/X-Api-Key: (\S+)/)[1],
      secret: shown.match(/Secret: (\S+)/)[1],
    };
    const today = new Date().toISOString().slice(0, 10);
    const name = `Coffee study ${hydrated ? 'js' : 'html'}`;
    const created = await signed(key, 'POST', '/api/v1/campaigns/create', {
      name, country_language_id: 'en-US', cpi: 2, length_of_interview: 10, conversion: 50, start_date: today,
      total_completes: 10, survey_live_link: 'https://survey.example/live?tid={transaction_id}',
      survey_test_link: 'https://survey.example/test?tid={transaction_id}',
    });
    const id = created.campaign._id;
    await page.goto(`${server.base}/advertiser/surveys`);
    const row = page.locator(`tr[data-survey="${id}"]`);
    await row.locator('button:has-text("Pay from wallet")').click();
    await row.locator('button:has-text("Submit for review")').waitFor();
    await row.getByText('PAID_WALLET').waitFor();

    // The targeting editor: a quota for women, a question.
    await row.locator(`a:has-text("${name}")`).click();
    await page.waitForURL(`${server.base}/advertiser/surveys/${id}`);
    await page.fill('#quotas input[name=name]', 'Women');
    await page.fill('#quotas input[name=num_respondents]', '5');
    await page.click('#quotas button:has-text("Add quota")');
    const quota = page.locator('#quotas tr[data-quota]', { has: page.locator('input[name=name][value="Women"]') });
    await quota.waitFor();
    await quota.locator('select[name=question_id]').selectOption('GENDER');
    await quota.locator('input[name=criteria]').fill('2');
    await quota.locator('button:has-text("Add")').click();
    await quota.locator('li[data-qualification] input[name=criteria][value="2"]').waitFor();
    await page.fill('#custom-questions input[name=display_text]', 'Do you drink coffee?');
    await page.fill('#custom-questions textarea[name=options]', 'Yes\n!No');
    await page.click('#custom-questions button:has-text("Add question")');
    await page.locator('#custom-questions').getByText('No (screens out)').waitFor();

    // Submitted and approved, a respondent completes it.
    await page.goto(`${server.base}/advertiser/surveys`);
    await page.locator(`tr[data-survey="${id}"] button:has-text("Submit for review")`).click();
    await page.locator(`tr[data-survey="${id}"]`).getByText('Awaiting administrator approval').waitFor();
    const c = await signed(key, 'GET', `/api/v1/campaigns/${id}`);
    await api('POST', `/admin/v1/survey-campaigns/${id}/approve`, { revision: c.revision }, admin);
    const fetched = await call('POST', '/getallsurveys-api', {
      UserId: `user-${hydrated}`, AppId: placement, IpAddress: '203.0.113.9', City: 'Austin', CountryLanguageCode: 'en-US', Gender: 'F',
    }, { 'x-service-api-key': appKey });
    const item = fetched.Data.find((d) => d.SurveyNumber === id);
    const entry = await fetch(item.SurveyUrl, { redirect: 'manual' });
    assert.equal(entry.status, 302);
    const tx = new URL(entry.headers.get('location')).searchParams.get('tid');
    const done = await signed(key, 'POST', `/api/v1/campaigns/${id}/respondent-status`, { transaction_id: tx, status: 'complete' });
    assert.equal(done.paid, true);

    // The responses CSV from the editor page.
    await page.goto(`${server.base}/advertiser/surveys/${id}`);
    const csv = await page.request.get(`${server.base}/advertiser/surveys/${id}/responses.csv`);
    assert.equal(csv.status(), 200);
    assert.match(await csv.text(), new RegExp(`${tx},${id},${name},.*,COMPLETE,`));
    await ctx.close();

    // The publisher sees the fetch, the entry and the paid complete.
    const pctx = await browser.newContext({ javaScriptEnabled: hydrated });
    const ppage = await pctx.newPage();
    const pproblems = watchPage(ppage);
    await signIn(ppage, 'pub@example.com', '/publisher', hydrated);
    await ppage.click('a:has-text("Surveys")');
    await ppage.waitForURL(`${server.base}/publisher/surveys`);
    const day = ppage.locator(`#survey-stats tr[data-day="${today}"]`);
    await day.waitFor();
    const cells = (await day.locator('td.num').allTextContents()).map(Number);
    assert.ok(cells[0] >= 1 && cells[1] >= 1 && cells[2] >= 1 && cells[3] > 0, JSON.stringify(cells));
    assert.deepEqual([...problems, ...pproblems], []);
    await pctx.close();
  });
}

test('the responses download needs a signed-in advertiser', async () => {
  const r = await fetch(`${server.base}/advertiser/surveys/svc_x/responses.csv`);
  assert.equal(r.status, 401);
});

// The administrator's survey queue: an unpaid campaign cannot be approved, is recorded as
// paid outside the wallet, rejected with a reason the advertiser then reads on its page, and
// approved once submitted again.
for (const hydrated of [true, false]) {
  test(`${hydrated ? 'with' : 'without'} JavaScript: the administrator reviews a survey campaign`, async () => {
    const key = await api('POST', '/performance-marketing/v2/survey-api/credentials', { encryptionType: 'SHA3-256' }, adv);
    const name = `Tea study ${hydrated ? 'js' : 'html'}`;
    const created = await signed(key, 'POST', '/api/v1/campaigns/create', {
      name, country_language_id: 'en-US', cpi: 1.5, length_of_interview: 8, conversion: 40,
      start_date: new Date().toISOString().slice(0, 10), total_completes: 20,
      survey_live_link: 'https://survey.example/live?tid={transaction_id}', survey_test_link: 'https://survey.example/test?tid={transaction_id}',
    });
    const id = created.campaign._id;
    await signed(key, 'PUT', `/api/v1/campaigns/${id}`, { status: 'PENDINGAPPROVAL' });
    const ctx = await browser.newContext({ javaScriptEnabled: hydrated });
    const page = await ctx.newPage();
    const problems = watchPage(page);
    await signIn(page, 'admin@example.com', '/admin', hydrated);
    const row = page.locator(`#survey-review tr[data-survey="${id}"]`);
    assert.match(await row.textContent(), /UNPAID.*1\.50 USD × 20.*30\.00 USD/s);
    assert.equal(await row.locator('button:has-text("Approve")').isDisabled(), true);
    await row.locator('button:has-text("Paid externally")').click();
    await row.getByText('PAID_EXTERNALLY').waitFor();
    await row.locator('button:has-text("Reject")').click();
    await page.locator('#survey-review [role=alert]', { hasText: 'must be 3 to 500 characters' }).waitFor();
    await row.locator('textarea[name=reason]').fill('The live link must carry the transaction id only once.');
    await row.locator('button:has-text("Reject")').click();
    await row.waitFor({ state: 'detached' });
    let c = await signed(key, 'GET', `/api/v1/campaigns/${id}`);
    assert.equal(c.status, 'DRAFT');
    assert.equal(c.rejection_reason, 'The live link must carry the transaction id only once.');
    await signOutAt(page, server.base);

    await signIn(page, 'adv@example.com', '/advertiser', hydrated);
    await page.goto(`${server.base}/advertiser/surveys/${id}`);
    await page.locator('.rejection', { hasText: 'transaction id only once' }).waitFor();
    await signOutAt(page, server.base);

    c = await signed(key, 'PUT', `/api/v1/campaigns/${id}`, { status: 'PENDINGAPPROVAL' });
    assert.equal(c.rejection_reason, undefined, 'a resubmission clears the reason');
    await signIn(page, 'admin@example.com', '/admin', hydrated);
    await page.locator(`#survey-review tr[data-survey="${id}"] button:has-text("Approve")`).click();
    await page.locator(`#survey-review tr[data-survey="${id}"]`).waitFor({ state: 'detached' });
    c = await signed(key, 'GET', `/api/v1/campaigns/${id}`);
    assert.equal(c.status, 'LIVE');
    assert.deepEqual(problems, []);
    await ctx.close();
  });
}

// A survey campaign made entirely in the browser: created from the list page, edited on its
// page, cloned, and the copy deleted. Once hydrated, once without JavaScript.
for (const hydrated of [true, false]) {
  test(`${hydrated ? 'with' : 'without'} JavaScript: create, edit, clone and delete a survey campaign`, async () => {
    const ctx = await browser.newContext({ javaScriptEnabled: hydrated });
    const page = await ctx.newPage();
    const problems = watchPage(page);
    await signIn(page, 'adv@example.com', '/advertiser', hydrated);
    await page.goto(`${server.base}/advertiser/surveys`);
    if (hydrated) await page.locator('body[data-hydrated=true]').waitFor();
    const name = `Browser study ${hydrated ? 'js' : 'html'}`;
    const form = page.locator('#new-survey form');
    await form.locator('input[name=name]').fill(name);
    await form.locator('select[name=country_language_id]').selectOption('en-US');
    await form.locator('input[name=cpi]').fill('2.5');
    await form.locator('input[name=length_of_interview]').fill('12');
    await form.locator('input[name=conversion]').fill('40');
    await form.locator('input[name=total_completes]').fill('100');
    await form.locator('input[name=survey_live_link]').fill('https://survey.example/live?tid={transaction_id}');
    await form.locator('input[name=survey_test_link]').fill('https://survey.example/test?tid={transaction_id}');
    await form.locator('button[type=submit]').click();
    await page.waitForURL(/\/advertiser\/surveys\/svc_[0-9a-z]+$/);
    const id = page.url().split('/').pop();
    if (hydrated) await page.locator('body[data-hydrated=true]').waitFor();
    await page.locator('#survey h1', { hasText: name }).waitFor();
    assert.match(await page.locator('#survey').textContent(), /2\.50 USD/);

    const settings = page.locator('#survey-settings form', { has: page.locator('input[name=cpi]') });
    assert.equal(await settings.locator('input[name=cpi]').inputValue(), '2.5');
    await settings.locator('input[name=cpi]').fill('3');
    await settings.locator('input[name=max_daily_completes]').fill('25');
    await settings.locator('button[type=submit]').click();
    await page.locator('#survey', { hasText: '3.00 USD' }).waitFor();
    await page.locator('#survey', { hasText: 'at most 25 a day' }).waitFor();

    const copy = `${name} copy`;
    const cloneForm = page.locator('#survey-settings form', { has: page.locator('button:has-text("Clone campaign")') });
    await cloneForm.locator('input[name=name]').fill(copy);
    await cloneForm.locator('button[type=submit]').click();
    await page.waitForURL((u) => /\/advertiser\/surveys\/svc_/.test(u) && !u.toString().endsWith(id));
    await page.locator('#survey h1', { hasText: copy }).waitFor();
    if (hydrated) await page.locator('body[data-hydrated=true]').waitFor();
    await page.locator('#survey-settings button:has-text("Delete campaign")').click();
    await page.waitForURL(`${server.base}/advertiser/surveys`);
    await page.locator(`tr[data-survey="${id}"]`).waitFor();
    assert.equal(await page.locator('#surveys tr', { hasText: copy }).count(), 0);
    assert.deepEqual(problems, []);
    await ctx.close();
  });
}
