// The live table page (docs/web.md, "Live pages"): it follows the table over server-sent
// events (/api/events?light=1 says only *that* the table changed) and redraws its live part
// from /partials/table, keeping the step the person walked to only while it is still the same
// step (the server checks its fingerprint: the seq and sig it was drawn for). A tap sends the
// input exactly as the screen offered it, with that seq; if the table moved on, the server
// refuses it and answers with the current step. Walking the tree and tapping never load the
// whole page; without script every link and form still works as a plain page.
(function () {
  "use strict";
  var box = document.getElementById("live-table");
  if (!box || !window.fetch) { return; }
  var CONFIRM_MS = 6000;
  var pending = false;   // the table changed while a load was in flight: update when done
  var frameDirty = false; // something typed in the page's other forms (the start form…)
  var leaving = false;    // the whole page is loading again: nothing more to draw here

  function meta() {
    var m = box.querySelector("#live-meta");
    return m ? m.dataset : {};
  }
  var shape = meta().shape;
  try {
    var kept = window.sessionStorage.getItem("table-notes");
    window.sessionStorage.removeItem("table-notes");
    if (kept && !box.querySelector(".flash")) {
      var at = box.querySelector("#live-meta");
      var holder = document.createElement("div");
      holder.innerHTML = kept;
      while (holder.lastChild) { box.insertBefore(holder.lastChild, at ? at.nextSibling : box.firstChild); }
    }
  } catch (e) { /* private mode: the notes are not kept */ }

  function query(at) {
    var m = meta();
    var q = new URLSearchParams();
    var lang = new URLSearchParams(location.search).get("lang");
    if (lang) { q.set("lang", lang); }
    if (at) { q.set("at", at); q.set("seq", m.seq || ""); q.set("sig", m.sig || ""); }
    if (m.viewer) { q.set("viewer", m.viewer); }
    return q;
  }

  function apply(html, how) {
    var probe = document.createElement("div");
    probe.innerHTML = html;
    var m = probe.querySelector("#live-meta");
    if (leaving) { return false; }
    if (m && m.dataset.shape !== shape && !frameDirty) {
      leaving = true;
      // a game started or ended, a tag needs enrolling: the page's frame changes too; what
      // the tap got is shown again on the page that loads
      var said = Array.prototype.map.call(probe.querySelectorAll(".flash"), function (n) { return n.outerHTML; });
      try { window.sessionStorage.setItem("table-notes", said.join("")); } catch (e) { /* private mode */ }
      window.location.replace(window.location.pathname + window.location.search.replace(/([?&])(at|seq|sig)=[^&]*/g, "$1"));
      return false;
    }
    // what the last tap got ("Red claims …", "Refused: …", "the table moved on") stays until
    // the person taps again, whatever updates follow
    var notes = how === "replace" && !userAnswer ? Array.prototype.slice.call(box.querySelectorAll(".flash")) : [];
    box.innerHTML = html;
    if (notes.length && !box.querySelector(".flash")) {
      var after = box.querySelector("#live-meta");
      notes.forEach(function (note) {
        box.insertBefore(note, after ? after.nextSibling : box.firstChild);
        after = note;
      });
    }
    var q = query(meta().at);
    q.delete("seq"); q.delete("sig");
    var url = window.location.pathname + (q.toString() ? "?" + q.toString() : "");
    if (how === "push") { history.pushState(null, "", url); } else { history.replaceState(null, "", url); }
    return true;
  }

  // A person's tap (user: true) goes first: it stops a background update in flight; while a
  // tap is in flight a second tap is ignored (no double entries). A background update during
  // a tap waits for it.
  var inFlight = null;   // {user: bool, abort: AbortController}
  var userAnswer = false; // the HTML being applied answers a person's tap
  function load(url, options, how, user) {
    if (inFlight) {
      if (!user || inFlight.user) { if (!user) { pending = true; } return; }
      inFlight.abort.abort();
    }
    var mine = { user: !!user, abort: new AbortController() };
    inFlight = mine;
    options.signal = mine.abort.signal;
    var started = performance.now();
    fetch(url, options)
      .then(function (r) {
        if (r.status === 401) { window.location.reload(); return null; }
        if (!r.ok) { throw new Error(String(r.status)); }
        return r.text();
      })
      .then(function (html) {
        if (inFlight !== mine || html === null) { return; }
        // a finger is on a button: redrawing now would move the tap elsewhere; fetch again
        // once the tap is done
        if (!mine.user && pressed) { pending = true; return; }
        userAnswer = mine.user;
        if (!apply(html, how)) { return; } // the whole page loads again
        (window.shownAt = window.shownAt || {})[meta().version] = Date.now(); // for the bench
        window.tableUpdateMs = performance.now() - started;
        box.dataset.updated = String((parseInt(box.dataset.updated || "0", 10) || 0) + 1);
        if (mine.user) { box.dataset.answered = String((parseInt(box.dataset.answered || "0", 10) || 0) + 1); }
        box.classList.remove("stale");
      })
      .catch(function (error) {
        if (error.name === "AbortError") { return; }
        box.classList.add("stale");
        if (mine.user) { // the person is told, and the tap counts as answered
          var note = document.createElement("p");
          note.className = "flash error";
          note.setAttribute("role", "status");
          note.textContent = box.dataset.failed || "That did not get through: tap again.";
          box.insertBefore(note, box.firstChild);
          box.dataset.answered = String((parseInt(box.dataset.answered || "0", 10) || 0) + 1);
        }
      })
      .finally(function () {
        if (inFlight !== mine) { return; }
        inFlight = null;
        if (pending) { pending = false; refresh(); }
      });
  }

  // A finger on the screen: an update waits until the tap is done, so the button under the
  // finger is the one the tap lands on (a redraw between press and release would lose it).
  var pressed = false;
  box.addEventListener("pointerdown", function () { pressed = true; }, true);
  function release(after) {
    if (!pressed) { return; }
    setTimeout(function () {
      if (!pressed) { return; }
      pressed = false;
      if (pending) { pending = false; refresh(); }
    }, after);
  }
  document.addEventListener("click", function () { release(0); }, false);
  document.addEventListener("pointercancel", function () { release(0); }, true);
  document.addEventListener("pointerup", function () { release(300); }, true); // no click came

  function refresh() {
    if (leaving) { return; }
    if (pressed) { pending = true; return; }
    load("/partials/table?" + query(meta().at).toString(), { cache: "no-store", credentials: "same-origin" }, "replace", false);
  }

  // a destructive tap asks once: the button says what it will do, a second tap within a few
  // seconds does it
  function confirmed(button) {
    var ask = button.getAttribute("data-confirm");
    if (!ask) { return true; }
    if (button.dataset.armed && Date.now() - parseInt(button.dataset.armed, 10) < CONFIRM_MS) { return true; }
    button.dataset.armed = String(Date.now());
    if (!button.dataset.words) { button.dataset.words = button.innerHTML; }
    button.textContent = ask;
    button.classList.add("confirming");
    setTimeout(function () {
      if (!button.isConnected) { return; }
      delete button.dataset.armed;
      button.innerHTML = button.dataset.words;
      button.classList.remove("confirming");
    }, CONFIRM_MS);
    return false;
  }

  document.addEventListener("click", function (event) {
    var button = event.target.closest("button[data-confirm]");
    if (button && !confirmed(button)) { event.preventDefault(); event.stopPropagation(); return; }
    var link = event.target.closest("#live-table a.choice, #live-table a.crumb");
    if (!link || event.defaultPrevented || event.ctrlKey || event.metaKey || event.shiftKey) { return; }
    var url = new URL(link.href, location.href);
    if (url.origin !== location.origin || url.pathname !== "/table") { return; }
    event.preventDefault();
    load("/partials/table" + url.search, { cache: "no-store", credentials: "same-origin" }, "push", true);
  }, true);

  box.addEventListener("submit", function (event) {
    var form = event.target;
    if (!form.matches("form[action$='/table/choose']")) { return; }
    event.preventDefault();
    window.tappedAt = Date.now(); // for the bench (bench/bench_live_table.py)
    load(form.action, {
      method: "POST",
      body: new URLSearchParams(new FormData(form)),
      credentials: "same-origin",
      headers: { "X-Trackside-Live": "1" },
    }, "replace", true);
  });

  document.addEventListener("input", function (event) {
    if (!box.contains(event.target)) { frameDirty = true; }
  });
  window.addEventListener("popstate", function () {
    load("/partials/table" + location.search, { cache: "no-store", credentials: "same-origin" }, "replace", true);
  });

  var source = new EventSource("/api/events?light=1");
  function onMessage(event) {
    if (event.lastEventId && event.lastEventId !== meta().version) { refresh(); }
  }
  source.addEventListener("snapshot", onMessage);
  source.addEventListener("state", onMessage);
  source.addEventListener("open", function () { box.classList.remove("lost"); });
  source.addEventListener("error", function () {
    box.classList.add("lost");
    if (source.readyState === EventSource.CLOSED) { setTimeout(function () { window.location.reload(); }, 30000); }
  });
})();
