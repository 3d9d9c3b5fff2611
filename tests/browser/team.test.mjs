// Teams (issue 54, part 3) through the real pages, with hydration and without JavaScript: an
// owner invites a person on the account page, the invited person joins through the mailed
// link with a password of their own and lands signed in with their role, the owner changes
// the role, and a viewer's form post is refused.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { startServer, launchBrowser, watchPage, createUsers, pageTools, signIn as signInAt } from './harness.mjs';

let server; let browser;
const password = 'correct horse battery';
const { formWith, shot } = pageTools(() => server.base, password);

before(async () => {
  server = await startServer();
  browser = await launchBrowser();
  createUsers(server, password, ['team-js@example.com', 'publisher'], ['team-nojs@example.com', 'advertiser']);
});

after(async () => {
  await browser?.close();
  await server?.stop();
});

const signInAs = (page, email, pw, landing, hydrated) =>
  signInAt(page, server.base, email, pw, { hydrated, landing, timeout: 10000 });

// The invitation link mailed to `email`, once the mail worker (every 2 s) has written it.
async function invitationLink(email) {
  const dir = join(server.dataDir, 'mailbox');
  for (let i = 0; i < 100; i++) {
    let letters = [];
    try { letters = readdirSync(dir).map((f) => readFileSync(join(dir, f), 'utf8')); } catch { /* not yet */ }
    const link = letters
      .map((l) => l.replace(/=\r\n/g, '').replace(/=([0-9A-F]{2})/g, (_, h) => String.fromCharCode(parseInt(h, 16))))
      .filter((l) => l.includes(`To: ${email}`) && l.includes('invites you to its team'))
      .map((l) => l.match(/https?:\/\/\S+\/invitation\?token=\S+/)?.[0])
      .find(Boolean);
    if (link) return link;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`no invitation for ${email} in ${dir}`);
}

async function teamThroughThePages(hydrated, owner, landing, invited, role, newRole) {
  const ownerCtx = await browser.newContext({ javaScriptEnabled: hydrated });
  const page = await ownerCtx.newPage();
  const problems = hydrated ? watchPage(page) : [];
  await signInAs(page, owner, password, landing, hydrated);
  await page.goto(`${server.base}/account#team`);
  // Nothing waits for an answer yet: a line says so (no empty table).
  await page.locator('#no-invitations').waitFor();
  assert.equal(await page.locator('table.invitations').count(), 0);
  const invite = formWith(page, 'Send the invitation');
  await invite.locator('input[name=csrf]:not([value=""])').waitFor({ state: 'attached' });
  await invite.locator('input[name=email]').fill(invited);
  await invite.locator('select[name=role]').selectOption(role);
  await invite.locator('button[type=submit]').click();
  await page.locator('table.invitations tbody tr', { hasText: invited }).waitFor();

  // The invited person joins through the link, in a browser of their own.
  const link = await invitationLink(invited);
  const joinCtx = await browser.newContext({ javaScriptEnabled: hydrated });
  const joining = await joinCtx.newPage();
  await joining.goto(link);
  const offer = await joining.locator('#invitation-offer').textContent();
  assert.ok(offer.includes(invited) && offer.includes(role), offer);
  const join = formWith(joining, 'Join');
  await join.locator('input[name=csrf]:not([value=""])').waitFor({ state: 'attached' });
  await join.locator('input[name=password]').fill('a member of the team');
  await join.locator('button[type=submit]').click();
  await joining.waitForURL(`${server.base}${landing}`);
  await joining.goto(`${server.base}/account`);
  assert.equal((await joining.locator('#team-role').textContent()).trim(), role);
  // The link works once.
  await joining.goto(link);
  await joining.locator('#invitation-invalid').waitFor();

  // The owner changes the member's role.
  await page.goto(`${server.base}/account?visit=again#team`);
  const row = page.locator('table.team tbody tr', { hasText: invited });
  await row.waitFor();
  await row.locator('select[name=role]').selectOption(newRole);
  await row.locator('button:has-text("Change the role")').click();
  // (The row's text holds every role, its select's options: the member's own page says
  // when the change has landed.)
  let seen = '';
  for (let i = 0; i < 50 && seen !== newRole; i++) {
    if (i) await new Promise((r) => setTimeout(r, 200));
    await joining.goto(`${server.base}/account?visit=again`);
    seen = (await joining.locator('#team-role').textContent()).trim();
  }
  assert.equal(seen, newRole);
  if (hydrated) {
    await shot(page, 'account-team');
    assert.deepEqual(problems, []);
  }
  await ownerCtx.close();
  return joinCtx;
}

test('an owner invites a person, who joins through the link with their own password', async () => {
  const member = await teamThroughThePages(true, 'team-js@example.com', '/publisher', 'joiner-js@example.com', 'DEVELOPER', 'VIEWER');
  await member.close();
});

test('without JavaScript the team is managed and joined the same', async () => {
  const member = await teamThroughThePages(false, 'team-nojs@example.com', '/advertiser', 'joiner-nojs@example.com', 'FINANCE', 'DEVELOPER');
  await member.close();
});
