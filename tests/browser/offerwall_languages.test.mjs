// The end user's offerwall in German and in Arabic, with and without JavaScript, on the demo
// data; and the advertiser translating the offer on the campaign page. German comes from the session (`lang`, as the publisher's backend sets it for a user
// whose app speaks German) and shows the campaign's German translation; Arabic comes from
// the browser's language (Accept-Language), is laid out right to left, writes numbers in
// Arabic-Indic digits and shows the advertiser's texts as given.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import { startServer, launchBrowser, watchPage, api, signIn } from './harness.mjs';

let server; let browser; let demo; let site;
let hostedUrl = '';
let PUBLISHER_PAGE = '';
const DOMAIN = 'play.pixelquest.example';

before(async () => {
  server = await startServer({ seed: [['demo']] });
  browser = await launchBrowser();
  site = http.createServer((req, res) => {
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
    const href = hostedUrl.replaceAll('&', '&amp;');
    res.end(`<!doctype html><html><head><meta charset="utf-8"><title>Pixel Quest</title></head>
<body><a id="earn" data-offerwall-link href="${href}">Earn</a>
<script type="module">
  import { MarketplaceOffers } from "${server.base}/sdk/v2/offers.js";
  MarketplaceOffers.bind();
  document.body.dataset.sdk = MarketplaceOffers.version;
</script></body></html>`);
  });
  await new Promise((ok) => site.listen(0, '127.0.0.1', ok));
  PUBLISHER_PAGE = `http://localhost:${site.address().port}/earn`;
  const pub = (await api(server.base, 'POST', '/auth/v1/tokens', { email: 'publisher@demo.test', password: 'demo-password-2026' })).token;
  const adv = (await api(server.base, 'POST', '/auth/v1/tokens', { email: 'advertiser@demo.test', password: 'demo-password-2026' })).token;
  const placement = (await api(server.base, 'GET', '/publisher/v2/placements', undefined, pub)).items[0];
  const slots = (await api(server.base, 'GET', `/publisher/v2/placements/${placement.placementId}/ad-slots`, undefined, pub)).items;
  const campaign = (await api(server.base, 'GET', '/performance-marketing/v2/campaigns', undefined, adv)).items[0];
  demo = { placement: placement.placementId, slot: slots.find((s) => s.type === 'OFFERWALL').adSlotId, campaign };
});

after(async () => {
  await browser?.close();
  await server?.stop();
  await new Promise((ok) => (site ? site.close(ok) : ok()));
});

async function sessionFor(user, lang) {
  const s = await api(server.base, 'POST', '/sdk/v2/sessions', {
    placementId: demo.placement, adSlotId: demo.slot, externalUserId: user, platform: 'web',
    sdkVersion: '2.1.0', packageBundleOrDomain: DOMAIN, environment: 'production', consent: 'GRANTED',
    ...(lang ? { lang } : {}),
  });
  if (lang) assert.equal(s.lang, lang);
  return s.hostedOfferwallUrl;
}

// What each language must show: the root's lang and dir, the tabs, the offer's title and
// the launch button, the detail's reward in the language's digits.
const LANGUAGES = {
  de: {
    session: 'de', locale: 'en-US', dir: 'ltr', tabs: ['Angebote', 'Meine Prämien', 'Hilfe'], frameTitle: 'Angebote',
    title: 'Dragon Realm: Level 10 erreichen', goal: 'Installieren und öffnen', start: 'Angebot starten',
    // 3.30 USD × 70 % × 100 Gems per USD = 231 Gems.
    total: /Gesamt \+231 Gems/,
  },
  ar: {
    session: null, locale: 'ar-EG', dir: 'rtl', tabs: ['العروض', 'مكافآتي', 'المساعدة'], frameTitle: 'العروض',
    title: 'Dragon Realm: reach level 10', goal: 'Install and open', start: 'ابدأ العرض',
    total: /الإجمالي \+٢٣١ Gems/,
  },
};

for (const [lang, want] of Object.entries(LANGUAGES)) {
  for (const javaScriptEnabled of [true, false]) {
    test(`${javaScriptEnabled ? 'with' : 'without'} JavaScript: the wall in ${lang}`, async () => {
      hostedUrl = await sessionFor(`player-${lang}-${javaScriptEnabled}`, want.session);
      const ctx = await browser.newContext({ javaScriptEnabled, locale: want.locale });
      await ctx.route('https://northwind.example/**', (r) => r.fulfill({ contentType: 'text/html', body: '<h1>Dragon Realm</h1>' }));
      const page = await ctx.newPage();
      const problems = watchPage(page);
      let wall = page;
      if (javaScriptEnabled) {
        // The publisher's page opens the wall in the SDK's overlay.
        await page.goto(PUBLISHER_PAGE);
        await page.locator('body[data-sdk]').waitFor();
        await page.click('#earn');
        const frame = page.locator('[data-marketplace-offerwall] iframe');
        await frame.waitFor();
        assert.equal(await frame.getAttribute('title'), want.frameTitle);
        wall = page.frameLocator('[data-marketplace-offerwall] iframe');
      } else {
        await page.goto(hostedUrl);
      }
      const root = wall.locator(`html[lang="${lang}"][dir="${want.dir}"]`);
      await root.locator('nav.tabs').waitFor();
      assert.deepEqual(await wall.locator('nav.tabs a').allTextContents(), want.tabs);
      if (want.dir === 'rtl') {
        // Right to left: the first tab sits right of the second.
        const [a, b] = await Promise.all([0, 1].map((i) => wall.locator('nav.tabs a').nth(i).boundingBox()));
        assert.ok(a.x > b.x, `first tab at ${a.x}, second at ${b.x}`);
      }
      const card = wall.locator(`li.offer[data-offer="${demo.campaign.campaignId}"]`);
      assert.equal((await card.locator('h2').textContent()).trim(), want.title);
      await card.locator('a').click();
      await wall.locator('#launch', { hasText: want.start }).waitFor();
      assert.match(await wall.locator('.detail .reward').textContent(), want.total);
      assert.match(await wall.locator('ul.goals').textContent(), new RegExp(want.goal));
      // The language stays as the user moves through the wall.
      await wall.locator('nav.tabs a').nth(1).click();
      await wall.locator(`html[lang="${lang}"] dl.totals`).waitFor();
      assert.deepEqual(problems, []);
      await ctx.close();
    });
  }
}

// The advertiser adds the offer's texts in one language on the campaign page; a goal the
// campaign does not have is refused on its field. After the administrator approves the
// revision, users of that language read them on the wall.
for (const [javaScriptEnabled, lang, title, goal] of [
  [true, 'es', 'Dragon Realm: llega al nivel 10', 'Instalar y abrir'],
  [false, 'fr', 'Dragon Realm : atteignez le niveau 10', 'Installer et ouvrir'],
]) {
  test(`${javaScriptEnabled ? 'with' : 'without'} JavaScript: the advertiser translates the offer into ${lang}`, async () => {
    const ctx = await browser.newContext({ javaScriptEnabled });
    const page = await ctx.newPage();
    const problems = watchPage(page);
    await signIn(page, server.base, 'advertiser@demo.test', 'demo-password-2026', { hydrated: javaScriptEnabled, landing: '/advertiser' });
    const id = demo.campaign.campaignId;
    await page.goto(`${server.base}/advertiser/campaigns/${id}`);
    if (javaScriptEnabled) await page.locator('body[data-hydrated=true]').waitFor();
    const fill = async (goals) => {
      const form = page.locator('#translations form');
      await form.locator('select[name=lang]').selectOption(lang);
      await form.locator('input[name=name]').fill(title);
      await form.locator('textarea[name=goals]').fill(goals);
      await form.locator('button:has-text("Save translation")').click();
    };
    await fill('bonus: Bonus');
    await page.locator('#translations .field-error', { hasText: 'not a goal' }).waitFor();
    await fill(`install: ${goal}`);
    await page.locator(`#translation-list tr[data-lang="${lang}"]`, { hasText: title }).waitFor();
    assert.deepEqual(problems, []);
    await ctx.close();

    // The administrator approves the revision; the wall in that language shows the texts.
    const admin = (await api(server.base, 'POST', '/auth/v1/tokens', { email: 'admin@demo.test', password: 'demo-password-2026' })).token;
    await api(server.base, 'POST', `/admin/v1/offer-campaigns/${id}/approve`, {}, admin);
    const wall = await (await fetch(await sessionFor(`player-${lang}`, lang))).text();
    assert.ok(wall.includes(title), wall);
  });
}
