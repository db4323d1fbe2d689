#pragma once
// Options of the client and of each operation: small value types whose setters return
// *this, so they read as one expression,
//
//   auto cursor = books.find(filter, odm::FindOptions{}.sort(by_date).limit(10).batch_size(50));
//
// Every option is unset until set; an unset option is not sent, so the server's own
// default applies.

#include <odm/bson/document.hpp>
#include <odm/query/expression.hpp>

#include <chrono>
#include <cstdint>
#include <functional>
#include <optional>
#include <vector>
#include <string>
#include <string_view>
#include <utility>

namespace odm {

// ----------------------------------------------------------------------------------
// Command monitoring (libmongoc APM)

/// One command the driver sent, seen at its start, success or failure. The string views
/// and `document` are valid only during the callback: copy what you keep.
struct CommandEvent {
  enum class Kind { started, succeeded, failed };
  Kind kind = Kind::started;
  /// "find", "getMore", "insert", "update", "aggregate", ...
  std::string_view command_name;
  /// The database the command ran on (started events only; "" for the others).
  std::string_view database_name;
  /// Pairs a started event with its succeeded/failed event.
  std::int64_t request_id = 0;
  /// Groups the commands of one operation (a find and its getMores share it).
  std::int64_t operation_id = 0;
  /// "host:port" of the server.
  std::string_view host;
  /// Round-trip time (succeeded/failed only).
  std::chrono::microseconds duration{0};
  /// The command (started) or the reply (succeeded/failed), when the monitor was asked
  /// to capture documents (CommandMonitor::capture_documents); nullptr otherwise.
  const Document* document = nullptr;
  /// The error (failed only).
  std::string_view error_message;
};

/// Callbacks for every command the client's pool sends. They run on whichever thread
/// runs the operation, so they must be thread-safe; an exception they throw is swallowed
/// (it cannot travel through libmongoc).
struct CommandMonitor {
  std::function<void(const CommandEvent&)> started;
  std::function<void(const CommandEvent&)> succeeded;
  std::function<void(const CommandEvent&)> failed;
  /// Copy each command and reply into CommandEvent::document (costs a copy per command).
  bool capture_documents = false;

  bool enabled() const noexcept { return started || succeeded || failed; }
};

/// How odm::Client connects. Every wait has a limit, taken from the first of: the option
/// set here, the URI's option (named in brackets), odm's default (beside each setter).
/// Client::limits() says which values a client runs with.
class ClientOptions {
 public:
  /// How long an operation waits for a usable server before it fails with
  /// odm::ConnectionError [serverSelectionTimeoutMS]. Default 10 s.
  ClientOptions& server_selection_timeout(std::chrono::milliseconds timeout) {
    server_selection_timeout_ = timeout;
    return *this;
  }
  /// How long opening a connection (TCP, TLS and the handshake) may take; also the
  /// limit on each heartbeat of the server monitor [connectTimeoutMS]. Default 10 s.
  ClientOptions& connect_timeout(std::chrono::milliseconds timeout) {
    connect_timeout_ = timeout;
    return *this;
  }
  /// How long a sent command may wait for its reply before the operation fails with
  /// odm::ConnectionError [socketTimeoutMS]. Default 30 s (libmongoc's own is 5 min);
  /// raise it above the longest `max_time` a query may run for.
  ClientOptions& socket_timeout(std::chrono::milliseconds timeout) {
    socket_timeout_ = timeout;
    return *this;
  }
  /// How long an operation waits for a free pooled connection before it fails with
  /// odm::PoolExhausted [waitQueueTimeoutMS]. Default 10 s.
  ClientOptions& pool_wait_timeout(std::chrono::milliseconds timeout) {
    pool_wait_timeout_ = timeout;
    return *this;
  }
  /// Upper bound on connections (pooled clients) open at once; each running operation,
  /// open cursor and session holds one [maxPoolSize]. Default 100.
  ClientOptions& max_pool_size(std::uint32_t size) {
    max_pool_size_ = size;
    return *this;
  }
  /// The application name the server logs for each connection.
  ClientOptions& app_name(std::string name) {
    app_name_ = std::move(name);
    return *this;
  }
  ClientOptions& on_command_started(std::function<void(const CommandEvent&)> callback) {
    monitor_.started = std::move(callback);
    return *this;
  }
  ClientOptions& on_command_succeeded(std::function<void(const CommandEvent&)> callback) {
    monitor_.succeeded = std::move(callback);
    return *this;
  }
  ClientOptions& on_command_failed(std::function<void(const CommandEvent&)> callback) {
    monitor_.failed = std::move(callback);
    return *this;
  }
  /// Pass each command and reply document to the callbacks (CommandEvent::document).
  ClientOptions& capture_command_documents(bool capture = true) {
    monitor_.capture_documents = capture;
    return *this;
  }
  ClientOptions& command_monitor(CommandMonitor monitor) {
    monitor_ = std::move(monitor);
    return *this;
  }

  const std::optional<std::chrono::milliseconds>& server_selection_timeout() const noexcept {
    return server_selection_timeout_;
  }
  const std::optional<std::chrono::milliseconds>& connect_timeout() const noexcept { return connect_timeout_; }
  const std::optional<std::chrono::milliseconds>& socket_timeout() const noexcept { return socket_timeout_; }
  const std::optional<std::chrono::milliseconds>& pool_wait_timeout() const noexcept { return pool_wait_timeout_; }
  const std::optional<std::uint32_t>& max_pool_size() const noexcept { return max_pool_size_; }
  const std::optional<std::string>& app_name() const noexcept { return app_name_; }
  const CommandMonitor& command_monitor() const noexcept { return monitor_; }

 private:
  std::optional<std::chrono::milliseconds> server_selection_timeout_;
  std::optional<std::chrono::milliseconds> connect_timeout_;
  std::optional<std::chrono::milliseconds> socket_timeout_;
  std::optional<std::chrono::milliseconds> pool_wait_timeout_;
  std::optional<std::uint32_t> max_pool_size_;
  std::optional<std::string> app_name_;
  CommandMonitor monitor_;
};

// ----------------------------------------------------------------------------------
// Operations

/// find(): sort, projection, skip, limit, batch size, time limit.
class FindOptions {
 public:
  template <class T>
  FindOptions& sort(const Sort<T>& sort) {
    sort_ = sort.bson();
    return *this;
  }
  /// A sort written as BSON (`{published_date: -1}`).
  FindOptions& sort(Document sort) {
    sort_ = std::move(sort);
    return *this;
  }
  /// The fields to return: odm::projection<Movie, MovieSummary>(). Collection<T>::find<Summary>()
  /// sets it from Summary's fields when it is not set.
  template <class T, class Result>
  FindOptions& projection(const Projection<T, Result>& projection) {
    projection_ = projection.bson();
    return *this;
  }
  /// A projection written as BSON (`{title: 1, _id: 0}`).
  FindOptions& projection(Document projection) {
    projection_ = std::move(projection);
    return *this;
  }
  FindOptions& skip(std::int64_t count) {
    skip_ = count;
    return *this;
  }
  FindOptions& limit(std::int64_t count) {
    limit_ = count;
    return *this;
  }
  /// Documents per batch (the first reply and each getMore). Server default: 101 first.
  FindOptions& batch_size(std::int32_t count) {
    batch_size_ = count;
    return *this;
  }
  /// Server-side time limit (maxTimeMS).
  FindOptions& max_time(std::chrono::milliseconds limit) {
    max_time_ = limit;
    return *this;
  }

  /// `{}` when unset (which the server reads as "no sort" / "every field").
  const Document& sort() const noexcept { return sort_; }
  const Document& projection() const noexcept { return projection_; }
  const std::optional<std::int64_t>& skip() const noexcept { return skip_; }
  const std::optional<std::int64_t>& limit() const noexcept { return limit_; }
  const std::optional<std::int32_t>& batch_size() const noexcept { return batch_size_; }
  const std::optional<std::chrono::milliseconds>& max_time() const noexcept { return max_time_; }

 private:
  // Plain Documents, not optional ones: an empty sort or projection means the same as
  // none, and g++ 12 reports a false -Wmaybe-uninitialized when it inlines the copy of
  // an optional Document.
  Document sort_;
  Document projection_;
  std::optional<std::int64_t> skip_;
  std::optional<std::int64_t> limit_;
  std::optional<std::int32_t> batch_size_;
  std::optional<std::chrono::milliseconds> max_time_;
};

/// count(): skip and limit.
class CountOptions {
 public:
  CountOptions& skip(std::int64_t count) {
    skip_ = count;
    return *this;
  }
  CountOptions& limit(std::int64_t count) {
    limit_ = count;
    return *this;
  }
  const std::optional<std::int64_t>& skip() const noexcept { return skip_; }
  const std::optional<std::int64_t>& limit() const noexcept { return limit_; }

 private:
  std::optional<std::int64_t> skip_;
  std::optional<std::int64_t> limit_;
};

/// update_one(), update_many(), replace_one(): insert when nothing matches.
class UpdateOptions {
 public:
  UpdateOptions& upsert(bool value = true) {
    upsert_ = value;
    return *this;
  }
  bool upserts() const noexcept { return upsert_; }
  /// The filters of the `$[<identifier>]` positional operators the update uses, e.g.
  /// `{"c.by": "joe"}` for `{$set: {"checkout.$[c].date": ...}}`. (update_one/update_many only.)
  UpdateOptions& array_filters(std::vector<Document> filters) {
    array_filters_ = std::move(filters);
    return *this;
  }
  const std::vector<Document>& array_filters() const noexcept { return array_filters_; }

 private:
  bool upsert_ = false;
  std::vector<Document> array_filters_;
};
using ReplaceOptions = UpdateOptions;

/// insert_many() and bulk writes: stop at the first error (ordered, the default) or
/// attempt every write.
class WriteManyOptions {
 public:
  WriteManyOptions& ordered(bool value) {
    ordered_ = value;
    return *this;
  }
  bool ordered() const noexcept { return ordered_; }

 private:
  bool ordered_ = true;
};
using InsertManyOptions = WriteManyOptions;
using BulkWriteOptions = WriteManyOptions;

/// Which version of the document find_one_and_update/replace returns.
enum class ReturnDocument { before, after };

/// find_one_and_update(), find_one_and_replace(), find_one_and_delete().
class FindOneAndModifyOptions {
 public:
  FindOneAndModifyOptions& return_document(ReturnDocument which) {
    return_document_ = which;
    return *this;
  }
  FindOneAndModifyOptions& upsert(bool value = true) {
    upsert_ = value;
    return *this;
  }
  /// Which document to modify when several match.
  template <class T>
  FindOneAndModifyOptions& sort(const Sort<T>& sort) {
    sort_ = sort.bson();
    return *this;
  }
  FindOneAndModifyOptions& sort(Document sort) {
    sort_ = std::move(sort);
    return *this;
  }
  template <class T, class Result>
  FindOneAndModifyOptions& projection(const Projection<T, Result>& projection) {
    projection_ = projection.bson();
    return *this;
  }
  FindOneAndModifyOptions& projection(Document projection) {
    projection_ = std::move(projection);
    return *this;
  }

  ReturnDocument return_document() const noexcept { return return_document_; }
  bool upserts() const noexcept { return upsert_; }
  /// `{}` when unset.
  const Document& sort() const noexcept { return sort_; }
  const Document& projection() const noexcept { return projection_; }

 private:
  ReturnDocument return_document_ = ReturnDocument::before;
  bool upsert_ = false;
  Document sort_;
  Document projection_;
};
using FindOneAndUpdateOptions = FindOneAndModifyOptions;
using FindOneAndReplaceOptions = FindOneAndModifyOptions;
using FindOneAndDeleteOptions = FindOneAndModifyOptions;

/// aggregate().
class AggregateOptions {
 public:
  AggregateOptions& batch_size(std::int32_t count) {
    batch_size_ = count;
    return *this;
  }
  AggregateOptions& allow_disk_use(bool value = true) {
    allow_disk_use_ = value;
    return *this;
  }
  const std::optional<std::int32_t>& batch_size() const noexcept { return batch_size_; }
  const std::optional<bool>& allows_disk_use() const noexcept { return allow_disk_use_; }

 private:
  std::optional<std::int32_t> batch_size_;
  std::optional<bool> allow_disk_use_;
};

}  // namespace odm
