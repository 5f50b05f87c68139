/* A match's page asked for before every match of its deal was over ("Not yet"): it says where the match is, and
   opens by itself once the match can be shown, where it stayed "Not yet" until reloaded. */
"use strict";

(() => {
  const id = document.body.dataset.waitingFor;
  const POLL_MS = 5000;
  const STATUS = {
    queued: "waiting to be played",
    running: "being played",
    done: "over; another match of its deal is still to play",
    failed: "failed; another match of its deal is still to play",
    cancelled: "cancelled; another match of its deal is still to play",
  };

  async function look() {
    try {
      const match = await Arena.api(`/api/matches/${id}`);
      if (match.settled) {
        location.reload();
        return;
      }
      const seats = match.seats.map((s) => `seat ${s.seat} ${s.bot}`).join(", ");
      const where = [await Arena.gameName(match.game), match.kind, STATUS[match.status] || match.status].join(" · ");
      document.getElementById("not-found-detail").textContent = `${where} (${seats}). This page opens by itself when it is shown.`;
    } catch (e) {
      /* keep what is said; the next look tries again */
    }
    document.body.dataset.looks = String(Number(document.body.dataset.looks || 0) + 1);
  }

  document.addEventListener("DOMContentLoaded", () => {
    look();
    setInterval(look, POLL_MS);
  });
})();
