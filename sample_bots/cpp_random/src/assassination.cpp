// The Assassination Game: picks from the decision's lists; an action copies one of the open options.
#include "games.h"

namespace bot {

namespace as = arena::v1::assassination;

arena::v1::Action assassination_action(const as::Decision& decision, Rng& rng) {
  arena::v1::Action action;
  as::Action* out = action.mutable_assassination();
  switch (decision.kind_case()) {
    case as::Decision::kAllegianceChoice:  // only the police officer may choose to be the bad cop
      out->mutable_choose_allegiance()->set_bad_cop(decision.allegiance_choice().police_officer() && rng.coin());
      break;
    case as::Decision::kMovementChoice:
      out->mutable_play_movement()->set_card_id(rng.pick(decision.movement_choice().playable()).id());
      break;
    case as::Decision::kPresidentMoveChoice:
      out->mutable_move_president()->set_room(
          static_cast<as::Room>(rng.pick(decision.president_move_choice().rooms())));
      break;
    case as::Decision::kEventChoice:
      out->mutable_play_event()->set_card_id(rng.pick(decision.event_choice().playable()).id());
      break;
    case as::Decision::kActionChoice: {
      const as::ActionOption& option = rng.pick(decision.action_choice().options());
      as::TakeAction* take = out->mutable_take_action();
      take->set_kind(option.kind());
      if (option.has_target_colour()) take->set_target_colour(option.target_colour());
      if (option.has_target_room()) take->set_target_room(option.target_room());
      break;
    }
    case as::Decision::kReactionChoice:
      out->mutable_react()->set_detain(decision.reaction_choice().can_detain() && rng.coin());
      break;
    case as::Decision::kSniperDetentionChoice:  // only the bad cop may let the sniper go
      out->mutable_detain_sniper()->set_detain(!(decision.sniper_detention_choice().can_ignore() && rng.coin()));
      break;
    case as::Decision::kCellChoice:  // only the police officer the agent detained may leave
      out->mutable_leave_cell()->set_leave(decision.cell_choice().can_leave() && rng.coin());
      break;
    case as::Decision::kNextRoundChoice:
      out->mutable_start_round();
      break;
    case as::Decision::KIND_NOT_SET:
      throw std::runtime_error("an Assassination Game decision with no kind");
  }
  return action;
}

}  // namespace bot
