/* Scorepad: one table, many phones.
 *
 * Every edit inside #editor (taps, fields, undo, redo) carries what the page was drawn from:
 * `v`, the tag of the player's sheet, and `tv`, the table's version. The server refuses a
 * stale edit (409) and answers with the fresh board, so no phone silently overwrites another.
 *
 * #live polls the table (htmx, every 1.5 s while the page is visible; 204 when nothing
 * changed). When an answer shows that the board on screen changed on another phone, the
 * board is fetched again, queued behind this phone's own taps.
 */
(function () {
  "use strict";

  function editor() { return document.getElementById("editor"); }

  document.addEventListener("htmx:configRequest", function (e) {
    var ed = editor();
    var elt = e.detail.elt;
    if (!ed || e.detail.verb !== "post" || !(elt === ed || ed.contains(elt))) { return; }
    var params = e.detail.parameters;
    function put(key, value) {
      if (params instanceof FormData) {
        if (!params.has(key)) { params.set(key, value); }
      } else if (params[key] === undefined) {
        params[key] = value;
      }
    }
    put("p", ed.dataset.player);
    put("v", ed.dataset.sheet);
    put("tv", ed.dataset.version);
  });

  /* The field a form's change came from: the form sends every field, a refused one still
   * holding what was typed, so the server is told which one changed and reads that one
   * only (a bonus changed after a refused crystals count is kept, not refused with the
   * crystals' message). */
  var changed = null;
  document.addEventListener("change", function (e) { changed = e.target; }, true);
  /* Buttons in a list drawn again under the finger (a card's ✕, a search match's Add:
   * data-shifting). A double tap's second half would land on the next card's button, drawn
   * where the first one was, and remove or add a second card: while one such press is
   * answered, and for SHIFT_SETTLE ms after, they take no press. */
  var SHIFT_SETTLE = 500;
  var shifting = false, shiftedAt = 0;
  function shiftPress(elt) {
    if (!elt.matches("[data-shifting]")) { return null; }
    if (shifting || Date.now() - shiftedAt < SHIFT_SETTLE) { return false; }
    shifting = true;
    return function () { shifting = false; shiftedAt = Date.now(); };
  }

  /* Fields, buttons, undo and redo inside #editor take their turn in the tap chain. A field
   * changes when it loses the focus, often because a board cell was just tapped: sent side by
   * side, both would carry the same sheet tag and the second would be refused as stale. In
   * the chain each is sent after the previous answer is on screen, with its fresh tag. */
  document.addEventListener("htmx:confirm", function (e) {
    var ed = editor();
    var elt = e.detail.elt;
    if (!ed || !window.scorepadQueue || e.detail.verb !== "post" || elt === ed
        || !ed.contains(elt) || elt.hasAttribute("hx-encoding")) { return; }  /* a photo: sent as is */
    e.preventDefault();
    /* A button pressed shows it is waiting, and a second press cannot undo a second step
     * (aria-busy rather than disabled: the keyboard focus stays on it). */
    var button = elt.tagName === "BUTTON" ? elt : null;
    if (button && button.getAttribute("aria-busy") === "true") { return; }
    if (e.detail.question && !window.confirm(e.detail.question)) { return; }
    var settled = shiftPress(elt);
    if (settled === false) { return; }
    var form = htmx.values(elt, "post");
    var values = form && form.toJSON ? form.toJSON() : {};
    var extra = elt.closest("[hx-vals]");
    if (extra && ed.contains(extra)) {
      try { Object.assign(values, JSON.parse(extra.getAttribute("hx-vals"))); } catch (err) { /* none */ }
    }
    if (elt.tagName === "FORM" && changed && changed.form === elt && changed.name) {
      values.changed = changed.name;
    }
    var path = e.detail.path;
    if (button) { button.setAttribute("aria-busy", "true"); }
    function done() {
      if (button) { button.removeAttribute("aria-busy"); }
      if (settled) { settled(); }
    }
    window.scorepadQueue(function () {
      var now = editor();
      if (!now) { done(); return null; }
      var sent;
      try {
        sent = htmx.ajax("POST", path, { source: now, target: "#editor", swap: "outerHTML", values: values });
      } catch (err) {
        done(); /* never a button left busy, nor the list's buttons locked */
        throw err;
      }
      return sent.finally(done);
    });
  });

  /* A player's tab takes its turn in the chain too: asked beside a tap, its answer came
   * for an editor the tap's answer had replaced, and was lost while the address (pushed
   * by the tab) already named the other player. */
  document.addEventListener("htmx:confirm", function (e) {
    var elt = e.detail.elt;
    if (!window.scorepadRedraw || e.detail.verb !== "get" || !elt.closest
        || !elt.closest("#editor #player-tabs")) { return; }
    e.preventDefault();
    /* `tab`: the answer carries HX-Push-Url, so htmx keeps the history (Back works). */
    window.scorepadRedraw(e.detail.path, { tab: "1" });
  });

  /* The address names the player on screen after a change's answer (a tap made on Anna's
   * board after Boris's tab was asked for shows Anna again). Only after a POST: a tab's
   * answer pushes its own address, and the entry before it must stay as it was. */
  document.addEventListener("htmx:afterSwap", function (e) {
    var ed = editor();
    var config = e.detail.requestConfig;
    if (!config || config.verb !== "post") { return; }
    if (!ed || !ed.dataset.player || !/[?&]p=/.test(location.search)) { return; }
    var url = new URL(location.href);
    if (url.searchParams.get("p") === ed.dataset.player) { return; }
    url.searchParams.set("p", ed.dataset.player);
    history.replaceState(history.state, "", url.pathname + url.search + url.hash);
  });

  /* A field of the editor being typed in (a count, a tally): a redraw now would put the
   * stored value back under the cursor and the typed one would be lost unsaid; a drag's
   * painted squares would vanish from under the finger. */
  var FIELD = "input:not([type=hidden]):not([type=checkbox]):not([type=radio]):not([type=file]), textarea";
  function typing(ed) {
    var field = document.activeElement;
    if (window.scorepadPainting && window.scorepadPainting()) { return true; } /* a drag */
    return !!field && ed.contains(field) && field.matches(FIELD);
  }
  var afterField = false;
  function catchUp() {
    var live = document.getElementById("live");
    var ed = editor();
    if (!live || !ed || !live.dataset.sheet) { return; }
    var newer = Number(live.dataset.version) > Number(ed.dataset.version);
    /* Another phone's step (an undo of its own) can allow or forbid this phone's Undo
     * without changing its board: the buttons are redrawn then too. */
    var steps = ed.querySelector(".undo[data-steps]");
    var stepsMoved = steps && live.dataset.steps !== undefined && live.dataset.steps !== steps.dataset.steps;
    if (!newer || (live.dataset.sheet === ed.dataset.sheet && !stepsMoved)) { return; }
    var url = ed.dataset.showUrl;
    if (!window.scorepadRedraw || !url) { return; }
    if (typing(ed)) { afterField = true; return; } /* when the field is left (and sent) */
    window.scorepadRedraw(url, null, function (now) {
      return Number(now.dataset.version) >= Number(live.dataset.version);
    });
  }
  document.addEventListener("htmx:afterSwap", function (e) {
    var live = e.detail.target;
    if (live && live.id === "live") { catchUp(); }
  });
  /* Left after its change was sent (change comes first), so the redraw queues behind it;
   * a drag likewise, once its squares are sent. */
  function heldRedraw() {
    if (!afterField) { return; }
    afterField = false;
    setTimeout(catchUp, 0);
  }
  document.addEventListener("focusout", heldRedraw);
  document.addEventListener("scorepad:painted", heldRedraw);

  /* Answers can cross: a board fetched before this phone's undo may arrive after it. Never
   * swap an older board over a newer one (versions only grow, undo and redo included). */
  document.addEventListener("htmx:beforeSwap", function (e) {
    var ed = editor();
    if (!ed || e.detail.target !== ed) { return; }
    var found = /id="editor" data-version="(\d+)"/.exec(e.detail.serverResponse || "");
    if (found && Number(found[1]) < Number(ed.dataset.version)) {
      e.detail.shouldSwap = false;
      return;
    }
    /* A poll still on its way was asked before this answer: arriving after it, its
     * standings and tabs (swapped out of band, whatever became of the #live that asked)
     * would put back the scores from before. It is called off; the new #live asks again. */
    var live = document.getElementById("live");
    if (live && ed.contains(live)) { htmx.trigger(live, "htmx:abort"); }
  });

  /* The table was deleted while this page was open: the poll's answer, 286, stopped the
   * polling (htmx) and put "Table deleted" in the banner. The page no longer looks or acts
   * editable: it is inert (no tap, field or button takes a press or the focus) and greyed,
   * and the banner keeps its message (data-lasting: no later answer is swapped over it,
   * nor does the player's next click clear it). */
  document.addEventListener("htmx:afterRequest", function (e) {
    var elt = e.detail.elt, xhr = e.detail.xhr;
    if (!elt || elt.id !== "live" || !xhr || xhr.status !== 286) { return; }
    var main = document.getElementById("main");
    if (main) {
      main.inert = true;
      main.setAttribute("inert", "");  /* the attribute too, for CSS and older engines */
      main.classList.add("gone");
    }
    /* The banner sits at the top of the page: a player scrolled down to the board saw it
     * go grey and ignore taps with no reason in sight. */
    var flash = document.getElementById("flash");
    if (flash) { flash.scrollIntoView({block: "start"}); }
  });
  document.addEventListener("htmx:beforeSwap", function (e) {
    var target = e.detail.target;
    if (target && target.id === "flash" && target.querySelector("[data-lasting]")) {
      e.detail.shouldSwap = false;
    }
  });

  /* "Copy the recap": the clipboard when the browser allows it, else the text selected. */
  document.addEventListener("click", function (e) {
    var button = e.target.closest && e.target.closest("[data-copy]");
    if (!button) { return; }
    var field = document.querySelector(button.dataset.copy);
    if (!field) { return; }
    field.select();
    var done = function () { button.textContent = button.dataset.copied || button.textContent; };
    if (navigator.clipboard && window.isSecureContext) {
      navigator.clipboard.writeText(field.value).then(done, function () {});
    } else {
      try { document.execCommand("copy"); done(); } catch (err) { /* the text stays selected */ }
    }
  });
})();
