// A survey campaign's targeting edited in the browser as the signed API allows it: a quota
// renamed, resized, copied and deleted; a qualification's accepted answers changed and the
// qualification removed; a custom question rewritten with its options (unchanged options keep
// their ids) and deleted; once LIVE, only quota sizes change. The survey list finds campaigns
// by name and status and pages by 50. With and without JavaScript.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startServer, launchBrowser, watchPage, signIn, api as call, surveyApi } from './harness.mjs';

let server; let browser; let admin; let adv; let key;
const password = 'correct horse battery';
const api = (method, path, body, token) => call(server.base, method, path, body, token);

const signed = (method, path, body) => surveyApi(server.base, key, method, path, body);

const survey = (name) => signed('POST', '/api/v1/campaigns/create', {
  name, country_language_id: 'en-US', cpi: 2, length_of_interview: 10, conversion: 50,
  start_date: new Date().toISOString().slice(0, 10), total_completes: 20,
  survey_live_link: 'https://survey.example/live?tid={transaction_id}',
  survey_test_link: 'https://survey.example/test?tid={transaction_id}',
}).then((c) => c.campaign._id);

before(async () => {
  server = await startServer();
  browser = await launchBrowser();
  for (const [email, role] of [['admin@example.com', 'admin'], ['adv@example.com', 'advertiser']]) {
    server.cli('user', 'create', '--email', email, '--password', password, '--role', role);
  }
  admin = (await api('POST', '/auth/v1/tokens', { email: 'admin@example.com', password })).token;
  adv = (await api('POST', '/auth/v1/tokens', { email: 'adv@example.com', password })).token;
  await api('PUT', '/performance-marketing/v2/billing/profile', { accountType: 'BUSINESS', legalName: 'Northwind', country: 'DE' }, adv);
  const wire = await api('POST', '/performance-marketing/v2/billing/funding/wire', { amount: 500000000, currency: 'USD', externalReference: 'WIRE-TARGETING' }, adv);
  await api('POST', `/admin/v1/funding/${wire.fundingId}/approve`, {}, admin);
  key = await api('POST', '/performance-marketing/v2/survey-api/credentials', { encryptionType: 'SHA3-256' }, adv);
});

after(async () => {
  await browser?.close();
  await server?.stop();
});

async function openSurvey(page, id, hydrated) {
  await page.goto(`${server.base}/advertiser/surveys/${id}`);
  if (hydrated) await page.locator('body[data-hydrated=true]').waitFor();
  await page.locator('#quotas').waitFor();
}

for (const hydrated of [true, false]) {
  test(`${hydrated ? 'with' : 'without'} JavaScript: quotas, qualifications and questions are edited in place`, async () => {
    const id = await survey(`Snack study ${hydrated ? 'js' : 'html'}`);
    const ctx = await browser.newContext({ javaScriptEnabled: hydrated });
    const page = await ctx.newPage();
    const problems = watchPage(page);
    await signIn(page, server.base, 'adv@example.com', password, { hydrated, landing: '/advertiser' });
    await openSurvey(page, id, hydrated);

    // A quota, renamed and resized from its row.
    const add = page.locator('#quotas form', { has: page.locator('button:has-text("Add quota")') });
    await add.locator('input[name=name]').fill('Adults');
    await add.locator('input[name=num_respondents]').fill('10');
    await add.locator('button[type=submit]').click();
    let row = page.locator('#quotas tr[data-quota]').first();
    await row.waitFor();
    const quotaId = await row.getAttribute('data-quota');
    row = page.locator(`#quotas tr[data-quota="${quotaId}"]`);
    await row.locator('input[name=name]').fill('Adults 18-44');
    await row.locator('input[name=num_respondents]').fill('12');
    await row.locator('button:has-text("Save")').first().click();
    await row.getByText('0 / 12').waitFor();
    let q = (await signed('GET', `/api/v1/campaigns/${id}/campaignsquota/${quotaId}`)).campaignQuota;
    assert.equal(q.name, 'Adults 18-44');
    assert.equal(q.num_respondents, 12);

    // A qualification on age, then its ranges changed, then removed.
    await row.locator('select[name=question_id]').selectOption('AGE');
    await row.locator('form', { has: page.locator('button:has-text("Add")') }).locator('input[name=criteria]').fill('18-34');
    await row.locator('button:has-text("Add")').click();
    const qual = row.locator('li[data-qualification]');
    await qual.waitFor();
    assert.equal(await qual.locator('input[name=criteria]').inputValue(), '18-34');
    await qual.locator('input[name=criteria]').fill('18-34, 35-44');
    await qual.locator('button:has-text("Save")').click();
    await page.locator(`#quotas li[data-qualification] input[name=criteria][value="18-34, 35-44"]`).waitFor();
    q = (await signed('GET', `/api/v1/campaigns/${id}/campaignsquota/${quotaId}`)).campaignQuota;
    assert.deepEqual(q.qualifications[0].ranges, [{ min: 18, max: 34 }, { min: 35, max: 44 }]);

    // Copied with its qualification; the copy deleted.
    await row.locator('button:has-text("Copy")').click();
    const copy = page.locator('#quotas tr[data-quota]', { has: page.locator('input[value="Copy of Adults 18-44"]') });
    await copy.waitFor();
    assert.equal(await copy.locator('li[data-qualification]').count(), 1);
    await copy.locator('button:has-text("Delete")').click();
    await copy.waitFor({ state: 'detached' });
    await row.locator('li[data-qualification] button:has-text("Remove")').click();
    await row.getByText('Anyone in the market').waitFor();

    // A question rewritten: "Chips" and "Nothing" keep their option ids, "Cookies" is new.
    const questions = page.locator('#custom-questions');
    const addQ = questions.locator('form', { has: page.locator('button:has-text("Add question")') });
    await addQ.locator('input[name=display_text]').fill('Which snack do you buy?');
    await addQ.locator('textarea[name=options]').fill('Chips\n!Nothing');
    await addQ.locator('button[type=submit]').click();
    const item = questions.locator('li[data-question]');
    await item.waitFor();
    const before = (await signed('GET', `/api/v1/campaigns/${id}/getcustomquestions`)).customQuestions[0];
    await item.locator('summary').click();
    const edit = item.locator('form', { has: page.locator('button:has-text("Save question")') });
    assert.equal(await edit.locator('textarea[name=options]').inputValue(), 'Chips\n!Nothing');
    await edit.locator('input[name=display_text]').fill('Which snacks do you buy?');
    await edit.locator('input[name=multi]').check();
    await edit.locator('textarea[name=options]').fill('Chips\nCookies\n!Nothing');
    await edit.locator('button[type=submit]').click();
    await questions.getByText('Which snacks do you buy?').waitFor();
    const after = (await signed('GET', `/api/v1/campaigns/${id}/getcustomquestions`)).customQuestions[0];
    assert.equal(after._id, before._id);
    assert.equal(after.question_type_id, 2);
    assert.deepEqual(after.options.map((o) => [o.value, o.control_state]),
      [['Chips', 'cs_accept'], ['Cookies', 'cs_accept'], ['Nothing', 'cs_reject']]);
    const idOf = (qn, v) => qn.options.find((o) => o.value === v).option_id;
    assert.equal(idOf(after, 'Chips'), idOf(before, 'Chips'));
    assert.equal(idOf(after, 'Nothing'), idOf(before, 'Nothing'));
    if (await item.locator('details[open]').count() === 0) await item.locator('summary').click();
    await item.locator('button:has-text("Delete question")').click();
    await questions.getByText('No custom questions.').waitFor();

    // LIVE: the name is read-only, the size still changes.
    await api('POST', `/performance-marketing/v2/billing/survey-campaigns/${id}/allocate`, {}, adv);
    await signed('PUT', `/api/v1/campaigns/${id}`, { status: 'PENDINGAPPROVAL' });
    const c = await signed('GET', `/api/v1/campaigns/${id}`);
    await api('POST', `/admin/v1/survey-campaigns/${id}/approve`, { revision: c.revision }, admin);
    await openSurvey(page, id, hydrated);
    row = page.locator(`#quotas tr[data-quota="${quotaId}"]`);
    assert.equal(await row.locator('input[name=name]').getAttribute('readonly'), '');
    assert.equal(await page.locator('#quotas button:has-text("Add quota")').count(), 0);
    await row.locator('input[name=num_respondents]').fill('15');
    await row.locator('button:has-text("Save")').click();
    await row.getByText('0 / 15').waitFor();
    q = (await signed('GET', `/api/v1/campaigns/${id}/campaignsquota/${quotaId}`)).campaignQuota;
    assert.equal(q.num_respondents, 15);
    assert.deepEqual(problems, []);
    await ctx.close();
  });
}

for (const hydrated of [true, false]) {
  test(`${hydrated ? 'with' : 'without'} JavaScript: the survey list finds by name and status and pages by 50`, async () => {
    const tag = hydrated ? 'js' : 'html';
    for (let i = 0; i < 52; i += 1) await survey(`Paged ${tag} ${String(i).padStart(2, '0')}`);
    const ctx = await browser.newContext({ javaScriptEnabled: hydrated });
    const page = await ctx.newPage();
    const problems = watchPage(page);
    await signIn(page, server.base, 'adv@example.com', password, { hydrated, landing: '/advertiser' });
    await page.goto(`${server.base}/advertiser/surveys`);
    if (hydrated) await page.locator('body[data-hydrated=true]').waitFor();
    const filter = page.locator('#surveys form.filters');
    await filter.locator('input[name=name]').fill(`paged ${tag}`);
    await filter.locator('select[name=status]').selectOption('DRAFT');
    await filter.locator('button[type=submit]').click();
    await page.waitForURL(/status=DRAFT/);
    const rows = page.locator('#surveys tbody tr');
    await page.locator('#surveys tr', { hasText: `Paged ${tag} 51` }).waitFor();
    assert.equal(await rows.count(), 50);
    await page.click('#surveys a:has-text("Older →")');
    await page.waitForURL(/cursor=svc_/);
    await page.locator('#surveys tr', { hasText: `Paged ${tag} 00` }).waitFor();
    // With JavaScript the first page's rows may still stand for a moment while
    // the second page renders in (seconds on a loaded CI machine: 5 s was once too
    // short there); wait for the list to settle, then count.
    await page.waitForFunction(() => document.querySelectorAll('#surveys tbody tr').length <= 2, null, { timeout: 20000 }).catch(() => {});
    assert.equal(await rows.count(), 2, 'the second page keeps the filter');
    assert.equal(await filter.locator('input[name=name]').inputValue(), `paged ${tag}`);
    await filter.locator('select[name=status]').selectOption('LIVE');
    await filter.locator('button[type=submit]').click();
    await page.waitForURL(/status=LIVE/);
    await page.getByText('No survey campaign matches.').waitFor();
    assert.deepEqual(problems, []);
    await ctx.close();
  });
}
