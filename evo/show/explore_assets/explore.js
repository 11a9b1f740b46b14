// evo breaker explorer: walks one or two breaker trees held as JSON in the page.
// Nodes are built only when they are expanded, so large trees open at once.
(function () {
  "use strict";
  var DATA = JSON.parse(document.getElementById("evo-data").textContent);
  var GAME = DATA.game;
  var TREES = DATA.trees;
  var SYMBOLS = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ";
  var NAMES = TREES.length > 1 ? ["A", "B"] : [""];

  function el(tag, cls, text) {
    var e = document.createElement(tag);
    if (cls) e.className = cls;
    if (text !== undefined) e.textContent = text;
    return e;
  }

  // Children of every node, in feedback order (nodes are stored in preorder).
  TREES.forEach(function (t) {
    var n = t.parent.length;
    t.kids = new Array(n);
    for (var i = 0; i < n; i++) t.kids[i] = [];
    for (var j = 1; j < n; j++) t.kids[t.parent[j]].push(j);
    t.elems = {};
  });

  // Feedbacks as evo writes them everywhere (1B 2W, 1B 2C), given by the page's data.
  function feedbackText(fb) { return GAME.feedbacks[fb]; }
  function guessOf(t, i) { return t.guesses[t.guess[i]]; }
  function digits(code) {
    var out = [];
    for (var k = 0; k < code.length; k++) out.push(SYMBOLS.indexOf(code[k]) - GAME.offset);
    return out;
  }
  // Feedback of a guess against a secret (digit lists): DESIGN §1.
  function feedback(g, s) {
    var black = 0, common = 0, cg = {}, cs = {};
    for (var k = 0; k < g.length; k++) {
      if (g[k] === s[k]) black++;
      cg[g[k]] = (cg[g[k]] || 0) + 1;
      cs[s[k]] = (cs[s[k]] || 0) + 1;
    }
    for (var c in cg) if (cs[c]) common += Math.min(cg[c], cs[c]);
    var white = common - black, rest = GAME.pegs - black;
    if (GAME.variant === "black-peg") return rest;
    return rest * (rest + 1) / 2 + white;
  }
  // Codes drawn as colored pegs (Mastermind, black-peg too), else as their text.
  function colored() { return GAME.variant === "mastermind" || GAME.variant === "black-peg"; }
  function pegs(code) {
    var span = el("span", "pegs");
    if (!colored()) {
      span.appendChild(el("span", "digits", code));
      return span;
    }
    var ds = digits(code);
    for (var k = 0; k < ds.length; k++) {
      var pal = GAME.palette[ds[k] % GAME.palette.length];
      var cell = el("span", "peg", code[k]);
      cell.style.background = pal[0];
      cell.style.color = pal[1];
      span.appendChild(cell);
    }
    return span;
  }
  function stats(t, i) {
    var c = t.codes[i];
    return c + (c === 1 ? " code" : " codes") + " · avg " +
      (t.total_from_start[i] / c).toFixed(3) + " · worst " + t.worst_depth[i] +
      " · total " + t.total_from_start[i];
  }
  function signed(x) { return (x > 0 ? "+" : x < 0 ? "−" : "±") + Math.abs(x); }

  function compareText(ti, i) {
    var t = TREES[ti];
    if (TREES.length < 2 || t.aligned[i] < 0) return null;
    var o = TREES[1 - ti], j = t.aligned[i];
    var delta = t.total_from_start[i] - o.total_from_start[j];
    var who = NAMES[1 - ti];
    var same = guessOf(t, i) === guessOf(o, j);
    var text = same ? who + " same guess, total " + o.total_from_start[j]
                    : who + " guesses " + guessOf(o, j) + ", total " + o.total_from_start[j];
    text += " (" + NAMES[ti] + " " + signed(delta) + ")";
    return { text: text, same: same, delta: delta };
  }

  function nodeElement(ti, i) {
    var t = TREES[ti];
    var box = el("div", "node");
    box.dataset.tree = ti;
    box.dataset.node = i;
    box.dataset.guess = guessOf(t, i);
    if (i > 0) box.dataset.feedback = feedbackText(t.label[i]);
    var row = el("div", "row");
    var leaf = t.kids[i].length === 0;
    var toggle = el("button", "toggle", leaf ? "·" : "▸");
    toggle.type = "button";
    toggle.disabled = leaf;
    toggle.title = leaf ? "no further guess" : "expand or collapse";
    row.appendChild(toggle);
    if (i > 0) row.appendChild(el("span", "fb", feedbackText(t.label[i]) + " →"));
    row.appendChild(pegs(guessOf(t, i)));
    if (t.terminal[i]) row.appendChild(el("span", "win", "can win"));
    row.appendChild(el("span", "stats", stats(t, i)));
    var cmp = compareText(ti, i);
    if (cmp) {
      var c = el("span", "cmp" + (cmp.same ? "" : " diverge") + (cmp.delta ? " differs" : ""),
                 cmp.text);
      row.appendChild(c);
    }
    box.appendChild(row);
    var kids = el("div", "kids");
    box.appendChild(kids);
    if (!leaf) row.addEventListener("click", function () { toggleNode(ti, i); });
    t.elems[i] = box;
    return box;
  }

  function expand(ti, i) {
    var t = TREES[ti], box = t.elems[i];
    if (!box || t.kids[i].length === 0) return;
    var kids = box.querySelector(":scope > .kids");
    if (!box.dataset.built) {
      var frag = document.createDocumentFragment();
      t.kids[i].forEach(function (k) { frag.appendChild(nodeElement(ti, k)); });
      kids.appendChild(frag);
      box.dataset.built = "1";
    }
    box.classList.add("open");
    box.querySelector(":scope > .row > .toggle").textContent = "▾";
  }
  function collapse(ti, i) {
    var box = TREES[ti].elems[i];
    if (!box) return;
    box.classList.remove("open");
    var tg = box.querySelector(":scope > .row > .toggle");
    if (!tg.disabled) tg.textContent = "▸";
  }
  function toggleNode(ti, i) {
    var box = TREES[ti].elems[i];
    if (box.classList.contains("open")) collapse(ti, i); else expand(ti, i);
  }
  // Expand every ancestor of node i so that it shows; return its element.
  function reveal(ti, i) {
    var t = TREES[ti], chain = [];
    for (var j = i; j >= 0; j = t.parent[j]) chain.push(j);
    for (var k = chain.length - 1; k > 0; k--) expand(ti, chain[k]);
    return t.elems[i];
  }
  function collapseAll(ti) {
    var t = TREES[ti];
    Object.keys(t.elems).forEach(function (k) { collapse(ti, +k); });
    expand(ti, 0);
  }

  function clearMarks() {
    document.querySelectorAll(".node.on-path, .node.target").forEach(function (n) {
      n.classList.remove("on-path");
      n.classList.remove("target");
    });
  }

  // The game path of a secret: nodes visited and feedbacks, ending on the win. A game
  // the page cannot play (no pegs) gives each code's winning node: its path goes up.
  function playSecret(t, s) {
    var steps = [], i = 0;
    if (!GAME.pegs) {
      var path = [];
      for (var j = t.win_node[s]; j >= 0; j = t.parent[j]) path.push(j);
      path.reverse();
      path.forEach(function (n, k) {
        var fb = k + 1 < path.length ? t.label[path[k + 1]] : 0;
        steps.push({ node: n, guess: guessOf(t, n), fb: fb });
      });
      return steps.length ? steps : null;
    }
    for (var guard = 0; guard <= t.parent.length; guard++) {
      var fb = feedback(digits(guessOf(t, i)), s);
      steps.push({ node: i, guess: guessOf(t, i), fb: fb });
      if (fb === 0) return steps;
      var next = -1;
      t.kids[i].forEach(function (k) { if (t.label[k] === fb) next = k; });
      if (next < 0) return null;
      i = next;
    }
    return null;
  }
  function parseSecret(text) {
    if (!GAME.pegs) {
      var at = GAME.labels.indexOf(text);
      if (at < 0) {
        var folded = text.replace(/\s+/g, "").toLowerCase(), hits = [];
        GAME.labels.forEach(function (l, k) {
          if (l.replace(/\s+/g, "").toLowerCase() === folded) hits.push(k);
        });
        if (hits.length === 1) at = hits[0];
      }
      if (at < 0) throw JSON.stringify(text) + " is not a code of " + GAME.name;
      return at;
    }
    var s = text.replace(/\s+/g, "").toUpperCase();
    if (s.length !== GAME.pegs) {
      throw "a secret has " + GAME.pegs + " pegs, " + JSON.stringify(text) + " has " + s.length;
    }
    var ds = digits(s);
    var lo = SYMBOLS[GAME.offset], hi = SYMBOLS[GAME.colors - 1 + GAME.offset];
    for (var k = 0; k < ds.length; k++) {
      if (!(ds[k] >= 0 && ds[k] < GAME.colors)) throw JSON.stringify(s[k]) + " is not a color " + lo + ".." + hi;
    }
    if (GAME.variant === "bulls-cows" && new Set(ds).size !== ds.length) {
      throw "Bulls and Cows secrets repeat no digit";
    }
    return ds;
  }
  function showSecret(text) {
    var out = document.getElementById("path"), err = document.getElementById("secret-error");
    out.textContent = "";
    err.textContent = "";
    clearMarks();
    var s;
    try { s = parseSecret(text); } catch (e) { err.textContent = e; return; }
    TREES.forEach(function (t, ti) {
      var steps = playSecret(t, s);
      var block = el("div", "game-path");
      block.dataset.tree = ti;
      block.appendChild(el("h3", null, (NAMES[ti] ? NAMES[ti] + ": " : "") + t.name + " — " +
        (steps ? steps.length + " guesses" : "this tree does not solve it")));
      if (!steps) { out.appendChild(block); return; }
      var ol = el("ol");
      steps.forEach(function (st) {
        var li = el("li", "step");
        li.dataset.guess = st.guess;
        li.dataset.feedback = feedbackText(st.fb);
        li.appendChild(pegs(st.guess));
        li.appendChild(el("span", "fb", feedbackText(st.fb) + (st.fb === 0 ? " — solved" : "")));
        ol.appendChild(li);
        var box = reveal(ti, st.node);
        box.classList.add("on-path");
      });
      block.appendChild(ol);
      out.appendChild(block);
      var last = t.elems[steps[steps.length - 1].node];
      last.classList.add("target");
      if (ti === 0) last.scrollIntoView({ block: "nearest" });
    });
  }

  function pathText(t, i) {
    var parts = [];
    for (var j = i; t.parent[j] >= 0; j = t.parent[j]) {
      parts.push(guessOf(t, t.parent[j]) + " " + feedbackText(t.label[j]));
    }
    return parts.length ? parts.reverse().join(", ") : "the root";
  }
  function diffList() {
    var divs = DATA.divergences || [];
    var box = el("section", "diffs");
    box.id = "diffs";
    var a = TREES[0], b = TREES[1];
    var sum = 0;
    divs.forEach(function (d) { sum += d[3]; });
    box.appendChild(el("h2", null, "Where A and B differ"));
    box.appendChild(el("p", "note", divs.length + (divs.length === 1 ? " place" : " places") +
      " where they guess differently on the same codes; A − B there adds up to " + signed(sum) + " guesses (A " + a.total +
      ", B " + b.total + "). Most costly first; click one to show it in both trees."));
    var table = el("table");
    var head = el("tr");
    ["after", "codes", "A guesses", "B guesses", "A total", "B total", "A − B"].forEach(function (h) {
      head.appendChild(el("th", null, h));
    });
    table.appendChild(head);
    divs.slice(0, 200).forEach(function (d) {
      var tr = el("tr", "diff");
      tr.dataset.nodeA = d[0];
      tr.dataset.nodeB = d[1];
      [pathText(a, d[0]), d[2], guessOf(a, d[0]), guessOf(b, d[1]), a.total_from_start[d[0]],
       b.total_from_start[d[1]], signed(d[3])].forEach(function (v) { tr.appendChild(el("td", null, String(v))); });
      tr.addEventListener("click", function () {
        clearMarks();
        var ea = reveal(0, d[0]), eb = reveal(1, d[1]);
        ea.classList.add("target");
        eb.classList.add("target");
        ea.scrollIntoView({ block: "nearest" });
      });
      table.appendChild(tr);
    });
    box.appendChild(table);
    if (divs.length > 200) box.appendChild(el("p", "note", "… and " + (divs.length - 200) + " smaller ones."));
    return box;
  }

  function build() {
    var app = document.getElementById("app");
    app.appendChild(el("h1", null, "Breaker explorer — " + GAME.title));
    var summary = el("table", "summary");
    var head = el("tr");
    ["", "tree", "total", "average", "worst", "nodes", "first guess"].forEach(function (h) {
      head.appendChild(el("th", null, h));
    });
    summary.appendChild(head);
    TREES.forEach(function (t, ti) {
      var tr = el("tr");
      [NAMES[ti], t.name, t.total, t.average.toFixed(4), t.worst, t.parent.length, guessOf(t, 0)]
        .forEach(function (v) { tr.appendChild(el("td", null, String(v))); });
      summary.appendChild(tr);
    });
    app.appendChild(summary);
    app.appendChild(el("p", "note", "Click a guess to see the next guess for each answer. " +
      "Figures count guesses from the start of the game over the codes that reach the node; " +
      "“can win”: the guess can be the secret."));
    var form = el("form");
    form.id = "secret-form";
    var label = el("label", null, "Secret: ");
    var input = el("input");
    input.id = "secret";
    input.placeholder = GAME.pegs ? SYMBOLS.substr(GAME.offset, GAME.pegs) : GAME.labels[0];
    input.autocomplete = "off";
    label.appendChild(input);
    form.appendChild(label);
    var go = el("button", null, "Show its game");
    go.type = "submit";
    form.appendChild(go);
    form.appendChild(el("span", "error", ""));
    form.lastChild.id = "secret-error";
    form.addEventListener("submit", function (e) { e.preventDefault(); showSecret(input.value); });
    app.appendChild(form);
    var path = el("div", "paths");
    path.id = "path";
    app.appendChild(path);
    if (TREES.length > 1) app.appendChild(diffList());
    var panes = el("div", "panes");
    TREES.forEach(function (t, ti) {
      var pane = el("section", "pane");
      pane.id = "pane-" + ti;
      var h = el("h2", null, (NAMES[ti] ? NAMES[ti] + ": " : "") + t.name + " ");
      var btn = el("button", "collapse-all", "collapse all");
      btn.type = "button";
      btn.addEventListener("click", function () { collapseAll(ti); });
      h.appendChild(btn);
      pane.appendChild(h);
      var root = el("div", "tree");
      root.appendChild(nodeElement(ti, 0));
      pane.appendChild(root);
      panes.appendChild(pane);
      expand(ti, 0);
    });
    app.appendChild(panes);
    document.body.dataset.ready = "1";
  }
  build();
})();
