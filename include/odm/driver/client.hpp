#pragma once
// odm::Client: the entry point. One Client per process (or per cluster) is enough: it
// owns a libmongoc client pool, is thread-safe, and is cheap to copy (copies share the
// pool). Each operation borrows a pooled connection for its duration.
//
//   odm::Client client("mongodb://localhost:27017/?replicaSet=rs0",
//                      odm::ClientOptions{}.server_selection_timeout(std::chrono::seconds(5)));
//   auto books = client.database("library").collection<Book>();
//
// Every wait has a limit (ClientLimits below): an unreachable server is an
// odm::ConnectionError after the server selection timeout, a server that stops answering
// one after the socket timeout, and a pool whose connections all stay in use an
// odm::PoolExhausted after the pool wait timeout; never a hang.

#include <odm/bson/document.hpp>
#include <odm/driver/collection.hpp>
#include <odm/driver/core.hpp>
#include <odm/driver/document_collection.hpp>
#include <odm/driver/errors.hpp>
#include <odm/driver/options.hpp>
#include <odm/driver/session.hpp>
#include <odm/model/collection_name.hpp>

#include <chrono>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>

namespace odm {

/// The limits a client runs with (Client::limits()). A default-constructed one holds
/// odm's defaults, which apply where neither ClientOptions nor the URI set a value.
struct ClientLimits {
  /// Waiting for a usable server [serverSelectionTimeoutMS].
  std::chrono::milliseconds server_selection_timeout{10'000};
  /// Opening a connection, and each heartbeat of the server monitor [connectTimeoutMS].
  std::chrono::milliseconds connect_timeout{10'000};
  /// Waiting for the reply to a sent command [socketTimeoutMS].
  std::chrono::milliseconds socket_timeout{30'000};
  /// Waiting for a free pooled connection [waitQueueTimeoutMS].
  std::chrono::milliseconds pool_wait_timeout{10'000};
  /// Connections open at once [maxPoolSize].
  std::uint32_t max_pool_size = 100;

  friend bool operator==(const ClientLimits&, const ClientLimits&) = default;
};

class Database;
namespace detail {
/// The limits of a client's pool (odm/driver/client.cpp).
ClientLimits client_limits(const ClientState& state);
/// The database `name` of a client's state (for code that holds only the state, like a cursor).
Database database_of(std::shared_ptr<ClientState> client, std::string name);
/// The maxWireVersion of the server the database's client talks to (9 is MongoDB 4.4):
/// read from the selected server's hello reply the first time it is asked for, within the
/// server selection and pool wait timeouts, then kept for the client's life (copies of a
/// Client share it). Code that needs a newer server's feature picks its form with it.
std::int32_t max_wire_version(const Database& db);
/// For tests only: makes the client behave as if its server had reported `version`, so the
/// forms meant for older servers run against a new one.
void assume_max_wire_version(const Database& db, std::int32_t version);
}  // namespace detail

// static_assert takes a string literal only: the one message of both collection() forms.
#define ODM_NOT_A_MODEL_MESSAGE                                                                              \
  "odm: a collection holds a model (a struct whose members map to fields, with or without an id member), " \
  "or odm::Document for documents read and written as they are stored: db.collection<odm::Document>(\"name\")"

/// A database of a client. Cheap to copy.
class Database {
 public:
  // Copied, moved and destroyed in the library (odm/driver/client.cpp): compiled once, not in every file.
  Database(const Database&);
  Database(Database&&) noexcept;
  Database& operator=(const Database&);
  Database& operator=(Database&&) noexcept;
  ~Database();

  const std::string& name() const noexcept { return name_; }

  /// The collection of model T, named by its metadata (or its type name).
  template <class T>
  auto collection() const {
    if constexpr (std::is_same_v<T, Document>)
      static_assert(!std::is_same_v<T, Document>,
                    "odm: documents of no model have no collection name of their own: name the collection, "
                    "db.collection<odm::Document>(\"name\")");
    else if constexpr (!document_model<T>)
      static_assert(document_model<T>, ODM_NOT_A_MODEL_MESSAGE);
    else
      return collection<T>(std::string(collection_name<T>));
  }
  /// Model T stored in a collection of another name; with T = odm::Document, the
  /// collection read and written as raw documents (odm::DocumentCollection).
  template <class T>
  auto collection(std::string name) const {
    if constexpr (std::is_same_v<T, Document>)
      return DocumentCollection(detail::CollectionCore(client_, name_, std::move(name), concerns_));
    else if constexpr (!document_model<T>)
      static_assert(document_model<T>, ODM_NOT_A_MODEL_MESSAGE);
    else
      return detail::Access::make<Collection<T>>(detail::CollectionCore(client_, name_, std::move(name), concerns_));
  }

  /// This handle's read preference, read concern and write concern, over the client's;
  /// the collections it makes afterwards inherit them.
  Database& read_preference(ReadPreference preference);
  Database& read_concern(ReadConcern concern);
  Database& write_concern(WriteConcern concern);
  /// The settings of this level (unset: the client's).
  const std::optional<ReadPreference>& read_preference() const noexcept { return concerns_.read_preference; }
  const std::optional<ReadConcern>& read_concern() const noexcept { return concerns_.read_concern; }
  const std::optional<WriteConcern>& write_concern() const noexcept { return concerns_.write_concern; }

  /// Runs a database command (the escape hatch for everything else) and returns the reply.
  /// Throws ServerError when the reply says `ok: 0`.
  Document run_command(const Document& command) const { return detail::run_command(client_, nullptr, name_, command); }
  Document run_command(Session& session, const Document& command) const {
    return detail::run_command(client_, detail::Access::session_state(session), name_, command);
  }

  /// Drops the database and everything in it.
  void drop() const { detail::drop_database(client_, name_); }

 private:
  friend class Client;
  friend Database detail::database_of(std::shared_ptr<detail::ClientState> client, std::string name);
  friend std::int32_t detail::max_wire_version(const Database& db);
  friend void detail::assume_max_wire_version(const Database& db, std::int32_t version);
  Database(std::shared_ptr<detail::ClientState> client, std::string name)
      : client_(std::move(client)), name_(std::move(name)) {}

  std::shared_ptr<detail::ClientState> client_;
  std::string name_;
  detail::Concerns concerns_;
};

#undef ODM_NOT_A_MODEL_MESSAGE

inline Database detail::database_of(std::shared_ptr<ClientState> client, std::string name) {
  return Database(std::move(client), std::move(name));
}

class Client {
 public:
  /// Connects lazily: nothing is sent until the first operation. Throws
  /// ConfigurationError for a URI libmongoc cannot parse.
  explicit Client(std::string_view uri, const ClientOptions& options = {})
      : state_(detail::open_client(uri, options)) {}

  Database database(std::string name) const { return Database(state_, std::move(name)); }
  Database operator[](std::string name) const { return database(std::move(name)); }

  /// The timeouts and pool size this client runs with, after ClientOptions, the URI and
  /// odm's defaults were merged (in that order of precedence).
  ClientLimits limits() const { return detail::client_limits(*state_); }

  /// Starts a logical session (for transactions). Throws when the server has no sessions.
  Session start_session() const { return Session(detail::start_session(state_)); }

 private:
  std::shared_ptr<detail::ClientState> state_;
};

}  // namespace odm
