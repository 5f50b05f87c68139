"""Card ids: rank, suit and deck from the id alone, the same in every deck."""

from __future__ import annotations

import pytest

from referee.core.cards import CARDS_PER_DECK, Rank, Suit, card_id, card_str, deck_of, full_deck, is_joker, joker_id, rank_of, suit_of, summed


@pytest.mark.parametrize("deck", [0, 1, 5])
def test_every_card_of_a_deck_reads_back_its_rank_suit_and_deck(deck: int) -> None:
    cards = full_deck(deck, jokers=True)
    assert len(set(cards)) == CARDS_PER_DECK and min(cards) == deck * CARDS_PER_DECK
    for suit in (Suit.CLUBS, Suit.DIAMONDS, Suit.HEARTS, Suit.SPADES):
        for rank in range(1, 14):
            card = card_id(rank, suit, deck)
            assert (rank_of(card), suit_of(card), deck_of(card), is_joker(card)) == (rank, suit, deck, False)
    for which in (0, 1):
        joker = joker_id(which, deck)
        assert (rank_of(joker), suit_of(joker), deck_of(joker), is_joker(joker)) == (Rank.JOKER, Suit.NONE, deck, True)


@pytest.mark.parametrize("rank", [0, 14, -1])
def test_a_suited_card_of_no_rank_has_no_id(rank: int) -> None:
    with pytest.raises(ValueError, match=f"rank {rank} is not 1..13"):
        card_id(rank, Suit.HEARTS)


def test_card_names() -> None:
    assert [card_str(card_id(r, Suit.HEARTS, 2)) for r in (1, 9, 10, 11, 12, 13)] == ["Ah", "9h", "Th", "Jh", "Qh", "Kh"]
    assert card_str(card_id(2, Suit.CLUBS)) == "2c" and card_str(joker_id(1, 3)) == "Jk"


def test_a_sum_over_a_table_of_the_first_decks_reads_later_decks_by_their_place() -> None:
    table = tuple(int(rank_of(c)) for c in range(CARDS_PER_DECK))  # one deck's worth of entries
    first = [card_id(13, Suit.SPADES), card_id(1, Suit.CLUBS), joker_id(0)]
    assert summed(table, first) == 13 + 1 + 14
    assert summed(table, [c + 3 * CARDS_PER_DECK for c in first]) == 13 + 1 + 14
    assert summed(table, []) == 0
