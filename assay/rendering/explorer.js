(function () {
  "use strict";
  // The case explorer of an assay report. Data comes from the inert JSON block; every value is
  // written with textContent. One page of rows is drawn at a time, a case's details on opening.
  var data = JSON.parse(document.getElementById("assay-cases").textContent);
  var metrics = data.metrics, cases = data.cases, mount = document.getElementById("explorer");
  var state = { sort: -1, dir: 1, metric: -1, below: null, group: "", grade: "", disagree: false, unscored: false,
                query: "", page: 0, open: null };
  var shown = cases;

  function el(tag, text, cls) {
    var node = document.createElement(tag);
    if (text !== undefined && text !== null) node.textContent = String(text);
    if (cls) node.className = cls;
    return node;
  }
  function add(parent) {
    for (var i = 1; i < arguments.length; i++) if (arguments[i]) parent.appendChild(arguments[i]);
    return parent;
  }
  function fmt(v) { return v === null || v === undefined ? "—" : String(Math.round(v * 1000) / 1000); }
  function distinct(key) {
    var seen = {}, out = [];
    cases.forEach(function (c) { if (c[key] && !seen[c[key]]) { seen[c[key]] = 1; out.push(c[key]); } });
    return out.sort();
  }
  function select(label, options, onChange) {
    var box = el("label", label + " ", "ctl"), sel = el("select");
    options.forEach(function (o) { var opt = el("option", o[1]); opt.value = o[0]; sel.appendChild(opt); });
    sel.addEventListener("change", function () { onChange(sel.value); state.page = 0; refresh(); });
    return add(box, sel);
  }
  function checkbox(label, onChange) {
    var box = el("label", null, "ctl"), input = el("input");
    input.type = "checkbox";
    input.addEventListener("change", function () { onChange(input.checked); state.page = 0; refresh(); });
    return add(box, input, document.createTextNode(" " + label));
  }

  // -- controls ------------------------------------------------------------------------------
  var controls = el("div", null, "controls");
  var search = el("input");
  search.type = "search"; search.placeholder = "case id or text"; search.id = "explorer-search";
  search.addEventListener("input", function () { state.query = search.value.toLowerCase(); state.page = 0; refresh(); });
  add(controls, search,
    select("metric", [["-1", "every metric"]].concat(metrics.map(function (m, i) { return [String(i), m.name]; })),
      function (v) { state.metric = Number(v); if (state.metric >= 0) { state.sort = state.metric; } }),
    distinct("group").length ? select(data.group_label, [["", "all"]].concat(distinct("group").map(function (g) { return [g, g]; })),
      function (v) { state.group = v; }) : null,
    distinct("grade").length ? select("grade", [["", "all"]].concat(distinct("grade").map(function (g) { return [g, g]; })),
      function (v) { state.grade = v; }) : null,
    checkbox("jury disagreement", function (v) { state.disagree = v; }),
    checkbox("unscored", function (v) { state.unscored = v; }));
  // "at most": with a metric chosen, only cases whose score is at or below this value
  var below = el("input"), belowBox = add(el("label", "at most ", "ctl"), below);
  below.type = "number"; below.step = "any"; below.id = "explorer-below"; below.style.width = "5rem";
  below.addEventListener("input", function () {
    state.below = below.value === "" ? null : Number(below.value); state.page = 0; refresh();
  });
  controls.insertBefore(belowBox, controls.children[2]);
  var count = el("span", null, "count");
  var pager = el("div", null, "pager"), prev = el("button", "‹ previous"), next = el("button", "next ›");
  prev.type = next.type = "button";
  prev.addEventListener("click", function () { state.page -= 1; draw(); });
  next.addEventListener("click", function () { state.page += 1; draw(); });
  add(pager, prev, count, next);

  var table = el("table", null, "cases"), thead = el("thead"), tbody = el("tbody");
  // Leading columns, then one per metric; a sort key below 0 names a leading column.
  var lead = [["case", function (c) { return c.id; }, "id"], [data.group_label, function (c) { return c.group || ""; }, ""]];
  if (distinct("grade").length) lead.push(["grade", function (c) { return c.grade || ""; }, ""]);
  lead.push(["input", function (c) { return c.headline; }, "headline"]);
  var headers = lead.map(function (l) { return l[0]; }).concat(metrics.map(function (m) { return m.name; }));
  var headRow = el("tr");
  headers.forEach(function (h, i) {
    var th = el("th", h.replace(/([_@])/g, "$1\u200b"));  // metric names may break after _ and @
    var metric = i - lead.length;
    th.title = metric >= 0 ? (metrics[metric].scale + (metrics[metric].lower_is_better ? ", lower is better" : "")) : "";
    th.addEventListener("click", function () {
      var key = metric >= 0 ? metric : -(i + 1);
      state.dir = state.sort === key ? -state.dir : 1; state.sort = key; refresh();
    });
    headRow.appendChild(th);
  });
  add(mount, controls, pager, add(el("div", null, "scroll"), add(table, add(thead, headRow), tbody)));

  // -- filtering, sorting, paging -------------------------------------------------------------
  function keep(c) {
    var m = state.metric;
    if (m >= 0 && state.below !== null && (c.scores[m] === null || c.scores[m] > state.below)) return false;
    if (state.group && c.group !== state.group) return false;
    if (state.grade && c.grade !== state.grade) return false;
    if (state.disagree && (m >= 0 ? c.disagreements.indexOf(m) < 0 : c.disagreements.length === 0)) return false;
    if (state.unscored && (m >= 0 ? c.scores[m] !== null : c.scores.indexOf(null) < 0)) return false;
    if (state.query && (c.id + "\n" + c.headline).toLowerCase().indexOf(state.query) < 0) return false;
    return true;
  }
  function key(c) {
    return state.sort < 0 ? lead[-state.sort - 1][1](c) : c.scores[state.sort];
  }
  function refresh() {
    shown = cases.filter(keep);
    if (state.sort !== -1 || state.dir !== 1) {
      shown = shown.slice().sort(function (a, b) {
        var x = key(a), y = key(b);
        if (x === null || x === undefined) return (y === null || y === undefined) ? 0 : 1; // unscored last
        if (y === null || y === undefined) return -1;
        return (x < y ? -1 : x > y ? 1 : 0) * state.dir;
      });
    }
    draw();
  }
  function draw() {
    var size = data.page_size, pages = Math.max(1, Math.ceil(shown.length / size));
    state.page = Math.min(Math.max(0, state.page), pages - 1);
    while (tbody.firstChild) tbody.removeChild(tbody.firstChild);
    shown.slice(state.page * size, (state.page + 1) * size).forEach(function (c) {
      var tr = el("tr", null, "case-row");
      tr.setAttribute("data-case", c.id);
      lead.forEach(function (l) { tr.appendChild(el("td", l[1](c), l[2])); });
      c.scores.forEach(function (v, i) {
        var td = el("td", fmt(v), "num");
        if (v === null) { td.className += " unscored"; td.title = c.unscored[metrics[i].name] || "unscored"; }
        if (c.disagreements.indexOf(i) >= 0) { td.className += " disagree"; td.title = "the jury disagreed: median used"; }
        tr.appendChild(td);
      });
      tr.addEventListener("click", function () { state.open = state.open === c.id ? null : c.id; draw(); });
      tbody.appendChild(tr);
      if (state.open === c.id) tbody.appendChild(detailRow(c));
    });
    count.textContent = " " + shown.length + " of " + cases.length + " cases · page " + (state.page + 1) + " of " + pages + " ";
    prev.disabled = state.page === 0; next.disabled = state.page >= pages - 1;
  }

  // -- one case ---------------------------------------------------------------------------------
  function fields(title, list) {
    if (!list.length) return null;
    var box = add(el("div", null, "block"), el("h4", title));
    list.forEach(function (f) { add(box, el("div", f.label, "label"), el("pre", f.text)); });
    return box;
  }
  function contexts(list) {
    if (!list.length) return null;
    var box = add(el("div", null, "block"), el("h4", "Contexts (" + list.length + ")"));
    list.forEach(function (x) {
      add(box, el("div", x.title + (x.score === null || x.score === undefined ? "" : "  · score " + fmt(x.score)), "label"),
        el("pre", x.text, "context"));
    });
    return box;
  }
  function scoresTable(c) {
    var judges = [];
    c.judges.forEach(function (j) { if (judges.indexOf(j.judge) < 0) judges.push(j.judge); });
    var t = el("table"), head = el("tr");
    ["metric", "score"].concat(judges).concat(["rule applied", "unscored because"]).forEach(function (h) { head.appendChild(el("th", h)); });
    t.appendChild(head);
    metrics.forEach(function (m, i) {
      var e = c.ensemble[m.name] || null, tr = el("tr");
      add(tr, el("td", m.name), el("td", fmt(c.scores[i]), "num"));
      judges.forEach(function (j) { tr.appendChild(el("td", e && j in e.judge_scores ? fmt(e.judge_scores[j]) : "", "num")); });
      var rule = !e ? "" : e.method === "median" ? "median (jury disagreed)" : e.method === "weighted_mean" ? "weighted mean" : e.method;
      var dropped = e ? Object.keys(e.dropped) : [];
      if (dropped.length) rule += "; without " + dropped.join(", ");
      add(tr, el("td", rule), el("td", c.unscored[m.name] || ""));
      t.appendChild(tr);
    });
    return add(el("div", null, "block"), el("h4", "Scores"), t, data.ensemble_rule ? el("p", data.ensemble_rule, "note") : null);
  }
  function judgeBlock(c) {
    if (!c.judges.length) return null;
    var box = add(el("div", null, "block"), el("h4", "Judges"));
    c.judges.forEach(function (j) {
      var card = add(el("div", null, "judge"),
        el("div", j.judge + " · " + j.model + " · " + j.prompt + (j.cached ? " · reused from the call store" : ""), "label"));
      var s = Object.keys(j.scores).map(function (k) { return k + " " + fmt(j.scores[k]); }).join(", ");
      if (s) card.appendChild(el("div", s));
      if (j.error) card.appendChild(el("div", "failed: " + j.error, "unscored"));
      Object.keys(j.notes).forEach(function (k) { add(card, el("div", k, "label"), el("pre", j.notes[k], "feedback")); });
      box.appendChild(card);
    });
    return box;
  }
  function lineageBlock(c) {
    var box = add(el("div", null, "block"), el("h4", "Lineage")), dl = el("dl");
    Object.keys(c.lineage).forEach(function (k) { add(dl, el("dt", k), el("dd", c.lineage[k], "hash")); });
    c.judges.forEach(function (j) {
      if (j.request_key) add(dl, el("dt", "judge call " + j.judge + " · " + j.prompt), el("dd", j.request_key, "hash"));
    });
    return add(box, dl, el("p", "Trace any score: assay lineage RUN --case " + c.id, "note"));
  }
  function detailRow(c) {
    var tr = el("tr", null, "detail"), td = el("td");
    td.colSpan = headers.length;
    var head = el("h3", c.id + (c.group ? "  ·  " + c.group : "") + (c.grade ? "  ·  grade " + c.grade : ""));
    var cols = add(el("div", null, "cols"), fields("Input", c.view.inputs), fields("Output", c.view.outputs));
    add(td, head, cols, scoresTable(c), judgeBlock(c), contexts(c.view.contexts), lineageBlock(c));
    return add(tr, td);
  }

  // A link to #case=ID opens that case.
  function openFromHash() {
    var m = /^#case=(.+)$/.exec(window.location.hash);
    if (!m) return;
    var id = decodeURIComponent(m[1]), at = shown.map(function (c) { return c.id; }).indexOf(id);
    if (at < 0) return;
    state.open = id; state.page = Math.floor(at / data.page_size); draw();
    var row = tbody.querySelector("tr.detail");
    if (row && row.scrollIntoView) row.scrollIntoView();
  }
  window.addEventListener("hashchange", openFromHash);
  refresh();
  openFromHash();
})();
