/* The replay viewer. It draws whatever frames the server sends: "all" frames (full state, every event)
   or one seat's frames (the views and events the referee sent that seat). It never hides anything itself:
   a seat's frames hold nothing that seat did not know, and only steps up to the current one are drawn. */
"use strict";

(() => {
  const { el, api } = Arena;
  const { isCard, chip, suitSymbol, isDict } = Cards;
  const data = document.body.dataset;
  const local = Boolean(data.local);

  /* Fields whose number (or list of numbers) names a seat, in any game's state, decisions and events. */
  const SEAT_KEYS = new Set([
    "seat", "attacker", "defender", "acting", "turn_player", "first_player", "next_first_player", "target", "winner", "player", "from_seat", "to_seat", "loser", "dealer", "leader", "owner", "dealt_by",
    "seats", "winners", "by", "by_seat", "eliminated", "conquest_point_to", "defeat_point_to", "offerer", "recipient", "assisted", "attacker_assistants", "defender_assistants",
    "declined", "declined_to_assist", "targets", "king_targets", "conquer_targets", "recipients", "secret_service_token", "bad_cop_token", "revealed",
  ]);
  /* Fields that are a list of one value per seat, in seat order ("in seat order" in the .proto files): each value is
     named with its seat, "scores seat 0 (alice) 6, seat 1 (bob) 5" (arena/cli/replay_text.py BY_SEAT_KEYS, kept the
     same by a test). Only a list of as many values as seats: the Assassination Game's sniper detention lists one or two
     pieces' "colours", where its round's end lists each seat's colour. */
  const BY_SEAT_KEYS = new Set(["scores", "identities", "colours", "land_values", "awarded", "totals", "conquest_counts", "land_points", "glory", "lands_owned"]);
  /* Top-level fields that give a seat a role, shown as a badge on its panel. */
  const ROLE_KEYS = ["attacker", "defender", "acting", "turn_player", "first_player", "dealer", "leader"];
  /* Per-game touches: the order of a player's fields, and the fields that name a seat in this game alone (a seat,
     named and badged as SEAT_KEYS and ROLE_KEYS are): Glory's "turn" is the seat whose turn it is, elsewhere a count. */
  const TOUCHES = {
    "generals-war": { first: ["hand", "squad", "revealed_generals", "conquest", "dead", "deck"] },
    "generals-and-assassins": { first: ["hand", "lands", "discard", "deck"] },
    glory: { first: ["hand", "domain", "treasury"], seats: ["turn"] },
  };
  const LONG_PILE = 18;

  let summary = null;
  let mode = "all";
  let step = 0;
  let timer = null;
  const loaded = new Map(); // mode -> frames document
  let frames = null;

  const $ = (id) => document.getElementById(id);

  /* A field's name in words: "hand size", and a field the protocol abbreviates spelled out ("hp" "hit points": the
     frames' "fields", referee/server/words.py FIELD_WORDS, as the terminal's text says it). */
  function label(key) {
    return frames && frames.fields && Object.hasOwn(frames.fields, key) ? frames.fields[key] : Arena.label(key);
  }

  /* The bot in a seat, or null where the page does not know it. */
  function botOf(seat) {
    const s = summary && summary.seats.find((x) => x.seat === seat);
    return s ? s.bot : null;
  }

  /* A seat as the page names it in words: "seat 1 (alice)". */
  function seatText(seat) {
    const bot = botOf(seat);
    return bot === null ? `seat ${seat}` : `seat ${seat} (${bot})`;
  }

  /* The same in the seat's colour, wherever a field or an event names a seat (the name is text, never HTML). */
  function seatRef(seat) {
    const bot = botOf(seat);
    return el("span", { class: `seat-ref s${seat % 8}`, title: bot }, `seat ${seat}`, bot === null ? null : el("span", { class: "seat-name" }, ` (${bot})`));
  }

  /* The seats of this game's own seat fields (TOUCHES), or none before its frames are here. */
  function gameSeats() {
    return (frames && TOUCHES[frames.game] && TOUCHES[frames.game].seats) || [];
  }

  function isSeatKey(key) {
    return SEAT_KEYS.has(key) || gameSeats().includes(key);
  }

  function isScalar(v) {
    return v === null || ["string", "number", "boolean"].includes(typeof v);
  }

  /* A field of card ids (card_ids, land_ids, money_ids): referee/server/words.py CARD_ID_KEY, kept the same by a test. */
  function isCardIdKey(key) {
    return /^\w+_ids?$/.test(key);
  }

  /* Such a field named for its cards, as the terminal names it (words.py id_label): "lands", "money", "card". */
  function idLabel(key) {
    if (key.endsWith("_id")) return label(key.slice(0, -3));
    const thing = label(key.slice(0, -4));
    return thing === "money" ? thing : `${thing}s`; // words.py UNCOUNTED
  }

  function isCardList(key, v) {
    return Array.isArray(v) && v.length > 0 && (v.every(isCard) || (isCardIdKey(key) && v.every(Number.isInteger)));
  }

  function cardListKey(key, v) {
    return Array.isArray(v) && (v.length === 0 ? /hand|deck|pile|discard|squad|cards|lands|treasury|domain|dead|conquest|generals|board|stock|trick/.test(key) : isCardList(key, v));
  }

  function chips(key, list) {
    const row = el("span", { class: "chips" }, list.map(chip));
    if (list.length <= LONG_PILE) return row;
    return el("details", { class: "long-pile", dataset: { pile: key } }, el("summary", {}, `${list.length} cards`), row);
  }

  /* A long pile of the table by where it is: its seat's panel, its section and its field. */
  function pileKey(details) {
    const seat = details.closest("[data-seat]");
    const section = details.closest(".sub-panel[data-field]");
    return [seat ? seat.dataset.seat : "", section ? section.dataset.field : "", details.dataset.pile].join(" ");
  }

  /* The table drawn anew by `draw`, a long pile the spectator opened (a deck, the Assassination Game's movement hand)
     open again and its summary focused again if it was: they closed at every step, and a pile followed step by step
     was opened anew each time. */
  function keepingPilesOpen(draw) {
    const table = $("table");
    const open = new Set([...table.querySelectorAll("details.long-pile[open]")].map(pileKey));
    const focused = document.activeElement;
    const focusedPile = focused && table.contains(focused) && focused.matches("details.long-pile > summary") ? pileKey(focused.parentElement) : null;
    draw();
    for (const pile of table.querySelectorAll("details.long-pile")) {
      if (open.has(pileKey(pile))) pile.open = true;
      if (pileKey(pile) === focusedPile) pile.querySelector(":scope > summary").focus({ preventScroll: true });
    }
  }

  function scalar(key, v) {
    if (v === null || v === undefined) return el("span", { class: "muted" }, "–");
    if (typeof v === "boolean") return el("span", { class: v ? "yes" : "no" }, v ? "yes" : "no");
    if (typeof v === "number") {
      if (isSeatKey(key) && Number.isInteger(v) && summary && v >= 0 && v < summary.seats.length) return seatRef(v);
      if (isCardIdKey(key)) return chip(v);
      return el("span", { class: "n" }, String(v));
    }
    if (typeof v === "string") {
      if (isCard(v)) return chip(v);
      const suit = suitSymbol(v);
      if (suit) return suit;
      if (/^[A-Z][A-Z0-9_]*$/.test(v)) return el("span", { class: "enum", title: v }, enumWords(key, v));
      return el("span", {}, v);
    }
    return el("span", {}, String(v));
  }

  /* An enum's name in words: the game's own, sent with its frames (referee/server/words.py, from the protobuf
     descriptors: Glory's GLORY_KING_DEFENCE "king defence", ATTACK_KING "attack on the king"); else without a prefix
     that repeats its field's name: Land & Castle's phase PHASE_CLAIM is "claim", not "phase claim" after "phase". */
  function enumWords(key, v) {
    if (frames && frames.words && Object.hasOwn(frames.words, v)) return frames.words[v];
    const prefix = `${key.toUpperCase()}_`;
    const name = v.startsWith(prefix) && v.length > prefix.length ? v.slice(prefix.length) : v;
    return name.toLowerCase().replace(/_/g, " ");
  }

  /* A message's JSON (a state, an event, an action) with each message in it, at any depth, read for its "kind": the
     fields that kind makes meaningless left out, others in words of their own (referee/server/words.py KIND_FIELDS, sent
     with the frames): Glory's conquest read "mini round 1, presented none". */
  function forKind(v) {
    const byKind = (frames && frames.kind_fields) || {};
    if (Array.isArray(v)) return v.map(forKind);
    if (!isDict(v) || isCard(v)) return v;
    const told = typeof v.kind === "string" && Object.hasOwn(byKind, v.kind) ? byKind[v.kind] : {};
    const out = {};
    for (const [key, x] of Object.entries(v)) {
      if (Object.hasOwn(told, key) && !told[key]) continue;
      out[Object.hasOwn(told, key) ? told[key] : key] = forKind(x);
    }
    return out;
  }

  /* A state or an event's JSON with what the rules make meaningless left out, and a field whose absence tells something
     in words (referee/server/words.py LEFT_OUT, sent with the frames as "left_out"; read as read_for_view reads it):
     General's War's defeat points at a table of two, a seat's own "known" hand (never there: its hand is "hand"), Land &
     Castle's turn and attacker during the setup, a battle's undercut before the defender answers; a full state's null
     fields a seat's view leaves out ("fight –"); a tie as a tie. */
  function readForView(v) {
    const rules = (frames && frames.left_out) || [];
    if (!rules.length) return v;
    const phase = isDict(v) ? v.phase : undefined;
    const viewer = mode === "all" ? null : Number(mode);
    const walk = (item, under) => {
      if (Array.isArray(item)) return item.map((x) => walk(x, under));
      if (!isDict(item)) return item;
      const drop = new Set();
      const said = {};
      for (const rule of rules) {
        if ((rule.in && !rule.in.includes(under)) || (rule.players && !rule.players.includes(frames.num_players))) continue;
        if ((rule.phases && !rule.phases.includes(phase)) || (rule.without && item[rule.without] !== undefined && item[rule.without] !== null)) continue;
        if (rule.own && !(viewer !== null && item.seat === viewer)) continue;
        for (const k of rule.fields || []) drop.add(k);
        for (const k of rule.null || []) if (item[k] === undefined || item[k] === null) drop.add(k);
        for (const [k, w] of Object.entries(rule.unset || {})) if (item[k] === undefined || item[k] === null) said[k] = w;
      }
      const out = {};
      for (const [k, x] of Object.entries(item)) if (!drop.has(k)) out[k] = walk(x, k);
      return Object.assign(out, said);
    };
    return walk(v, "");
  }

  /* Any JSON value. */
  function value(key, v) {
    if (isScalar(v)) return isCard(v) ? chip(v) : scalar(key, v);
    if (isCard(v)) return chip(v);
    if (Array.isArray(v)) {
      if (!v.length) return el("span", { class: "muted" }, "none");
      if (isCardList(key, v)) return chips(key, v);
      if (v.every(isScalar) && BY_SEAT_KEYS.has(key) && summary && v.length === summary.seats.length) {
        return el("span", { class: "list by-seat" }, v.map((x, i) => [i ? ", " : "", seatRef(i), " ", scalar(key, x)]));
      }
      if (v.every(isScalar)) return el("span", { class: "list" }, v.map((x, i) => [i ? ", " : "", scalar(key, x)]));
      if (v.every(Array.isArray)) return grid(key, v);
      if (v.every(isRecord)) return records(key, v);
      return el("div", { class: "sub-list" }, v.map((x, i) => subItem(key, x, i)));
    }
    if (isDict(v)) return seated(v);
    return el("span", {}, JSON.stringify(v));
  }

  /* Whether `obj` holds a seat of this match (its "seat"), to stand under that seat, named once. */
  function holdsSeat(obj) {
    return Number.isInteger(obj.seat) && summary !== null && obj.seat >= 0 && obj.seat < summary.seats.length;
  }

  /* `obj` but its "seat", which the heading it stands under names. */
  function withoutSeat(obj) {
    return Object.fromEntries(Object.entries(obj).filter(([k]) => k !== "seat"));
  }

  /* A message's fields; one that holds a seat (Land & Castle's battle sides) under that seat, named once: its row read
     "seat  seat 1 (bob)", "seat" twice (the terminal says "seat 1 (bob) · army 4♠ · …"). */
  function seated(obj) {
    if (!holdsSeat(obj)) return fields(obj);
    return el("div", { class: "seated", dataset: { seat: obj.seat } }, el("p", { class: "seat-head" }, seatRef(obj.seat)), fields(withoutSeat(obj)));
  }

  /* One item of a list that is neither cards nor flat records, under its number; an item that holds a seat (General's
     War's and Land & Castle's "known", one entry per seat) under that seat instead, its "seat" field not repeated: the
     entry read "0", then "seat seat 0 (alice)" (as the terminal says it: "known, seat 0 (alice):"). */
  function subItem(key, x, i) {
    if (isDict(x) && !isCard(x) && holdsSeat(x)) {
      return el("div", { class: "sub", dataset: { seat: x.seat } }, el("span", { class: "sub-index" }, seatRef(x.seat)), value(key, withoutSeat(x)));
    }
    return el("div", { class: "sub" }, el("span", { class: "sub-index" }, `${i}`), value(key, x));
  }

  /* A flat object: every field a scalar, a card or a short list of them. */
  function isRecord(v) {
    return isDict(v) && !isCard(v) && Object.values(v).every((x) => isScalar(x) || isCard(x) || (Array.isArray(x) && x.length <= 8 && x.every((y) => isScalar(y) || isCard(y))));
  }

  /* A list of flat objects (lands, pieces, rounds played…) as a table, one row each, numbered from 0 unless the
     records carry their own place: a known card's "position" beside a row number read as two positions ("0 3 8♦"),
     and a column that counts the rows itself as "0 0", "1 1" (the Assassination Game's pieces by colour), or from 1 as
     "0 1", "1 2" (Generals & Assassins' rounds played, each with its round). */
  function records(key, list) {
    const columns = [];
    for (const item of list) for (const k of Object.keys(item)) if (!columns.includes(k)) columns.push(k);
    const counted = list.length > 1 && columns.some((c) => [0, 1].some((from) => list.every((item, i) => item[c] === i + from)));
    const numbered = !columns.includes("position") && !counted;
    return el(
      "table",
      { class: "records", dataset: { field: key } },
      el("thead", {}, el("tr", {}, numbered ? el("th", {}, el("span", { style: HIDDEN_TEXT }, "row")) : null, columns.map((c) => el("th", {}, label(c))))),
      el("tbody", {}, list.map((item, i) => el("tr", {}, numbered ? el("td", { class: "muted" }, String(i)) : null, columns.map((c) => el("td", {}, c in item ? value(c, item[c]) : "")))))
    );
  }

  /* Text a screen reader reads and the screen does not show: the records' row numbers are headed "row" (an empty header
     cell said nothing of its column: axe's empty-table-header), where the numbers alone say what they are to the eye. */
  const HIDDEN_TEXT = "position: absolute; width: 1px; height: 1px; overflow: hidden; clip-path: inset(50%); white-space: nowrap;";

  /* The table's panels that scroll sideways (a seat's known cards under a long bot name, on a phone) made reachable by
     the keyboard, named by their heading: they had no tabindex, and a keyboard could not scroll them (axe's
     scrollable-region-focusable); one that fits is no stop on the way. Checked when the table is drawn and when the
     window changes its width. */
  function reachScrollers() {
    for (const panel of document.querySelectorAll("#table .sub-panel")) {
      const scrolls = panel.scrollWidth > panel.clientWidth;
      const heading = panel.querySelector(":scope > h3");
      if (scrolls) {
        panel.setAttribute("tabindex", "0");
        panel.setAttribute("role", "region");
        panel.setAttribute("aria-label", heading ? heading.textContent : label(panel.dataset.field || "table"));
      } else {
        for (const name of ["tabindex", "role", "aria-label"]) panel.removeAttribute(name);
      }
    }
  }

  /* A board: rows of cells (pieces, cards or numbers). */
  function grid(key, rows) {
    return el(
      "table",
      { class: "board" },
      el("tbody", {}, rows.map((row) => el("tr", {}, row.map((cell) => el("td", {}, cell === null || cell === "" ? "" : value(key, cell))))))
    );
  }

  /* An object's fields as label/value rows: card piles first, then the rest. */
  function fields(obj, order) {
    const keys = Object.keys(obj);
    const first = (order || []).filter((k) => k in obj);
    const sorted = [...first, ...keys.filter((k) => !first.includes(k) && cardListKey(k, obj[k])), ...keys.filter((k) => !first.includes(k) && !cardListKey(k, obj[k]))];
    const dl = el("dl", { class: "kv" });
    for (const key of sorted) {
      const pile = cardListKey(key, obj[key]);
      dl.append(el("dt", { class: pile ? "pile" : "" }, label(key)), el("dd", { class: pile ? "pile" : "", dataset: { field: key } }, value(key, obj[key])));
    }
    return dl;
  }

  function playerPanel(player, index, state, frame, own) {
    const seat = Number.isInteger(player.seat) ? player.seat : index;
    const viewer = mode === "all" ? null : Number(mode);
    const badges = [];
    if (viewer === seat) badges.push(el("span", { class: "badge you" }, "you"));
    for (const key of [...ROLE_KEYS, ...gameSeats()]) if (state[key] === seat && frame.to_act.length) badges.push(el("span", { class: "badge role" }, label(key)));
    if (frame.to_act.includes(seat)) badges.push(el("span", { class: "badge to-act" }, "to act"));
    if (frame.result) badges.push(el("span", { class: "badge rank" + (frame.result.ranks[seat] === 1 ? " won" : "") }, `rank ${frame.result.ranks[seat]} · ${frame.result.scores[seat]}`));
    const shown = Object.assign({}, own, player);
    delete shown.seat;
    const touch = TOUCHES[frames.game] || {};
    return el(
      "section",
      { class: `player s${seat % 8}` + (viewer === seat ? " mine" : "") + (frame.to_act.includes(seat) ? " acting" : ""), dataset: { seat } },
      el("h3", {}, `Seat ${seat}`, botOf(seat) === null ? null : el("span", { class: "seat-name" }, ` (${botOf(seat)})`), " ", badges),
      fields(shown, touch.first)
    );
  }

  /* The board (the frames' "board", from the game's spec: rows of places, and places drawn inside others) with the
     pieces and the president where the shown state puts them. Drawn from that state alone: a seat's view shows no more
     than the seat's state holds. Whose piece is whose is named only where the state says (everything, or one's own). */
  function renderBoard(board, state) {
    const pieces = Array.isArray(state.pieces) ? state.pieces.filter(isDict) : [];
    const owners = new Map();
    if (Array.isArray(state.seats)) state.seats.forEach((s, i) => isDict(s) && Number.isInteger(s.colour) && owners.set(s.colour, Number.isInteger(s.seat) ? s.seat : i));
    const mine = Number.isInteger(state.colour) && mode !== "all" ? state.colour : null;
    const tokens = new Map();
    const put = (place, node) => tokens.set(place, [...(tokens.get(place) || []), node]);
    const pieceTitle = (p) => {
      const whose = owners.has(p.colour) ? `, ${seatText(owners.get(p.colour))}` : p.colour === state.reporter_colour ? ", the reporter" : p.colour === mine ? ", yours" : "";
      const marks = ["injured", "detained"].filter((k) => p[k] === true);
      return `piece ${p.colour}${whose}` + (marks.length ? ` (${marks.join(", ")})` : "");
    };
    for (const p of pieces) {
      if (typeof p.room !== "string" || !Number.isInteger(p.colour)) continue;
      const flags = ["injured", "detained"].filter((k) => p[k] === true).map((k) => ` ${k}`).join("");
      put(p.room, el("span", { class: `token piece${flags}${p.colour === mine ? " mine" : ""}`, title: pieceTitle(p), dataset: { colour: p.colour } }, String(p.colour)));
    }
    const president = isDict(state.president) ? state.president : null;
    if (president && typeof president.room === "string") {
      const status = String(president.status || "").toLowerCase();
      put(president.room, el("span", { class: `token president ${status}`, title: `the president (${label(status)})`, dataset: { president: status } }, "\u265a"));
    }
    const inside = board.inside || {};
    const place = (name, cls) =>
      el(
        "div",
        { class: cls, dataset: { place: name } },
        el("span", { class: "place-name" }, label(name.toLowerCase())),
        el("span", { class: "tokens" }, tokens.get(name) || []),
        Object.keys(inside).filter((k) => inside[k] === name).map((k) => place(k, "place inside"))
      );
    const columns = Math.max(...board.grid.map((row) => row.length));
    const grid = el("div", { class: "board", style: `grid-template-columns: repeat(${columns}, minmax(0, 1fr))` });
    for (const row of board.grid) for (const name of row) grid.append(name === null ? el("div", { class: "place wall" }) : place(name, "place"));
    const off = pieces.filter((p) => p.room === null || p.room === undefined);
    return el(
      "section",
      { class: "sub-panel board-panel", dataset: { field: "board" } },
      el("h3", {}, "board"),
      grid,
      off.length ? el("p", { class: "small off-board" }, "off the board: ", off.map((p, i) => [i ? ", " : "", pieceTitle(p)])) : null
    );
  }

  /* The round among the game's "rounds" (those before any extra round to break a tie), as [words, number]: "round 3 of
     8", or past them "extra round 1 (after 8)", where "round 9 · rounds 8" read as round 9 of 8; null for a state that
     gives no number of rounds (arena/cli/replay_text.py round_of_rounds). */
  function roundOfRounds(state) {
    const at = state.round;
    const rounds = state.rounds;
    if (!Number.isInteger(at) || !Number.isInteger(rounds) || rounds < 1) return null;
    return at <= rounds ? ["round", `${at} of ${rounds}`] : ["extra round", `${at - rounds} (after ${rounds})`];
  }
  /* The facts told with the round, left out beside it (Glory's view flags an extra round itself). */
  const ROUND_TOLD = ["rounds", "extra_round"];

  function renderTable(frame) {
    const state = readForView(forKind(frame.state || {}));
    const viewer = mode === "all" ? null : Number(mode);
    // The list of players: "players" in most games ("seats" in some full states), shown as one panel per seat.
    const playersKey = ["players", "seats"].find((k) => Array.isArray(state[k]) && state[k].length > 0 && state[k].every(isDict));
    const players = playersKey ? state[playersKey] : null;
    // In a seat's view, top-level piles such as "hand" whose size the players list gives ("hand_size") are that seat's own.
    const own = {};
    if (viewer !== null && players) {
      for (const [key, v] of Object.entries(state)) {
        if (cardListKey(key, v) && players.some((p) => `${key}_size` in p)) own[key] = v;
      }
    }
    const facts = el("div", { class: "facts" });
    const piles = {};
    const sections = [];
    const ofRounds = roundOfRounds(state);
    for (const [key, v] of Object.entries(state)) {
      if (key === playersKey) continue;
      if (key in own || key === "num_players" || (key === "seat" && viewer !== null) || (ofRounds && ROUND_TOLD.includes(key))) continue;
      if (key === "round" && ofRounds) {
        facts.append(el("span", { class: "fact", dataset: { field: key } }, el("span", { class: "fact-key" }, ofRounds[0]), " ", el("span", { class: "n" }, ofRounds[1])));
      } else if (isScalar(v) || (Array.isArray(v) && v.every(isScalar) && !cardListKey(key, v))) {
        facts.append(el("span", { class: "fact", dataset: { field: key } }, el("span", { class: "fact-key" }, label(key)), " ", value(key, v)));
      } else if (cardListKey(key, v)) {
        piles[key] = v;
      } else {
        sections.push(el("section", { class: "sub-panel", dataset: { field: key } }, el("h3", {}, label(key)), value(key, v)));
      }
    }
    const out = el("div", {}, facts);
    if (frames && frames.board) out.append(renderBoard(frames.board, state));
    if (Object.keys(piles).length) out.append(el("div", { class: "piles" }, fields(piles)));
    if (players) {
      out.append(el("div", { class: "players" }, players.map((p, i) => playerPanel(p, i, state, frame, (Number.isInteger(p.seat) ? p.seat : i) === viewer ? own : {}))));
    }
    if (sections.length) out.append(el("div", { class: "sections" }, sections));
    return out;
  }

  function kindOf(wrapper) {
    const entries = Object.entries(wrapper || {});
    return entries.length ? entries[0] : ["nothing", {}];
  }

  /* A field's name before its value in a message: card ids named for their cards ("lands"), also when none were chosen,
     and a field named "… seat" that holds a seat saying "seat" once, since the seat's name says it: "seat 0 (alice)",
     "by seat 1 (bob)", not "seat seat 0", "by seat seat 1" (arena/cli/replay_text.py field_text). */
  function argLabel(key, v) {
    const none = Array.isArray(v) && !v.length;
    if (isCardIdKey(key) && (Number.isInteger(v) || none || isCardList(key, v))) return idLabel(key);
    if ((key === "seat" || key.endsWith("_seat")) && isSeatKey(key) && Number.isInteger(v) && summary && v >= 0 && v < summary.seats.length) return label(key.slice(0, -4).replace(/_$/, ""));
    return label(key);
  }

  /* A message's fields (an action's, an event's, a decision's, of that kind). With the game's "rounds" (its state's), a
     "round" reads as the table's does: "round started extra round 1 (after 8)", not "round 9" (arena/cli/replay_text.py
     args). An empty list is left out, but for the fields whose list is the choice made, where an empty one says "none"
     ("thwart cards none": left out, Glory's thwart with no joker read as a thwart), which come with the frames as
     "empty_told" (referee/server/words.py EMPTY_TOLD, read as the terminal reads it). */
  function inline(obj, rounds, kind) {
    const parts = [];
    const ofRounds = roundOfRounds({ round: (obj || {}).round, rounds });
    const ofKind = (names) => [...names].filter((k) => k.startsWith(`${kind}.`)).map((k) => k.slice(kind.length + 1));
    const told = ofKind((frames && frames.empty_told) || []);
    /* Flags said by what they mean (referee/server/words.py FLAG_WORDS, sent with the frames): Generals & Assassins'
       "assassin declined blocking no" is "did not attempt the assassination again". A replay's JSON leaves a false one out. */
    const flags = (frames && frames.flag_words) || {};
    const flagged = ofKind(Object.keys(flags));
    const missing = (names, empty) => Object.fromEntries(names.filter((k) => !(k in (obj || {}))).map((k) => [k, empty]));
    const fields = { ...(obj || {}), ...missing(told, []), ...missing(flagged, false) }; // a replay's action leaves them out
    for (const [key, v] of Object.entries(fields)) {
      const none = Array.isArray(v) && !v.length;
      if ((none && !told.includes(key)) || (ofRounds && ROUND_TOLD.includes(key))) continue;
      if (typeof v === "boolean" && flagged.includes(key)) {
        parts.push(el("span", { class: "arg flag", dataset: { field: key } }, flags[`${kind}.${key}`][v ? 0 : 1]));
        continue;
      }
      const [words, shown] = key === "round" && ofRounds ? [ofRounds[0], el("span", { class: "n" }, ofRounds[1])] : [argLabel(key, v), value(key, v)];
      parts.push(el("span", { class: "arg", dataset: { field: key } }, words ? [el("span", { class: "arg-key" }, words), " "] : null, shown));
    }
    return parts;
  }

  /* An event of frame `at` (its step), marked as this step's by renderEvents. */
  function renderEvent(ev, at, rounds) {
    const [kind, body] = kindOf(forKind(readForView(ev.event)));
    const seen = ev.visible_to;
    return el(
      "li",
      { class: "event", dataset: { seq: ev.seq, frame: at } },
      el("span", { class: "seq", title: `event ${ev.seq} of the match's log` }, `${ev.seq}`),
      el("span", { class: "kind" }, label(kind)),
      " ",
      inline(body, rounds, kind),
      Array.isArray(seen)
        ? el(
            "span",
            { class: "badge private", title: "a private event: only these seats were told" + (ev.others_miss ? "; the others were told it in part" : "") },
            "seen by ",
            seen.map((s, i) => [i ? ", " : "", seatRef(s)]),
            /* the same happening as the others were told it is not listed apart (frames.everything_events) */
            ev.others_miss ? `; the others were told it without its ${ev.others_miss.map(label).join(", ")}` : null
          )
        : null
    );
  }

  function renderStepInfo(frame) {
    const box = el("div", {});
    const rounds = (frame.state || {}).rounds;
    if (frame.actor === null || frame.actor === undefined) {
      box.append(el("p", {}, "The deal: the match starts."));
    } else {
      const who = el("p", { class: "action-line" }, seatRef(frame.actor), " ");
      if (frame.action) {
        const [kind, body] = kindOf(forKind(frame.action));
        who.append(el("span", { class: "kind" }, label(kind)), " ", ...inline(body, rounds, kind));
      } else {
        who.append(el("span", { class: "muted" }, "acted (what it chose is not for this seat to know)"));
      }
      if (frame.auto) who.append(" ", el("span", { class: "badge verdict", title: "the referee played the default action for this seat (timeout, crash, illegal action or forfeit)" }, "played by the referee"));
      box.append(who);
      if (frame.note) box.append(el("p", { class: "note", title: "the bot's own note on this decision" }, el("span", { class: "fact-key" }, "its note: "), frame.note));
    }
    if (frame.decision) {
      const [kind, body] = kindOf(forKind(frame.decision));
      box.append(el("div", { class: "decision" }, el("span", { class: "fact-key" }, "asked to decide: "), el("span", { class: "kind" }, label(kind)), " ", ...inline(body, rounds, kind)));
    }
    if (frame.to_act.length) {
      box.append(el("p", { class: "small" }, "to act next: ", frame.to_act.map((s, i) => [i ? ", " : "", seatRef(s)])));
    }
    if (frame.result) {
      const rows = frame.result.ranks.map((rank, seat) => ({ seat, rank, score: frame.result.scores[seat] })).sort((a, b) => a.rank - b.rank);
      box.append(
        el(
          "div",
          { class: "result" },
          el("h3", {}, "Result"),
          el(
            "table",
            { class: "data" },
            el("thead", {}, el("tr", {}, el("th", {}, "rank"), el("th", {}, "seat"), el("th", { class: "num", title: frames.score }, "score"))),
            el("tbody", {}, rows.map((r) => el("tr", { class: r.rank === 1 ? "won" : "" }, el("td", {}, `${r.rank}.`), el("td", {}, seatRef(r.seat)), el("td", { class: "num" }, String(r.score)))))
          ),
          /* the score is not always what ranks: in General's War for two, who took the last general wins */
          frames.score ? el("p", { class: "muted small score-meaning" }, `score: ${frames.score}`) : null
        )
      );
    } else if (!frame.to_act.length) {
      box.append(el("p", { class: "muted" }, "The match is over."));
    }
    return box;
  }

  /* The events list as drawn: the frames it was drawn from and the frames whose events it holds, 0 to `upTo`. A step
     adds or removes the events of the steps between, where the whole list was drawn again at every step: at the end of
     a long match (a Generals & Assassins game of a thousand events) a step took 0.35 to 0.6 s on a 2-core machine, and autoplay
     at 8x fell behind. Another view's frames draw it anew. */
  const drawn = { frames: null, upTo: -1 };

  function renderEvents() {
    const list = $("events");
    if (drawn.frames !== frames) {
      list.replaceChildren();
      Object.assign(drawn, { frames, upTo: -1 });
    }
    for (const li of list.querySelectorAll(":scope > li:not(.event)")) li.remove(); // "no event yet"
    const frameOf = (li) => Number(li.dataset.frame);
    while (list.lastElementChild && frameOf(list.lastElementChild) > step) list.lastElementChild.remove(); // in step order
    for (drawn.upTo = Math.min(drawn.upTo, step); drawn.upTo < step; drawn.upTo++) {
      const i = drawn.upTo + 1;
      for (const ev of frames.frames[i].events) list.append(renderEvent(ev, i, (frames.frames[i].state || {}).rounds));
    }
    for (const li of list.querySelectorAll(":scope > li.now")) li.classList.remove("now");
    for (let li = list.lastElementChild; li && frameOf(li) === step; li = li.previousElementSibling) li.classList.add("now");
    // This step's events are the last ones listed (none later is drawn): the list ends with them, the earlier ones
    // above. Centred on the first of them, a step of many events (the last battle, the round's and the game's end)
    // left its end, who won and why, below the fold.
    list.scrollTop = list.scrollHeight;
    if (!list.children.length) list.append(el("li", { class: "muted" }, "no event yet"));
  }

  function render() {
    if (!frames) return;
    const last = frames.frames.length - 1;
    step = Math.max(0, Math.min(step, last));
    const frame = frames.frames[step];
    $("scrub").max = String(last);
    $("scrub").value = String(step);
    $("step-label").textContent = `step ${step} / ${last}`;
    $("table-title").textContent = mode === "all" ? "Table — everything" : `Table — as ${seatText(Number(mode))} saw it`;
    keepingPilesOpen(() => $("table").replaceChildren(renderTable(frame)));
    reachScrollers();
    $("step-info").replaceChildren(renderStepInfo(frame));
    renderEvents();
    /* said unavailable, not disabled: a disabled button drops the focus, and the keyboard's user was left on the body */
    for (const [id, off] of [["first", step === 0], ["prev", step === 0], ["next", step === last], ["last", step === last]]) $(id).setAttribute("aria-disabled", String(off));
    document.body.dataset.step = String(step);
    document.body.dataset.mode = mode;
    history.replaceState(null, "", `#view=${mode}&step=${step}`);
  }

  function go(to) {
    step = to;
    render();
  }

  function stop() {
    if (timer !== null) clearInterval(timer);
    timer = null;
    $("play").classList.remove("playing");
    $("play").setAttribute("aria-label", "play");
  }

  function play() {
    if (!frames) return;
    if (step >= frames.frames.length - 1) go(0);
    const every = 800 / Number($("speed").value);
    timer = setInterval(() => {
      if (!frames) return; // another view's frames are loading
      if (step >= frames.frames.length - 1) stop();
      else go(step + 1);
    }, every);
    $("play").classList.add("playing");
    $("play").setAttribute("aria-label", "pause");
  }

  function toggle() {
    if (timer === null) play();
    else stop();
  }

  async function setMode(next) {
    mode = next;
    $("mode").value = next;
    $("mode-note").textContent =
      next === "all"
        ? "Everything: the full state at each step and every event; a private event is marked with the seats that were told."
        : `As ${seatText(Number(next))}: only what the referee sent that seat — its views, the events it was told, its own actions.`;
    $("mode-note").className = "mode-note small " + (next === "all" ? "everything" : "seat-view");
    seatCards();
    drawMeta();
    $("table").replaceChildren(el("p", { class: "muted" }, "loading…"));
    // Until this view's frames are here, nothing is drawn: a step or an autoplay tick meanwhile would draw the
    // previous view's frames (everything, seat 1's hand) under this view's title.
    if (!loaded.has(next)) {
      frames = null;
      $("step-info").replaceChildren();
      $("events").replaceChildren();
      drawn.frames = null;
    }
    try {
      if (!loaded.has(next)) loaded.set(next, await api(`${data.frames}?seat=${encodeURIComponent(next)}`));
      if (mode !== next) return;
      frames = loaded.get(next);
      render();
    } catch (err) {
      frames = null;
      $("table").replaceChildren(el("p", { class: "error" }, `The replay cannot be shown: ${err.message}`));
    }
  }

  let gameName = null; // the game's name, once the games are read

  /* The line under the title: the game, its seed, the match's kind and end. The seed only in the everything view: every
     card of the deal follows from it (`arena match GAME … --seed N` deals them again), which a seat's view keeps back. */
  function drawMeta() {
    const s = summary;
    if (gameName === null) return;
    const bits = [mode === "all" ? `seed ${s.seed}` : null, s.kind, s.finished_at ? `finished ${Arena.when(s.finished_at)}` : null].filter((bit) => bit);
    $("match-meta").replaceChildren(local ? [gameName, ...bits].join(" · ") : el("span", {}, el("a", { href: `/games/${s.game}` }, gameName), " · " + bits.join(" · ")));
  }

  function header() {
    const s = summary;
    $("match-title").textContent = local ? `Replay ${s.id}` : `Match #${s.id}`;
    Arena.gameName(s.game).then((name) => {
      gameName = name;
      drawMeta();
    });
    seatCards();
    for (const seat of s.seats) $("mode").append(el("option", { value: String(seat.seat) }, `As seat ${seat.seat} — ${seat.bot}`));
  }

  /* The seats in the header, as the view shows them: a verdict's detail (the card an illegal action named, say) only
     in the everything view and in the view of its own seat; another seat's view sees that the seat was penalised. */
  function seatCards() {
    const s = summary;
    $("match-seats").replaceChildren(
      ...s.seats.map((seat) =>
        el(
          "span",
          { class: `seat-card s${seat.seat % 8}` + (seat.rank === 1 ? " won" : "") },
          el("b", {}, `seat ${seat.seat}`),
          " ",
          local ? seat.bot : Arena.botLink(seat.bot),
          seat.version ? el("span", { class: "muted" }, ` v${seat.version}`) : null,
          seat.rank ? el("span", { class: "badge rank" + (seat.rank === 1 ? " won" : "") }, `rank ${seat.rank}`) : null,
          seat.score !== null && seat.score !== undefined ? el("span", { class: "muted" }, ` score ${seat.score}`) : null,
          ...Arena.verdictBadges(seat.verdicts, mode === "all" || mode === String(seat.seat) ? null : `the detail is for ${seatText(seat.seat)} and the everything view`)
        )
      )
    );
  }

  function fromHash() {
    const params = new URLSearchParams(location.hash.slice(1));
    const view = params.get("view");
    const at = Number(params.get("step"));
    return { view: view !== null && (view === "all" || summary.seats.some((s) => String(s.seat) === view)) ? view : "all", step: Number.isInteger(at) && at >= 0 ? at : 0 };
  }

  async function start() {
    try {
      summary = await api(data.summary);
    } catch (err) {
      $("match-title").textContent = "Match not found";
      $("viewer").replaceChildren(el("p", { class: "error" }, err.message));
      return;
    }
    const wanted = fromHash();
    mode = wanted.view; // before the header: a seat's view opened by its address never drew the others' verdicts' details
    header();
    if (summary.status !== "done") {
      $("controls").hidden = true;
      $("viewer").replaceChildren(el("section", { class: "panel" }, el("p", {}, Arena.UNPLAYED.includes(summary.status) ? `This match ${summary.status === "failed" ? "failed" : "was cancelled, never played"}: ${summary.error || "no reason given"}.` : `This match is ${summary.status}: its replay can be watched once it is over.`)));
      return;
    }
    step = wanted.step;
    $("first").addEventListener("click", () => go(0));
    $("prev").addEventListener("click", () => go(step - 1));
    $("next").addEventListener("click", () => go(step + 1));
    $("last").addEventListener("click", () => go(Infinity));
    $("play").addEventListener("click", toggle);
    $("scrub").addEventListener("input", () => go(Number($("scrub").value)));
    $("speed").addEventListener("change", () => {
      if (timer !== null) {
        stop();
        play();
      }
    });
    $("mode").addEventListener("change", () => setMode($("mode").value));
    document.addEventListener("keydown", (e) => {
      const target = e.target;
      if (e.altKey || e.ctrlKey || e.metaKey) return;
      // A view or speed list just chosen keeps the focus: ← and → still step (they changed the view, seat after
      // seat), while ↑, ↓ and typing choose in the list.
      if (target instanceof HTMLSelectElement && e.key !== "ArrowLeft" && e.key !== "ArrowRight") return;
      // The slider steps by itself with the arrows, Home and End; space still plays (it did nothing there).
      if (target instanceof HTMLInputElement && !(target.type === "range" && e.key === " ")) return;
      if (e.key === " " && target instanceof HTMLButtonElement) return; // the focused button takes the space itself
      // A panel that scrolls sideways, focused, scrolls with ← and → (reachScrollers): they stepped the replay instead.
      if ((e.key === "ArrowLeft" || e.key === "ArrowRight") && target instanceof HTMLElement && target.matches("#table .sub-panel[tabindex]")) return;
      if (e.key === "ArrowRight") go(step + 1);
      else if (e.key === "ArrowLeft") go(step - 1);
      else if (e.key === "Home") go(0);
      else if (e.key === "End") go(Infinity);
      else if (e.key === " ") toggle();
      else return;
      e.preventDefault();
    });
    window.addEventListener("resize", reachScrollers);
    window.addEventListener("hashchange", () => {
      const asked = fromHash();
      step = asked.step;
      if (asked.view !== mode) setMode(asked.view);
      else render();
    });
    await setMode(wanted.view);
  }

  document.addEventListener("DOMContentLoaded", start);
})();
