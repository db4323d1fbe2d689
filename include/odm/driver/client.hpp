#pragma once
// odm::Client: the entry point. One Client per process (or per cluster) is enough: it
// owns a libmongoc client pool, is thread-safe, and is cheap to copy (copies share the
// pool). Each operation borrows a pooled connection for its duration.
//
//   odm::Client client("mongodb://localhost:27017/?replicaSet=rs0",
//                      odm::ClientOptions{}.server_selection_timeout(std::chrono::seconds(5)));
//   auto books = client.database("library").collection<Book>();
//
// An unreachable server is an odm::ConnectionError after the server selection timeout
// (10 s unless set), never a hang.

#include <odm/bson/document.hpp>
#include <odm/driver/collection.hpp>
#include <odm/driver/core.hpp>
#include <odm/driver/errors.hpp>
#include <odm/driver/options.hpp>
#include <odm/driver/session.hpp>
#include <odm/model/collection_name.hpp>

#include <memory>
#include <string>
#include <string_view>
#include <utility>

namespace odm {

class Database;
namespace detail {
/// The database `name` of a client's state (for code that holds only the state, like a cursor).
Database database_of(std::shared_ptr<ClientState> client, std::string name);
}  // namespace detail

/// A database of a client. Cheap to copy.
class Database {
 public:
  const std::string& name() const noexcept { return name_; }

  /// The collection of model T, named by its metadata (or its type name).
  template <document_model T>
  Collection<T> collection() const {
    return collection<T>(std::string(collection_name<T>));
  }
  /// Model T stored in a collection of another name.
  template <document_model T>
  Collection<T> collection(std::string name) const {
    return Collection<T>(detail::CollectionCore(client_, name_, std::move(name)));
  }

  /// Runs a database command (the escape hatch for everything else) and returns the reply.
  /// Throws ServerError when the reply says `ok: 0`.
  Document run_command(const Document& command) const { return detail::run_command(client_, nullptr, name_, command); }
  Document run_command(Session& session, const Document& command) const {
    return detail::run_command(client_, session.state(), name_, command);
  }

  /// Drops the database and everything in it.
  void drop() const { detail::drop_database(client_, name_); }

 private:
  friend class Client;
  friend Database detail::database_of(std::shared_ptr<detail::ClientState> client, std::string name);
  Database(std::shared_ptr<detail::ClientState> client, std::string name)
      : client_(std::move(client)), name_(std::move(name)) {}

  std::shared_ptr<detail::ClientState> client_;
  std::string name_;
};

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

  /// Starts a logical session (for transactions). Throws when the server has no sessions.
  Session start_session() const { return Session(detail::start_session(state_)); }

 private:
  std::shared_ptr<detail::ClientState> state_;
};

}  // namespace odm
