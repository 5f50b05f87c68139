// Glory: the turn's action is chosen among the kinds the hand allows, then its cards at random.
#include <functional>

#include "games.h"

namespace bot {

namespace gl = arena::v1::glory;
using Cards = std::vector<arena::v1::Card>;

namespace {

// At least one general, any soldiers: an attack's force.
Cards force(const gl::TurnChoice& turn, Rng& rng) {
  Cards cards = rng.sample(to_vector(turn.generals()), 1, turn.generals_size());
  for (const auto& soldier : rng.sample(to_vector(turn.soldiers()), 0, turn.soldiers_size())) cards.push_back(soldier);
  return cards;
}

// Conquer Land or Attack a King: a target, a force and any money as mercenaries.
template <class Attack>
void attack(Attack* out, const google::protobuf::RepeatedField<uint32_t>& targets, const gl::TurnChoice& turn, Rng& rng) {
  out->set_target(rng.pick(targets));
  add_ids(force(turn, rng), out->mutable_card_ids());
  add_ids(rng.sample(to_vector(turn.treasury()), 0, turn.treasury_size()), out->mutable_money_ids());
}

// A discard: one card, or any number with at least one ace among them.
Cards discard(const gl::TurnChoice& turn, Rng& rng) {
  if (turn.aces().empty() || rng.coin()) return {rng.pick(turn.hand())};
  const arena::v1::Card& ace = rng.pick(turn.aces());
  Cards cards = {ace};
  for (const auto& card : turn.hand())
    if (card.id() != ace.id() && rng.coin()) cards.push_back(card);
  return cards;
}

void turn_action(const gl::TurnChoice& turn, gl::Action* out, Rng& rng) {
  if (turn.can_pass()) {
    out->mutable_pass_turn();
    return;
  }
  std::vector<std::function<void()>> moves;
  Cards lands = rng.sample(to_vector(turn.lands()), 1, turn.lands_size());
  Cards money = pay_at_least(to_vector(turn.treasury()), total_value(lands), rng);
  if (!lands.empty() && !money.empty())
    moves.push_back([&] {
      add_ids(lands, out->mutable_buy_land()->mutable_land_ids());
      add_ids(money, out->mutable_buy_land()->mutable_money_ids());
    });
  if (!turn.generals().empty() && !turn.conquer_targets().empty())
    moves.push_back([&] { attack(out->mutable_conquer_land(), turn.conquer_targets(), turn, rng); });
  if (!turn.generals().empty() && !turn.king_targets().empty())
    moves.push_back([&] { attack(out->mutable_attack_king(), turn.king_targets(), turn, rng); });
  if (!turn.assassins().empty() && !turn.king_targets().empty())
    moves.push_back([&] {
      out->mutable_assassinate()->set_target(rng.pick(turn.king_targets()));
      add_ids(rng.sample(to_vector(turn.assassins()), 1, turn.assassins_size()),
              out->mutable_assassinate()->mutable_card_ids());
    });
  if (!turn.health().empty())
    moves.push_back([&] { out->mutable_heal()->set_card_id(rng.pick(turn.health()).id()); });
  moves.push_back([&] { add_ids(discard(turn, rng), out->mutable_discard()->mutable_card_ids()); });
  rng.pick(moves)();
}

}  // namespace

arena::v1::Action glory_action(const gl::Decision& decision, Rng& rng) {
  arena::v1::Action action;
  gl::Action* out = action.mutable_glory();
  switch (decision.kind_case()) {
    case gl::Decision::kTurnChoice:
      turn_action(decision.turn_choice(), out, rng);
      break;
    case gl::Decision::kOfferChoice: {
      // possibly no offer at all; an offer of no card is a bare appeal for help
      const auto& choice = decision.offer_choice();
      out->mutable_make_offers();
      for (const auto& [seat, cards] : random_offers(choice.recipients(), to_vector(choice.offerable()), 0, rng)) {
        gl::Offer* offer = out->mutable_make_offers()->add_offers();
        offer->set_seat(seat);
        add_ids(cards, offer->mutable_card_ids());
      }
      break;
    }
    case gl::Decision::kAssistChoice: {
      const auto& choice = decision.assist_choice();
      if (choice.playable().empty() || rng.below(3) == 0) {
        out->mutable_decline_assist();
      } else {
        out->mutable_assist()->set_seat(rng.coin() ? choice.attacker() : choice.defender());
        add_ids(rng.sample(to_vector(choice.playable()), 1, choice.playable_size()),
                out->mutable_assist()->mutable_card_ids());
      }
      break;
    }
    case gl::Decision::kDefendChoice: {
      const auto& playable = decision.defend_choice().playable();
      add_ids(rng.sample(to_vector(playable), 0, playable.size()), out->mutable_defend()->mutable_card_ids());
      break;
    }
    case gl::Decision::kThwartChoice: {  // exactly as many assassins as presented, or none
      const auto& choice = decision.thwart_choice();
      Cards jokers = to_vector(choice.assassins());
      out->mutable_thwart();
      if (jokers.size() >= choice.required() && rng.coin())
        add_ids(rng.sample(jokers, choice.required(), choice.required()), out->mutable_thwart()->mutable_card_ids());
      break;
    }
    case gl::Decision::kMoreAssassinsChoice: {
      const auto& jokers = decision.more_assassins_choice().assassins();
      out->mutable_more_assassins();
      if (!jokers.empty() && rng.coin())
        add_ids(rng.sample(to_vector(jokers), 1, jokers.size()), out->mutable_more_assassins()->mutable_card_ids());
      break;
    }
    case gl::Decision::kStartRoundChoice:
      out->mutable_start_round();
      break;
    case gl::Decision::KIND_NOT_SET:
      throw std::runtime_error("a Glory decision with no kind");
  }
  return action;
}

}  // namespace bot
