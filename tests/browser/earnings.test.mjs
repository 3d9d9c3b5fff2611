// Earnings and payouts in the dashboards: a publisher sets its payout profile and requests a
// payout on the earnings page, an administrator approves it and pays it on the payouts page
// (hydrated: as a pain.001 bank file, downloaded and confirmed; without JavaScript: marked
// paid by hand), and the publisher sees it paid, once hydrated and once without JavaScript. The
// month's statement and the ledger download show the same balance. How
// earnings are made (settlement, hold, release) is covered by the integration tests; here the
// publisher's available balance is seeded straight into the ledger.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { startServer, launchBrowser, watchPage, signIn, signOut, api } from './harness.mjs';

let server; let browser;
const accounts = {};
const password = 'correct horse battery';
const at = '2026-11-01 09:00:00+00:00';

before(async () => {
  server = await startServer();
  browser = await launchBrowser();
  server.cli('user', 'create', '--email', 'admin@example.com', '--password', password, '--role', 'admin');
  for (const who of ['pub-js', 'pub-plain']) {
    server.cli('user', 'create', '--email', `${who}@example.com`, '--password', password, '--role', 'publisher');
    const { account } = await api(server.base, 'POST', '/auth/v1/tokens', { email: `${who}@example.com`, password });
    // 120 USD available, as a balanced posting.
    const id = account.accountId;
    accounts[who] = id;
    server.sql(`insert into ledger_accounts (id, owner_account_id, kind, reference_id, balance_micros, created_at)
      values (?, ?, 'PUBLISHER_AVAILABLE', '', 120000000, ?)`, [`lac_seed_${who}`, id, at]);
    server.sql(`insert into ledger_accounts (id, owner_account_id, kind, reference_id, balance_micros, created_at)
      values (?, '', 'PLATFORM_REVENUE', ?, -120000000, ?)`, [`lac_seedrev_${who}`, `seed_${who}`, at]);
    server.sql(`insert into ledger_transactions (id, kind, owner_account_id, reference_type, reference_id, dedupe_key, memo, created_at)
      values (?, 'earnings_release', ?, 'campaign', 'seed', ?, null, ?)`, [`ltx_seed_${who}`, id, `seed:${who}`, at]);
    server.sql(`insert into ledger_entries (id, transaction_id, ledger_account_id, amount_micros, created_at)
      values (?, ?, ?, 120000000, ?)`, [`len_seed_${who}`, `ltx_seed_${who}`, `lac_seed_${who}`, at]);
    server.sql(`insert into ledger_entries (id, transaction_id, ledger_account_id, amount_micros, created_at)
      values (?, ?, ?, -120000000, ?)`, [`len_seedrev_${who}`, `ltx_seed_${who}`, `lac_seedrev_${who}`, at]);
  }
});

after(async () => {
  await browser?.close();
  await server?.stop();
});

for (const hydrated of [true, false]) {
  const who = hydrated ? 'pub-js' : 'pub-plain';
  test(`${hydrated ? 'with' : 'without'} JavaScript: ${who} requests a payout, the administrator pays it`, async () => {
    const ctx = await browser.newContext({ javaScriptEnabled: hydrated });
    const page = await ctx.newPage();
    const problems = watchPage(page);
    await signIn(page, server.base, `${who}@example.com`, password, { hydrated, landing: '/publisher' });
    await page.click('a:has-text("Earnings and payouts")');
    await page.waitForURL(`${server.base}/publisher/earnings`);
    if (hydrated) await page.locator('body[data-hydrated=true]').waitFor();
    assert.equal((await page.locator('[data-figure=available]').textContent()).trim(), '120.00 USD');
    assert.match(await page.locator('#earnings').textContent(), /70% of each payout.*30 days.*50.00 USD/s);
    // This month's statement closes on the balance; the ledger downloads with the session.
    await page.locator('#statements [data-item=closing]', { hasText: '120.00 USD' }).waitFor();
    assert.match(await page.locator('[data-next-payout]').textContent(), /120\.00 USD can be paid now/);
    const ledger = await page.request.get(`${server.base}/publisher/earnings/ledger.csv`);
    assert.equal(ledger.status(), 200);
    assert.match(await ledger.text(), /closing_balance,,,,120000000,120\.000000/);

    // A request before the profile is refused with the reason shown.
    const request = page.locator('#request-payout form');
    await request.locator('button[type=submit]').click();
    await page.locator('#request-payout .notice.error', { hasText: 'payout profile' }).waitFor();

    const profile = page.locator('#payout-profile form');
    await profile.locator('input[name=legal_name]').fill('Pixel Quest GmbH');
    await profile.locator('input[name=country]').fill('DE');
    await profile.locator('select[name=method]').selectOption('BANK_TRANSFER');
    await profile.locator('input[name=details]').fill('DE89 3704 0044 0532 0130 00');
    await profile.locator('button[type=submit]').click();
    await page.locator('[data-profile]', { hasText: 'IBAN ••••3000' }).waitFor();

    await request.locator('input[name=amount]').fill('100.00');
    await request.locator('button[type=submit]').click();
    const row = page.locator('#payouts tr', { hasText: '100.00 USD' });
    await row.locator('.badge', { hasText: 'REQUESTED' }).waitFor();
    // Exact text: '20.00 USD' alone would also match the '120.00 USD' shown before the refetch.
    await page.locator('[data-figure=available]', { hasText: /^\s*20\.00 USD\s*$/ }).waitFor();
    await page.locator('[data-figure=held]', { hasText: /^\s*100\.00 USD\s*$/ }).waitFor();
    await page.locator('[data-next-payout]', { hasText: '100.00 USD is on its way' }).waitFor();
    await signOut(page, server.base);

    await signIn(page, server.base, 'admin@example.com', password, { hydrated, landing: '/admin' });
    await page.click('a:has-text("Publisher payouts")');
    await page.waitForURL(`${server.base}/admin/payouts`);
    if (hydrated) await page.locator('body[data-hydrated=true]').waitFor();
    // The platform's revenue of the last 30 days stands under the queue, with its totals.
    await page.locator('#revenue tr[data-day=Total]').waitFor();
    // Rows are told apart by the publisher's account, and the approval must land before the
    // next page is asked for (hydrated, the click is a server call the navigation would cut).
    const queued = page.locator('#payouts tr', { hasText: accounts[who] }).filter({ hasText: '100.00 USD' });
    await queued.locator('button:has-text("Approve")').click();
    await queued.waitFor({ state: 'detached' });
    if (hydrated) {
      // Sent as a pain.001 bank file: created, downloaded, confirmed with the bank's reference.
      await page.goto(`${server.base}/admin/payouts`);
      await page.locator('body[data-hydrated=true]').waitFor();
      await page.locator('#payout-batches button:has-text("Create a bank file")').click();
      const batch = page.locator('#payout-batch-list tr', { hasText: '100.00 USD' });
      await batch.waitFor();
      const [download] = await Promise.all([
        page.waitForEvent('download'),
        batch.locator('button:has-text("Download pain.001")').click(),
      ]);
      assert.match(download.suggestedFilename(), /^pbt_[0-9a-f]+\.pain\.001\.xml$/);
      const file = await readFile(await download.path(), 'utf8');
      assert.match(file, /<CtrlSum>100\.00<\/CtrlSum>/);
      assert.match(file, /<IBAN>DE89370400440532013000<\/IBAN>/);
      await batch.locator('input[name=reference]').fill(`SEPA-${who}`);
      await batch.locator('button:has-text("Confirm the bank took it")').click();
      await batch.locator('td', { hasText: 'COMPLETED' }).waitFor();
    } else {
      await page.goto(`${server.base}/admin/payouts?status=APPROVED`);
      const approved = page.locator('#payouts tr', { hasText: accounts[who] }).filter({ hasText: '100.00 USD' });
      await approved.locator('input[name=note]').first().fill(`SEPA-${who}`);
      await approved.locator('button:has-text("Mark paid")').click();
      await approved.waitFor({ state: 'detached' });
    }
    await page.goto(`${server.base}/admin/payouts?status=PAID`);
    await page.locator('#payouts tr', { hasText: `SEPA-${who}` }).waitFor();
    await signOut(page, server.base);

    await signIn(page, server.base, `${who}@example.com`, password, { hydrated, landing: '/publisher' });
    await page.goto(`${server.base}/publisher/earnings`);
    await page.locator('#payouts tr', { hasText: `SEPA-${who}` }).locator('.badge', { hasText: 'PAID' }).waitFor();
    assert.equal((await page.locator('[data-figure=paid]').textContent()).trim(), '100.00 USD');
    assert.equal((await page.locator('[data-figure=held]').textContent()).trim(), '0.00 USD');
    assert.deepEqual(problems, []);
    await ctx.close();
  });
}
