#pragma once
// Private to the compiled part of the driver layer: the libmongoc handles behind the
// public classes, each with exactly one owner, and the translation of libmongoc errors
// into odm's exceptions.

#include <odm/bson/document.hpp>
#include <odm/driver/core.hpp>
#include <odm/driver/options.hpp>

#include <mongoc/mongoc.h>

#include <atomic>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

namespace odm::detail {

/// Refuse a name MongoDB forbids, before anything is sent (naming restrictions,
/// https://www.mongodb.com/docs/manual/reference/limits/#naming-restrictions). libmongoc
/// takes names as C strings, so a NUL would silently name another database or collection.
void check_database_name(std::string_view name);
void check_collection_name(std::string_view name);

/// unique_ptr deleter calling a libmongoc destroy function.
template <class Handle, void (*Destroy)(Handle*)>
struct Destroyer {
  void operator()(Handle* handle) const noexcept {
    if (handle != nullptr) Destroy(handle);
  }
};

using UriHandle = std::unique_ptr<mongoc_uri_t, Destroyer<mongoc_uri_t, mongoc_uri_destroy>>;
using PoolHandle = std::unique_ptr<mongoc_client_pool_t, Destroyer<mongoc_client_pool_t, mongoc_client_pool_destroy>>;
using CollectionHandle =
    std::unique_ptr<mongoc_collection_t, Destroyer<mongoc_collection_t, mongoc_collection_destroy>>;
using DatabaseHandle = std::unique_ptr<mongoc_database_t, Destroyer<mongoc_database_t, mongoc_database_destroy>>;
using CursorHandle = std::unique_ptr<mongoc_cursor_t, Destroyer<mongoc_cursor_t, mongoc_cursor_destroy>>;
using BulkHandle =
    std::unique_ptr<mongoc_bulk_operation_t, Destroyer<mongoc_bulk_operation_t, mongoc_bulk_operation_destroy>>;
using FindAndModifyHandle = std::unique_ptr<mongoc_find_and_modify_opts_t,
                                            Destroyer<mongoc_find_and_modify_opts_t, mongoc_find_and_modify_opts_destroy>>;
using ServerDescriptionHandle =
    std::unique_ptr<mongoc_server_description_t,
                    Destroyer<mongoc_server_description_t, mongoc_server_description_destroy>>;
using ReadPrefsHandle = std::unique_ptr<mongoc_read_prefs_t, Destroyer<mongoc_read_prefs_t, mongoc_read_prefs_destroy>>;
using ReadConcernHandle =
    std::unique_ptr<mongoc_read_concern_t, Destroyer<mongoc_read_concern_t, mongoc_read_concern_destroy>>;
using WriteConcernHandle =
    std::unique_ptr<mongoc_write_concern_t, Destroyer<mongoc_write_concern_t, mongoc_write_concern_destroy>>;
using ClientSessionHandle =
    std::unique_ptr<mongoc_client_session_t, Destroyer<mongoc_client_session_t, mongoc_client_session_destroy>>;

/// A bson_t on the stack (no heap until it outgrows its inline bytes): an out-parameter (a
/// reply) or a command's options, initialized before the call, destroyed after.
class OutDocument {
 public:
  OutDocument() noexcept { bson_init(&value_); }
  OutDocument(const OutDocument&) = delete;
  OutDocument& operator=(const OutDocument&) = delete;
  ~OutDocument() { bson_destroy(&value_); }
  bson_t* get() noexcept { return &value_; }
  const bson_t* get() const noexcept { return &value_; }
  /// The document, or null when it is empty: libmongoc parses no options then.
  const bson_t* if_any() const noexcept { return bson_empty(&value_) ? nullptr : &value_; }

 private:
  bson_t value_;
};

/// The collection handle an operation uses: one its client keeps (borrowed), or its own.
class CollectionRef {
 public:
  CollectionRef() noexcept = default;
  static CollectionRef borrowed(mongoc_collection_t* kept) noexcept {
    CollectionRef ref;
    ref.handle_ = kept;
    return ref;
  }
  static CollectionRef owned(mongoc_collection_t* made) noexcept {
    CollectionRef ref;
    ref.owned_.reset(made);
    ref.handle_ = made;
    return ref;
  }
  mongoc_collection_t* get() const noexcept { return handle_; }

 private:
  mongoc_collection_t* handle_ = nullptr;
  CollectionHandle owned_;
};

/// The pool, the URI it was made from, and the command monitor. Never moves (libmongoc
/// holds its address as the APM context).
class ClientState {
 public:
  ClientState(std::string_view uri, const ClientOptions& options);
  ~ClientState();
  ClientState(const ClientState&) = delete;
  ClientState& operator=(const ClientState&) = delete;

  /// The handle of the collection `full` (`database.name`) on `client`, a client of this
  /// pool that the caller holds, with the client's own settings (the URI's and the
  /// ClientOptions'): made once per pooled client and kept while the client lives, so that
  /// an operation does not make one (about 8k instructions: the settings are copied, the
  /// namespace formatted). The caller must not change its settings: an operation with
  /// settings of its own makes its own handle. Null when the cache is off (the URI sets
  /// minPoolSize, with which libmongoc destroys idle clients on push) or full.
  mongoc_collection_t* kept_collection(mongoc_client_t* client, const std::string& database, const std::string& name,
                                       const std::string& full) const;

  mongoc_client_pool_t* pool() const noexcept { return pool_.get(); }
  const CommandMonitor& monitor() const noexcept { return monitor_; }
  /// The URI the pool was made from, with odm's defaults and the ClientOptions applied.
  const mongoc_uri_t* uri() const noexcept { return uri_.get(); }
  std::uint32_t max_pool_size() const noexcept { return max_pool_size_; }
  std::chrono::milliseconds pool_wait_timeout() const noexcept { return pool_wait_timeout_; }
  /// The server's maxWireVersion once read (max_wire_version() in client.cpp), else -1.
  std::atomic<std::int32_t>& wire_version() const noexcept { return wire_version_; }

 private:
  UriHandle uri_;
  mutable std::atomic<std::int32_t> wire_version_{-1};
  std::uint32_t max_pool_size_ = 0;
  std::chrono::milliseconds pool_wait_timeout_{0};
  CommandMonitor monitor_;
  PoolHandle pool_;  // destroyed after the kept handles, before the monitor
  /// The kept collection handles of each pooled client (a client is used by one thread at
  /// a time, but several clients look up their handles at once: hence the mutex).
  struct KeptCollection {
    std::string full;
    CollectionHandle handle;
  };
  static constexpr std::size_t max_kept_per_client = 64;
  bool keep_collections_ = true;
  mutable std::mutex kept_mutex_;
  mutable std::unordered_map<const mongoc_client_t*, std::vector<KeptCollection>> kept_;  // declared last: destroyed first
};

/// A client popped from the pool, pushed back when the lease ends. Waits at most the
/// client's pool wait timeout for one, then throws PoolExhausted.
class ClientLease {
 public:
  explicit ClientLease(const ClientState& state);
  ClientLease(ClientLease&& other) noexcept
      : pool_(other.pool_), client_(std::exchange(other.client_, nullptr)) {}
  ClientLease& operator=(ClientLease&&) = delete;
  ClientLease(const ClientLease&) = delete;
  ClientLease& operator=(const ClientLease&) = delete;
  ~ClientLease() {
    if (client_ != nullptr) mongoc_client_pool_push(pool_, client_);
  }
  mongoc_client_t* get() const noexcept { return client_; }

 private:
  mongoc_client_pool_t* pool_;
  mongoc_client_t* client_;
};

class SessionState {
 public:
  SessionState(std::shared_ptr<ClientState> client, ClientLease lease, ClientSessionHandle session) noexcept
      : client_(std::move(client)), lease_(std::move(lease)), session_(std::move(session)) {}

  const std::shared_ptr<ClientState>& client_state() const noexcept { return client_; }
  mongoc_client_t* client() const noexcept { return lease_.get(); }
  mongoc_client_session_t* get() const noexcept { return session_.get(); }

 private:
  // Destroyed in reverse: the session (aborting an open transaction), then the lease.
  std::shared_ptr<ClientState> client_;
  ClientLease lease_;
  ClientSessionHandle session_;
};

class CursorState {
 public:
  CursorState(const char* operation, std::shared_ptr<const CollectionNames> names, std::shared_ptr<ClientState> client,
              std::optional<ClientLease> lease, CollectionRef collection, CursorHandle cursor) noexcept
      : operation_(operation),
        names_(std::move(names)),
        client_(std::move(client)),
        lease_(std::move(lease)),
        collection_(std::move(collection)),
        cursor_(std::move(cursor)) {}

  mongoc_cursor_t* get() const noexcept { return cursor_.get(); }
  const std::shared_ptr<ClientState>& client() const noexcept { return client_; }
  /// "find on db.coll", for messages (built only when one is needed).
  std::string source() const { return operation_ + names_->full; }

 private:
  const char* operation_;  // "find on ", "aggregate on "
  std::shared_ptr<const CollectionNames> names_;
  // Destroyed in reverse: cursor (killCursors if still open), collection, lease.
  std::shared_ptr<ClientState> client_;
  std::optional<ClientLease> lease_;
  CollectionRef collection_;
  CursorHandle cursor_;
};

/// The client an operation runs on: the session's, or one borrowed from the pool.
/// While it lives, the calling thread's operation runs on `client` (operation_client()):
/// how an error message names the limits that were in force (throw_error).
class ClientInUse {
 public:
  explicit ClientInUse(const ClientState* client) noexcept;
  ~ClientInUse();
  ClientInUse(const ClientInUse&) = delete;
  ClientInUse& operator=(const ClientInUse&) = delete;

 private:
  const ClientState* previous_;
};

/// The client of the innermost ClientInUse alive on the calling thread, or null.
const ClientState* operation_client() noexcept;

class OperationClient {
 public:
  OperationClient(const std::shared_ptr<ClientState>& client, SessionState* session);
  mongoc_client_t* get() const noexcept { return client_; }
  /// Hands over the borrowed client (for a cursor that outlives the operation).
  std::optional<ClientLease> take_lease() noexcept { return std::move(lease_); }
  /// Adds `lsid` (and the transaction fields) of the session, if any, to `opts`.
  void append_session(bson_t* opts) const;

 private:
  std::optional<ClientLease> lease_;
  mongoc_client_t* client_ = nullptr;
  SessionState* session_ = nullptr;
  std::optional<ClientInUse> in_use_;  // last: set once the client is there, undone first
};

/// libmongoc's form of odm's settings.
ReadPrefsHandle make_read_prefs(const ReadPreference& preference);
ReadConcernHandle make_read_concern(const ReadConcern& concern);
WriteConcernHandle make_write_concern(const WriteConcern& concern);
/// Sets what `concerns` holds on a collection handle (the rest stays as inherited).
void apply_concerns(mongoc_collection_t* collection, const Concerns& concerns);

/// Throws the odm exception for a libmongoc error: ConnectionError, DuplicateKeyError,
/// WriteError, ServerError or DriverError. `reply` may be null.
[[noreturn]] void throw_error(const bson_error_t& error, const bson_t* reply, std::string_view operation);
/// Throws WriteError when a reply libmongoc called a success still carries a write concern
/// error (one of a shape libmongoc does not recognize).
/// `operation` and `where` name it in the message ("update in ", "db.coll"), joined only
/// when it is thrown.
void throw_if_write_concern_error(const bson_t* reply, const char* operation, const std::string& where);
/// Whether a reply's top-level `key` holds write concern errors (for callers reading the
/// reply in one pass, who then call throw_if_write_concern_error).
bool is_write_concern_error_key(const char* key) noexcept;

/// Makes libmongoc send its log to odm's handler (odm/driver/log.hpp); once per process.
void install_log_forwarding();

/// The value of an integer field of a reply (0 when absent).
std::int64_t int64_field(const bson_t* reply, const char* key) noexcept;

}  // namespace odm::detail
