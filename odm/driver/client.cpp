// The client pool, command monitoring, sessions, and database-level commands.

#include "state.hpp"
#include "special_members.hpp"

#include <odm/driver/client.hpp>
#include <odm/driver/errors.hpp>
#include <odm/driver/session.hpp>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <limits>
#include <mutex>
#include <random>
#include <string>
#include <thread>
#include <variant>

namespace odm::detail {
namespace {

void initialize_mongoc() {
  // mongoc_cleanup() is deliberately never called: clients may live in static objects,
  // and libmongoc's process-wide state is small.
  static std::once_flag once;
  std::call_once(once, [] {
    install_log_forwarding();  // before mongoc_init, which may already log
    mongoc_init();
  });
}

std::string_view host_of(const mongoc_host_list_t* host) noexcept {
  return host != nullptr ? std::string_view(host->host_and_port) : std::string_view();
}

/// Calls a user callback, swallowing what it throws.
void deliver(const std::function<void(const CommandEvent&)>& callback, const CommandEvent& event) noexcept {
  try {
    callback(event);
  } catch (...) {
  }
}

void on_started_unguarded(const mongoc_apm_command_started_t* started) {
  const auto* state = static_cast<const ClientState*>(mongoc_apm_command_started_get_context(started));
  const CommandMonitor& monitor = state->monitor();
  if (!monitor.started) return;
  CommandEvent event;
  event.kind = CommandEvent::Kind::started;
  event.command_name = mongoc_apm_command_started_get_command_name(started);
  event.database_name = mongoc_apm_command_started_get_database_name(started);
  event.request_id = mongoc_apm_command_started_get_request_id(started);
  event.operation_id = mongoc_apm_command_started_get_operation_id(started);
  event.host = host_of(mongoc_apm_command_started_get_host(started));
  std::optional<Document> command;
  if (monitor.capture_documents) {
    command = Document::copy_of(mongoc_apm_command_started_get_command(started));
    event.document = &*command;
  }
  deliver(monitor.started, event);
}

void on_succeeded_unguarded(const mongoc_apm_command_succeeded_t* succeeded) {
  const auto* state = static_cast<const ClientState*>(mongoc_apm_command_succeeded_get_context(succeeded));
  const CommandMonitor& monitor = state->monitor();
  if (!monitor.succeeded) return;
  CommandEvent event;
  event.kind = CommandEvent::Kind::succeeded;
  event.command_name = mongoc_apm_command_succeeded_get_command_name(succeeded);
  event.request_id = mongoc_apm_command_succeeded_get_request_id(succeeded);
  event.operation_id = mongoc_apm_command_succeeded_get_operation_id(succeeded);
  event.host = host_of(mongoc_apm_command_succeeded_get_host(succeeded));
  event.duration = std::chrono::microseconds(mongoc_apm_command_succeeded_get_duration(succeeded));
  std::optional<Document> reply;
  if (monitor.capture_documents) {
    reply = Document::copy_of(mongoc_apm_command_succeeded_get_reply(succeeded));
    event.document = &*reply;
  }
  deliver(monitor.succeeded, event);
}

void on_failed_unguarded(const mongoc_apm_command_failed_t* failed) {
  const auto* state = static_cast<const ClientState*>(mongoc_apm_command_failed_get_context(failed));
  const CommandMonitor& monitor = state->monitor();
  if (!monitor.failed) return;
  CommandEvent event;
  event.kind = CommandEvent::Kind::failed;
  event.command_name = mongoc_apm_command_failed_get_command_name(failed);
  event.request_id = mongoc_apm_command_failed_get_request_id(failed);
  event.operation_id = mongoc_apm_command_failed_get_operation_id(failed);
  event.host = host_of(mongoc_apm_command_failed_get_host(failed));
  event.duration = std::chrono::microseconds(mongoc_apm_command_failed_get_duration(failed));
  bson_error_t error;
  mongoc_apm_command_failed_get_error(failed, &error);
  event.error_message = error.message;
  std::optional<Document> reply;
  if (monitor.capture_documents) {
    reply = Document::copy_of(mongoc_apm_command_failed_get_reply(failed));
    event.document = &*reply;
  }
  deliver(monitor.failed, event);
}

// libmongoc calls these from C: nothing may propagate out of them.
void on_started(const mongoc_apm_command_started_t* event) {
  try {
    on_started_unguarded(event);
  } catch (...) {
  }
}
void on_succeeded(const mongoc_apm_command_succeeded_t* event) {
  try {
    on_succeeded_unguarded(event);
  } catch (...) {
  }
}
void on_failed(const mongoc_apm_command_failed_t* event) {
  try {
    on_failed_unguarded(event);
  } catch (...) {
  }
}

/// The URI for messages, without credentials.
std::string printable_uri(std::string_view uri) {
  const std::size_t scheme = uri.find("://");
  const std::size_t at = uri.find('@');
  if (scheme == std::string_view::npos || at == std::string_view::npos) return std::string(uri);
  return std::string(uri.substr(0, scheme + 3)) + "***@" + std::string(uri.substr(at + 1));
}

}  // namespace

ClientState::ClientState(std::string_view uri, const ClientOptions& options) : monitor_(options.command_monitor()) {
  initialize_mongoc();
  bson_error_t error;
  uri_.reset(mongoc_uri_new_with_error(std::string(uri).c_str(), &error));
  if (!uri_) throw ConfigurationError("invalid MongoDB URI \"" + printable_uri(uri) + "\": " + error.message);

  // Every limit: the option, else the URI's, else odm's default. The URI may not ask for
  // "no limit" (0 or a negative number, which libmongoc accepts): every wait has one.
  using std::chrono::milliseconds;
  const ClientLimits defaults;
  auto apply = [&](const char* key, const char* name, const std::optional<milliseconds>& option,
                   milliseconds fallback) {
    std::int64_t value = fallback.count();
    if (option) {
      value = option->count();
    } else if (mongoc_uri_has_option(uri_.get(), key)) {
      value = mongoc_uri_get_option_as_int32(uri_.get(), key, 0);
      if (value <= 0)
        throw ConfigurationError(std::string("the URI's ") + name + "=" + std::to_string(value) +
                                 " asks for no limit; odm needs one (every wait must end): give a number of "
                                 "milliseconds");
    }
    if (value <= 0 || value > std::numeric_limits<std::int32_t>::max())
      throw ConfigurationError(std::string(name) + " must be between 1 ms and 2^31 - 1 ms, not " +
                               std::to_string(value) + " ms");
    mongoc_uri_set_option_as_int32(uri_.get(), key, static_cast<std::int32_t>(value));
    return milliseconds(value);
  };
  apply(MONGOC_URI_SERVERSELECTIONTIMEOUTMS, "serverSelectionTimeoutMS", options.server_selection_timeout(),
        defaults.server_selection_timeout);
  apply(MONGOC_URI_CONNECTTIMEOUTMS, "connectTimeoutMS", options.connect_timeout(), defaults.connect_timeout);
  apply(MONGOC_URI_SOCKETTIMEOUTMS, "socketTimeoutMS", options.socket_timeout(), defaults.socket_timeout);
  // libmongoc 1.23's mongoc_client_pool_pop() reads waitQueueTimeoutMS from the pool's
  // URI at each pop: with a positive value it gives up (returns NULL) after that long,
  // re-checking a monotonic deadline after each wake-up; without one it waits forever.
  // (mongoc_client_pool_try_pop() never waits, which would fail at once under load.)
  pool_wait_timeout_ = apply(MONGOC_URI_WAITQUEUETIMEOUTMS, "waitQueueTimeoutMS", options.pool_wait_timeout(),
                             defaults.pool_wait_timeout);
  // The pool size: the option, else the URI's maxPoolSize, else 100 (libmongoc's).
  std::int64_t pool_size = defaults.max_pool_size;
  if (options.max_pool_size())
    pool_size = *options.max_pool_size();
  else if (mongoc_uri_has_option(uri_.get(), MONGOC_URI_MAXPOOLSIZE))
    pool_size = mongoc_uri_get_option_as_int32(uri_.get(), MONGOC_URI_MAXPOOLSIZE, 0);
  if (pool_size <= 0 || pool_size > std::numeric_limits<std::int32_t>::max())
    throw ConfigurationError("the pool size (maxPoolSize) must be between 1 and 2^31 - 1, not " +
                             std::to_string(pool_size));
  max_pool_size_ = static_cast<std::uint32_t>(pool_size);
  mongoc_uri_set_option_as_int32(uri_.get(), MONGOC_URI_MAXPOOLSIZE, static_cast<std::int32_t>(pool_size));
  // A pool always keeps trying until the timeout; say so explicitly.
  mongoc_uri_set_option_as_bool(uri_.get(), MONGOC_URI_SERVERSELECTIONTRYONCE, false);
  // The client's settings replace the URI's: the pooled clients and the collections they
  // make start from them.
  if (options.read_preference()) mongoc_uri_set_read_prefs_t(uri_.get(), make_read_prefs(*options.read_preference()).get());
  if (options.read_concern()) mongoc_uri_set_read_concern(uri_.get(), make_read_concern(*options.read_concern()).get());
  if (options.write_concern())
    mongoc_uri_set_write_concern(uri_.get(), make_write_concern(*options.write_concern()).get());

  // libmongoc destroys idle clients beyond minPoolSize when they are pushed back: a kept
  // handle would outlive its client.
  keep_collections_ = mongoc_uri_get_option_as_int32(uri_.get(), MONGOC_URI_MINPOOLSIZE, 0) <= 0;

  pool_.reset(mongoc_client_pool_new_with_error(uri_.get(), &error));
  if (!pool_) throw ConfigurationError("cannot create a client pool for \"" + printable_uri(uri) + "\": " + error.message);
  mongoc_client_pool_set_error_api(pool_.get(), MONGOC_ERROR_API_VERSION_2);
  if (options.app_name() && !mongoc_client_pool_set_appname(pool_.get(), options.app_name()->c_str()))
    throw ConfigurationError("cannot set the application name \"" + *options.app_name() + "\"");

  if (monitor_.enabled()) {
    mongoc_apm_callbacks_t* callbacks = mongoc_apm_callbacks_new();
    mongoc_apm_set_command_started_cb(callbacks, on_started);
    mongoc_apm_set_command_succeeded_cb(callbacks, on_succeeded);
    mongoc_apm_set_command_failed_cb(callbacks, on_failed);
    // Before the first pop, as libmongoc requires; it copies the callbacks.
    mongoc_client_pool_set_apm_callbacks(pool_.get(), callbacks, this);
    mongoc_apm_callbacks_destroy(callbacks);
  }
}

ClientState::~ClientState() = default;

mongoc_collection_t* ClientState::kept_collection(mongoc_client_t* client, const std::string& database,
                                                  const std::string& name, const std::string& full) const {
  if (!keep_collections_) return nullptr;
  const std::lock_guard<std::mutex> lock(kept_mutex_);
  std::vector<KeptCollection>& kept = kept_[client];
  for (const KeptCollection& entry : kept)
    if (entry.full == full) return entry.handle.get();
  if (kept.size() >= max_kept_per_client) return nullptr;
  kept.push_back(KeptCollection{full, CollectionHandle(mongoc_client_get_collection(client, database.c_str(), name.c_str()))});
  return kept.back().handle.get();
}

std::shared_ptr<ClientState> open_client(std::string_view uri, const ClientOptions& options) {
  return std::make_shared<ClientState>(uri, options);
}

ClientLease::ClientLease(const ClientState& state) : pool_(state.pool()), client_(mongoc_client_pool_try_pop(pool_)) {
  if (client_ != nullptr) return;
  // None idle and the pool at its size: wait. try_pop first, because pop reads
  // waitQueueTimeoutMS from the URI each time (about 1.7k instructions), even when a client
  // is there; both take the same idle client or make a new one under the pool's lock.
  client_ = mongoc_client_pool_pop(pool_);
  if (client_ != nullptr) return;
  const std::string size = std::to_string(state.max_pool_size());
  throw PoolExhausted("the connection pool is exhausted: all " + size + " connection" +
                          (state.max_pool_size() == 1 ? "" : "s") + " (max_pool_size " + size +
                          ") stayed in use for " + std::to_string(state.pool_wait_timeout().count()) +
                          " ms (pool_wait_timeout). Each running operation, open cursor and session holds "
                          "one: finish or destroy cursors before other operations on the same thread, or "
                          "raise max_pool_size",
                      state.max_pool_size(), state.pool_wait_timeout());
}

std::int32_t max_wire_version(const Database& db) {
  const ClientState& state = *db.client_;
  if (const std::int32_t known = state.wire_version().load(std::memory_order_relaxed); known >= 0) return known;
  // Two threads may both ask the first time; they read the same reply, so either may store it.
  const ClientLease lease(state);  // waits at most pool_wait_timeout
  bson_error_t error;
  // Waits at most serverSelectionTimeoutMS; usually answered from the topology already known.
  const ServerDescriptionHandle server(mongoc_client_select_server(lease.get(), false, nullptr, &error));
  if (!server) throw_error(error, nullptr, "select a server to read its wire version");
  const std::int64_t version = int64_field(mongoc_server_description_hello_response(server.get()), "maxWireVersion");
  const auto clamped = static_cast<std::int32_t>(std::clamp<std::int64_t>(version, 0, 1'000'000));
  state.wire_version().store(clamped, std::memory_order_relaxed);
  return clamped;
}

void assume_max_wire_version(const Database& db, std::int32_t version) {
  db.client_->wire_version().store(version, std::memory_order_relaxed);
}

ClientLimits client_limits(const ClientState& state) {
  const auto get = [&](const char* key) {
    return std::chrono::milliseconds(mongoc_uri_get_option_as_int32(state.uri(), key, 0));
  };
  ClientLimits limits;
  limits.server_selection_timeout = get(MONGOC_URI_SERVERSELECTIONTIMEOUTMS);
  limits.connect_timeout = get(MONGOC_URI_CONNECTTIMEOUTMS);
  limits.socket_timeout = get(MONGOC_URI_SOCKETTIMEOUTMS);
  limits.pool_wait_timeout = state.pool_wait_timeout();
  limits.max_pool_size = state.max_pool_size();
  return limits;
}

namespace {
thread_local const ClientState* current_operation_client = nullptr;
}  // namespace

const ClientState* operation_client() noexcept { return current_operation_client; }

ClientInUse::ClientInUse(const ClientState* client) noexcept : previous_(current_operation_client) {
  current_operation_client = client;
}
ClientInUse::~ClientInUse() { current_operation_client = previous_; }

OperationClient::OperationClient(const std::shared_ptr<ClientState>& client, SessionState* session)
    : session_(session) {
  if (session != nullptr) {
    if (session->client_state() != client)
      throw Error("a session can only be used with databases and collections of the client that started it");
    client_ = session->client();
  } else {
    lease_.emplace(*client);
    client_ = lease_->get();
  }
  in_use_.emplace(client.get());
}

void OperationClient::append_session(bson_t* opts) const {
  if (session_ == nullptr) return;
  bson_error_t error;
  if (!mongoc_client_session_append(session_->get(), opts, &error)) throw_error(error, nullptr, "use session");
}

// ---- read preference and concerns ------------------------------------------------

ReadPrefsHandle make_read_prefs(const ReadPreference& preference) {
  static constexpr mongoc_read_mode_t modes[] = {MONGOC_READ_PRIMARY, MONGOC_READ_PRIMARY_PREFERRED,
                                                  MONGOC_READ_SECONDARY, MONGOC_READ_SECONDARY_PREFERRED,
                                                  MONGOC_READ_NEAREST};
  ReadPrefsHandle prefs(mongoc_read_prefs_new(modes[static_cast<int>(preference.mode())]));
  for (const TagSet& set : preference.tag_sets()) {
    Document tags;
    for (const auto& [name, value] : set)
      check_append(bson_append_utf8(tags.get_mutable(), name.c_str(), key_length(name), value.data(),
                                    static_cast<int>(value.size())));
    mongoc_read_prefs_add_tag(prefs.get(), tags.get());
  }
  if (preference.max_staleness()) mongoc_read_prefs_set_max_staleness_seconds(prefs.get(), preference.max_staleness()->count());
  return prefs;
}

ReadConcernHandle make_read_concern(const ReadConcern& concern) {
  static constexpr const char* levels[] = {MONGOC_READ_CONCERN_LEVEL_LOCAL, MONGOC_READ_CONCERN_LEVEL_MAJORITY,
                                           MONGOC_READ_CONCERN_LEVEL_LINEARIZABLE, MONGOC_READ_CONCERN_LEVEL_SNAPSHOT,
                                           MONGOC_READ_CONCERN_LEVEL_AVAILABLE};
  ReadConcernHandle handle(mongoc_read_concern_new());
  mongoc_read_concern_set_level(handle.get(), levels[static_cast<int>(concern.level())]);
  return handle;
}

WriteConcernHandle make_write_concern(const WriteConcern& concern) {
  WriteConcernHandle handle(mongoc_write_concern_new());
  mongoc_write_concern_t* wc = handle.get();
  const WriteConcern::W& w = concern.w();
  if (const auto* n = std::get_if<std::int32_t>(&w)) {
    mongoc_write_concern_set_w(wc, *n);
  } else if (std::holds_alternative<WriteConcern::Majority>(w)) {
    mongoc_write_concern_set_wmajority(wc, 0);
  } else if (const auto* tag = std::get_if<std::string>(&w)) {
    mongoc_write_concern_set_wtag(wc, tag->c_str());
  }
  if (concern.journal()) mongoc_write_concern_set_journal(wc, *concern.journal());
  if (concern.timeout()) mongoc_write_concern_set_wtimeout_int64(wc, concern.timeout()->count());
  return handle;
}

void apply_concerns(mongoc_collection_t* collection, const Concerns& concerns) {
  if (concerns.read_preference)
    mongoc_collection_set_read_prefs(collection, make_read_prefs(*concerns.read_preference).get());
  if (concerns.read_concern)
    mongoc_collection_set_read_concern(collection, make_read_concern(*concerns.read_concern).get());
  if (concerns.write_concern)
    mongoc_collection_set_write_concern(collection, make_write_concern(*concerns.write_concern).get());
}

// ---- sessions --------------------------------------------------------------------

SessionHandle start_session(const std::shared_ptr<ClientState>& client) {
  ClientLease lease(*client);
  bson_error_t error;
  ClientSessionHandle session(mongoc_client_start_session(lease.get(), nullptr, &error));
  if (!session) throw_error(error, nullptr, "start session");
  return SessionHandle(new SessionState(client, std::move(lease), std::move(session)));
}

void destroy_session(SessionState* session) noexcept { delete session; }

void start_transaction(SessionState& session) {
  bson_error_t error;
  if (!mongoc_client_session_start_transaction(session.get(), nullptr, &error))
    throw_error(error, nullptr, "start transaction");
}

void commit_transaction(SessionState& session) {
  OutDocument reply;
  bson_error_t error;
  if (!mongoc_client_session_commit_transaction(session.get(), reply.get(), &error))
    throw_error(error, reply.get(), "commit transaction");
}

void abort_transaction(SessionState& session) {
  bson_error_t error;
  if (!mongoc_client_session_abort_transaction(session.get(), &error)) throw_error(error, nullptr, "abort transaction");
}

bool in_transaction(const SessionState& session) noexcept { return mongoc_client_session_in_transaction(session.get()); }

// ---- database commands -----------------------------------------------------------

void check_database_name(std::string_view name) {
  const auto refuse = [&](const char* why) {
    throw ConfigurationError("the database name \"" + std::string(name.substr(0, 80)) + "\" " + why);
  };
  if (name.empty()) refuse("is empty");
  if (name == "$external") return;  // the authentication pseudo-database
  if (name.find('\0') != std::string_view::npos) refuse("contains a NUL character");
  if (name.find_first_of("/\\. \"$") != std::string_view::npos) refuse("contains one of / \\ . space \" $");
  if (name.size() >= 64) refuse("is 64 bytes or longer (MongoDB takes fewer than 64)");
}

void check_collection_name(std::string_view name) {
  if (!is_valid_collection_name(name))
    throw ConfigurationError("the collection name \"" + std::string(name.substr(0, 80)) +
                             "\" is empty, contains '$' or a NUL character, or starts with \"system.\"");
}

Document run_command(const std::shared_ptr<ClientState>& client, SessionState* session, const std::string& database,
                     const Document& command) {
  check_database_name(database);
  OperationClient target(client, session);
  Document opts;
  target.append_session(opts.get_mutable());
  OutDocument reply;
  bson_error_t error;
  if (!mongoc_client_command_with_opts(target.get(), database.c_str(), command.get(), nullptr, opts.get(), reply.get(),
                                       &error))
    throw_error(error, reply.get(), "command on database " + database);
  return Document::copy_of(reply.get());
}

void drop_database(const std::shared_ptr<ClientState>& client, const std::string& database) {
  check_database_name(database);
  OperationClient target(client, nullptr);
  DatabaseHandle handle(mongoc_client_get_database(target.get(), database.c_str()));
  bson_error_t error;
  if (!mongoc_database_drop_with_opts(handle.get(), nullptr, &error)) throw_error(error, nullptr, "drop database " + database);
}


TransactionError transaction_error() noexcept {
  try {
    throw;
  } catch (const ReplyError& error) {
    const auto* server = dynamic_cast<const ServerError*>(&error);
    return TransactionError{error.has_label("TransientTransactionError"),
                            error.has_label("UnknownTransactionCommitResult"),
                            server != nullptr && server->code() == 50};
  } catch (...) {
    return {};
  }
}

std::chrono::microseconds transaction_backoff(int attempt) {
  thread_local std::minstd_rand random(std::random_device{}());
  double limit_ms = 5.0;
  for (int i = 0; i < attempt && limit_ms < 500.0; ++i) limit_ms *= 1.5;
  const double ms = std::uniform_real_distribution<double>(0.0, std::min(limit_ms, 500.0))(random);
  return std::chrono::microseconds(static_cast<std::int64_t>(ms * 1000.0));
}

void pause_for(std::chrono::microseconds duration) { std::this_thread::sleep_for(duration); }

}  // namespace odm::detail

namespace odm {
ODM_DEFINE_SPECIAL_MEMBERS(Database);

Database& Database::read_preference(ReadPreference preference) {
  concerns_.read_preference = std::move(preference);
  return *this;
}
Database& Database::read_concern(ReadConcern concern) {
  concerns_.read_concern = concern;
  return *this;
}
Database& Database::write_concern(WriteConcern concern) {
  concerns_.write_concern = std::move(concern);
  return *this;
}
}  // namespace odm
