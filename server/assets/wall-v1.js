// Hosted offerwall enhancements. The wall works without this script; with it, an embedded
// wall tells the page that opened it what happens (see docs/web-sdk.md for the contract).
// Messages carry no token or personal data, so they are posted to any parent origin.
(function () {
  "use strict";
  var embedded = window.parent !== window;
  function post(msg) {
    msg.source = "marketplace-offerwall";
    if (embedded) window.parent.postMessage(msg, "*");
  }
  function close() {
    if (embedded) post({ type: "close" });
    else if (window.history.length > 1) window.history.back();
    else window.close();
  }
  document.addEventListener("click", function (e) {
    var t = e.target.closest && e.target.closest("[data-wall-close]");
    if (t) { e.preventDefault(); close(); }
  });
  document.addEventListener("submit", function (e) {
    var f = e.target;
    if (f.classList && f.classList.contains("launch")) {
      var offer = f.closest("[data-offer]");
      post({ type: "launch", offerId: offer ? offer.getAttribute("data-offer") : null });
    }
  });
  document.addEventListener("keydown", function (e) {
    if (e.key === "Escape" && embedded) post({ type: "close" });
  });
  var totals = document.querySelector("[data-earned-minor-units]");
  if (totals) {
    post({
      type: "reward-status",
      currency: totals.getAttribute("data-currency"),
      earnedMinorUnits: Number(totals.getAttribute("data-earned-minor-units")),
      pendingMinorUnits: Number(totals.getAttribute("data-pending-minor-units")),
      reversedMinorUnits: Number(totals.getAttribute("data-reversed-minor-units"))
    });
  }
  post({ type: "ready", page: location.pathname.replace(/^\/offerwall\/?/, "") || "offers" });
})();
