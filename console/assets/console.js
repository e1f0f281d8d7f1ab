// The console's only script: live updates. The server says when a run
// changed (server-sent events); the page then fetches itself again and
// swaps in the new content, unless the person is typing in a form (the
// update waits until they leave it). Without this script the pages work
// the same, only without updating themselves.
(function () {
  "use strict";
  var live = document.getElementById("live");
  if (!live || !window.EventSource || !window.fetch) return;
  var url = live.getAttribute("data-events");
  var pending = false, busy = false;

  function typing() {
    var a = document.activeElement;
    return a && live.contains(a) && (a.tagName === "TEXTAREA" || (a.tagName === "INPUT" && a.type === "text"));
  }

  function openDetails() {
    var open = [];
    live.querySelectorAll("details[open]").forEach(function (d) {
      var art = d.closest("[data-call]");
      open.push((art ? art.getAttribute("data-call") : "") + "|" + d.className);
    });
    return open;
  }

  function refresh() {
    if (busy) { pending = true; return; }
    if (typing()) { pending = true; return; }
    busy = true; pending = false;
    var keep = openDetails();
    fetch(location.pathname + location.search, { credentials: "same-origin", headers: { "Accept": "text/html" } })
      .then(function (r) { return r.ok ? r.text() : Promise.reject(r.status); })
      .then(function (html) {
        var doc = new DOMParser().parseFromString(html, "text/html");
        var fresh = doc.getElementById("live");
        if (!fresh) return;
        var nodes = Array.prototype.map.call(fresh.childNodes, function (n) { return document.importNode(n, true); });
        live.replaceChildren.apply(live, nodes);
        live.querySelectorAll("details").forEach(function (d) {
          var art = d.closest("[data-call]");
          if (keep.indexOf((art ? art.getAttribute("data-call") : "") + "|" + d.className) >= 0) d.open = true;
        });
        document.body.setAttribute("data-updated", String(Date.now()));
      })
      .catch(function () {})
      .then(function () { busy = false; if (pending) setTimeout(refresh, 50); });
  }

  live.addEventListener("focusout", function () { if (pending) setTimeout(refresh, 50); });
  var es = new EventSource(url);
  var first = true;
  es.addEventListener("change", function () { refresh(); });
  es.onopen = function () { if (!first) refresh(); first = false; };
})();
