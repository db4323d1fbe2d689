#pragma once
// odm::Session: a logical session (causal consistency, multi-document transactions).
//
//   auto session = client.start_session();
//   session.with_transaction([&](odm::Session& s) {
//     books.update_one(s, has_copy, checkout);
//     loans.insert_one(s, loan);
//   });
//
// A session holds one pooled connection for its whole life and must be used by one
// thread at a time, with collections of the client that started it. Transactions need
// a replica set or a sharded cluster (docker-compose.yml starts a one-node replica
// set); elsewhere starting one throws odm::Error.

#include <odm/driver/core.hpp>
#include <odm/driver/errors.hpp>

#include <chrono>
#include <functional>
#include <utility>

namespace odm {

class Client;

class Session {
 public:
  Session(Session&& other) noexcept : state_(std::exchange(other.state_, nullptr)) {}
  Session& operator=(Session&& other) noexcept {
    if (this != &other) {
      detail::destroy_session(state_);
      state_ = std::exchange(other.state_, nullptr);
    }
    return *this;
  }
  Session(const Session&) = delete;
  Session& operator=(const Session&) = delete;
  /// Ends the session; a transaction still open is aborted.
  ~Session() { detail::destroy_session(state_); }

  void start_transaction() { detail::start_transaction(checked()); }
  void commit_transaction() { detail::commit_transaction(checked()); }
  void abort_transaction() { detail::abort_transaction(checked()); }
  bool in_transaction() const noexcept { return state_ != nullptr && detail::in_transaction(*state_); }

  /// Runs `body(session)` in a transaction and commits it. Retries the whole body while
  /// the server labels the error TransientTransactionError, and the commit while it is
  /// UnknownTransactionCommitResult, for up to 120 s (MongoDB's convention). Any other
  /// exception aborts the transaction and propagates.
  template <class Body>
  void with_transaction(Body&& body) {
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(120);
    auto may_retry = [&](const auto& error, const char* label) {
      return error.has_label(label) && std::chrono::steady_clock::now() < deadline;
    };
    for (;;) {
      start_transaction();
      try {
        std::invoke(body, *this);
      } catch (const ServerError& error) {
        abort_quietly();
        if (may_retry(error, "TransientTransactionError")) continue;
        throw;
      } catch (const ConnectionError& error) {
        abort_quietly();
        if (may_retry(error, "TransientTransactionError")) continue;
        throw;
      } catch (...) {
        abort_quietly();
        throw;
      }
      bool retry_transaction = false;
      while (!retry_transaction) {
        try {
          commit_transaction();
          return;
        } catch (const ServerError& error) {
          if (may_retry(error, "UnknownTransactionCommitResult")) continue;
          if (!may_retry(error, "TransientTransactionError")) throw;
          retry_transaction = true;
        } catch (const ConnectionError& error) {
          if (may_retry(error, "UnknownTransactionCommitResult")) continue;
          if (!may_retry(error, "TransientTransactionError")) throw;
          retry_transaction = true;
        }
      }
    }
  }

  /// The session's state, for the collection methods that take a session.
  detail::SessionState* state() const noexcept { return state_; }

 private:
  friend class Client;
  explicit Session(detail::SessionState* owned) noexcept : state_(owned) {}

  detail::SessionState& checked() const {
    if (state_ == nullptr) throw Error("odm::Session: used after it was moved from");
    return *state_;
  }
  void abort_quietly() noexcept {
    try {
      if (in_transaction()) abort_transaction();
    } catch (...) {
    }
  }

  detail::SessionState* state_ = nullptr;
};

}  // namespace odm
