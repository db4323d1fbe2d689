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

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <exception>
#include <functional>
#include <utility>

namespace odm {

class Client;

namespace detail {

/// The labels with_transaction acts on, of the exception being handled.
struct TransactionError {
  bool transient = false;              // TransientTransactionError
  bool unknown_commit_result = false;  // UnknownTransactionCommitResult
  bool max_time_expired = false;       // MaxTimeMSExpired (50), also as a write concern error
};

/// The labels of the exception being handled (call inside a catch block; client.cpp).
TransactionError transaction_error() noexcept;

/// The wait before a transaction's attempt: a random fraction of 5 ms x 1.5^attempt,
/// at most 500 ms.
std::chrono::microseconds transaction_backoff(int attempt);

/// Sleeps on the calling thread (std::this_thread::sleep_for, kept out of this header).
void pause_for(std::chrono::microseconds duration);

}  // namespace detail

class Session {
 public:
  Session(Session&&) noexcept = default;
  Session& operator=(Session&&) noexcept = default;
  /// Ends the session; a transaction still open is aborted.
  ~Session() = default;

  void start_transaction() { detail::start_transaction(checked()); }
  void commit_transaction() { detail::commit_transaction(checked()); }
  void abort_transaction() { detail::abort_transaction(checked()); }
  bool in_transaction() const noexcept { return state_ != nullptr && detail::in_transaction(*state_); }

  /// Runs `body(session)` in a transaction and commits it, as MongoDB's drivers'
  /// withTransaction does (the "Convenient API for Transactions" specification):
  ///  - an error labelled TransientTransactionError, from the body or from the commit,
  ///    aborts the transaction and runs it again: `body` may run several times, so it
  ///    should do nothing but the session's operations;
  ///  - a commit error labelled UnknownTransactionCommitResult commits again, unless it is
  ///    MaxTimeMSExpired;
  ///  - retries stop once `time_limit` has passed (MongoDB's drivers use 120 s); the last
  ///    error then propagates. A new attempt first waits a random backoff (up to
  ///    5 ms x 1.5^attempt, at most 500 ms);
  ///  - any other exception aborts the transaction and propagates;
  ///  - if `body` commits or aborts the transaction itself, that is the end of it.
  template <class Body>
  void with_transaction(Body&& body, std::chrono::milliseconds time_limit = std::chrono::seconds(120)) {
    const auto start = std::chrono::steady_clock::now();
    const auto time_left = [&] { return time_limit - (std::chrono::steady_clock::now() - start); };
    std::exception_ptr last_error;
    for (int attempt = 0;; ++attempt) {
      if (attempt > 0) {
        const auto backoff = detail::transaction_backoff(attempt);
        if (backoff >= time_left()) std::rethrow_exception(last_error);
        detail::pause_for(backoff);
      }
      start_transaction();
      try {
        std::invoke(body, *this);
      } catch (...) {
        abort_quietly();
        if (!detail::transaction_error().transient || time_left().count() <= 0) throw;
        last_error = std::current_exception();
        continue;
      }
      if (!in_transaction()) return;  // the body committed or aborted
      for (;;) {
        try {
          commit_transaction();
          return;
        } catch (...) {
          const detail::TransactionError error = detail::transaction_error();
          if (error.unknown_commit_result && !error.max_time_expired) {
            if (time_left().count() <= 0) throw;
            continue;
          }
          if (!error.transient) throw;
          last_error = std::current_exception();
          break;
        }
      }
    }
  }

 private:
  friend class Client;
  friend struct detail::Access;
  /// The session's state, for the collection methods that take a session.
  detail::SessionState* state() const noexcept { return state_.get(); }

  explicit Session(detail::SessionHandle owned) noexcept : state_(std::move(owned)) {}

  detail::SessionState& checked() const {
    if (state_ == nullptr) throw UsageError("Session: used after it was moved from");
    return *state_;
  }
  void abort_quietly() noexcept {
    try {
      if (in_transaction()) abort_transaction();
    } catch (...) {
    }
  }

  detail::SessionHandle state_;
};

}  // namespace odm
