// A random action for a decision of each game, built from the decision's constraints alone (the
// request's legal_actions list is not used here: it is absent when there are over 64 actions).
#pragma once

#include <utility>
#include <vector>

#include "arena/v1/cards.pb.h"
#include "arena/v1/referee.pb.h"
#include "rng.h"

namespace bot {

arena::v1::Action generals_war_action(const arena::v1::generals_war::Decision& decision, Rng& rng);
arena::v1::Action glory_action(const arena::v1::glory::Decision& decision, Rng& rng);
arena::v1::Action generals_and_assassins_action(const arena::v1::generals_and_assassins::Decision& decision, Rng& rng);
arena::v1::Action land_and_castle_action(const arena::v1::land_and_castle::Decision& decision, Rng& rng);
arena::v1::Action assassination_action(const arena::v1::assassination::Decision& decision, Rng& rng);

// The value of a card in Glory and in Generals & Assassins: ace 1, two to ten face value, jack 10,
// queen 11, king 12, joker 25.
unsigned card_value(const arena::v1::Card& card);
unsigned total_value(const std::vector<arena::v1::Card>& cards);

// The ids of these cards, appended to a repeated id field.
void add_ids(const std::vector<arena::v1::Card>& cards, google::protobuf::RepeatedField<uint32_t>* ids);

// Some of `pool` worth at least `needed` in all (empty when the pool is not worth that much): cards
// drawn in random order until the total is reached, and now and then a spare one more (both games
// let a buyer overpay: no change is given).
std::vector<arena::v1::Card> pay_at_least(std::vector<arena::v1::Card> pool, unsigned needed, Rng& rng);

// Random offers for help: to each of `recipients`, now and then, some of the cards of `pool` not yet
// offered (at least `least`). Each entry is a recipient and its cards.
std::vector<std::pair<uint32_t, std::vector<arena::v1::Card>>> random_offers(
    const google::protobuf::RepeatedField<uint32_t>& recipients, std::vector<arena::v1::Card> pool, size_t least,
    Rng& rng);

}  // namespace bot
