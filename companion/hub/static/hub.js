// The wall screen and a table's page re-render from their partial every few seconds;
// times are shown in the screen's local time.
(function () {
  function times() {
    document.querySelectorAll("time[data-t]").forEach(function (el) {
      var d = new Date(parseFloat(el.dataset.t) * 1000);
      el.textContent = d.toLocaleString([], {weekday: "short", hour: "2-digit", minute: "2-digit"});
    });
    var clock = document.getElementById("clock");
    if (clock) clock.textContent = new Date().toLocaleTimeString([], {hour: "2-digit", minute: "2-digit"});
  }
  var live = document.getElementById("live");
  function refresh() {
    fetch(live.dataset.src, {cache: "no-store"}).then(function (r) {
      if (!r.ok) throw new Error(r.status);
      return r.text();
    }).then(function (html) {
      live.innerHTML = html;
      document.body.classList.remove("lost");
      times();
    }).catch(function () { document.body.classList.add("lost"); });
  }
  times();
  if (live) setInterval(refresh, 3000);
  setInterval(times, 30000);
})();
