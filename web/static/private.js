// A player's private view (/me): the public event stream (/api/events) only says *when* the
// table changed; the cards themselves come from the PIN-checked /me/partial. A form the player
// is filling in is never replaced under their fingers: they get an "Update" button instead.
(function () {
  "use strict";
  var box = document.getElementById("private-view");
  var live = document.getElementById("live");
  var stale = document.getElementById("stale");
  if (!box) { return; }
  var dirty = false;
  var busy = false;
  var again = false;
  var waiting = null; // fetched HTML held back while a form is being filled in

  function setLive(state, text) { if (live) { live.dataset.state = state; live.textContent = text; } }

  function tradeSum() {
    var form = document.getElementById("speculate-form");
    if (!form) { return; }
    var out = form.querySelector(".trade-sum");
    var cards = 0;
    form.querySelectorAll("[data-cards]").forEach(function (el) {
      if (el.type === "checkbox") { cards += el.checked ? 2 : 0; }
      else { cards += Math.max(0, parseInt(el.value || "0", 10) || 0); }
    });
    var goods = out.dataset.goods;
    // the sentence comes from the page, in the reader's language ({cards}, {n}, {goods})
    var sentence = out.dataset.sum || "{cards} cards → {n} {goods}";
    out.textContent = sentence.replace("{cards}", cards).replace("{n}", Math.floor(cards / 2))
      .replace("{goods}", goods) + (cards % 2 ? " " + (out.dataset.odd || "(odd: the trade is 2 for 1)") : "");
    out.classList.toggle("odd", cards % 2 === 1);
  }

  function apply(html, key) {
    box.innerHTML = html;
    box.dataset.key = key;
    dirty = false;
    waiting = null;
    stale.hidden = true;
    tradeSum();
  }

  var asked = "";  // the newest table version an update was asked for
  function refresh() {
    if (busy) { again = true; return; }
    var version = asked;
    busy = true;
    // the step of the secret choices this page shows (?at=…) stays the one refreshed
    fetch("/me/partial" + location.search, { cache: "no-store", credentials: "same-origin" })
      .then(function (r) {
        if (r.status === 401) { window.location.reload(); return null; }
        if (!r.ok) { throw new Error(String(r.status)); }
        return r.text().then(function (html) { return { html: html, key: r.headers.get("X-View-Key") || "" }; });
      })
      .then(function (got) {
        if (got) { // what this page has caught up with (and when: for the bench)
          box.dataset.version = version;
          (window.shownAt = window.shownAt || {})[version] = Date.now();
        }
        if (!got || got.key === box.dataset.key) { return; }
        if (dirty) { waiting = got; stale.hidden = false; return; }
        apply(got.html, got.key);
      })
      .catch(function () { setLive("lost", live ? live.dataset.failed || "update failed — retrying" : "update failed — retrying"); })
      .finally(function () {
        busy = false;
        if (again) { again = false; refresh(); }
      });
  }

  box.addEventListener("input", function () { dirty = true; tradeSum(); });
  box.addEventListener("change", function () { dirty = true; tradeSum(); });
  document.getElementById("stale-update").addEventListener("click", function () {
    if (waiting) { apply(waiting.html, waiting.key); } else { dirty = false; refresh(); }
  });
  tradeSum();

  function onMessage(event) {
    setLive("live", live ? live.dataset.live || "live" : "live");
    asked = event.lastEventId || asked;
    refresh();
  }
  // A stream ends after its lifetime and EventSource reconnects by itself; the first message
  // of the new one (a snapshot) is followed by a refresh, so nothing in between is missed.
  function connect() {
    var source = new EventSource("/api/events?light=1");
    source.addEventListener("open", function () { setLive("live", live ? live.dataset.live || "live" : "live"); });
    source.addEventListener("error", function () {
      setLive("lost", live ? live.dataset.lost || "reconnecting…" : "reconnecting…");
      // refused outright (429: this device's live pages; 503: every slot): EventSource gives up
      if (source.readyState === EventSource.CLOSED) { setTimeout(connect, 30000); }
    });
    source.addEventListener("snapshot", onMessage);
    source.addEventListener("state", onMessage);
    source.addEventListener("bye", function () { setLive("lost", live ? live.dataset.restarting || "service restarting…" : "service restarting…"); });
  }
  connect();
})();
