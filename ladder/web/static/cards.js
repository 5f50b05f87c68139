/* Playing cards as chips: from the protocol's Card JSON ({id, rank, suit}), from full_state's short names ("Qh", "Tc", "Jk"), or from card ids. */
"use strict";

const Cards = (() => {
  const SUITS = {
    CLUBS: { symbol: "\u2663", letter: "c", red: false, name: "clubs" },
    DIAMONDS: { symbol: "\u2666", letter: "d", red: true, name: "diamonds" },
    HEARTS: { symbol: "\u2665", letter: "h", red: true, name: "hearts" },
    SPADES: { symbol: "\u2660", letter: "s", red: false, name: "spades" },
  };
  const SUIT_ORDER = ["CLUBS", "DIAMONDS", "HEARTS", "SPADES"];
  const RANK_ORDER = ["ACE", "TWO", "THREE", "FOUR", "FIVE", "SIX", "SEVEN", "EIGHT", "NINE", "TEN", "JACK", "QUEEN", "KING"];
  const RANK_SHOWN = ["A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K"];
  const RANK_LETTER = ["A", "2", "3", "4", "5", "6", "7", "8", "9", "T", "J", "Q", "K"];
  const NAME_RE = /^(?:[2-9TJQKA][cdhs]|Jk)$/;
  const CARD_KEYS = new Set(["id", "rank", "suit"]);

  function isDict(v) {
    return v !== null && typeof v === "object" && !Array.isArray(v);
  }

  /* Whether a JSON value is a card: a Card message or a short card name. */
  function isCard(v) {
    if (typeof v === "string") return NAME_RE.test(v);
    return isDict(v) && typeof v.rank === "string" && (v.rank === "JOKER" || RANK_ORDER.includes(v.rank)) && Object.keys(v).every((k) => CARD_KEYS.has(k));
  }

  /* {rank index 0..12 or -1 for a joker, suit name or null, id or null} */
  function parse(v) {
    if (typeof v === "number") {
      const k = v % 54;
      return k >= 52 ? { rank: -1, suit: null, id: v } : { rank: k % 13, suit: SUIT_ORDER[Math.floor(k / 13)], id: v };
    }
    if (typeof v === "string") {
      if (v === "Jk") return { rank: -1, suit: null, id: null };
      return { rank: RANK_LETTER.indexOf(v[0]), suit: SUIT_ORDER.find((s) => SUITS[s].letter === v[1]), id: null };
    }
    return { rank: v.rank === "JOKER" ? -1 : RANK_ORDER.indexOf(v.rank), suit: SUITS[v.suit] ? v.suit : null, id: v.id === undefined ? null : v.id };
  }

  /* Read out by its name: a screen reader read the chip's text, "Q♥", as "Q black heart suit" (the symbol's Unicode
     name), and a title is not read everywhere. An image with a label is announced by its label alone. */
  function named(node, name) {
    node.title = name;
    node.setAttribute("role", "img");
    node.setAttribute("aria-label", name);
  }

  /* A chip: data-card holds the short name (as card_str writes it), data-card-id the id when the JSON had one. */
  function chip(v) {
    const c = parse(v);
    const node = document.createElement("span");
    if (c.rank < 0) {
      node.className = "card joker";
      node.dataset.card = "Jk";
      named(node, "joker");
      node.textContent = "Jk\u2605";
    } else {
      const suit = SUITS[c.suit];
      node.className = "card" + (suit.red ? " red" : "");
      node.dataset.card = RANK_LETTER[c.rank] + suit.letter;
      named(node, `${RANK_ORDER[c.rank].toLowerCase()} of ${suit.name}`);
      const rank = document.createElement("b");
      rank.textContent = RANK_SHOWN[c.rank];
      node.append(rank, suit.symbol);
    }
    if (c.id !== null) node.dataset.cardId = String(c.id);
    return node;
  }

  function suitSymbol(name) {
    const suit = SUITS[name];
    if (!suit) return null;
    const node = document.createElement("span");
    node.className = "suit" + (suit.red ? " red" : "");
    named(node, suit.name);
    node.textContent = suit.symbol;
    return node;
  }

  return { isCard, chip, suitSymbol, isDict };
})();
