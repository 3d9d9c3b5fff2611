// The advertiser wallet through the real pages: billing profile (with field errors), a
// payment-provider funding through the development checkout and its capture, a wire
// transfer announced by the advertiser and credited by an administrator from the review
// queue; the balance card follows each step. Once hydrated, once without JavaScript.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { startServer, launchBrowser, watchPage, api as apiAt, createUsers, approvedAdvertiser as approveAt, pageTools, signIn as signInAt } from './harness.mjs';

let server; let browser;
const password = 'correct horse battery';

// A JSON call to the service's API.
const api = (...args) => apiAt(server.base, ...args);

// Registers an advertiser through the API; an administrator approves it.
const approvedAdvertiser = (email, companyName, adminToken) =>
  approveAt(server.base, adminToken, { email, password, companyName });

before(async () => {
  server = await startServer();
  browser = await launchBrowser();
  createUsers(server, password, ['admin@example.com', 'admin']);
  const { token } = await api('POST', '/auth/v1/tokens', { email: 'admin@example.com', password });
  await approvedAdvertiser('adv@example.com', 'Northwind Apps', token);
  await approvedAdvertiser('plain@example.com', 'Plain Forms Ltd', token);
});

after(async () => {
  await browser?.close();
  await server?.stop();
});

const { shot, formWith, signIn, signOut } = pageTools(() => server.base, password);

const available = (page) => page.locator('#balance .available .amount');

async function waitForBalance(page, amount) {
  try {
    await page.locator('#balance .available .amount', { hasText: amount }).waitFor({ timeout: 10000 });
  } catch (e) {
    throw new Error(`balance is ${await available(page).textContent().catch(() => '?')}, expected ${amount}`);
  }
}

// The page reached by a link click or a redirect, once hydrated.
async function landed(page, url, { hydrated = true } = {}) {
  await page.waitForURL(url);
  if (hydrated) await page.locator('body[data-hydrated=true]').waitFor();
}

// Approves the order on the development checkout page and follows its link back.
async function approveAtCheckout(page, amount, { hydrated = true } = {}) {
  await page.waitForURL(/\/dev\/payprovider\/checkout\/ord_[^/]+$/);
  await page.getByText(`${amount} USD`).waitFor();
  await page.click('button:has-text("Approve payment")');
  await page.locator('[data-status=APPROVED]').waitFor();
  await page.click('a:has-text("Back to billing")');
  await landed(page, `${server.base}/advertiser/billing`, { hydrated });
}

test('with JavaScript: profile, card payment with capture, wire credited by an administrator', async () => {
  const page = await browser.newPage();
  const problems = watchPage(page);
  await signIn(page, 'adv@example.com', '/advertiser');
  await page.locator('body[data-hydrated=true]').waitFor();
  await page.click('a:has-text("Billing and invoices")');
  await landed(page, `${server.base}/advertiser/billing`);
  await waitForBalance(page, '0.00');
  await page.getByText('No invoices yet.').waitFor();
  await page.locator('#billing-profile .badge', { hasText: 'INCOMPLETE' }).waitFor();

  // Funding is refused until the profile is complete.
  await page.click('a:has-text("Add funds")');
  await landed(page, `${server.base}/advertiser/billing/funding`);
  await page.getByText('before funding').first().waitFor();
  await page.locator('.wire-minimum', { hasText: '100.00 USD' }).waitFor();
  const early = formWith(page, 'Continue to checkout');
  await early.locator('input[name=amount]').fill('25');
  await early.locator('button[type=submit]').click();
  await page.getByRole('alert').getByText('complete the billing profile').waitFor();
  assert.match(page.url(), /\/advertiser\/billing\/funding$/);
  await page.click('a:has-text("billing profile")');
  await landed(page, `${server.base}/advertiser/billing`);

  // The profile: field errors first, then saved.
  const profile = page.locator('#billing-profile form');
  await profile.locator('input[name=country]').fill('D1');
  await profile.locator('input[name=billing_emails]').fill('billing@northwind.example, not-an-address');
  await profile.locator('button[type=submit]').click();
  await page.locator('#billing-profile .field-error', { hasText: 'two-letter' }).waitFor();
  await page.getByRole('alert').locator('code', { hasText: 'legalName' }).waitFor();
  await page.getByRole('alert').locator('code', { hasText: 'billingEmails[1]' }).waitFor();
  assert.equal(await profile.locator('input[name=country]').inputValue(), 'D1', 'a refused form keeps its input');
  await shot(page, 'billing-profile-errors');
  await profile.locator('select[name=account_type]').selectOption('BUSINESS');
  await profile.locator('input[name=legal_name]').fill('Northwind Apps GmbH');
  await profile.locator('input[name=country]').fill('de');
  await profile.locator('input[name=tax_id]').fill('DE123456789');
  await profile.locator('input[name=address_line1]').fill('Hafenstrasse 1');
  await profile.locator('input[name=city]').fill('Hamburg');
  await profile.locator('input[name=postal_code]').fill('20457');
  await profile.locator('input[name=billing_emails]').fill('billing@northwind.example, finance@northwind.example');
  await profile.locator('button[type=submit]').click();
  await page.getByText('Billing profile saved.').waitFor();
  await page.locator('#billing-profile .badge', { hasText: 'COMPLETE' }).waitFor();
  assert.equal(await page.getByRole('alert').count(), 0);
  await page.reload();
  await page.locator('body[data-hydrated=true]').waitFor();
  assert.equal(await profile.locator('input[name=country]').inputValue(), 'DE');
  assert.equal(await profile.locator('input[name=billing_emails]').inputValue(),
    'billing@northwind.example, finance@northwind.example');

  // Card payment: checkout at the development provider, back, capture.
  await page.click('a:has-text("Add funds")');
  await landed(page, `${server.base}/advertiser/billing/funding`);
  const card = formWith(page, 'Continue to checkout');
  await card.locator('input[name=amount]').fill('5');
  await card.locator('button[type=submit]').click();
  await page.locator('#payprovider .field-error', { hasText: 'at least 10.00' }).waitFor();
  await card.locator('input[name=amount]').fill('25.50');
  await card.locator('button[type=submit]').click();
  await approveAtCheckout(page, '25.500000');
  await shot(page, 'billing-awaiting-capture');
  await waitForBalance(page, '0.00');
  const pending = page.locator('#awaiting-capture tr', { hasText: '25.50' });
  await pending.locator('button:has-text("Capture payment")').click();
  await page.getByText('Payment captured: 25.50 USD credited.').waitFor();
  await waitForBalance(page, '25.50');
  assert.equal(await page.locator('#awaiting-capture').count(), 0);
  await shot(page, 'billing-captured');

  // A wire transfer: announced here, nothing credited yet.
  await page.click('a:has-text("Add funds")');
  await landed(page, `${server.base}/advertiser/billing/funding`);
  const wire = formWith(page, 'Announce wire transfer');
  await wire.locator('input[name=amount]').fill('50');
  await wire.locator('input[name=external_reference]').fill('NW-WIRE-0001');
  await wire.locator('button[type=submit]').click();
  await page.locator('#wire .field-error', { hasText: 'at least 100.00' }).waitFor();
  await wire.locator('input[name=amount]').fill('150.00');
  await wire.locator('button[type=submit]').click();
  await page.getByText('Wire transfer of 150.00 USD announced').waitFor();
  const wireRow = page.locator('#funding-history tr', { hasText: 'NW-WIRE-0001' });
  await wireRow.locator('.badge', { hasText: 'AWAITING_REVIEW' }).waitFor();
  await page.locator('#funding-history tr', { hasText: '25.50' }).locator('.badge', { hasText: 'CREDITED' }).waitFor();
  await waitForBalance(page, '25.50');
  await shot(page, 'billing-funding');
  assert.deepEqual(problems, []);
  await signOut(page);

  // The administrator credits the wire from the review queue.
  await signIn(page, 'admin@example.com', '/admin');
  await page.locator('body[data-hydrated=true]').waitFor();
  const review = page.locator('#funding-review tr', { hasText: 'NW-WIRE-0001' });
  await review.waitFor();
  assert.match(await review.textContent(), /Northwind Apps/);
  assert.match(await review.textContent(), /150\.00 USD/);
  await shot(page, 'admin-funding-review');
  await review.locator('button:has-text("Approve")').click();
  await page.locator('#funding-review').getByText('No wire transfer is waiting.').waitFor();
  await page.getByText('Credited 150.00 USD').waitFor();
  await signOut(page);

  await signIn(page, 'adv@example.com', '/advertiser');
  await page.goto(`${server.base}/advertiser/billing`);
  await page.locator('body[data-hydrated=true]').waitFor();
  await waitForBalance(page, '175.50');
  const invoice = page.locator('#invoices tbody tr').first();
  await invoice.locator('.badge', { hasText: 'OPEN' }).waitFor();
  assert.match(await invoice.textContent(), /175\.50 USD/);
  await shot(page, 'billing-after-wire');

  // A survey campaign created through the signed survey API and paid from the wallet shows
  // up as an allocation, and the available balance drops by its estimated cost.
  const { token } = await api('POST', '/auth/v1/tokens', { email: 'adv@example.com', password });
  const key = await api('POST', '/performance-marketing/v2/survey-api/credentials', { encryptionType: 'SHA256' }, token);
  const url = `${server.base}/api/v1/campaigns/create`;
  const body = JSON.stringify({
    name: 'Brand tracker', country_language_id: 'en-US', cpi: 1.5, total_completes: 50,
    survey_live_link: 'https://survey.example/l?t={transaction_id}',
    survey_test_link: 'https://survey.example/t?t={transaction_id}',
  });
  const enc = createHash('sha256').update(url + body + key.secret).digest('hex');
  const created = await fetch(`${url}?enc=${enc}`, {
    method: 'POST', body, headers: { 'content-type': 'application/json', 'x-api-key': key.apiKey },
  });
  assert.equal(created.status, 201, await created.clone().text());
  const survey = (await created.json()).campaign._id;
  await api('POST', `/performance-marketing/v2/billing/survey-campaigns/${survey}/allocate`, {}, token);
  await page.reload();
  await waitForBalance(page, '100.50');
  const allocation = page.locator('#allocations tbody tr').first();
  assert.match(await allocation.textContent(), new RegExp(`${survey}.*75\\.00 USD`, 's'));
  assert.deepEqual(problems, []);
  await page.close();
});

test('without JavaScript: profile with field errors, card payment and capture, wire request', async () => {
  const ctx = await browser.newContext({ javaScriptEnabled: false });
  const page = await ctx.newPage();
  const nojs = { hydrated: false };
  await signIn(page, 'plain@example.com', '/advertiser', nojs);
  await page.click('a:has-text("Billing and invoices")');
  await landed(page, `${server.base}/advertiser/billing`, nojs);
  await waitForBalance(page, '0.00');

  // A refused profile comes back with the errors next to the fields.
  const profile = page.locator('#billing-profile form');
  await profile.locator('input[name=country]').fill('GB');
  await profile.locator('button[type=submit]').click();
  await page.locator('#billing-profile .field-error', { hasText: 'is required' }).waitFor();
  await page.getByRole('alert').locator('code', { hasText: 'legalName' }).waitFor();
  await shot(page, 'nojs-billing-profile-errors');
  await profile.locator('select[name=account_type]').selectOption('INDIVIDUAL');
  await profile.locator('input[name=legal_name]').fill('Pat Plain');
  await profile.locator('input[name=country]').fill('GB');
  await profile.locator('input[name=billing_emails]').fill('pat@plain.example');
  await profile.locator('button[type=submit]').click();
  await page.locator('#billing-profile .badge', { hasText: 'COMPLETE' }).waitFor();
  assert.equal(await profile.locator('input[name=legal_name]').inputValue(), 'Pat Plain');
  assert.equal(await profile.locator('select[name=account_type]').inputValue(), 'INDIVIDUAL');
  assert.equal(await page.getByRole('alert').count(), 0);

  // Card payment: the server redirects the form post to the checkout.
  await page.click('a:has-text("Add funds")');
  await landed(page, `${server.base}/advertiser/billing/funding`, nojs);
  const card = formWith(page, 'Continue to checkout');
  await card.locator('input[name=amount]').fill('40');
  await card.locator('button[type=submit]').click();
  await approveAtCheckout(page, '40.000000', nojs);
  await page.locator('#awaiting-capture button:has-text("Capture payment")').click();
  await waitForBalance(page, '40.00');
  assert.equal(await page.locator('#awaiting-capture').count(), 0);
  await shot(page, 'nojs-billing-captured');

  // A wire request shows up in the history as awaiting review.
  await page.click('a:has-text("Add funds")');
  await landed(page, `${server.base}/advertiser/billing/funding`, nojs);
  const wire = formWith(page, 'Announce wire transfer');
  await wire.locator('input[name=amount]').fill('abc');
  await wire.locator('input[name=external_reference]').fill('PLAIN-0001');
  await wire.locator('button[type=submit]').click();
  await page.locator('#wire .field-error', { hasText: 'decimal amount' }).waitFor();
  await wire.locator('input[name=amount]').fill('250');
  await wire.locator('input[name=external_reference]').fill('PLAIN-0001');
  await wire.locator('button[type=submit]').click();
  await page.locator('#funding-history tr', { hasText: 'PLAIN-0001' }).locator('.badge', { hasText: 'AWAITING_REVIEW' }).waitFor();
  await waitForBalance(page, '40.00');
  await shot(page, 'nojs-billing-funding');
  await ctx.close();
});

test('without a payment provider the funding page offers wire transfer only', async () => {
  const bare = await startServer({ anyAddress: true });
  try {
    bare.cli('user', 'create', '--email', 'wire@example.com', '--password', password, '--role', 'advertiser');
    const page = await browser.newPage();
    await signInAt(page, bare.base, 'wire@example.com', password, { hydrated: true, landing: '/advertiser' });
    await page.goto(`${bare.base}/advertiser/billing/funding`);
    await page.locator('#wire').waitFor();
    assert.equal(await page.locator('#payprovider').count(), 0);
    assert.equal(await page.getByText('Pay by card').count(), 0);
    await page.close();
  } finally {
    await bare.stop();
  }
});
