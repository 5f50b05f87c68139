/* A game's leaderboard, polled from the JSON API so that it changes as matches finish, without reloading. */
"use strict";

(() => {
  const { el, api, num } = Arena;
  const game = document.body.dataset.game;
  const POLL_MS = Number(document.body.dataset.poll || 2000);
  const previous = new Map(); // bot -> games, to flash the rows that moved

  function row(r) {
    const changed = previous.has(r.bot) && previous.get(r.bot) !== r.games;
    return el(
      "tr",
      { class: changed ? "flash" : "", dataset: { bot: r.bot, games: r.games } },
      r.rank === null ? el("td", { class: "num rank muted", title: "no rated game yet" }, "\u2013") : el("td", { class: "num rank" }, String(r.rank)),
      el("td", {}, Arena.botLink(r.bot)),
      el("td", { class: "secondary" }, r.owner),
      el("td", { class: "secondary" }, r.version, el("span", { class: "muted small" }, ` #${r.seq}`)),
      ...(r.rank === null
        ? /* no rated game: its μ and σ are the starting ones (25, 8.33), which it never earned, as its page says */
          [el("td", { class: "num secondary muted" }, "\u2013"), el("td", { class: "num secondary muted" }, "\u2013"),
           el("td", { class: "num muted", title: "not rated yet", dataset: { field: "conservative" } }, "\u2013")]
        : [
            el("td", { class: "num secondary" }, num(r.mu)),
            el("td", { class: "num secondary" }, num(r.sigma)),
            // the figures it is made of, for a phone, where their columns are hidden (the bot's page has them too)
            el("td", { class: "num strong", title: `μ ${num(r.mu)} − 3 × σ ${num(r.sigma)}`, dataset: { field: "conservative" } }, num(r.conservative)),
          ]),
      el("td", { class: "num", dataset: { field: "games" } }, String(r.games)),
      el("td", { class: "secondary", title: Arena.when(r.last_match) }, Arena.ago(r.last_match))
    );
  }

  let smallest = 0; // the fewest players a table of this game seats, once /api/games has said

  /* Why none of the n bots entered has a rank yet. */
  function unrated(n) {
    const bots = `${n} bot${n === 1 ? " is" : "s are"} entered`;
    if (smallest && n < smallest) {
      const more = smallest - n;
      return `No rated bot in this game yet: ${bots}, and its smallest table seats ${smallest}, so they play unrated exhibitions (no rating scores a bot against itself) until ${more} more ${more === 1 ? "joins" : "join"}.`;
    }
    return `No rated bot in this game yet: ${bots}, and a bot is rated once a duplicate set of its matches is over; the first sets are still to finish.`;
  }

  /* The bots entered in this game whose version the ladder suspended, as the page was served: the standings leave them
     out, and a game whose bots were all suspended read "No bot is entered in this game yet". */
  const suspended = JSON.parse(document.body.dataset.suspended || "[]");

  /* Why a game whose bots were all suspended has no standings, and how they come back (docs/ladder.md). */
  function allSuspended() {
    const n = suspended.length;
    const names = suspended.map((name, i) => [i ? ", " : "", Arena.botLink(name)]);
    return [
      `No bot is in the standings: ${n} bot${n === 1 ? " is" : "s are"} entered in this game, ${n === 1 ? "" : "all "}suspended (`,
      ...names.flat(),
      `; ${n === 1 ? "its page says" : "their pages say"} why). The ladder suspends a bot whose latest matches all ended in its forfeit `,
      "(it crashed, never connected, or passed the strike limit) and seats it no more. A suspended bot comes back when its owner ",
      "submits a new version (",
      el("code", {}, "arena ladder submit"),
      "), or when the ladder's operator reinstates it (",
      el("code", {}, "arena ladder reinstate NAME"),
      ").",
    ];
  }

  async function refresh() {
    try {
      const [standings, recent] = await Promise.all([api(`/api/games/${game}/standings`), api(`/api/matches?game=${encodeURIComponent(game)}&limit=10`)]);
      Arena.redraw(document.querySelector("#standings tbody"), ...standings.map(row));
      // No bot entered at all and bots entered but none rated yet read alike ("no rated bot yet"): each is told apart.
      document.getElementById("no-bot").hidden = standings.length > 0 || suspended.length > 0;
      /* its bots all withdrawn or retired, a game that was played has no bot entered now, not "yet" above its matches */
      document.getElementById("no-bot-lead").textContent = recent.length
        ? "No bot is entered in this game now: those that played the matches below have left the ladder."
        : "No bot is entered in this game yet.";
      document.getElementById("all-suspended").hidden = standings.length > 0 || !suspended.length;
      document.getElementById("empty").hidden = !standings.length || standings.some((r) => r.rank !== null);
      if (standings.length) document.getElementById("empty").textContent = unrated(standings.length);
      for (const r of standings) previous.set(r.bot, r.games);
      Arena.redraw(document.getElementById("recent"), Arena.matchTable(recent));
      document.getElementById("updated").textContent = `updated ${new Date().toLocaleTimeString()}`;
      document.getElementById("live-status").classList.remove("stale");
      document.body.dataset.refreshes = String(Number(document.body.dataset.refreshes || 0) + 1);
    } catch (e) {
      document.getElementById("updated").textContent = `cannot reach the ladder (${e.message}); retrying`;
      document.getElementById("live-status").classList.add("stale");
    }
  }

  document.addEventListener("DOMContentLoaded", async () => {
    const games = await Arena.games();
    const info = games.find((g) => g.id === game);
    document.getElementById("game-title").textContent = info ? info.name : game;
    document.getElementById("game-summary").textContent = info ? info.summary : "";
    document.getElementById("score-meaning").textContent = info ? `Score: ${info.score}.` : "";
    smallest = info ? Math.min(...info.players) : 0;
    document.getElementById("all-suspended").replaceChildren(...allSuspended());
    await refresh();
    setInterval(refresh, POLL_MS);
  });
})();
