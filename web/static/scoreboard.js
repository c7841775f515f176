// Live scoreboard: a full snapshot on connect, then one message per change (server-sent
// events, message set v1: snapshot, state, bye; docs/formats/api.md). Each message
// re-renders the board from the server's template, so there is one rendering path; EventSource reconnects by itself when the Pi or the Wi-Fi comes back.
(function () {
  "use strict";
  var board = document.getElementById("board");
  var live = document.getElementById("live");
  var pending = null;
  var busy = false;

  function setLive(state, text) { live.dataset.state = state; live.textContent = text; }

  function refresh(version) {
    if (busy) { pending = version; return; }
    busy = true;
    fetch("/partials/scoreboard", { cache: "no-store" })
      .then(function (r) { if (!r.ok) { throw new Error(r.status); } return r.text(); })
      .then(function (html) { board.innerHTML = html; board.dataset.version = version; })
      .catch(function () { setLive("lost", "update failed — retrying"); })
      .finally(function () {
        busy = false;
        if (pending !== null) { var v = pending; pending = null; refresh(v); }
      });
  }

  function connect() {
    var source = new EventSource("/api/events");
    source.addEventListener("open", function () { setLive("live", "live"); });
    source.addEventListener("error", function () {
      setLive("lost", "reconnecting…");
      // refused outright (503: every live-update slot is taken): EventSource gives up, so ask again
      if (source.readyState === EventSource.CLOSED) { setTimeout(connect, 30000); }
    });
    function onMessage(event) {
      setLive("live", "live");
      if (event.lastEventId !== board.dataset.version) { refresh(event.lastEventId); }
    }
    source.addEventListener("snapshot", onMessage);
    source.addEventListener("state", onMessage);
    // the service is stopping: EventSource retries by itself (every 2 s) until it is back
    source.addEventListener("bye", function () { setLive("lost", "service restarting…"); });
  }
  connect();
})();
