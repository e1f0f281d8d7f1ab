// The console's only script: live updates. The server says when a run
// changed (server-sent events); the page then fetches itself again and
// swaps in the new content, unless the person is typing in a form (the
// update waits until they leave it). What they typed and have not sent
// is kept across an update: an edited input swapped back to the call's
// own would be approved as the edit. Without this script the pages work
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

  // fieldKey names a form field by its call and name (each call's forms
  // have one field of a name).
  function fieldKey(f) {
    var art = f.closest("[data-call]");
    return (art ? art.getAttribute("data-call") : "") + "|" + f.name;
  }

  // changedFields are the fields whose value is not the one the page came
  // with: typed and not sent.
  function changedFields() {
    var kept = {};
    live.querySelectorAll("textarea, input[type=text]").forEach(function (f) {
      if (f.value !== f.defaultValue) kept[fieldKey(f)] = f.value;
    });
    return kept;
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
        var typed = changedFields();
        live.replaceChildren.apply(live, nodes);
        live.querySelectorAll("details").forEach(function (d) {
          var art = d.closest("[data-call]");
          if (keep.indexOf((art ? art.getAttribute("data-call") : "") + "|" + d.className) >= 0) d.open = true;
        });
        live.querySelectorAll("textarea, input[type=text]").forEach(function (f) {
          var k = fieldKey(f);
          if (Object.prototype.hasOwnProperty.call(typed, k)) f.value = typed[k];
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
