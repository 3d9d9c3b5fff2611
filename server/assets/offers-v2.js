// Marketplace web SDK 2 (ES module, no dependencies). Opens the hosted offerwall for an SDK
// session in an overlay or inside an element of your page. Full guide: /docs and
// docs/web-sdk.md in the repository.
//
//   import { MarketplaceOffers } from "https://<service>/sdk/v2/offers.js";
//   // Recommended: your backend creates the session (POST /sdk/v2/sessions) and hands the
//   // page its hostedOfferwallUrl.
//   const wall = MarketplaceOffers.fromSession({ hostedOfferwallUrl });
//   wall.on("close", () => wall.close());
//   wall.on("reward-status", (s) => console.log(s.earnedMinorUnits));
//   wall.open();                               // full-screen overlay
//   // or wall.mount(document.getElementById("offerwall"));   // inline iframe
//
//   // No-code: <a data-offerwall-link href="{hostedOfferwallUrl}">Earn</a> and
//   MarketplaceOffers.bind();   // opens in the overlay; without JavaScript the link still works
//
// Language: the wall speaks en, de, es, fr, pt-BR, ja and ar (right to left). It follows
// the session's `lang` (init({lang}) or your backend's POST /sdk/v2/sessions), else the
// browser's languages.
//
// Events (postMessage from the wall, checked against its origin and frame):
//   ready {page}, launch {offerId}, reward-status {currency, earnedMinorUnits,
//   pendingMinorUnits, reversedMinorUnits}, close {}.

const SDK_VERSION = "2.1.0";
const BASE = new URL(import.meta.url).origin;

// The frame's accessible name in the wall's languages (the wall's own pages are translated
// by the service).
const FRAME_TITLES = { en: "Offerwall", de: "Angebote", es: "Ofertas", fr: "Offres", pt: "Ofertas", ja: "オファー", ar: "العروض" };
function frameTitle(lang) {
  const nav = typeof navigator !== "undefined" ? navigator.language : "";
  const primary = String(lang || nav || "en").toLowerCase().split(/[-_]/)[0];
  return FRAME_TITLES[primary] || FRAME_TITLES.en;
}

class Offerwall {
  constructor(url, session) {
    const u = new URL(url, BASE);
    u.searchParams.set("embed", "1");
    const lang = (session && session.lang) || u.searchParams.get("lang");
    if (lang) u.searchParams.set("lang", lang);
    this.lang = lang || null;
    this.url = u.toString();
    this.origin = u.origin;
    this.session = session || null;
    this.handlers = {};
    this.frame = null;
    this.overlay = null;
    this.listener = (e) => {
      if (!this.frame || e.source !== this.frame.contentWindow || e.origin !== this.origin) return;
      const m = e.data;
      if (!m || m.source !== "marketplace-offerwall" || typeof m.type !== "string") return;
      if (m.type === "close" && this.overlay && !(this.handlers.close || []).length) this.close();
      (this.handlers[m.type] || []).concat(this.handlers["*"] || []).forEach((fn) => fn(m));
    };
    window.addEventListener("message", this.listener);
  }

  /** Subscribes to a wall event ("*" for every event); returns a function that unsubscribes. */
  on(type, fn) {
    (this.handlers[type] = this.handlers[type] || []).push(fn);
    return () => { this.handlers[type] = (this.handlers[type] || []).filter((f) => f !== fn); };
  }

  makeFrame() {
    const f = document.createElement("iframe");
    f.src = this.url;
    f.title = frameTitle(this.lang);
    f.referrerPolicy = "no-referrer";
    f.allow = "clipboard-write";
    f.style.cssText = "border:0;width:100%;height:100%;display:block;background:#fff";
    this.frame = f;
    return f;
  }

  /** Shows the wall inside `element` (give it a height). */
  mount(element) {
    if (!element) throw new Error("MarketplaceOffers: mount() needs an element");
    element.replaceChildren(this.makeFrame());
    return this;
  }

  /** Shows the wall in a full-screen overlay above the page. */
  open() {
    if (this.overlay) return this;
    const o = document.createElement("div");
    o.setAttribute("role", "dialog");
    o.setAttribute("aria-modal", "true");
    o.setAttribute("data-marketplace-offerwall", "");
    o.style.cssText = "position:fixed;inset:0;z-index:2147483000;background:rgba(0,0,0,.45);display:flex;align-items:stretch;justify-content:center";
    const box = document.createElement("div");
    box.style.cssText = "width:100%;max-width:720px;height:100%;background:#fff";
    box.appendChild(this.makeFrame());
    o.appendChild(box);
    o.addEventListener("click", (e) => { if (e.target === o) this.close(); });
    document.body.appendChild(o);
    this.overlay = o;
    return this;
  }

  /** Removes the wall from the page. */
  close() {
    if (this.overlay) this.overlay.remove();
    else if (this.frame) this.frame.remove();
    this.overlay = null;
    this.frame = null;
    return this;
  }

  /** Closes and stops listening. */
  destroy() {
    this.close();
    window.removeEventListener("message", this.listener);
  }
}

export const MarketplaceOffers = {
  version: SDK_VERSION,

  /** A wall for a session your backend created ({hostedOfferwallUrl} or the session). */
  fromSession(session) {
    const url = session && session.hostedOfferwallUrl;
    if (!url) throw new Error("MarketplaceOffers: the session has no hostedOfferwallUrl (no OFFERWALL slot?)");
    return new Offerwall(url, session);
  },

  /**
   * Progressive enhancement: every `<a data-offerwall-link href="{hostedOfferwallUrl}">` in
   * `root` opens the wall in the overlay instead of navigating; without JavaScript the same
   * link simply opens the wall. Wall events are dispatched on the link as bubbling DOM events
   * named `offerwall:<type>` with the message as `detail`. Returns the number of links bound.
   */
  bind(root) {
    const links = (root || document).querySelectorAll("a[data-offerwall-link]");
    links.forEach((a) => {
      if (a.hasAttribute("data-offerwall-bound")) return;
      a.setAttribute("data-offerwall-bound", "");
      a.addEventListener("click", (e) => {
        if (e.metaKey || e.ctrlKey || e.shiftKey || e.button !== 0) return;
        e.preventDefault();
        const wall = this.fromSession({ hostedOfferwallUrl: a.href });
        wall.on("*", (m) => a.dispatchEvent(new CustomEvent("offerwall:" + m.type, { detail: m, bubbles: true })));
        wall.open();
      });
    });
    return links.length;
  },

  /**
   * Creates a web session from the page and returns its wall. The user id comes from your
   * page, so prefer fromSession() with a session your backend created for a signed-in user.
   */
  async init(o) {
    const res = await fetch(BASE + "/sdk/v2/sessions", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({
        placementId: o.placementId,
        adSlotId: o.adSlotId,
        externalUserId: o.externalUserId,
        platform: "web",
        sdkVersion: o.sdkVersion || SDK_VERSION,
        packageBundleOrDomain: o.domain || location.hostname,
        environment: o.environment || "production",
        consent: o.consent || "UNKNOWN",
        lang: o.lang,
      }),
    });
    const body = await res.json();
    if (!res.ok) {
      const e = new Error((body.error && body.error.message) || "session refused");
      e.code = body.error && body.error.code;
      e.fieldErrors = body.error && body.error.fieldErrors;
      throw e;
    }
    return this.fromSession(body);
  },
};

export default MarketplaceOffers;
if (typeof window !== "undefined") window.MarketplaceOffers = MarketplaceOffers;
