// The publisher's support inbox. The SDK route that opens cases is not built yet, so the
// test seeds one case in the database the way the SDK will; the publisher then works it
// through the page, once hydrated and once without JavaScript.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startServer, launchBrowser, watchPage, signIn, publisherWithPlacement } from './harness.mjs';

let server; let browser;
const password = 'correct horse battery';

before(async () => {
  server = await startServer();
  browser = await launchBrowser();
  const { placement: p } = await publisherWithPlacement(server, 'pub@example.com', password);
  server.sql(`insert into support_cases (id, placement_id, ad_slot_id, session_id, external_user_id, offer_id,
    reason_code, message, status, publisher_note, idempotency_key, created_at, updated_at)
    values ('sup_1', ?, null, 'ses_1', 'user-7', 'cmp_1', 'MISSING_REWARD',
    'I finished level 10 and got nothing.', 'OPEN', null, null,
    '2026-11-21 09:00:00+00:00', '2026-11-21 09:00:00+00:00')`, [p.placementId]);
});

after(async () => {
  await browser?.close();
  await server?.stop();
});

for (const [hydrated, to, note] of [[true, 'IN_PROGRESS', 'Looking into it'], [false, 'RESOLVED', 'Credited, sorry!']]) {
  test(`${hydrated ? 'with' : 'without'} JavaScript: the publisher moves a case to ${to} with a note`, async () => {
    const ctx = await browser.newContext({ javaScriptEnabled: hydrated });
    const page = await ctx.newPage();
    const problems = watchPage(page);
    await signIn(page, server.base, 'pub@example.com', password, { hydrated, landing: '/publisher' });
    await page.click('a:has-text("Support inbox")');
    await page.waitForURL(`${server.base}/publisher/support`);
    if (hydrated) await page.locator('body[data-hydrated=true]').waitFor();
    const card = page.locator('article.support-case[data-case=sup_1]');
    assert.match(await card.textContent(), /MISSING_REWARD.*I finished level 10/s);
    await card.locator('select[name=status]').selectOption(to);
    await card.locator('textarea[name=publisher_note]').fill(note);
    await card.locator('button:has-text("Save")').click();
    await card.locator('.badge', { hasText: to }).waitFor();
    await page.goto(`${server.base}/publisher/support?status=${to}`);
    assert.equal(await page.locator('article.support-case textarea').inputValue(), note);
    await page.goto(`${server.base}/publisher/support?status=OPEN`);
    await page.getByText('No support case matches.').waitFor();
    assert.deepEqual(problems, []);
    await ctx.close();
  });
}
