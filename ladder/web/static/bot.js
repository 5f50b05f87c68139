/* A bot's page: rating history chart, head-to-head crosstable, recent matches with verdicts and (for its owner) logs, versions. */
"use strict";

(() => {
  const { el, api, num } = Arena;
  const name = document.body.dataset.bot;
  const TOKEN_KEY = "arena.token";
  const CHART_POINTS = 400;
  let detail = null;
  let owner = false; // whether the saved token is the bot owner's

  const $ = (id) => document.getElementById(id);

  /* The games the bot is rated in, the most played first: those of no rated match left out (a game it plays only in
     exhibitions drew an empty chart), unless it has played none yet. */
  function gamesOf(d) {
    const played = new Map();
    for (const v of d.versions) for (const [g, r] of Object.entries(v.ratings)) played.set(g, (played.get(g) || 0) + r.games);
    const rated = [...played.keys()].filter((g) => played.get(g) > 0);
    return (rated.length ? rated : [...played.keys()]).sort((a, b) => played.get(b) - played.get(a) || a.localeCompare(b));
  }

  async function drawChart(game) {
    /* A point per pixel or two of the chart at most: a busy bot has thousands of updates. */
    const history = await api(`/api/bots/${encodeURIComponent(name)}/history?game=${encodeURIComponent(game)}&points=${CHART_POINTS}`);
    RatingChart.draw($("chart"), history);
    const last = history[history.length - 1];
    /* The active version's rating, or else that of the version rated last; its games are that version's alone. */
    const active = detail.versions.filter((v) => v.status === "active" && v.ratings[game]);
    const shown = active.length ? active[active.length - 1] : last ? detail.versions.find((v) => v.seq === last.seq && v.ratings[game]) : null;
    const now = shown ? shown.ratings[game] : null;
    /* A version of no rated match has no rating but the starting one (μ 25, σ 8.33), which it never earned: it reads
       "not rated yet", as in its versions' list (a bot of exhibitions only read "0.00 rating μ − 3σ, 25.00 μ, 8.33 σ"). */
    const figures = now && now.games
      ? [
          el("span", { class: "stat" }, el("b", {}, num(now.conservative)), el("small", {}, "rating μ − 3σ")),
          el("span", { class: "stat" }, el("b", {}, num(now.mu)), el("small", {}, "μ")),
          el("span", { class: "stat" }, el("b", {}, num(now.sigma)), el("small", {}, "σ")),
        ]
      : [el("span", { class: "stat", id: "not-rated" }, el("b", {}, "–"), el("small", {}, "not rated yet"))];
    $("rating-now").replaceChildren(
      ...(now ? [...figures, el("span", { class: "stat", id: "rated-matches" }, el("b", {}, String(now.games)), el("small", {}, `rated matches of #${shown.seq}`))] : [])
    );
  }

  async function drawCrosstable() {
    const rows = await api(`/api/bots/${encodeURIComponent(name)}/crosstable`);
    if (!rows.length) {
      $("crosstable").replaceChildren(el("p", { class: "muted" }, "No match counted yet: a match counts here once every match of its deal is over."));
      return;
    }
    const several = new Set(rows.map((r) => r.game)).size > 1;
    const names = new Map((await Arena.games()).map((g) => [g.id, g.name]));
    $("crosstable").replaceChildren(
      el(
        "table",
        { class: "data crosstable" },
        el(
          "thead",
          {},
          el(
            "tr",
            {},
            several ? el("th", { class: "secondary" }, "Game") : null,
            el("th", {}, "Opponent"),
            el("th", { class: "num" }, "Games"),
            el("th", { class: "num", title: "wins" }, "W"),
            el("th", { class: "num", title: "draws" }, "D"),
            el("th", { class: "num", title: "losses" }, "L"),
            el("th", { title: "(wins + draws / 2) / games" }, "Score")
          )
        ),
        el(
          "tbody",
          {},
          rows.map((r) =>
            el(
              "tr",
              { dataset: { opponent: r.opponent } },
              several ? el("td", { class: "game-name secondary" }, el("a", { href: `/games/${r.game}` }, names.get(r.game) || r.game)) : null,
              /* on a phone the game leaves its column for a line under the opponent (style.css), as in the match lists */
              el("td", {}, Arena.botLink(r.opponent), several ? el("span", { class: "folded muted small" }, names.get(r.game) || r.game) : null),
              el("td", { class: "num" }, String(r.games)),
              el("td", { class: "num win" }, String(r.wins)),
              el("td", { class: "num" }, String(r.draws)),
              el("td", { class: "num loss" }, String(r.losses)),
              el("td", { class: "score" }, el("span", { class: "bar", title: `${(100 * r.score).toFixed(1)}%` }, el("span", { style: `width:${(100 * r.score).toFixed(1)}%` })), ` ${(100 * r.score).toFixed(0)}%`)
            )
          )
        )
      )
    );
  }

  async function downloadLog(match, seat, button) {
    const token = localStorage.getItem(TOKEN_KEY);
    try {
      const body = await api(`/api/matches/${match}/logs/${seat}`, { headers: { Authorization: `Bearer ${token}`, Accept: "application/json" } });
      const url = URL.createObjectURL(new Blob([body.log], { type: "text/plain" }));
      const a = el("a", { href: url, download: `${name}-match-${match}-seat-${seat}.log` });
      document.body.append(a);
      a.click();
      a.remove();
      setTimeout(() => URL.revokeObjectURL(url), 10000);
      button.textContent = "log \u2713";
    } catch (err) {
      button.replaceWith(el("span", { class: "small error" }, err.message));
    }
  }

  function logCell(m) {
    const seats = m.seats.filter((s) => s.bot === name);
    if (!owner || m.status !== "done" || !m.settled) return ""; // logs are kept back until the whole deal is over
    if (m.logs_pruned_days !== null && m.logs_pruned_days !== undefined)
      return el("span", { class: "small muted pruned", title: `the operator removed the logs of matches finished more than ${m.logs_pruned_days} days before` }, "pruned");
    return el(
      "span",
      {},
      seats.map((s) => {
        const button = el("button", { class: "small log-button", type: "button", dataset: { match: m.id, seat: s.seat } }, seats.length > 1 ? `log (seat ${s.seat})` : "log");
        button.addEventListener("click", () => downloadLog(m.id, s.seat, button));
        return button;
      })
    );
  }

  const MATCHES_PAGE = 25;
  let listed = []; // the matches shown, newest first: the first page, then each older one asked for
  let older = false; // whether the last page was full: there may be more

  /* The newest page of the bot's matches, or with `more` the page after those listed (the API's `before` cursor). */
  async function loadMatches(more) {
    const cursor = more && listed.length ? `&before=${listed[listed.length - 1].id}` : "";
    const [page] = await Promise.all([api(`/api/matches?bot=${encodeURIComponent(name)}&limit=${MATCHES_PAGE}${cursor}`), Arena.games()]); // the games' names
    listed = more ? [...listed, ...page] : page;
    older = page.length === MATCHES_PAGE;
    drawMatches();
  }

  function drawMatches() {
    const table = Arena.matchTable(listed, { showGame: gamesOf(detail).length > 1, highlight: name, extra: owner ? { title: "Log", cell: logCell } : null });
    const button = el("button", { type: "button", id: "older-matches" }, "Older matches");
    /* Said unavailable while the page loads, not disabled: a disabled button drops the focus, and the keyboard's user
       was left on the page's body, to tab again from the top of the page. The focus goes on to the first of the older
       matches, where the reading goes on. */
    button.addEventListener("click", async () => {
      if (button.getAttribute("aria-disabled") === "true") return;
      button.setAttribute("aria-disabled", "true");
      const shown = listed.length;
      try {
        await loadMatches(true);
        const first = document.querySelectorAll("#matches tbody tr")[shown];
        const link = first && first.querySelector("a, button");
        if (link && !document.activeElement.closest("#matches tbody")) link.focus();
      } catch (e) {
        button.removeAttribute("aria-disabled");
        button.textContent = `Older matches (failed: ${e.message}; again)`;
      }
    });
    Arena.redraw($("matches"), table, ...(older ? [el("p", {}, button)] : []));
  }

  function drawVersions() {
    /* each cell names its column (data-label): on a phone a version is a block of labelled lines (style.css), where
       its seven columns ran past the screen, the ratings cut and the note out of sight */
    const rows = [...detail.versions].reverse().map((v) =>
      el(
        "tr",
        { class: v.status },
        el("td", { class: "num", dataset: { label: "Seq" } }, `#${v.seq}`),
        el("td", { dataset: { label: "Version" } }, v.version),
        el("td", { dataset: { label: "Status" } }, el("span", { class: `badge status-${v.status}` }, v.status)),
        el("td", { class: "num", dataset: { label: "Games" } }, String(Object.values(v.ratings).reduce((a, r) => a + r.games, 0))),
        el("td", { dataset: { label: "Ratings" } }, Object.entries(v.ratings).map(([g, r]) => el("div", { class: "small" }, r.games ? `${Arena.nameOf(g)}: ${num(r.conservative)} (μ ${num(r.mu)}, σ ${num(r.sigma)})` : `${Arena.nameOf(g)}: not rated yet`))),
        el("td", { title: Arena.when(v.created_at), dataset: { label: "Submitted" } }, Arena.ago(v.created_at)),
        el("td", { class: "small muted", dataset: { label: "Note" } }, v.reason || "")
      )
    );
    $("versions").replaceChildren(
      el(
        "table",
        { class: "data versions" },
        el("thead", {}, el("tr", {}, el("th", { class: "num" }, "Seq"), el("th", {}, "Version"), el("th", {}, "Status"), el("th", { class: "num" }, "Games"), el("th", {}, "Ratings"), el("th", {}, "Submitted"), el("th", {}, "Note"))),
        el("tbody", {}, rows)
      )
    );
  }

  function activeVersion() {
    return detail.versions.filter((v) => v.status === "active").pop();
  }

  /* The version the ladder suspended (it forfeited match after match), if the bot has one: ladder/suspension.py. */
  function suspendedVersion() {
    return detail.versions.filter((v) => v.status === "suspended").pop();
  }

  function drawOwnerLine() {
    const active = activeVersion();
    const suspended = suspendedVersion();
    const state = active ? ` · version ${active.version} (#${active.seq}) active` : suspended ? ` · version ${suspended.version} (#${suspended.seq}) suspended` : " · no active version";
    $("bot-owner").textContent = `owned by ${detail.owner}` + state;
    /* Why, where its author looks first: it plays no match until a new version replaces it or the operator reinstates it. */
    $("suspended").hidden = !suspended || Boolean(active);
    $("suspended").textContent = suspended ? `#${suspended.seq} ${suspended.reason}` : "";
  }

  /* The owner's withdrawal: a second click confirms (a first one only asks), then the bot leaves the ladder. */
  function drawWithdraw() {
    const button = $("withdraw");
    button.hidden = !(owner && activeVersion());
    button.textContent = "Withdraw from the ladder";
    if (button.dataset.confirm) $("withdraw-status").textContent = ""; // an ask left pending (another token since)
    delete button.dataset.confirm;
  }

  async function withdraw() {
    const button = $("withdraw");
    if (!button.dataset.confirm) {
      button.dataset.confirm = "1";
      button.textContent = "Really withdraw? Click again";
      $("withdraw-status").textContent = "no new match will be scheduled for it; those queued are played";
      return;
    }
    const token = localStorage.getItem(TOKEN_KEY);
    let said;
    try {
      const done = await api(`/api/bots/${encodeURIComponent(name)}/withdraw`, { method: "POST", headers: { Authorization: `Bearer ${token}`, Accept: "application/json" } });
      said = `withdrawn: version #${done.seq} retired; submitting a new version brings it back`;
      detail = await api(`/api/bots/${encodeURIComponent(name)}`);
      drawOwnerLine();
      drawVersions();
    } catch (err) {
      said = said || `not withdrawn: ${err.message}`;
    }
    drawWithdraw();
    $("withdraw-status").textContent = said;
  }

  /* Whose token is saved: only the owner's shows the log buttons (the server checks the token again on every download). */
  async function checkToken() {
    const token = localStorage.getItem(TOKEN_KEY);
    $("token-forget").hidden = !token;
    owner = false;
    if (!token) {
      $("token-status").textContent = "";
      return;
    }
    try {
      const me = await api("/api/me", { headers: { Authorization: `Bearer ${token}`, Accept: "application/json" } });
      owner = me.name === detail.owner;
      $("token-status").textContent = owner ? `signed in as ${me.name}, the owner: logs can be downloaded` : `this token is ${me.name}'s, not the owner's: no logs`;
    } catch (err) {
      $("token-status").textContent = `the saved token is refused (${err.message})`;
    }
  }

  async function start() {
    try {
      detail = await api(`/api/bots/${encodeURIComponent(name)}`);
    } catch (err) {
      $("bot-name").textContent = name;
      $("bot-owner").textContent = err.message;
      return;
    }
    $("bot-name").textContent = detail.name;
    drawOwnerLine();
    $("withdraw").addEventListener("click", withdraw);
    const games = gamesOf(detail);
    const pick = $("game-pick");
    await Arena.games(); // their names, for the picker and the versions' ratings
    for (const g of games) pick.append(el("option", { value: g }, Arena.nameOf(g)));
    $("game-pick-label").hidden = games.length < 2;
    pick.addEventListener("change", () => drawChart(pick.value));
    $("token-form").addEventListener("submit", async (e) => {
      e.preventDefault();
      const token = $("token").value.trim();
      if (!token) return;
      localStorage.setItem(TOKEN_KEY, token);
      $("token").value = "";
      await checkToken();
      drawWithdraw();
      drawMatches(); // the logs' column: the owner's, or none
    });
    $("token-forget").addEventListener("click", async () => {
      localStorage.removeItem(TOKEN_KEY);
      await checkToken();
      drawWithdraw();
      drawMatches(); // the logs' column: the owner's, or none
    });
    drawVersions();
    await checkToken();
    drawWithdraw();
    await Promise.all([games.length ? drawChart(games[0]) : RatingChart.draw($("chart"), []), drawCrosstable(), loadMatches(false)]);
    document.body.dataset.ready = "1";
  }

  document.addEventListener("DOMContentLoaded", start);
})();
