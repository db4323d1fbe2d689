#pragma once
// The non-template core of the driver layer. The typed templates (Collection<T>,
// Cursor<T>, BulkWrite<T>) encode and decode; everything that talks to libmongoc is
// behind these few classes, compiled once in odm/driver/*.cpp. User code never needs
// this header directly.

#include <odm/bson/document.hpp>
#include <odm/driver/errors.hpp>
#include <odm/driver/options.hpp>
#include <odm/driver/write_counts.hpp>
#include <odm/model/access.hpp>
#include <odm/error.hpp>

#include <bson/bson.h>

#include <cstddef>
#include <cstdint>
#include <exception>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace odm::detail {

class ClientState;   // the pool, its URI and the monitor (odm/driver/state.hpp, inside the library)
class SessionState;  // a mongoc_client_session_t with the pooled client it belongs to
class CursorState;   // a mongoc_cursor_t with the collection and client it reads from

/// Opens the pool. Throws ConfigurationError for an invalid URI or option.
std::shared_ptr<ClientState> open_client(std::string_view uri, const ClientOptions& options);

void destroy_session(SessionState* session) noexcept;
/// Ends a session (aborting its open transaction) and returns its pooled client.
struct SessionDeleter {
  void operator()(SessionState* session) const noexcept { destroy_session(session); }
};
using SessionHandle = std::unique_ptr<SessionState, SessionDeleter>;

/// Starts a session on a client popped from the pool (kept until the session ends).
SessionHandle start_session(const std::shared_ptr<ClientState>& client);
void start_transaction(SessionState& session);
void commit_transaction(SessionState& session);
void abort_transaction(SessionState& session);
bool in_transaction(const SessionState& session) noexcept;

/// Runs a command on a database and returns the server's reply.
Document run_command(const std::shared_ptr<ClientState>& client, SessionState* session, const std::string& database,
                     const Document& command);
void drop_database(const std::shared_ptr<ClientState>& client, const std::string& database);

/// `{_id: <the _id of document>}`, or an empty document when it has none.
Document id_field(const bson_t* document);

/// `error` (from decoding `document`) with the document's _id and where it came from
/// (`source`, e.g. "find on db.coll"; none when empty) added to its reason; same path.
DecodeError located_decode_error(const DecodeError& error, const bson_t* document, std::string_view source);
/// The same context added to `error` itself, which the caller then rethrows (`throw;`): the
/// exception keeps its type (an odm::SchemaVersionError stays one, with its data).
void locate_decode_error(DecodeError& error, const bson_t* document, std::string_view source);

/// A server-side cursor. Move-only; closes the cursor (killCursors) and returns its
/// pooled client when destroyed.
class CursorCore {
 public:
  explicit CursorCore(std::unique_ptr<CursorState> state) noexcept;
  CursorCore(CursorCore&&) noexcept;
  CursorCore& operator=(CursorCore&&) noexcept;
  ~CursorCore();

  /// The next document, valid until the next call; nullptr at the end. Fetches the next
  /// batch (getMore) when the current one is used up. Throws ConnectionError/ServerError.
  const bson_t* next();

  /// `error` (from decoding `document`) with the document's _id and the cursor's source
  /// added to its reason; the path stays the same.
  DecodeError decode_error(const DecodeError& error, const bson_t* document) const;
  /// The same, added to `error` itself (see locate_decode_error).
  void locate(DecodeError& error, const bson_t* document) const;

 private:
  std::unique_ptr<CursorState> state_;
};

/// What a write did, as libmongoc's reply counts it.
struct WriteOutcome : WriteCounts {
  /// For each upserted document: its position among the writes and `{_id: value}`.
  std::vector<std::pair<std::size_t, Document>> upserted_ids;
};

/// One write of a bulk write, already encoded.
struct BulkOperation {
  enum class Kind { insert_one, update_one, update_many, replace_one, delete_one, delete_many };
  BulkOperation(Kind kind, Document first, Document second, Document options);
  // Copied, moved and destroyed in the library (odm/driver/collection.cpp): compiled once, not in every file.
  BulkOperation(const BulkOperation&);
  BulkOperation(BulkOperation&&) noexcept;
  BulkOperation& operator=(const BulkOperation&);
  BulkOperation& operator=(BulkOperation&&) noexcept;
  ~BulkOperation();

  Kind kind;
  Document first;    // the document to insert, or the filter
  Document second;   // the update or the replacement
  Document options;  // of its statement (statement_options)
};

/// The options of one write of a bulk write, which travel in its statement: an update's or
/// replacement's upsert, arrayFilters, hint and collation; a delete's hint and collation.
/// Throws ConfigurationError when `spec` holds a setting of the whole command (comment,
/// time limit, write concern), which belongs to BulkWriteOptions.
Document statement_options(const UpdateSpec& spec);
Document statement_options(const DeleteSpec& spec);

/// What became of a bulk write (insert_many() is a bulk write of inserts).
struct BulkOutcome {
  BulkOutcome() = default;
  // Copied, moved and destroyed in the library (odm/driver/collection.cpp): compiled once, not in every file.
  BulkOutcome(const BulkOutcome&);
  BulkOutcome(BulkOutcome&&) noexcept;
  BulkOutcome& operator=(const BulkOutcome&);
  BulkOutcome& operator=(BulkOutcome&&) noexcept;
  ~BulkOutcome();

  /// What the server acknowledged; upserted_ids are `{_id: value}` by write position.
  WriteOutcome counts;
  /// One per write.
  std::vector<WriteStatus> statuses;
  /// The refused writes, by position.
  std::vector<WriteFailure> write_errors;
  /// One per write: `{_id: value}` of the document an insert carried, `{}` for the others.
  std::vector<Document> insert_ids;
  /// The odm::Error that stopped the writes, with a reply that covers all of them; null
  /// when every write was applied.
  std::exception_ptr error;
};

/// Throws DecodeAfterWriteError: `error` arose decoding `returned`, what `operation`
/// ("findAndModify in db.coll") returned after its write was applied. Call it in the
/// handler of `error`: the exception thrown nests it (std::rethrow_if_nested).
[[noreturn]] void throw_decode_after_write(const DecodeError& error, std::string operation, Document returned);

enum class UpdateKind { one, many, replace };

/// Whether a server error says the namespace (collection or database) does not exist, in
/// any of the forms servers use: code 26 (NamespaceNotFound), or a reply without a code
/// whose message is "ns not found" / "ns does not exist" (MongoDB 7.0+ replies ok to a
/// drop instead).
bool namespace_not_found(std::int32_t code, std::string_view message) noexcept;

/// A collection's names and settings, made once per collection handle and shared by its
/// copies and cursors (no string is copied per operation).
struct CollectionNames {
  std::string database;
  std::string name;
  std::string full;  // "database.name", for messages
  /// The collection's read preference and concerns over its database's (unset: the client's).
  Concerns concerns;
};

/// A collection of one database on one client. Cheap to copy; every operation borrows a
/// client from the pool for its duration (or uses the session's client).
class CollectionCore {
 public:
  CollectionCore(std::shared_ptr<ClientState> client, std::string database, std::string name, Concerns concerns = {});
  // Copied, moved and destroyed in the library (odm/driver/collection.cpp): compiled once, not in every file.
  CollectionCore(const CollectionCore&);
  CollectionCore(CollectionCore&&) noexcept;
  CollectionCore& operator=(const CollectionCore&);
  CollectionCore& operator=(CollectionCore&&) noexcept;
  ~CollectionCore();

  const std::string& database_name() const noexcept { return names_->database; }
  const std::string& name() const noexcept { return names_->name; }
  const std::shared_ptr<const CollectionNames>& names() const noexcept { return names_; }
  const std::shared_ptr<ClientState>& client() const noexcept { return client_; }
  const Concerns& concerns() const noexcept { return names_->concerns; }
  /// This handle with `concerns` over its own (other copies keep theirs).
  void set_concerns(const Concerns& concerns);

  /// Inserts `document`, putting a new ObjectId `_id` first when it has none. Returns `{_id: value}`.
  /// `checked`: odm's encoder already guaranteed what libmongoc validates before an insert
  /// (odm/driver/checked_encoding.hpp), so libmongoc is told not to walk it again.
  Document insert_one(SessionState* session, Document document, const InsertSpec& spec, bool checked = false) const;
  /// The same for a document whose encoder always writes `_id` (a model with an id
  /// member): nothing to check, nothing to return.
  void insert_one_with_id(SessionState* session, const Document& document, const InsertSpec& spec,
                          bool checked = false) const;
  CursorCore find(SessionState* session, const Document& filter, const FindSpec& spec) const;
  /// `pipeline` is a BSON array of stages or `{pipeline: [...]}`.
  CursorCore aggregate(SessionState* session, const bson_t* pipeline, const AggregateSpec& spec) const;
  std::int64_t count(SessionState* session, const Document& filter, const CountSpec& spec) const;
  WriteOutcome update(SessionState* session, UpdateKind kind, const Document& filter, const Document& update,
                      const UpdateSpec& spec) const;
  WriteOutcome remove(SessionState* session, bool many, const Document& filter, const DeleteSpec& spec) const;
  /// findAndModify: `update` is an update or a replacement document, nullptr removes.
  /// Returns the before/after image, or nothing when no document matched.
  std::optional<Document> find_one_and_modify(SessionState* session, const Document& filter, const Document* update,
                                              const FindAndModifySpec& spec) const;
  /// Sends the writes in as few commands as the server takes, one command at a time, so
  /// that the fate of each write is known when one fails; gives a new ObjectId `_id` to
  /// each inserted document without one. Reports errors in the outcome, never throws
  /// odm::Error. `operation` names it in messages ("insert into ", "bulk write to ").
  BulkOutcome bulk_write(SessionState* session, std::vector<BulkOperation> operations, const InsertSpec& spec,
                         const char* operation) const;
  void drop(SessionState* session) const;

 private:
  std::shared_ptr<ClientState> client_;
  std::shared_ptr<const CollectionNames> names_;
};

/// `{pipeline: [stage0, stage1, ...]}`.
Document make_pipeline(const std::vector<Document>& stages);

}  // namespace odm::detail
