// General's War and Land & Castle: every decision is a pick from listed cards, seats or lands.
#include "games.h"

namespace bot {

namespace gw = arena::v1::generals_war;
namespace lc = arena::v1::land_and_castle;

arena::v1::Action generals_war_action(const gw::Decision& decision, Rng& rng) {
  arena::v1::Action action;
  gw::Action* out = action.mutable_generals_war();
  switch (decision.kind_case()) {
    case gw::Decision::kRevealChoice: {  // any subset of the revealable aces, none included
      const auto& aces = decision.reveal_choice().revealable();
      add_ids(rng.sample(to_vector(aces), 0, aces.size()), out->mutable_reveal_generals()->mutable_card_ids());
      break;
    }
    case gw::Decision::kTargetChoice:
      out->mutable_choose_target()->set_target(rng.pick(decision.target_choice().targets()));
      break;
    case gw::Decision::kSquadChoice: {
      const auto& choice = decision.squad_choice();
      add_ids(rng.sample(to_vector(choice.playable()), choice.min_cards(), choice.max_cards()),
              out->mutable_play_squad()->mutable_card_ids());
      break;
    }
    case gw::Decision::KIND_NOT_SET:
      throw std::runtime_error("a General's War decision with no kind");
  }
  return action;
}

arena::v1::Action land_and_castle_action(const lc::Decision& decision, Rng& rng) {
  arena::v1::Action action;
  lc::Action* out = action.mutable_land_and_castle();
  switch (decision.kind_case()) {
    case lc::Decision::kCastleChoice:
      out->mutable_place_castle()->set_card_id(rng.pick(decision.castle_choice().playable()).id());
      break;
    case lc::Decision::kGeneralChoice:
      out->mutable_place_general()->set_card_id(rng.pick(decision.general_choice().playable()).id());
      break;
    case lc::Decision::kAttackChoice: {
      const auto& choice = decision.attack_choice();
      if (!choice.swappable().empty() && rng.below(4) == 0) {
        out->mutable_swap_card()->set_card_id(rng.pick(choice.swappable()).id());
      } else {
        out->mutable_attack()->set_card_id(rng.pick(choice.playable()).id());
        out->mutable_attack()->set_land(rng.pick(choice.lands()));
      }
      break;
    }
    case lc::Decision::kDefendChoice: {
      const auto& choice = decision.defend_choice();
      if (!choice.swappable().empty() && rng.below(4) == 0)
        out->mutable_swap_card()->set_card_id(rng.pick(choice.swappable()).id());
      else
        out->mutable_defend()->set_card_id(rng.pick(choice.playable()).id());
      break;
    }
    case lc::Decision::kClaimChoice: {
      const auto& choice = decision.claim_choice();
      uint32_t land = rng.pick(choice.lands());
      if (!choice.exchangeable().empty() && rng.coin()) {
        out->mutable_capture()->set_land(land);
        out->mutable_capture()->set_card_id(rng.pick(choice.exchangeable()).id());
      } else {
        out->mutable_control()->set_land(land);
      }
      break;
    }
    case lc::Decision::KIND_NOT_SET:
      throw std::runtime_error("a Land & Castle decision with no kind");
  }
  return action;
}

}  // namespace bot
