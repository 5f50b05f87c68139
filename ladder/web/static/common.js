/* Helpers shared by every page: DOM building, the JSON API, formatting, the navigation bar. */
"use strict";

const Arena = (() => {
  /* the statuses of a match over with no result (it broke, or was never played), as the ladder defines them (ladder/models.py
     UNPLAYED, on <body> as data-unplayed) */
  const UNPLAYED = JSON.parse(document.body.dataset.unplayed || "[]");

  function el(tag, attrs, ...children) {
    const node = document.createElement(tag);
    for (const [key, value] of Object.entries(attrs || {})) {
      if (value === null || value === undefined || value === false) continue;
      if (key === "class") node.className = value;
      else if (key === "text") node.textContent = value;
      else if (key === "dataset") Object.assign(node.dataset, value);
      else if (key.startsWith("on") && typeof value === "function") node.addEventListener(key.slice(2), value);
      else node.setAttribute(key, value === true ? "" : String(value));
    }
    for (const child of children.flat(Infinity)) {
      if (child === null || child === undefined || child === false) continue;
      node.append(child instanceof Node ? child : document.createTextNode(String(child)));
    }
    return node;
  }

  class ApiError extends Error {
    constructor(status, detail) {
      super(detail);
      this.status = status;
    }
  }

  async function api(path, options) {
    const response = await fetch(path, Object.assign({ headers: { Accept: "application/json" } }, options || {}));
    let body = null;
    try {
      body = await response.json();
    } catch (e) {
      body = null;
    }
    if (!response.ok) {
      const detail = body && body.detail ? (typeof body.detail === "string" ? body.detail : JSON.stringify(body.detail)) : response.statusText;
      throw new ApiError(response.status, detail);
    }
    return body;
  }

  function num(value, digits) {
    return value === null || value === undefined ? "–" : Number(value).toFixed(digits === undefined ? 2 : digits);
  }

  function when(ts) {
    return ts ? new Date(ts * 1000).toLocaleString() : "";
  }

  function ago(ts) {
    if (!ts) return "–";
    const s = Math.max(0, Date.now() / 1000 - ts);
    if (s < 45) return "just now";
    if (s < 90) return "a minute ago";
    if (s < 3600) return `${Math.round(s / 60)} min ago`;
    if (s < 86400) return `${Math.round(s / 3600)} h ago`;
    return `${Math.round(s / 86400)} days ago`;
  }

  function label(key) {
    return String(key).replace(/_/g, " ");
  }

  function botLink(name) {
    return el("a", { href: `/bots/${encodeURIComponent(name)}`, class: "bot" }, name);
  }

  function matchLink(id) {
    return el("a", { href: `/matches/${id}` }, `#${id}`);
  }

  /* A verdict's kind in words, as every page carries them (referee/server/words.py verdict_words, put on <body> by
     ladder/web/routes.py render): ILLEGAL_ACTION "illegal action"; a kind not known there as the API names it. */
  let knownVerdicts = null;
  function verdictWords(kind) {
    if (knownVerdicts === null) knownVerdicts = JSON.parse(document.body.dataset.verdictWords || "{}");
    return Object.hasOwn(knownVerdicts, kind) ? knownVerdicts[kind] : String(kind);
  }

  /* A seat's verdicts as badges, "timeout@3" with the detail as its title and the kind's name as data-kind; with
     ``withheld`` (a title saying why) the kind alone: another seat's view of the replay is not told the detail (it
     may name the cards the seat tried). The same verdict again (kind, decision and detail) is one badge, "×4": a bot
     answering one decision with the same illegal action until its SDK gave up showed four badges alike. */
  function verdictBadges(verdicts, withheld) {
    const alike = new Map(); // what a badge shows -> the first such verdict and how many came
    for (const v of verdicts || []) {
      const at = !withheld && v.decision !== undefined && v.decision !== null ? "@" + v.decision : "";
      const key = JSON.stringify([v.kind, at, withheld ? "" : v.detail || ""]);
      const seen = alike.get(key);
      if (seen) seen.count += 1;
      else alike.set(key, { v, at, count: 1 });
    }
    return [...alike.values()].map(({ v, at, count }) => {
      const title = (withheld || v.detail || "") + (count > 1 ? ` (${count} times)` : "");
      const attrs = { class: `badge verdict v-${String(v.kind).toLowerCase()}`, title, dataset: { kind: v.kind, count: String(count) } };
      return el("span", attrs, `${verdictWords(v.kind)}${at}${count > 1 ? ` ×${count}` : ""}`);
    });
  }

  let gamesPromise = null;
  const names = new Map(); // game id -> its name, once games() has read them
  const scores = new Map(); // game id -> what a score counts in it (GameSpec.score)
  function games() {
    /* a failure is not kept: the front page's next poll asks again, where it stayed without a game until reloaded */
    if (!gamesPromise)
      gamesPromise = api("/api/games")
        .then((list) => {
          for (const g of list) {
            names.set(g.id, g.name);
            scores.set(g.id, g.score);
          }
          return list;
        })
        .catch(() => {
          gamesPromise = null;
          return [];
        });
    return gamesPromise;
  }

  /* A game by its name ("Generals & Assassins"), as the navigation bar and the cards name it, once games() has read
     the names; its id until then (or for a game the ladder no longer lists). */
  function nameOf(id) {
    return names.has(id) ? names.get(id) : id;
  }

  async function gameName(id) {
    await games();
    return nameOf(id);
  }

  /* A match's seats as "rank. bot (score)" lines: the winner first. */
  function seatResults(match, highlight) {
    const seats = [...match.seats].sort((a, b) => (a.rank || 99) - (b.rank || 99) || a.seat - b.seat);
    return el(
      "span",
      { class: "seat-line" },
      seats.map((s) =>
        el(
          "span",
          { class: "seat-result" + (s.bot === highlight ? " me" : "") + (s.rank === 1 ? " won" : "") },
          s.rank ? `${s.rank}. ` : "",
          botLink(s.bot),
          /* what it counts, where the winner's may be the lower (General's War: the rank says who won) */
          s.score !== null && s.score !== undefined ? el("span", { class: "muted score", title: scores.get(match.game) ? `score: ${scores.get(match.game)}` : null }, ` ${Number(s.score)}`) : null,
          ...verdictBadges(s.verdicts)
        )
      )
    );
  }

  /* The latest matches as a table; rows link to the viewer. Games are named by name: await games() first. */
  function matchTable(matches, options) {
    const opts = options || {};
    if (!matches.length) return el("p", { class: "muted" }, "No match finished yet.");
    const head = el(
      "tr",
      {},
      el("th", {}, "Match"),
      opts.showGame ? el("th", { class: "secondary" }, "Game") : null,
      el("th", { class: "secondary" }, "Kind"),
      el("th", { class: "secondary" }, "Finished"),
      el("th", {}, "Result (rank. bot score)"),
      opts.extra ? el("th", {}, opts.extra.title) : null
    );
    /* on a phone the game, kind and time leave their columns for a line under the match's number (style.css) */
    const folded = (m) => [opts.showGame ? nameOf(m.game) : null, m.kind, ago(m.finished_at)].filter((part) => part).join(" \u00b7 ");
    const rows = matches.map((m) =>
      el(
        "tr",
        { dataset: { match: m.id }, class: UNPLAYED.includes(m.status) ? m.status : "" },
        el(
          "td",
          {},
          /* its twin still playing, its page is a "not yet": no link to it until the deal is over */
          m.settled ? matchLink(m.id) : el("span", { title: "shown once every match of its deal is over" }, `#${m.id}`),
          el("span", { class: "folded muted small", title: when(m.finished_at) }, folded(m))
        ),
        opts.showGame ? el("td", { class: "secondary" }, el("a", { href: `/games/${m.game}` }, nameOf(m.game))) : null,
        el("td", { class: "secondary" }, m.kind),
        el("td", { class: "secondary", title: when(m.finished_at) }, ago(m.finished_at)),
        el(
          "td",
          {},
          UNPLAYED.includes(m.status) ? el("span", { class: "badge verdict" }, `${m.status}: ${m.error || "?"}`) : seatResults(m, opts.highlight),
          /* said, not only in a title (which a phone never shows): its seats alone read as a result gone missing */
          m.settled || UNPLAYED.includes(m.status) ? null : el("span", { class: "muted small pending" }, " result once every match of its deal is over")
        ),
        opts.extra ? el("td", {}, opts.extra.cell(m)) : null
      )
    );
    return el("table", { class: "data matches" }, el("thead", {}, head), el("tbody", {}, rows));
  }

  /* `container`'s content replaced by `nodes`, the keyboard's focus kept: a link or button focused in it is focused
     again in the new content (the same tag, address and id, in the same row, the nth such). The pages redraw their
     lists every few seconds, changed or not (a leaderboard every 2 s): a keyboard's user who had tabbed to a bot was
     left on the page's body, and Enter opened nothing. */
  function redraw(container, ...nodes) {
    const focused = document.activeElement;
    const inside = focused instanceof HTMLElement && focused !== container && container.contains(focused);
    const rowOf = (node) => {
      const row = node.closest("[data-match], [data-bot], [data-game]");
      return row && container.contains(row) ? [row.dataset.match, row.dataset.bot, row.dataset.game].join(" ") : null;
    };
    const key = inside ? [focused.tagName, focused.getAttribute("href"), focused.id, rowOf(focused)] : null;
    const alike = (node) => key !== null && node.tagName === key[0] && node.getAttribute("href") === key[1] && node.id === key[2] && rowOf(node) === key[3];
    const nth = inside ? [...container.querySelectorAll(focused.tagName)].filter(alike).indexOf(focused) : -1;
    container.replaceChildren(...nodes);
    if (nth < 0) return;
    const again = [...container.querySelectorAll(key[0])].filter(alike)[nth];
    if (again) again.focus({ preventScroll: true });
  }

  async function fillNav() {
    const nav = document.getElementById("nav");
    if (!nav || document.body.dataset.local) return;
    const list = await games();
    if (!list.length) {
      /* the ladder out of reach as the page opened (it serves a game at least): the links stayed missing until reloaded */
      setTimeout(fillNav, 5000);
      return;
    }
    for (const g of list) {
      const here = location.pathname === `/games/${g.id}` || document.body.dataset.game === g.id;
      nav.append(el("a", { href: `/games/${g.id}`, class: here ? "here" : "" }, g.name));
    }
  }

  document.addEventListener("DOMContentLoaded", fillNav);

  return { UNPLAYED, el, api, ApiError, num, when, ago, label, botLink, matchLink, verdictBadges, games, gameName, nameOf, seatResults, matchTable, redraw };
})();
