// The publisher console through the real pages: integration steps 1-5 with hydration
// (placement, ad slot, signed callback with test, review, verification and release by an
// administrator, going live), and the same forms without JavaScript, where one-time secrets
// come back through the session flash.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startServer, launchBrowser, watchPage, createUsers, pageTools } from './harness.mjs';

let server; let browser;
const password = 'correct horse battery';
const callbackUrl = 'https://hooks.pixelquest.example/reward';

before(async () => {
  server = await startServer();
  browser = await launchBrowser();
  createUsers(server, password, ['pub@example.com', 'publisher'], ['nojs@example.com', 'publisher'], ['admin@example.com', 'admin']);
});

after(async () => {
  await browser?.close();
  await server?.stop();
});

const { shot, formWith, signIn, signOut } = pageTools(() => server.base, password);

test('with JavaScript: placement, slot, callback, review, verification, release, go live', async () => {
  const page = await browser.newPage();
  const problems = watchPage(page);

  // Step 1: a placement. A bad identity is refused with the field named.
  await signIn(page, 'pub@example.com', '/publisher');
  await page.getByText('No placements match').waitFor();
  const create = formWith(page, 'Create placement');
  await create.locator('select[name=placement_type]').selectOption('WEBSITE');
  await create.locator('input[name=name]').fill('Pixel Quest Web');
  await create.locator('input[name=platform_identity]').fill('localhost');
  await create.locator('button[type=submit]').click();
  await page.getByRole('alert').locator('code', { hasText: 'platformIdentity' }).waitFor();
  await shot(page, 'publisher-placements-error');
  await create.locator('input[name=platform_identity]').fill('play.pixelquest.example');
  await create.locator('button[type=submit]').click();
  await page.waitForURL(/\/publisher\/placements\/plc_[^/]+$/);
  const detailUrl = page.url();
  await page.locator('h1', { hasText: 'Pixel Quest Web' }).waitFor();
  assert.equal(await page.locator('.badge.status-draft').first().textContent(), 'DRAFT');

  // Step 2: an offerwall slot at 100 coins per dollar.
  const slotForm = formWith(page, 'Add ad slot');
  await slotForm.locator('input[name=name]').fill('Coin wall');
  await slotForm.locator('select[name=slot_type]').selectOption('OFFERWALL');
  await slotForm.locator('input[name=currency_name]').fill('Coins');
  await slotForm.locator('input[name=rate_numerator]').fill('100');
  await slotForm.locator('button[type=submit]').click();
  const slotRow = page.locator('table.slots tr', { hasText: 'Coin wall' });
  await slotRow.waitFor();
  assert.match(await slotRow.textContent(), /placement_not_verified/);

  // Step 3: the signed callback; the secret is shown once, then a signed test request.
  const cbForm = formWith(page, 'Save callback URL');
  await cbForm.locator('input[name=url]').fill(callbackUrl);
  await cbForm.locator('button[type=submit]').click();
  const secret = page.locator('.notice.secret');
  await secret.getByText('Copy it now: it will not be shown again.').waitFor();
  assert.match(await secret.locator('code').textContent(), /^mkt_cbs/);
  await page.locator('code.key-id', { hasText: 'cbk' }).waitFor();
  await shot(page, 'placement-callback-secret');
  await page.click('button:has-text("Send test")');
  const request = page.locator('pre.http');
  await request.waitFor();
  const text = await request.textContent();
  assert.ok(text.startsWith(`POST ${callbackUrl}`), text);
  for (const h of ['X-Service-Signature: ', 'X-Service-Timestamp: ', 'X-Service-Nonce: ', 'X-Service-Key-Id: cbk']) {
    assert.ok(text.includes(h), `missing ${h}`);
  }
  assert.match(text, /X-Service-Signature: [0-9a-f]{64}/);
  // The test event was really sent; this receiver's name does not resolve, and the page says so.
  await page.locator('.callback-answer[data-accepted=false]', { hasText: 'did not accept' }).waitFor();
  await shot(page, 'placement-callback-test');

  // A survey app key is shown once too (from the action's answer).
  await page.click('button:has-text("Issue app key")');
  await page.locator('.notice.secret', { hasText: 'Survey app key' }).locator('code', { hasText: 'mkt_apk' }).waitFor();

  // Step 4: review.
  await page.click('button:has-text("Request review")');
  await page.locator('.badge.status-pending_review').first().waitFor();
  assert.equal(await page.locator('button:has-text("Request review")').count(), 0);
  await shot(page, 'placement-pending-review');
  await signOut(page);

  // The administrator verifies, then releases.
  await signIn(page, 'admin@example.com', '/admin');
  const row = page.locator('#placement-review tr', { hasText: 'Pixel Quest Web' });
  await row.waitFor();
  assert.match(await row.textContent(), /play\.pixelquest\.example/);
  await shot(page, 'admin-placement-review');
  // Rejecting needs a note for the publisher.
  await row.locator('button:has-text("Reject")').click();
  await page.getByRole('alert').locator('code', { hasText: 'note' }).waitFor();
  await row.locator('textarea[name=note]').fill('Looks good.');
  await row.locator('button:has-text("Verify")').click();
  await page.getByText('No placement is waiting for review.').waitFor();
  const releaseRow = page.locator('#placement-release tr', { hasText: 'Pixel Quest Web' });
  await releaseRow.waitFor();
  await shot(page, 'admin-placement-release');
  await releaseRow.locator('button:has-text("Release")').click();
  await page.getByText('Nothing to release.').waitFor();
  await signOut(page);

  // Step 5: the publisher sees the placement verified and released, and goes live.
  await signIn(page, 'pub@example.com', '/publisher');
  const listed = page.locator('table.placements tr', { hasText: 'Pixel Quest Web' });
  await listed.locator('.badge.status-verified').waitFor();
  await listed.locator('.badge.released').waitFor();
  await shot(page, 'publisher-verified');
  // The search form filters through the query string.
  await page.locator('input[name=q]').fill('pixel');
  await page.locator('select[name=status]').selectOption('DRAFT');
  await page.click('button:has-text("Search")');
  await page.getByText('No placements match').waitFor();
  assert.match(page.url(), /\?q=pixel&status=DRAFT\b/);
  await page.locator('select[name=status]').selectOption('VERIFIED');
  await page.click('button:has-text("Search")');
  await page.locator('table.placements tr', { hasText: 'Pixel Quest Web' }).waitFor();
  assert.match(page.url(), /\?q=pixel&status=VERIFIED\b/);
  await page.goto(detailUrl);
  await page.locator('body[data-hydrated=true]').waitFor();
  await page.locator('.badge.status-verified').first().waitFor();
  await page.locator('.badge.released').first().waitFor();
  assert.equal(await page.locator('.notice.secret').count(), 0, 'the secret is not shown again');
  await page.locator('table.slots a', { hasText: 'Coin wall' }).first().click();
  await page.waitForURL(/\/slots\/slot_[^/]+$/);
  await page.locator('h1', { hasText: 'Coin wall' }).waitFor();
  await page.locator('.preview .amount', { hasText: '100' }).waitFor();
  // The live preview follows the form before anything is saved.
  await page.locator('input[name=rate_numerator]').fill('250');
  await page.locator('.preview .amount', { hasText: '250' }).waitFor();
  await page.locator('input[name=usd]').fill('2.5');
  await page.locator('.preview .amount', { hasText: '625' }).waitFor();
  assert.ok((await page.locator('pre.snippet-web').textContent()).includes('/sdk/v2/offers.js'));
  await shot(page, 'slot-editor');
  await page.click('button:has-text("Save configuration")');
  await page.getByText('Saved as a new configuration version.').waitFor();
  await page.click('button:has-text("Activate")');
  await page.locator('.badge.slot-active').first().waitFor();
  await shot(page, 'slot-active');
  assert.deepEqual(problems, []);
  await page.close();
});

test('without JavaScript: create, callback secret as a flash, test, refused delete, static key', async () => {
  const ctx = await browser.newContext({ javaScriptEnabled: false });
  const page = await ctx.newPage();
  await signIn(page, 'nojs@example.com', '/publisher', { hydrated: false });
  const create = formWith(page, 'Create placement');
  await create.locator('select[name=placement_type]').selectOption('WEBSITE');
  await create.locator('input[name=name]').fill('Plain Forms Site');
  await create.locator('input[name=platform_identity]').fill('https://www.plainforms.example/');
  await create.locator('button[type=submit]').click();
  await page.waitForURL(/\/publisher\/placements\/plc_[^/]+$/);
  const detailUrl = page.url();
  // Leptos sends a plain form post back to its page (with an empty query).
  const backOnDetail = (url) => url.href.replace(/\?$/, '') === detailUrl;
  await page.locator('code', { hasText: 'www.plainforms.example' }).waitFor();

  // The secret survives the redirect back to the form through the session, once.
  const cbForm = formWith(page, 'Save callback URL');
  await cbForm.locator('input[name=url]').fill(callbackUrl);
  await cbForm.locator('button[type=submit]').click();
  await page.waitForURL(backOnDetail);
  const secret = page.locator('.notice.secret');
  await secret.getByText('Copy it now: it will not be shown again.').waitFor();
  assert.match(await secret.locator('code').textContent(), /^mkt_cbs/);
  assert.ok(!page.url().includes('mkt_cbs'), 'no secret in the URL');
  await shot(page, 'nojs-callback-secret');
  await page.reload();
  await page.locator('code.key-id', { hasText: 'cbk' }).waitFor();
  assert.equal(await page.locator('.notice.secret').count(), 0, 'shown once');

  await page.click('button:has-text("Send test")');
  await page.locator('pre.http', { hasText: 'X-Service-Signature' }).waitFor();

  // Rotation shows the next secret the same way.
  await page.click('button:has-text("Rotate key")');
  await page.locator('.notice.secret', { hasText: 'Next callback signing secret' }).waitFor();
  const nextKey = await page.locator('code.next-key-id').textContent();
  assert.match(nextKey, /^cbk_/);
  await page.click('button:has-text("Promote next key")');
  await page.locator('code.key-id', { hasText: nextKey }).waitFor();
  assert.equal(await page.locator('code.next-key-id').textContent(), 'none');

  // Deleting is refused while a callback is configured; the reason is shown.
  await page.click('button:has-text("Delete placement")');
  await page.getByRole('alert').getByText('a reward callback is configured').waitFor();
  await shot(page, 'nojs-delete-refused');

  // A static feed slot: server-side preview and a static key shown once.
  await page.goto(detailUrl);
  const slotForm = formWith(page, 'Add ad slot');
  await slotForm.locator('input[name=name]').fill('Static feed');
  await slotForm.locator('select[name=slot_type]').selectOption('STATIC_API');
  await slotForm.locator('input[name=currency_name]').fill('Gems');
  await slotForm.locator('input[name=decimals]').fill('2');
  await slotForm.locator('input[name=rate_numerator]').fill('150');
  await slotForm.locator('button[type=submit]').click();
  await page.locator('table.slots a', { hasText: 'Static feed' }).click();
  await page.waitForURL(/\/slots\/slot_[^/]+$/);
  await page.locator('input[name=usd]').fill('2.50');
  await page.click('button:has-text("Preview")');
  await page.waitForURL(/usd=2\.50/);
  await page.locator('.preview .amount', { hasText: '3.75' }).waitFor();
  const in90 = new Date(Date.now() + 90 * 86400e3).toISOString().slice(0, 10);
  const keyForm = formWith(page, 'Issue static key');
  await keyForm.locator('input[name=expires_on]').fill(in90);
  await keyForm.locator('input[name=reason]').fill('Partner feed');
  await keyForm.locator('button[type=submit]').click();
  await page.locator('.notice.secret', { hasText: 'Static feed key' }).waitFor();
  assert.match(await page.locator('.notice.secret code').textContent(), /^mkt_sfk/);
  await shot(page, 'nojs-static-key');
  await ctx.close();
});
