// Generals & Assassins: the turn's action is chosen among the kinds the hand allows, then its cards.
#include <functional>

#include "games.h"

namespace bot {

namespace ga = arena::v1::generals_and_assassins;
using Cards = std::vector<arena::v1::Card>;

namespace {

void turn_action(const ga::TurnChoice& turn, ga::Action* out, Rng& rng) {
  std::vector<std::function<void()>> moves;
  if (!turn.generals().empty() && !turn.targets().empty())
    moves.push_back([&] {
      ga::Attack* attack = out->mutable_attack();
      attack->set_target(rng.pick(turn.targets()));
      add_ids(rng.sample(to_vector(turn.generals()), 1, turn.generals_size()), attack->mutable_card_ids());
      add_ids(rng.sample(to_vector(turn.soldiers()), 0, turn.soldiers_size()), attack->mutable_card_ids());
    });
  if (!turn.assassins().empty() && !turn.targets().empty())
    moves.push_back([&] {
      out->mutable_assassinate()->set_target(rng.pick(turn.targets()));
      out->mutable_assassinate()->set_card_id(rng.pick(turn.assassins()).id());
    });
  Cards land = rng.sample(to_vector(turn.land()), 1, turn.land_size());
  Cards money = pay_at_least(to_vector(turn.money()), total_value(land), rng);
  if (!land.empty() && !money.empty())
    moves.push_back([&] {
      add_ids(money, out->mutable_buy_land()->mutable_money_ids());
      add_ids(land, out->mutable_buy_land()->mutable_land_ids());
    });
  if (!turn.health().empty())
    moves.push_back([&] { out->mutable_heal()->set_card_id(rng.pick(turn.health()).id()); });
  moves.push_back([&] {
    Cards cards = {rng.pick(turn.hand())};
    if (!turn.aces().empty() && rng.coin()) {  // an ace, and any of the others with it
      cards = {rng.pick(turn.aces())};
      for (const auto& card : turn.hand())
        if (card.id() != cards[0].id() && rng.coin()) cards.push_back(card);
    }
    add_ids(cards, out->mutable_discard()->mutable_card_ids());
  });
  rng.pick(moves)();
}

}  // namespace

arena::v1::Action generals_and_assassins_action(const ga::Decision& decision, Rng& rng) {
  arena::v1::Action action;
  ga::Action* out = action.mutable_generals_and_assassins();
  switch (decision.kind_case()) {
    case ga::Decision::kTurnChoice:
      turn_action(decision.turn_choice(), out, rng);
      break;
    case ga::Decision::kOfferChoice: {
      const auto& choice = decision.offer_choice();
      out->mutable_offer_lands();  // possibly no offer at all; each offer has one land or more
      for (const auto& [seat, lands] : random_offers(choice.recipients(), to_vector(choice.lands()), 1, rng)) {
        ga::Offer* offer = out->mutable_offer_lands()->add_offers();
        offer->set_seat(seat);
        add_ids(lands, offer->mutable_land_ids());
      }
      break;
    }
    case ga::Decision::kAssistChoice: {
      const auto& cards = decision.assist_choice().cards();
      if (cards.empty() || rng.below(3) == 0) {
        out->mutable_decline();
      } else {
        out->mutable_assist()->set_side(rng.coin() ? ga::ATTACKER : ga::DEFENDER);
        out->mutable_assist()->set_card_id(rng.pick(cards).id());
      }
      break;
    }
    case ga::Decision::kDefenceChoice: {
      const auto& cards = decision.defence_choice().cards();
      add_ids(rng.sample(to_vector(cards), 0, cards.size()), out->mutable_defend()->mutable_card_ids());
      break;
    }
    case ga::Decision::kAssassinChoice: {
      const auto& jokers = decision.assassin_choice().assassins();
      if (jokers.empty() || rng.coin())
        out->mutable_decline();
      else
        out->mutable_play_assassin()->set_card_id(rng.pick(jokers).id());
      break;
    }
    case ga::Decision::kNextRoundChoice:
      out->mutable_start_round();
      break;
    case ga::Decision::KIND_NOT_SET:
      throw std::runtime_error("a Generals & Assassins decision with no kind");
  }
  return action;
}

}  // namespace bot
