/* The front page: every game with its top bots, and the latest matches (refreshed every few seconds). */
"use strict";

(() => {
  const { el, api } = Arena;

  /* Counts the polls of each kind that have ended, drawn or failed (data-games-polls, data-recent-polls): a test waits on them. */
  function ended(kind) {
    const key = `${kind}Polls`;
    document.body.dataset[key] = String(Number(document.body.dataset[key] || 0) + 1);
  }

  const tables = new Map(); // game -> its standings at the last poll that could read them
  /* By game, the bots entered whose version the ladder suspended, as the page was served: a game whose bots were all
     suspended read "no bot entered yet". */
  const suspended = JSON.parse(document.body.dataset.suspended || "{}");

  /* Games with a match shown: one with no bot entered now had bots that left, not "no bot entered yet" (as the
     game's page says). Asked only of a card with no bot, until a match is found. */
  const played = new Set();

  async function lookForMatches(id) {
    try {
      if ((await api(`/api/matches?game=${encodeURIComponent(id)}&limit=1`)).length) played.add(id);
    } catch (e) {
      /* the next poll asks again */
    }
  }

  /* What a game's card says when it has no rated bot to list. */
  function noneRated(id, table) {
    if (table.length) return "no rated bot yet";
    const n = Object.hasOwn(suspended, id) ? suspended[id].length : 0;
    if (n) return `${n} bot${n === 1 ? "" : "s"} entered, ${n === 1 ? "" : "all "}suspended`;
    return played.has(id) ? "no bot entered now: those that played have left" : "no bot entered yet";
  }

  async function drawGames() {
    const games = await Arena.games();
    const cards = await Promise.all(
      games.map(async (g) => {
        try {
          tables.set(g.id, await api(`/api/games/${g.id}/standings`));
        } catch (e) {
          /* the top three of before stay: a failed poll is not "no rated bot yet" */
        }
        const table = tables.get(g.id);
        if (table && !table.length && !played.has(g.id)) await lookForMatches(g.id);
        const top = table && table.filter((r) => r.rank !== null).slice(0, 3);
        return el(
          "a",
          { class: "game-card", href: `/games/${g.id}`, dataset: { game: g.id } },
          el("h2", {}, g.name),
          el("p", { class: "muted small" }, `${g.players_text} players`),
          el("p", { class: "summary" }, g.summary),
          top === undefined
            ? el("p", { class: "muted small" }, "cannot reach the ladder; trying again")
            : top.length
              ? el("ol", { class: "top" }, top.map((r) => el("li", {}, el("b", {}, r.bot), el("span", { class: "muted" }, ` ${Arena.num(r.conservative, 1)}`))))
              : el("p", { class: "muted small" }, noneRated(g.id, table)),
          el("span", { class: "more" }, "Leaderboard \u2192")
        );
      })
    );
    Arena.redraw(document.getElementById("games"), ...cards);
    ended("games");
  }

  async function drawRecent() {
    try {
      const [matches] = await Promise.all([api("/api/matches?limit=10"), Arena.games()]); // the games' names
      Arena.redraw(document.getElementById("recent"), Arena.matchTable(matches, { showGame: true }));
    } catch (e) {
      /* keep what is shown; the next poll tries again */
    }
    ended("recent");
  }

  document.addEventListener("DOMContentLoaded", () => {
    drawGames();
    drawRecent();
    setInterval(drawRecent, 5000);
    setInterval(drawGames, 15000);
  });
})();
