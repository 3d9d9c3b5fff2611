// The reward-callback deliveries console: the publisher finds a FAILED callback, opens it,
// reads its attempt and replays it, once hydrated and once without JavaScript. The failed
// delivery is seeded in the database (SQLite or PostgreSQL, harness.mjs) the way the worker
// leaves one after its last attempt.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startServer, launchBrowser, watchPage, signIn, publisherWithPlacement } from './harness.mjs';

let server; let browser;
const password = 'correct horse battery';

before(async () => {
  server = await startServer();
  browser = await launchBrowser();
  const { account, placement: p } = await publisherWithPlacement(server, 'pub@example.com', password);
  for (const i of [1, 2]) {
    const d = `dlv_0000000000000000000000000000000${i}`;
    const payload = JSON.stringify({ eventId: d, eventType: 'reward.confirmed', externalUserId: `user-${i}`, transactionId: `cnv_${i}` });
    server.sql(`insert into callback_deliveries (id, placement_id, owner_account_id, conversion_id, event, payload,
      status, attempts, next_attempt_at, last_response_status, last_error, key_id, created_at, updated_at,
      delivered_at, external_user_id, campaign_id, depends_on, lease_owner, lease_until, replays, failed_at)
      values (?, ?, ?, ?, 'reward.confirmed', ?, 'FAILED', 10, '2026-11-21 09:00:00+00:00', 500, 'http_status', 'cbk_1',
      '2026-11-21 09:00:00+00:00', '2026-11-21 09:00:00+00:00', null, ?, 'cmp_1', null, null, null, 0,
      '2026-11-21 09:00:00+00:00')`, [d, p.placementId, account.accountId, `cnv_${i}`, payload, `user-${i}`]);
    server.sql(`insert into callback_delivery_attempts (id, delivery_id, attempt, url, key_id, nonce, signed_timestamp,
      started_at, latency_ms, response_status, error_class, error_message, response_excerpt, replay)
      values (?, ?, 10, 'https://hooks.pq.example.com/reward', 'cbk_1', 'n', '2026-11-21T09:00:00Z',
      '2026-11-21 09:00:00+00:00', 42, 500, 'http_status', null, 'receiver down for maintenance', false)`, [`dat_${i}`, d]);
  }
});

after(async () => {
  await browser?.close();
  await server?.stop();
});

for (const [hydrated, n] of [[true, 1], [false, 2]]) {
  test(`${hydrated ? 'with' : 'without'} JavaScript: the publisher finds a failed callback and replays it`, async () => {
    const ctx = await browser.newContext({ javaScriptEnabled: hydrated });
    const page = await ctx.newPage();
    const problems = watchPage(page);
    await signIn(page, server.base, 'pub@example.com', password, { hydrated, landing: '/publisher' });
    await page.click('a:has-text("Reward callbacks")');
    await page.waitForURL(`${server.base}/publisher/deliveries`);
    await page.goto(`${server.base}/publisher/deliveries?status=FAILED`);
    const id = `dlv_0000000000000000000000000000000${n}`;
    const row = page.locator(`tr[data-delivery=${id}]`);
    assert.match(await row.textContent(), new RegExp(`FAILED.*reward\\.confirmed.*user-${n}`, 's'));
    await row.locator('a').click();
    await page.waitForURL(`${server.base}/publisher/deliveries/${id}`);
    if (hydrated) await page.locator('body[data-hydrated=true]').waitFor();
    assert.match(await page.locator('#attempts').textContent(), /HTTP 500.*receiver down for maintenance/s);
    await page.locator('button:has-text("Replay")').click();
    await page.locator('#delivery .badge', { hasText: /PENDING|WAITING_RECEIVER/ }).waitFor();
    assert.deepEqual(problems, []);
    await ctx.close();
  });
}
