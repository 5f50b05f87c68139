#include "games.h"

namespace bot {

unsigned card_value(const arena::v1::Card& card) {
  switch (card.rank()) {
    case arena::v1::JOKER: return 25;
    case arena::v1::JACK: return 10;
    case arena::v1::QUEEN: return 11;
    case arena::v1::KING: return 12;
    default: return static_cast<unsigned>(card.rank());
  }
}

unsigned total_value(const std::vector<arena::v1::Card>& cards) {
  unsigned total = 0;
  for (const auto& card : cards) total += card_value(card);
  return total;
}

void add_ids(const std::vector<arena::v1::Card>& cards, google::protobuf::RepeatedField<uint32_t>* ids) {
  for (const auto& card : cards) ids->Add(card.id());
}

std::vector<arena::v1::Card> pay_at_least(std::vector<arena::v1::Card> pool, unsigned needed, Rng& rng) {
  pool = rng.sample(pool, pool.size(), pool.size());  // shuffled
  std::vector<arena::v1::Card> paid;
  unsigned total = 0;
  size_t i = 0;
  for (; i < pool.size() && total < needed; ++i) {
    paid.push_back(pool[i]);
    total += card_value(pool[i]);
  }
  if (total < needed) return {};
  for (; i < pool.size(); ++i)
    if (rng.below(4) == 0) paid.push_back(pool[i]);
  return paid;
}

std::vector<std::pair<uint32_t, std::vector<arena::v1::Card>>> random_offers(
    const google::protobuf::RepeatedField<uint32_t>& recipients, std::vector<arena::v1::Card> pool, size_t least,
    Rng& rng) {
  pool = rng.sample(pool, pool.size(), pool.size());  // shuffled: each offer takes from the front
  std::vector<std::pair<uint32_t, std::vector<arena::v1::Card>>> offers;
  for (uint32_t seat : recipients) {
    if (pool.size() < least || rng.coin()) continue;
    size_t count = rng.between(least, pool.size());
    offers.emplace_back(seat, std::vector<arena::v1::Card>(pool.begin(), pool.begin() + count));
    pool.erase(pool.begin(), pool.begin() + count);
  }
  return offers;
}

}  // namespace bot
