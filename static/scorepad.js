/* Scorepad: taps and drags on boards become small htmx requests, one at a time.
 *
 * A tap on any [data-tap] element inside #editor posts {q, r} (or {row, col}) with the
 * palette's tool, the player index and the sheet tag the board was drawn from. Requests are
 * chained, so fast taps are sent in order, each after the previous answer has been swapped in
 * (and so with the fresh tag). Boards marked data-drag paint every square the finger crosses
 * and send them in one request when it lifts.
 *
 * A tap that fails for want of a connection is not lost: it stays in the chain and is sent
 * again with backoff (0.5 s, 1 s, 2 s, ... at most 8 s, at once when the phone says it is
 * online again) while a small banner says the phone is offline; no answer within 20 s counts
 * as none. Answers from the server (200, 409, 422, 5xx) are never retried. A 5xx the app did
 * not write (a proxy's 502 page while the server restarts) is never swapped over the page: a
 * banner says the change may not be saved and the board is fetched again as stored (the
 * app's own 5xx answers, a photo the recogniser failed on, are shown as they come).
 *
 * Also here: the service worker's registration, the dark-theme switch, the language links,
 * the screen-reader summary of the live breakdown, and arrow keys on Spring Meadow boards.
 */
(function () {
  "use strict";
  var chain = Promise.resolve();

  function editor() { return document.getElementById("editor"); }

  function tool() {
    var t = document.querySelector("#palette input[name=tool]:checked");
    return t ? t.value : "";
  }

  var waiting = 0;      /* taps sent or queued, not yet answered */
  var offline = false;  /* the last tap failed for want of a connection */
  var unheard = 0;      /* live polls in a row that got no answer */
  var wakeUp = null;    /* ends the current backoff early when the phone is online again */

  function netStatus() {
    var box = document.getElementById("netstatus");
    if (!box) { return; }
    var msg = offline ? document.body.dataset.msgOffline
      : (waiting && box.dataset.shown === "offline") ? document.body.dataset.msgSending
      : unheard >= 2 ? document.body.dataset.msgStale : "";
    if (msg) {
      box.textContent = msg;
      box.hidden = false;
      box.dataset.shown = offline ? "offline" : "sending";
    } else {
      box.hidden = true;
      box.textContent = "";
      box.dataset.shown = "";
    }
  }

  function pause(ms) {
    return new Promise(function (resolve) {
      var timer = setTimeout(done, ms);
      function done() { clearTimeout(timer); wakeUp = null; resolve(); }
      wakeUp = done;
    });
  }

  /* The wait before sending again after ``tries`` failed sendings: 0.5 s, doubling, at
   * most 8 s. */
  function backoff(tries) { return pause(Math.min(8000, 500 * Math.pow(2, tries))); }
  window.addEventListener("online", function () { if (wakeUp) { wakeUp(); } });
  /* A page only watched (results, big screen) sends no taps: its polls failing twice in a
   * row say that the scores shown may be old, until one is answered again. */
  function poll(e) {
    var elt = e.detail && e.detail.requestConfig ? e.detail.requestConfig.elt : null;
    return !!elt && elt.id === "live";
  }
  function unanswered(e) {
    if (!poll(e)) { return; }
    unheard += 1;
    netStatus();
  }
  document.addEventListener("htmx:sendError", unanswered);
  document.addEventListener("htmx:timeout", unanswered);
  document.addEventListener("htmx:afterOnLoad", function (e) {
    if (!poll(e)) { return; }
    var xhr = e.detail.xhr;
    /* A proxy's 5xx is no answer from the app (its own carry Scorepad-Answer). */
    unheard = xhr.status < 500 || xhr.getResponseHeader("Scorepad-Answer") ? 0 : unheard + 1;
    netStatus();
  });

  /* ``state.online``: whether any sending of this tap was made while the phone had a
   * network (it may have reached the server, only its answer lost). */
  function attempt(values, tries, state) {
    var ed = editor();
    if (!ed) { return null; }
    state = state || { online: false };
    if (tries === 0) {
      /* The sheet tag of the board on screen now: earlier taps in the chain changed it. */
      values.v = ed.dataset.player === values.p ? ed.dataset.sheet : "";
    } else {
      /* Sent again with the same tag: if the first sending was stored after all (only its
       * answer was lost), the server's 409 says so instead of blaming another phone. */
      values.retry = "1";
    }
    if (navigator.onLine !== false) { state.online = true; }
    return htmx.ajax("POST", ed.dataset.tapUrl, {
      source: ed, target: "#editor", swap: "outerHTML", values: values
    }).then(function () {
      offline = false;
    }, function () {
      /* htmx rejects only when no answer came: no connection, or it dropped. */
      offline = true;
      netStatus();
      /* Every sending made with no network at all: the tap never left the phone, and it is
       * sent as new, on the board as it stands by then (re-sent as "maybe stored already"
       * with the old tag, a board another phone changed meanwhile refused it, while the
       * taps queued after it landed). Once one went out online it may be stored: never
       * sent as new again (a rail would turn twice, a token be stacked twice). */
      return backoff(tries).then(function () {
        return state.online ? attempt(values, tries + 1, state) : afresh(values, tries + 1, state);
      });
    });
  }

  /* A tap that never left the phone, sent once it is back online: the board is fetched
   * first (another phone may have changed it), then the tap goes as a first sending. */
  function afresh(values, tries, state) {
    var ed = editor();
    if (!ed) { return null; }
    if (!ed.dataset.showUrl) { return attempt(values, tries, state); }
    return htmx.ajax("GET", ed.dataset.showUrl, { source: ed, target: "#editor", swap: "outerHTML" })
      .then(function () {
        delete values.retry;
        return attempt(values, 0, state);
      }, function () {
        return backoff(tries).then(function () {
          return afresh(values, tries + 1, state);
        });
      });
  }

  function send(values) {
    var ed = editor();
    if (!ed) { return; }
    /* What the player meant at the moment of the tap: this tool, this player's board. */
    if (values.tool === undefined) { values.tool = tool(); }
    values.p = ed.dataset.player;
    waiting += 1;
    chain = chain.then(function () { return attempt(values, 0); })
      .catch(function () { return null; })
      .then(function () {
        waiting -= 1;
        netStatus();
        if (waiting) { return; }
        keptMessage = null;
        /* Every tap is answered: an answer said in the banner (the app's own 500, an
         * expired page) left its hex outlined as waiting. */
        document.querySelectorAll("#editor .queued").forEach(function (el) {
          el.classList.remove("queued");
        });
      });
  }
  window.scorepadTap = send;
  /* live.js queues board refreshes behind the taps, so they never overtake one. */
  window.scorepadQueue = function (fn) {
    chain = chain.then(fn).catch(function () { return null; });
  };
  /* The editor drawn again from `url` in its turn behind the taps (`values` join the GET;
   * `unless(editor)` calls it off when the board on screen is new enough by then). */
  function redraw(url, values, unless) {
    window.scorepadQueue(function () {
      var now = editor();
      if (!now || (unless && unless(now))) { return null; }
      var ask = { source: now, target: "#editor", swap: "outerHTML" };
      if (values) { ask.values = values; }
      return htmx.ajax("GET", url, ask);
    });
  }
  window.scorepadRedraw = redraw;

  /* A photo being read holds the chain: a tap (or a live refresh) answered meanwhile would
   * replace the editor and the photo form in it, and the reading's answer would be dropped
   * unseen. Taps made while it is read are sent after its answer, on the board it read, and
   * the photo's message (read, refused, a layout warning) stays up through their answers. */
  var photoForm = null;     /* the editor's photo form whose request holds the chain */
  var photoRead = null;     /* ends the hold */
  /* A message to keep on the editor while the taps after it are answered (each answer
   * replaces the editor): a photo's, or a refusal's (a 409 says "tap again"). */
  var keptMessage = null;
  document.addEventListener("htmx:beforeRequest", function (e) {
    var form = e.detail.elt;
    if (!form.matches || !form.matches(".photo-form")) { return; }
    var said = document.getElementById("photo-message");
    if (said) { said.innerHTML = ""; }
    if (photoRead || !form.matches("#editor .photo-form")) { return; }
    photoForm = form;
    var hold = new Promise(function (resolve) { photoRead = resolve; });
    chain = chain.then(function () { return hold; });
  });
  function photoAnswered(e) {
    /* After the answer was swapped in the form is gone from the page, so htmx fires this
     * on an ancestor still there: the request's own element is in its requestConfig. */
    var config = e.detail.requestConfig;
    if (!photoRead || !config || config.elt !== photoForm) { return; }
    var done = photoRead;
    photoRead = null;
    photoForm = null;
    var said = document.getElementById("photo-message");
    /* A refusal said beside the button (413) leaves the editor's message an old one. */
    var msg = said && said.textContent.trim() ? null : document.getElementById("editor-message");
    keptMessage = waiting && msg ? msg.cloneNode(true) : null;
    if (msg && msg.scrollIntoView) { msg.scrollIntoView({ block: "nearest" }); }
    focusMessage(said && said.textContent.trim() ? said : msg);
    done();
  }
  /* Whether the focus fell to the page: on the body, or (Chromium blurs a removed element
   * only when it next renders) on an element no longer in the page. */
  function focusLost() {
    var now = document.activeElement;
    return !now || now === document.body || !now.isConnected;
  }
  /* The answer replaced the editor, and with it the photo button that had the focus: the
   * focus fell to the page. It goes to the photo's message instead, so that the keyboard
   * goes on from there and a screen reader reads it. */
  function focusMessage(msg) {
    if (!msg || !focusLost()) { return; }
    msg.setAttribute("tabindex", "-1");
    msg.focus({ preventScroll: true });
  }
  document.addEventListener("htmx:afterRequest", photoAnswered);
  document.addEventListener("htmx:sendError", photoAnswered);
  /* A tap refused (403, 409, 422) while more taps wait: its message outlives their answers. */
  document.addEventListener("htmx:afterRequest", function (e) {
    var status = e.detail.xhr ? e.detail.xhr.status : 0;
    if (waiting < 2 || [403, 409, 422].indexOf(status) < 0) { return; }
    var msg = document.getElementById("editor-message");
    if (msg) { keptMessage = msg.cloneNode(true); }
  });
  document.addEventListener("htmx:afterSettle", function () {
    var ed = editor();
    if (!keptMessage || !ed || document.getElementById("editor-message")) { return; }
    var live = document.getElementById("live");
    var copy = keptMessage.cloneNode(true);
    if (live && live.parentNode === ed) { live.after(copy); } else { ed.prepend(copy); }
  });
  /* A photo form still on the page after its answer (a 413 said beside it, a layout
   * screen) is emptied, so that picking the same file again sends it again; a message
   * said beside it is scrolled into view, and the editor's older message goes. */
  document.addEventListener("htmx:afterRequest", function (e) {
    var form = e.detail.elt;
    if (!form || !form.matches || !form.matches(".photo-form") || !form.isConnected) { return; }
    form.reset();
    var said = document.getElementById("photo-message");
    if (said && said.textContent.trim()) {
      var old = document.getElementById("editor-message");
      if (old) { old.remove(); }
      if (said.scrollIntoView) { said.scrollIntoView({ block: "nearest" }); }
    }
  });
  /* A question before the photo is sent (data-confirm: reading a layout over one that is
   * not blank); answered no, the file is let go, so that it can be chosen again. A photo
   * over the server's limit is not sent at all: the server would refuse it only after
   * minutes of sending over a phone's connection. */
  document.addEventListener("htmx:confirm", function (e) {
    var form = e.detail.elt;
    if (!form.matches || !form.matches(".photo-form")) { return; }
    var file = form.querySelector("input[type=file]");
    var most = Number(form.dataset.maxBytes || 0);
    if (most && file && file.files.length && file.files[0].size > most) {
      e.preventDefault();
      var said = form.querySelector("#photo-message");
      if (said) { said.textContent = form.dataset.tooLarge; }
      form.reset();
      return;
    }
    if (!form.matches("[data-confirm]")) { return; }
    e.preventDefault();
    if (window.confirm(form.dataset.confirm)) { e.detail.issueRequest(true); } else { form.reset(); }
  });

  function cellValues(el) {
    var v = {};
    Object.keys(el.dataset).forEach(function (k) {
      if (k !== "tap") { v[k] = el.dataset[k]; }
    });
    return v;
  }

  /* The paper check's typed lines, every player's, survive a reload and Back (htmx's
   * history keeps the page's markup, not what was typed into it): kept per table in the
   * tab's sessionStorage, and sent again to be compared when the page comes back without
   * them. */
  function checkForm() { return document.querySelector("#check form[hx-post]"); }
  /* Every player's lines in the form, as typed (or, ``drawn``, as the server drew them:
   * what its differences were worked out from). */
  function checkLines(form, drawn) {
    var lines = {}, here = form.elements.p ? form.elements.p.value : "0";
    Array.prototype.forEach.call(form.elements, function (el) {
      var m = /^cat_(\w+)$/.exec(el.name) || /^keep_(\d+)_(\w+)$/.exec(el.name);
      var value = drawn ? el.defaultValue : el.value;
      if (!m || !value.trim()) { return; }
      var who = m.length === 3 ? m[1] : here, key = m.length === 3 ? m[2] : m[1];
      (lines[who] = lines[who] || {})[key] = value;
    });
    return lines;
  }
  function keepCheck() {
    var form = checkForm();
    if (!form) { return; }
    try {
      sessionStorage.setItem("scorepad-check:" + form.getAttribute("hx-post"), JSON.stringify(checkLines(form)));
    } catch (err) { /* storage full or off: only a reload loses the lines */ }
  }
  function sameLines(a, b) {
    function flat(lines) {
      return Object.keys(lines).sort().map(function (who) {
        return who + ":" + Object.keys(lines[who]).sort().map(function (k) { return k + "=" + lines[who][k]; }).join(",");
      }).join(";");
    }
    return flat(a) === flat(b);
  }
  function restoreCheck() {
    var form = checkForm();
    if (!form) { return; }
    var kept = null;
    try { kept = JSON.parse(sessionStorage.getItem("scorepad-check:" + form.getAttribute("hx-post")) || "null"); } catch (err) { kept = null; }
    /* Compared with the lines the server drew, not those in the fields: a browser that
     * puts typed values back itself leaves the differences drawn for empty fields. */
    if (!kept || !Object.keys(kept).length || sameLines(kept, checkLines(form, true))) { return; }
    var here = form.elements.p.value, values = {};
    Array.prototype.forEach.call(form.elements, function (el) {
      if (/^(cat|keep)_/.test(el.name)) { values[el.name] = ""; } /* a line cleared stays so */
    });
    Object.keys(kept).forEach(function (who) {
      Object.keys(kept[who]).forEach(function (key) {
        values[who === here ? "cat_" + key : "keep_" + who + "_" + key] = kept[who][key];
      });
    });
    htmx.ajax("POST", form.getAttribute("hx-post"), { source: form, target: "#check", swap: "outerHTML", values: values });
  }
  /* A page put back by Back is not what was typed: it is not kept, it is restored. */
  var restoring = false;
  window.addEventListener("popstate", function () {
    restoring = true;
    setTimeout(function () { restoring = false; }, 20000); /* a Back htmx does not restore */
  });
  document.addEventListener("htmx:historyCacheMissLoadError", function () { restoring = false; });
  document.addEventListener("input", function (e) { if (e.target.closest && e.target.closest("#check form")) { keepCheck(); } });
  document.addEventListener("htmx:afterSettle", function () { if (!restoring) { keepCheck(); } });
  document.addEventListener("htmx:historyRestore", function () { restoring = false; restoreCheck(); });
  document.addEventListener("DOMContentLoaded", restoreCheck);
  window.addEventListener("pageshow", function (e) { if (e.persisted) { restoreCheck(); } });

  /* A name from earlier tables, tapped: into the first empty seat of the new-table form
   * (a name already seated is not seated twice). */
  function seatNames(form) {
    return Array.prototype.filter.call(form.elements, function (el) {
      return /^name_\d+$/.test(el.name);
    });
  }
  function markSeated(form) {
    var taken = seatNames(form).map(function (el) { return el.value.trim().toLowerCase(); });
    form.querySelectorAll("[data-roster-name]").forEach(function (b) {
      b.disabled = taken.indexOf(b.dataset.rosterName.toLowerCase()) >= 0;
    });
  }
  document.addEventListener("click", function (e) {
    var b = e.target.closest && e.target.closest("[data-roster-name]");
    if (!b || !b.form) { return; }
    var empty = seatNames(b.form).filter(function (el) { return !el.value.trim(); })[0];
    var said = document.getElementById("roster-said");
    if (!empty) { if (said) { said.textContent = said.dataset.full; } return; }
    empty.value = b.dataset.rosterName;
    if (said) { said.textContent = ""; }
    /* The button is spent (disabled): the focus goes to the seat it filled, which a screen
     * reader then reads out ("Player 2, Boris"), instead of falling to the page. */
    empty.focus();
    markSeated(b.form);
  });
  document.addEventListener("input", function (e) {
    if (e.target.form && /^name_\d+$/.test(e.target.name || "")) { markSeated(e.target.form); }
  });
  function markAllSeated() {
    var hint = document.getElementById("roster-hint");
    if (hint && hint.closest("form")) { markSeated(hint.closest("form")); }
  }
  document.addEventListener("htmx:afterSettle", markAllSeated);
  document.addEventListener("DOMContentLoaded", markAllSeated);

  /* Taps: click (mouse, touch, keyboard Enter on a focused cell). */
  document.addEventListener("click", function (e) {
    var cell = e.target.closest && e.target.closest("#editor [data-tap]");
    if (!cell || cell.closest("[data-drag]")) { return; }
    e.preventDefault();
    cell.classList.add("queued");
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
  /* A second finger is a pinch (the board lets the browser zoom: touch-action pinch-zoom),
   * which cancels the pointers: the squares the first finger went over are not painted. */
  function abandon() {
    if (!painting) { return; }
    painting = null;
    document.querySelectorAll("#editor .painting").forEach(function (sq) { sq.classList.remove("painting"); });
  }
  document.addEventListener("pointerdown", function (e) {
    if (!e.isPrimary) { abandon(); return; }
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
    document.dispatchEvent(new CustomEvent("scorepad:painted"));
  }
  document.addEventListener("pointerup", finish);
  document.addEventListener("pointercancel", function () {
    abandon();
    document.dispatchEvent(new CustomEvent("scorepad:painted"));
  });
  /* live.js holds a redraw while a drag is painting (it would wipe the squares shown). */
  window.scorepadPainting = function () { return !!painting; };

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

  function flash(text) {
    var f = document.getElementById("flash");
    if (!f || !text || f.querySelector("[data-lasting]")) { return; }
    f.innerHTML = "";
    var box = document.createElement("div");
    box.className = "flash flash-error";
    box.textContent = text;
    f.appendChild(box);
  }
  /* Requests nobody asked for just now: the live poll, and a board fetched again. */
  function background(d) {
    var elt = d.requestConfig ? d.requestConfig.elt : d.elt;
    var verb = d.requestConfig ? d.requestConfig.verb : "";
    var path = d.pathInfo ? d.pathInfo.finalRequestPath || "" : "";
    var tab = /[?&]tab=1/.test(path);  /* a player's tab: the player asked for it */
    return !!elt && (elt.id === "live" || (verb === "get" && elt === editor() && !tab));
  }
  /* A dropped connection must not look like a stored change. Taps are retried (above);
   * any other change (a field, undo) says it was not saved. */
  function lost(message) {
    return function (e) {
      var ed = editor();
      var d = e.detail || {};
      var path = d.pathInfo ? d.pathInfo.requestPath : "";
      var verb = d.requestConfig ? d.requestConfig.verb : "";
      if ((ed && path === ed.dataset.tapUrl) || verb === "get") { return; }
      flash(document.body.dataset[message]);
    };
  }
  document.addEventListener("htmx:sendError", lost("msgLost"));
  /* No answer in time: the change may have been stored all the same. */
  document.addEventListener("htmx:timeout", lost("msgServer"));
  /* A 5xx the app did not write (its own answers carry Scorepad-Answer): a proxy's page
   * while the server restarts, a gateway's timeout. Swapped in, it would replace the board
   * and its live poll with the proxy's text until a reload; instead the page stays, a poll
   * simply tries again, and after a change the board is fetched again as stored. */
  document.addEventListener("htmx:beforeSwap", function (e) {
    var d = e.detail;
    if (!d.xhr || d.xhr.status < 500 || d.xhr.getResponseHeader("Scorepad-Answer")) { return; }
    d.shouldSwap = false;
    d.isError = false;
    if (background(d)) { return; }
    flash(document.body.dataset.msgServer);
    var ed = editor();
    if (ed && ed.dataset.showUrl) { redraw(ed.dataset.showUrl); }
  });
  /* A banner stays until the player does something after it: neither a poll nor a tap
   * made before it (still on its way when a photo failed) may wipe it unread. */
  function clearFlash() {
    var f = document.getElementById("flash");
    if (f && !f.querySelector("[data-lasting]")) { f.innerHTML = ""; } /* a deleted table's */
  }
  document.addEventListener("click", clearFlash, true);
  document.addEventListener("change", clearFlash, true);
  /* Taps still waiting live in this page only: leaving it would drop them. */
  window.addEventListener("beforeunload", function (e) {
    if (!waiting) { return; }
    e.preventDefault();
    e.returnValue = "";
  });

  /* Installable and offline: the service worker (served from /sw.js, scope /), registered
   * once the page has settled so that its downloads never slow the first taps. */
  if ("serviceWorker" in navigator && document.body && document.body.dataset.sw) {
    window.addEventListener("load", function () {
      setTimeout(function () {
        navigator.serviceWorker.register(document.body.dataset.sw, { scope: "/" })
          .catch(function () { return null; });
      }, 1500);
    });
  }

  /* Dark theme: the phone's setting until the player flips the switch; the cookie lets the
   * server render the next page in the chosen theme from its first paint. */
  function darkNow() {
    var chosen = document.documentElement.dataset.theme;
    if (chosen) { return chosen === "dark"; }
    return window.matchMedia && window.matchMedia("(prefers-color-scheme: dark)").matches;
  }
  function showTheme() {
    var button = document.getElementById("theme-toggle");
    if (button) { button.setAttribute("aria-pressed", darkNow() ? "true" : "false"); }
  }
  document.addEventListener("click", function (e) {
    var button = e.target.closest && e.target.closest("#theme-toggle");
    if (!button) { return; }
    var theme = darkNow() ? "light" : "dark";
    document.documentElement.dataset.theme = theme;
    document.cookie = "theme=" + theme + "; path=/; max-age=31536000; samesite=lax";
    showTheme();
  });
  document.addEventListener("DOMContentLoaded", showTheme);

  /* Language links come back to this very page (htmx may have changed the address). */
  document.addEventListener("click", function (e) {
    var link = e.target.closest && e.target.closest(".langs a");
    if (!link) { return; }
    var url = new URL(link.href, location.href);
    url.searchParams.set("next", location.pathname + location.search);
    link.href = url.pathname + url.search;
  });

  /* Screen readers: the live breakdown's totals are read out after each change, from a
   * region that stays on the page while the editor around it is swapped. */
  /* At a table of three or more, a change says only the totals it changed, then who leads
   * ("Vera 17. Leading: Vera."): every player's total after each tap was long to hear. */
  var lastSummary = null, lastTotals = null;
  function said(breakdown, summary) {
    var names = JSON.parse(breakdown.dataset.names || "[]");
    var totals = JSON.parse(breakdown.dataset.totals || "[]");
    var before = lastTotals;
    lastTotals = { names: names.join("\n"), totals: totals };
    if (!before || before.names !== lastTotals.names || names.length < 3) { return summary; }
    var changed = names.map(function (name, i) {
      return totals[i] !== before.totals[i] ? name + " " + totals[i] : null;
    }).filter(Boolean);
    if (!changed.length || changed.length === names.length) { return summary; }
    return (changed.join(", ") + ". " + (breakdown.dataset.lead || "")).trim();
  }
  function announce() {
    var region = document.getElementById("live-summary");
    var breakdown = document.getElementById("breakdown");
    if (!region || !breakdown) { return; }
    var summary = breakdown.dataset.summary || "";
    var text = said(breakdown, summary);
    if (lastSummary !== null && summary !== lastSummary) { region.textContent = text; }
    lastSummary = summary;
  }
  document.addEventListener("DOMContentLoaded", announce);
  document.addEventListener("htmx:afterSettle", announce);

  /* Keyboard players keep their place: what had the focus before a region was swapped (the
   * editor, the paper check: any swap target with an id) gets it back in the new region,
   * found by what it is (a cell's place, a field's name, a button's action, a link's
   * address, an id), else by its place among the region's focusable elements, the next
   * enabled one when that one is now disabled. (Undo and Redo are never disabled: with
   * nothing left to take they are aria-disabled and keep the focus, which had moved on
   * from the last Undo to Redo, where Enter again redid the step.) */
  var FOCUSABLE = "a[href], button, input, select, textarea, summary, [tabindex]";
  var focused = null;
  function attr(name, value) { return "[" + name + '="' + String(value).replace(/["\\]/g, "\\$&") + '"]'; }
  function focusKey(el) {
    var d = el.dataset;
    if (el.closest("[data-tap]") === el) {
      return d.row !== undefined ? attr("data-row", d.row) + attr("data-col", d.col)
        : d.q !== undefined ? attr("data-q", d.q) + attr("data-r", d.r)
        : d.line !== undefined ? attr("data-line", d.line) : null;
    }
    if (el.id) { return attr("id", el.id); }
    if (el.name) {
      var key = el.tagName.toLowerCase() + attr("name", el.name);
      return el.type === "checkbox" || el.type === "radio" || el.tagName === "BUTTON"
        ? key + attr("value", el.value) : key;
    }
    if (el.tagName === "A" && el.getAttribute("href")) { return "a" + attr("href", el.getAttribute("href")); }
    var details = el.tagName === "SUMMARY" && el.parentNode.id;
    return details ? attr("id", details) + " > summary" : null;
  }
  document.addEventListener("htmx:beforeSwap", function (e) {
    var el = document.activeElement, region = e.detail.target;
    focused = null;
    if (!el || !region || !region.id || el === region || !region.contains(el)) { return; }
    if (el.closest("#editor .photo-form")) { return; } /* its answer focuses its message */
    var all = Array.prototype.slice.call(region.querySelectorAll(FOCUSABLE));
    focused = { region: region.id, key: focusKey(el), index: all.indexOf(el) };
  });
  function usable(el) { return el && !el.disabled && el.getClientRects().length > 0; }
  /* The element of a swapped region that stands for `was` (its key, else its place). */
  function sameIn(region, was) {
    var el = was.key ? region.querySelector(was.key) : null;
    if (!usable(el) && was.index >= 0) {
      var all = Array.prototype.slice.call(region.querySelectorAll(FOCUSABLE));
      el = all.slice(was.index).filter(usable)[0] || all.slice(0, was.index).filter(usable).pop();
    }
    return el;
  }
  document.addEventListener("htmx:afterSettle", function () {
    var was = focused;
    focused = null;
    var region = was && document.getElementById(was.region);
    if (!region || !focusLost()) {
      return; /* another handler (a photo's message) placed it already */
    }
    var el = sameIn(region, was);
    if (!usable(el)) { return; }
    var grid = el.closest("[data-drag]");
    if (grid && el.closest("[data-tap]") === el) {
      grid.querySelectorAll('[tabindex="0"]').forEach(function (o) { o.setAttribute("tabindex", "-1"); });
      el.setAttribute("tabindex", "0");
    }
    el.focus({ preventScroll: true });
  });

  /* A field's value refused (422: "Bonuses used: at most 3"): the editor comes back with the
   * stored value, and what was typed would be gone. It is put back in its field, marked
   * invalid and described by the message, with the focus, so that it is corrected there. */
  /* A field refused because another phone changed the sheet meanwhile (409) is sent
   * again, once, on the sheet as it now stands: what was typed is kept, not lost with a
   * "make your change again" (the form's other fields come as the fresh sheet has them). */
  var refusedField = null, changedField = null, resent = null;
  document.addEventListener("change", function (e) {
    var field = e.target;
    var typed = field.matches && field.matches("#editor form[hx-trigger=change] input:not([type=hidden]):not([type=checkbox])");
    changedField = typed ? { name: field.name, value: field.value } : null;
  });
  document.addEventListener("htmx:beforeSwap", function (e) {
    var d = e.detail, path = d.requestConfig ? d.requestConfig.path || "" : "";
    if (!/\/field$/.test(path)) { return; } /* a poll, a tap: not the field's answer */
    var status = d.xhr ? d.xhr.status : 0;
    refusedField = status === 422 || status === 409 ? changedField : null;
    if (refusedField) { refusedField.again = status === 409 && resent !== refusedField.name; }
    resent = null;
    changedField = null; /* answered: a later refusal is another field's */
  });
  document.addEventListener("htmx:afterSettle", function () {
    var was = refusedField;
    refusedField = null;
    var ed = editor();
    var field = was && ed && ed.querySelector("input" + attr("name", was.name));
    if (!field) { return; }
    field.value = was.value;
    if (was.again) {
      resent = was.name;
      field.dispatchEvent(new Event("change", { bubbles: true }));
      return;
    }
    field.setAttribute("aria-invalid", "true");
    if (document.getElementById("editor-message")) { field.setAttribute("aria-describedby", "editor-message"); }
    field.focus({ preventScroll: true });
  });

  /* Times are written in UTC by the server; the phone shows them in its own time zone,
   * in the page's language (`data-clock`: the time of day only). */
  function localTimes(root) {
    root.querySelectorAll("time[datetime]").forEach(function (t) {
      var when = new Date(t.getAttribute("datetime"));
      if (isNaN(when)) { return; }
      var style = t.hasAttribute("data-clock") ? { timeStyle: "short" }
        : { dateStyle: "medium", timeStyle: "short" };
      t.textContent = when.toLocaleString(document.documentElement.lang || undefined, style);
    });
  }
  localTimes(document);
  document.addEventListener("htmx:afterSwap", function (e) { localTimes(e.target); });

  /* Spring Meadow boards: one tab stop; arrow keys move between squares, Enter paints. */
  document.addEventListener("keydown", function (e) {
    var moves = { ArrowUp: [-1, 0], ArrowDown: [1, 0], ArrowLeft: [0, -1], ArrowRight: [0, 1] };
    var step = moves[e.key];
    var sq = step && e.target.closest && e.target.closest("[data-drag] [data-row]");
    if (!sq) { return; }
    var row = Number(sq.dataset.row) + step[0];
    var col = Number(sq.dataset.col) + step[1];
    var next = sq.parentNode.querySelector('[data-row="' + row + '"][data-col="' + col + '"]');
    if (!next) { return; }
    e.preventDefault();
    sq.setAttribute("tabindex", "-1");
    next.setAttribute("tabindex", "0");
    next.focus();
  });

  /* Rows that scroll sideways (a score table with many players, the player tabs, the
   * table's links, the palette): the chosen player's column or tab, or the chosen tool, is
   * brought into view, and data-more says on which side more is hidden, for the
   * stylesheet's fade. A table's first column stays in place (sticky), so its width is left
   * out of what is visible. */
  function sideways(box) {
    var more = [];
    /* Hardly more than a last cell's padding hidden is not worth a fade 40 px wide over
     * the last player's scores. */
    if (box.scrollLeft > 1) { more.push("left"); }
    if (box.scrollLeft + box.clientWidth < box.scrollWidth - 6) { more.push("right"); }
    box.setAttribute("data-more", more.join(" "));
    reachable(box);
  }
  /* A score table that scrolls sideways holds nothing focusable: the keyboard reaches its
   * hidden columns only if the box itself takes the focus (a region named as its table). */
  function reachable(box) {
    if (!box.classList.contains("scroll")) { return; }
    var table = box.querySelector("table");
    if (box.scrollWidth > box.clientWidth + 1 && table) {
      box.setAttribute("tabindex", "0");
      box.setAttribute("role", "region");
      var named = table.getAttribute("aria-labelledby");
      var caption = table.querySelector("caption");
      if (named) { box.setAttribute("aria-labelledby", named); }
      else if (caption) { box.setAttribute("aria-label", caption.textContent.trim()); }
    } else if (box.hasAttribute("tabindex")) {
      ["tabindex", "role", "aria-labelledby", "aria-label"].forEach(function (a) { box.removeAttribute(a); });
    }
  }
  function showChosen(box) {
    var tool = box.querySelector("label > input:checked");
    var chosen = tool ? tool.parentNode : box.querySelector("thead .current, [aria-current=page]");
    if (chosen && box.scrollWidth > box.clientWidth) {
      var head = box.querySelector("thead th");
      var fixed = head && head !== chosen ? head.getBoundingClientRect().width : 0;
      var at = chosen.getBoundingClientRect(), frame = box.getBoundingClientRect();
      var start = at.left - frame.left + box.scrollLeft - fixed, room = box.clientWidth - fixed;
      var fade = 48; /* the faded edge (2.5rem) must not hide it */
      if (start < box.scrollLeft || start + at.width > box.scrollLeft + room - fade) {
        box.scrollLeft = start - Math.max(0, (room - at.width) / 2); /* centred */
      }
    }
    sideways(box);
  }
  var SIDEWAYS = ".scroll, .tabs, .palette, .tablelinks";
  function scrollers() {
    document.querySelectorAll(SIDEWAYS).forEach(showChosen);
  }
  document.addEventListener("DOMContentLoaded", scrollers);
  document.addEventListener("htmx:afterSettle", scrollers);
  window.addEventListener("resize", scrollers);
  document.addEventListener("scroll", function (e) {
    var box = e.target;
    if (box.matches && box.matches(SIDEWAYS)) { sideways(box); }
  }, true);

  /* The import screen's own file button: the chosen file's name shows beside it. */
  document.addEventListener("change", function (e) {
    var input = e.target;
    var shown = input.type === "file" && input.form && input.form.querySelector("[data-file-chosen]");
    if (shown && input.files.length) { shown.textContent = input.files[0].name; }
  });

  /* A tap's answer can add or drop a message above the board ("Nothing may lie on blue",
   * "Undone on Boris's board"): the board moved by its height under the player's finger,
   * and the next tap landed a hex off. The page scrolls by as much instead, so that what
   * the player touched (the board for a tap; the button or field used) stays where it was. */
  var still = null;
  function topOf(el) { return el ? el.getBoundingClientRect().top : null; }
  function boardStill() {
    return { region: "editor", key: ".board", top: topOf(document.querySelector("#editor .board")) };
  }
  document.addEventListener("htmx:beforeSwap", function (e) {
    var region = e.detail.target, ed = editor(), cfg = e.detail.requestConfig;
    still = null;
    if (!ed || region !== ed) { return; }
    var el = document.activeElement, sender = cfg && cfg.elt;
    /* A photo's answer scrolls to its message (photoAnswered), whoever had the focus. */
    if ((el && el.closest && el.closest(".photo-form")) || (sender && sender.closest && sender.closest(".photo-form"))) { return; }
    var used = el && el !== ed && ed.contains(el) && !el.closest("[data-tap]");
    if ((cfg && cfg.path === ed.dataset.tapUrl) || !used) {
      /* a tap, or a redraw from the live poll (another phone changed this board) */
      still = boardStill();
      return;
    }
    var all = Array.prototype.slice.call(ed.querySelectorAll(FOCUSABLE));
    still = { region: "editor", key: focusKey(el), index: all.indexOf(el), top: topOf(el) };
  });
  function keepStill() {
    var region = still && still.top !== null && document.getElementById(still.region);
    var el = region ? sameIn(region, still) : null;
    var moved = el ? topOf(el) - still.top : 0;
    if (Math.abs(moved) >= 1) { window.scrollBy(0, moved); }
  }

  /* A refused tap's message is printed above the player tabs; a player who scrolled down to
   * the board (or has it under the sticky palette) would see nothing happen, so then the
   * message is pinned to the bottom of the screen until the next swap, or a tap on it. */
  document.addEventListener("htmx:afterSettle", function () {
    keepStill();
    var msg = document.getElementById("editor-message");
    if (msg && !msg.dataset.seen) { /* a live update must not pin it again */
      var palette = document.getElementById("palette"); /* sticky, above the editor */
      var covered = palette ? Math.max(0, palette.getBoundingClientRect().bottom) : 0;
      var at = msg.getBoundingClientRect();
      if (at.top < covered || at.bottom > window.innerHeight) { msg.classList.add("toast"); }
    }
    keepStill(); /* pinned, the message left the page's flow: the board moved back up */
    still = null;
  });
  function unpin(toast) {
    still = boardStill();
    toast.classList.remove("toast");
    toast.dataset.seen = "1";
    keepStill();
    still = null;
  }
  document.addEventListener("click", function (e) {
    var toast = e.target.closest && e.target.closest(".msg.toast");
    if (toast) { unpin(toast); }
  });
  /* From the keyboard: Escape puts it back, and the next Tab must not land under it. */
  document.addEventListener("keydown", function (e) {
    var toast = document.querySelector(".msg.toast");
    if (toast && (e.key === "Escape" || e.key === "Tab")) { unpin(toast); }
  });

  /* The focused cell's ring is drawn last, over its neighbours and the explanation layers
   * (which covered its stroke), in two colours (a dark line in a white halo) that stand
   * out on every paper colour, in either theme, and against the counting line. */
  function dropRing() {
    document.querySelectorAll(".focus-ring").forEach(function (r) { r.remove(); });
  }
  document.addEventListener("focusin", function (e) {
    dropRing();
    var cell = e.target.closest && e.target.closest(".board [data-tap]");
    if (!cell || !cell.matches(":focus-visible")) { return; }
    var shape = cell.querySelector("polygon, rect");
    var svg = cell.ownerSVGElement;
    if (!shape || !svg) { return; }
    var ring = document.createElementNS("http://www.w3.org/2000/svg", "g");
    ring.setAttribute("class", "focus-ring");
    ring.setAttribute("aria-hidden", "true");
    ["halo", "line"].forEach(function (kind) {
      var copy = shape.cloneNode(false);
      copy.removeAttribute("fill");
      copy.setAttribute("class", kind);
      ring.appendChild(copy);
    });
    svg.appendChild(ring);
  });
  document.addEventListener("focusout", dropRing);

  /* A field the browser refuses (a Valley Express value over 999) inside a closed
   * <details>: the browser cannot focus it to say why, and the form's button did nothing
   * at all ("An invalid form control is not focusable"). Its section opens first. */
  document.addEventListener("invalid", function (e) {
    var closed = e.target.closest && e.target.closest("details:not([open])");
    if (closed) { closed.open = true; }
  }, true);
})();
