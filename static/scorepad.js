/* Scorepad: taps and drags on boards become small htmx requests, one at a time.
 *
 * A tap on any [data-tap] element inside #editor posts {q, r} (or {row, col}) with the
 * palette's tool, the player index and the sheet tag the board was drawn from. Requests are
 * chained, so fast taps are sent in order, each after the previous answer has been swapped in
 * (and so with the fresh tag). Boards marked data-drag paint every square the finger crosses
 * and send them in one request when it lifts.
 */
(function () {
  "use strict";
  var chain = Promise.resolve();

  function editor() { return document.getElementById("editor"); }

  function tool() {
    var t = document.querySelector("#palette input[name=tool]:checked");
    return t ? t.value : "";
  }

  function send(values) {
    chain = chain.then(function () {
      var ed = editor();
      if (!ed) { return null; }
      values.p = ed.dataset.player;
      values.v = ed.dataset.sheet;
      if (values.tool === undefined) { values.tool = tool(); }
      return htmx.ajax("POST", ed.dataset.tapUrl, {
        source: ed, target: "#editor", swap: "outerHTML", values: values
      });
    }).catch(function () { return null; });
  }
  window.scorepadTap = send;

  function cellValues(el) {
    var v = {};
    Object.keys(el.dataset).forEach(function (k) {
      if (k !== "tap") { v[k] = el.dataset[k]; }
    });
    return v;
  }

  /* Taps: click (mouse, touch, keyboard Enter on a focused cell). */
  document.addEventListener("click", function (e) {
    var cell = e.target.closest && e.target.closest("#editor [data-tap]");
    if (!cell || cell.closest("[data-drag]")) { return; }
    e.preventDefault();
    send(cellValues(cell));
  });
  document.addEventListener("keydown", function (e) {
    if (e.key !== "Enter" && e.key !== " ") { return; }
    var cell = e.target.closest && e.target.closest("#editor [data-tap]");
    if (!cell) { return; }
    e.preventDefault();
    send(cellValues(cell));
  });

  /* Drags: collect every square under the pointer until it lifts, then send them at once. */
  var painting = null;
  function squareAt(x, y) {
    var el = document.elementFromPoint(x, y);
    return el && el.closest ? el.closest("[data-drag] [data-tap]") : null;
  }
  function touch(sq) {
    if (!sq || !painting) { return; }
    var key = sq.dataset.row + "," + sq.dataset.col;
    if (painting.seen[key]) { return; }
    painting.seen[key] = true;
    painting.squares.push(key);
    sq.classList.add("painting");
  }
  document.addEventListener("pointerdown", function (e) {
    var sq = e.target.closest && e.target.closest("#editor [data-drag] [data-tap]");
    if (!sq) { return; }
    e.preventDefault();
    painting = { seen: {}, squares: [] };
    touch(sq);
  });
  document.addEventListener("pointermove", function (e) {
    if (painting) { touch(squareAt(e.clientX, e.clientY)); }
  });
  function finish() {
    if (!painting) { return; }
    var squares = painting.squares;
    painting = null;
    if (squares.length) { send({ squares: squares.join(";") }); }
  }
  document.addEventListener("pointerup", finish);
  document.addEventListener("pointercancel", finish);

  /* "Show why" switch: explanation overlays on or off, remembered on this phone. */
  function applyWhy() {
    var off = localStorage.getItem("scorepad.why") === "off";
    document.documentElement.classList.toggle("why-off", off);
    document.querySelectorAll("input[data-why]").forEach(function (b) { b.checked = !off; });
  }
  document.addEventListener("change", function (e) {
    if (e.target.matches && e.target.matches("input[data-why]")) {
      localStorage.setItem("scorepad.why", e.target.checked ? "on" : "off");
      applyWhy();
    }
  });
  document.addEventListener("htmx:afterSettle", applyWhy);
  document.addEventListener("DOMContentLoaded", applyWhy);

  /* A dropped connection must not look like a stored tap. */
  document.addEventListener("htmx:sendError", function () {
    var f = document.getElementById("flash");
    if (f) { f.innerHTML = '<div class="flash flash-error"><strong>No connection.</strong> That tap was not saved.</div>'; }
  });
  document.addEventListener("htmx:beforeRequest", function () {
    var f = document.getElementById("flash");
    if (f) { f.innerHTML = ""; }
  });
})();
