// Live scoreboard: a full snapshot on connect, then one message per change (server-sent
// events, message set v1: snapshot, state, bye; docs/formats/api.md). Each message
// re-renders the board from the server's template, so there is one rendering path; EventSource
// reconnects by itself when the Pi or the Wi-Fi comes back.
// On a TV the pictures that do not fit side by side take turns (ROTATE_MS each); on a phone the
// breakdown shown is the player tapped in the standings. Both choices survive an update.
(function () {
  "use strict";
  var ROTATE_MS = 15000;
  var board = document.getElementById("board");
  var live = document.getElementById("live");
  var pending = null;
  var busy = false;
  var panel = null;   // the picture shown on the TV (data-panel), kept across updates
  var picked = null;  // the player whose breakdown the phone shows (data-index)
  var rotatedAt = Date.now();
  // a round just scored is announced once (ROUND_END_MS), then the standings come back
  var ROUND_END_MS = 12000;
  var showing = null;   // the key of the round end on screen
  var showUntil = 0;

  function announced(key) {
    try { return window.sessionStorage.getItem("round-end:" + key) === "1"; } catch (e) { return showing === key; }
  }
  function remember(key) {
    try { window.sessionStorage.setItem("round-end:" + key, "1"); } catch (e) { /* private mode */ }
  }
  function roundEnd() {
    var el = board.querySelector(".round-end");
    if (!el) { return; }
    var key = el.dataset.key;
    if (showing === key && Date.now() < showUntil) { el.hidden = false; return; }
    if (announced(key)) { return; }
    remember(key);
    showing = key;
    showUntil = Date.now() + ROUND_END_MS;
    el.hidden = false;
    setTimeout(function () {
      var now = board.querySelector(".round-end");
      if (now && now.dataset.key === key) { now.hidden = true; }
    }, ROUND_END_MS);
  }

  // a tunnel's verdict or the last round begun: a banner, once per moment (ANNOUNCE_MS)
  var ANNOUNCE_MS = 8000;
  var banners = {};   // key -> the time its banner goes
  function seen(key) {
    try { return window.sessionStorage.getItem("announce:" + key) === "1"; } catch (e) { return key in banners; }
  }
  function announce() {
    board.querySelectorAll(".announce").forEach(function (el) {
      var key = el.dataset.key;
      if (key in banners) { el.hidden = Date.now() >= banners[key]; return; }
      if (seen(key)) { return; }
      try { window.sessionStorage.setItem("announce:" + key, "1"); } catch (e) { /* private mode */ }
      banners[key] = Date.now() + ANNOUNCE_MS;
      el.hidden = false;
      setTimeout(function () {
        var now = board.querySelector('.announce[data-key="' + key + '"]');
        if (now) { now.hidden = true; }
      }, ANNOUNCE_MS);
    });
  }

  function setLive(state, key) {
    live.dataset.state = state;
    live.textContent = live.dataset[key] || key;
  }

  function showPanel(key) {
    var rots = board.querySelectorAll(".rot");
    if (!rots.length) { return; }
    var found = false;
    rots.forEach(function (r) { if (r.dataset.panel === key) { found = true; } });
    if (!found) { key = rots[0].dataset.panel; }
    panel = key;
    rots.forEach(function (r) { r.classList.toggle("shown", r.dataset.panel === key); });
    board.querySelectorAll(".tab").forEach(function (t) { t.classList.toggle("on", t.dataset.panel === key); });
  }

  function pick(index) {
    var cards = board.querySelectorAll(".breakdown .player");
    if (!cards.length) { return; }
    var found = false;
    cards.forEach(function (c) { if (c.dataset.index === index) { found = true; } });
    if (!found) { index = cards[0].dataset.index; }
    picked = index;
    cards.forEach(function (c) { c.classList.toggle("picked", c.dataset.index === index); });
  }

  // one place that brings a freshly rendered board to the state the viewer chose
  function apply() { showPanel(panel); pick(picked); roundEnd(); announce(); }

  board.addEventListener("click", function (event) {
    var over = event.target.closest(".round-end");
    if (over) { over.hidden = true; showUntil = 0; return; }
    var banner = event.target.closest(".announce");
    if (banner) { banner.hidden = true; banners[banner.dataset.key] = 0; return; }
    var tab = event.target.closest(".tab");
    if (tab) { showPanel(tab.dataset.panel); rotatedAt = Date.now(); return; }
    var row = event.target.closest(".standing");
    if (row && row.dataset.index !== undefined) {
      pick(row.dataset.index);
      var card = board.querySelector(".breakdown .player.picked");
      if (card && card.offsetParent !== null && window.innerWidth < 900) { card.scrollIntoView({ block: "nearest" }); }
    }
  });
  board.addEventListener("keydown", function (event) {
    var row = event.target.closest(".standing");
    if (row && (event.key === "Enter" || event.key === " ")) { event.preventDefault(); pick(row.dataset.index); }
  });

  setInterval(function () {
    if (Date.now() - rotatedAt < ROTATE_MS) { return; }
    var rots = board.querySelectorAll(".rot");
    if (rots.length < 2) { return; }
    var keys = Array.prototype.map.call(rots, function (r) { return r.dataset.panel; });
    showPanel(keys[(keys.indexOf(panel) + 1) % keys.length]);
    rotatedAt = Date.now();
  }, 1000);

  // the new board's HTML in place; the time it takes is kept for the bench (bench_scoreboard.py)
  function render(html, version) {
    var started = performance.now();
    board.innerHTML = html;
    board.dataset.version = version;
    apply();
    window.scoreboardUpdateMs = performance.now() - started;
    (window.shownAt = window.shownAt || {})[version] = Date.now(); // for the bench
  }
  window.scoreboardRender = render;

  function refresh(version) {
    if (busy) { pending = version; return; }
    busy = true;
    fetch("/partials/scoreboard", { cache: "no-store" })
      .then(function (r) { if (!r.ok) { throw new Error(r.status); } return r.text(); })
      .then(function (html) { render(html, version); })
      .catch(function () { setLive("lost", "failed"); })
      .finally(function () {
        busy = false;
        if (pending !== null) { var v = pending; pending = null; refresh(v); }
      });
  }

  function connect() {
    var source = new EventSource("/api/events?light=1");
    source.addEventListener("open", function () { setLive("live", "live"); });
    source.addEventListener("error", function () {
      setLive("lost", "lost");
      // refused outright (429: this device's share of live pages; 503: every slot is taken):
      // EventSource gives up, so ask again (a stream ended by its lifetime reconnects by itself)
      if (source.readyState === EventSource.CLOSED) { setTimeout(connect, 30000); }
    });
    function onMessage(event) {
      setLive("live", "live");
      if (event.lastEventId !== board.dataset.version) { refresh(event.lastEventId); }
    }
    source.addEventListener("snapshot", onMessage);
    source.addEventListener("state", onMessage);
    // the service is stopping: EventSource retries by itself (every 2 s) until it is back
    source.addEventListener("bye", function () { setLive("lost", "bye"); });
  }
  apply();
  connect();
})();
