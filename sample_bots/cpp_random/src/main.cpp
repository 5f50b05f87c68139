// A random-legal-play bot for every Arena game, written from docs/protocol.md and the .proto files.
//
// One match: connect to ARENA_ADDRESS, send a Hello with ARENA_MATCH_ID and ARENA_TOKEN, answer each
// DecisionRequest with a random action built from the decision's constraints, and stop at the
// result. With ARENA_CONTROL=stdin it plays one match per JSON line read from standard input.
// Everything printed goes to the bot's log.
#include <chrono>
#include <cstdlib>
#include <iostream>
#include <memory>
#include <string>
#include <thread>

#include <google/protobuf/util/message_differencer.h>
#include <grpcpp/grpcpp.h>

#include "arena/v1/referee.grpc.pb.h"
#include "games.h"

namespace {

using arena::v1::Action;
using arena::v1::BotMessage;
using arena::v1::DecisionRequest;
using arena::v1::RefereeMessage;

const char* const kName = "cpp-random";
const char* const kVersion = "1.0.0";
// How long to keep trying to reconnect after the stream drops without a result.
const auto kReconnectFor = std::chrono::seconds(10);
// Answers tried for one request before giving up on it (docs/protocol.md: give_up, and the referee plays the
// default action at once, as at the deadline, instead of waiting for it).
const int kMaxTries = 5;

struct Ticket {
  std::string address, match_id, token, seed;
};

struct Stats {
  int decisions = 0, listed = 0, unlisted_choice = 0, rejections = 0, errors = 0;
};

std::string env(const char* name) {
  const char* value = std::getenv(name);
  return value ? value : "";
}

Action random_action(const DecisionRequest& request, Rng& rng) {
  const arena::v1::Decision& decision = request.decision();
  switch (decision.game_case()) {
    case arena::v1::Decision::kGeneralsWar: return bot::generals_war_action(decision.generals_war(), rng);
    case arena::v1::Decision::kGlory: return bot::glory_action(decision.glory(), rng);
    case arena::v1::Decision::kGeneralsAndAssassins:
      return bot::generals_and_assassins_action(decision.generals_and_assassins(), rng);
    case arena::v1::Decision::kLandAndCastle: return bot::land_and_castle_action(decision.land_and_castle(), rng);
    case arena::v1::Decision::kAssassination: return bot::assassination_action(decision.assassination(), rng);
    case arena::v1::Decision::GAME_NOT_SET: break;
  }
  throw std::runtime_error("a decision request with no game set");
}

// True when `action` is one of the listed legal actions (the order of repeated fields not counting).
bool listed(const DecisionRequest& request, const Action& action) {
  google::protobuf::util::MessageDifferencer same;
  same.set_repeated_field_comparison(google::protobuf::util::MessageDifferencer::AS_SET);
  for (const Action& legal : request.legal_actions())
    if (same.Compare(legal, action)) return true;
  return false;
}

// The answer to a request: a random action built from the decision. When the request also lists every
// legal action, the built one is checked against the list; one that is not there is logged (the
// decision's description and the list disagree) and a listed one is sent instead.
Action choose(const DecisionRequest& request, Rng& rng, Stats& stats) {
  Action action = random_action(request, rng);
  if (request.legal_actions_listed()) {
    ++stats.listed;
    if (!listed(request, action)) {
      ++stats.unlisted_choice;
      std::cout << "built an action the list lacks: " << action.ShortDebugString()
                << " for " << request.decision().ShortDebugString() << std::endl;
      action = rng.pick(request.legal_actions());
    }
  }
  return action;
}

BotMessage answer(uint64_t request_id, const Action& action) {
  BotMessage message;
  message.mutable_action()->set_request_id(request_id);
  *message.mutable_action()->mutable_action() = action;
  return message;
}

bool refused_for_good(grpc::StatusCode code) {
  return code == grpc::UNAUTHENTICATED || code == grpc::NOT_FOUND || code == grpc::FAILED_PRECONDITION ||
         code == grpc::PERMISSION_DENIED || code == grpc::INVALID_ARGUMENT;
}

// Plays one match to its result; 0 when a result came, 1 when the referee refused the bot or the
// stream could not be had again within kReconnectFor.
int play(arena::v1::Referee::Stub& stub, const Ticket& ticket, Rng& rng) {
  Stats stats;
  auto broken_since = std::chrono::steady_clock::now();
  for (;;) {
    grpc::ClientContext context;
    std::unique_ptr<grpc::ClientReaderWriter<BotMessage, RefereeMessage>> stream(stub.Play(&context));
    BotMessage hello;
    hello.mutable_hello()->set_match_id(ticket.match_id);
    hello.mutable_hello()->set_token(ticket.token);
    hello.mutable_hello()->set_protocol_version(1);
    hello.mutable_hello()->set_bot_name(kName);
    hello.mutable_hello()->set_bot_version(kVersion);
    stream->Write(hello);

    DecisionRequest pending;  // the open request (request_id 0: none)
    int tries = 0;
    RefereeMessage message;
    bool finished = false;
    while (!finished && stream->Read(&message)) {
      switch (message.msg_case()) {
        case RefereeMessage::kStart: {
          const auto& start = message.start();
          if (!start.resumed()) rng.reseed(seed_from(ticket.seed));  // a fresh match, seeded as its own
          std::cout << (start.resumed() ? "resumed " : "started ") << start.game() << " as seat " << start.seat()
                    << " of " << start.num_seats() << std::endl;
          break;
        }
        case RefereeMessage::kDecision:
          pending = message.decision();
          tries = 1;
          ++stats.decisions;
          stream->Write(answer(pending.request_id(), choose(pending, rng, stats)));
          break;
        case RefereeMessage::kRejection: {
          ++stats.rejections;
          std::cout << "rejected (request " << message.rejection().request_id() << "): " << message.rejection().reason()
                    << std::endl;
          if (message.rejection().request_id() != pending.request_id() || tries > kMaxTries) break;
          if (tries == kMaxTries) {  // said once: answers sent before may still be rejected after it
            ++tries;
            std::cout << "giving up on request " << pending.request_id() << " after " << kMaxTries << " rejected answers"
                      << std::endl;
            BotMessage give_up;
            give_up.mutable_give_up()->set_request_id(pending.request_id());
            stream->Write(give_up);
            break;
          }
          ++tries;
          Action retry = pending.legal_actions_listed() ? rng.pick(pending.legal_actions()) : random_action(pending, rng);
          stream->Write(answer(pending.request_id(), retry));
          break;
        }
        case RefereeMessage::kError:
          ++stats.errors;
          std::cout << "protocol error " << arena::v1::ErrorCode_Name(message.error().code()) << ": "
                    << message.error().message() << std::endl;
          break;
        case RefereeMessage::kEvents:  // a random bot needs nothing from the events: the view holds it all
          break;
        case RefereeMessage::kResult:
          for (const auto& seat : message.result().seats())
            std::cout << "seat " << seat.seat() << ": rank " << seat.rank() << ", score " << seat.score()
                      << (seat.forfeited() ? ", forfeited" : "") << ", " << seat.verdicts_size() << " verdicts"
                      << std::endl;
          std::cout << "decisions " << stats.decisions << ", with the list " << stats.listed
                    << ", built off the list " << stats.unlisted_choice << ", rejections " << stats.rejections
                    << ", errors " << stats.errors << std::endl;
          finished = true;
          break;
        case RefereeMessage::MSG_NOT_SET:
          break;
      }
      if (message.has_decision() || message.has_start()) broken_since = std::chrono::steady_clock::now();
    }
    stream->WritesDone();
    grpc::Status status = stream->Finish();
    if (finished) return 0;
    if (refused_for_good(status.error_code())) {
      std::cout << "refused: " << status.error_code() << " " << status.error_message() << std::endl;
      return 1;
    }
    if (std::chrono::steady_clock::now() - broken_since > kReconnectFor) {
      std::cout << "gave up reconnecting: " << status.error_message() << std::endl;
      return 1;
    }
    std::cout << "stream broke (" << status.error_code() << " " << status.error_message() << "); reconnecting"
              << std::endl;
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
  }
}

// The value of "key" in a one-line JSON object of strings (the control lines of ARENA_CONTROL=stdin).
std::string json_field(const std::string& line, const std::string& key) {
  size_t at = line.find("\"" + key + "\"");
  if (at == std::string::npos) return "";
  at = line.find(':', at);
  if (at == std::string::npos) return "";
  at = line.find('"', at);
  if (at == std::string::npos) return "";
  std::string value;
  for (size_t i = at + 1; i < line.size() && line[i] != '"'; ++i) {
    if (line[i] == '\\' && i + 1 < line.size()) ++i;
    value += line[i];
  }
  return value;
}

}  // namespace

int main() {
  Rng rng;
  try {
    if (env("ARENA_CONTROL") == "stdin") {  // several matches, one JSON line each, on one connection
      std::unique_ptr<arena::v1::Referee::Stub> stub;
      std::string line, address;
      int failures = 0;
      while (std::getline(std::cin, line)) {
        Ticket ticket{json_field(line, "address"), json_field(line, "match_id"), json_field(line, "token"),
                      json_field(line, "seed")};
        if (!stub || ticket.address != address) {
          address = ticket.address;
          stub = arena::v1::Referee::NewStub(grpc::CreateChannel(address, grpc::InsecureChannelCredentials()));
        }
        failures += play(*stub, ticket, rng);
      }
      return failures == 0 ? 0 : 1;
    }
    Ticket ticket{env("ARENA_ADDRESS"), env("ARENA_MATCH_ID"), env("ARENA_TOKEN"), env("ARENA_BOT_SEED")};
    auto stub = arena::v1::Referee::NewStub(grpc::CreateChannel(ticket.address, grpc::InsecureChannelCredentials()));
    return play(*stub, ticket, rng);
  } catch (const std::exception& error) {
    std::cout << "error: " << error.what() << std::endl;
    return 2;
  }
}
