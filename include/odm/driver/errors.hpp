#pragma once
// The driver's exceptions. They all derive from odm::Error (odm/error.hpp), so one
// `catch (const odm::Error&)` still catches everything odm throws; the classes below are
// the cases a caller can act on.
//
//   odm::Error
//   ├── ConfigurationError      the URI or an option is invalid (nothing was sent)
//   ├── DriverError             libmongoc refused an operation on the client side
//   │                           (e.g. a transaction on a server that cannot run one)
//   ├── NotFound                get_by_id() of an id no document has
//   └── ReplyError              came with a reply: raw_reply() and its error labels
//       ├── ConnectionError     no server could be selected within the timeout, a reply
//       │   │                   did not come within the socket timeout, or the connection broke
//       │   └── PoolExhausted   no pooled connection became free within the pool wait timeout
//       ├── ProtocolError       the server's reply does not follow the command's contract
//       └── ServerError         the server answered with an error: code, message, reply
//           └── WriteError      ... for a write (the reply has `writeErrors`)
//               └── DuplicateKeyError   ... E11000, with the index name and key when given
//   DecodeError (odm/error.hpp)
//   └── DecodeAfterWriteError   a write was applied, but what it returned does not fit the model
//
// insert_many() and bulk_write() of a Collection<T> add what they wrote to the exception
// they throw: it is also an odm::PartialWrite<T> (odm/driver/collection.hpp).

#include <odm/bson/document.hpp>
#include <odm/error.hpp>

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <string>
#include <utility>

namespace odm {

/// An invalid MongoDB URI or client option. Raised before anything is sent.
class ConfigurationError : public Error {
 public:
  ~ConfigurationError() override;  // in errors.cpp: the vtable and type_info once, in the library
  using Error::Error;
};

/// An error that came with a reply: the server's reply document, or what libmongoc
/// reported with a network error. One place reads the reply's error labels, so
/// `catch (const ReplyError& e) { e.has_label("TransientTransactionError"); }` covers a
/// server error and a lost connection alike.
class ReplyError : public Error {
 public:
  ~ReplyError() override;  // in errors.cpp: the vtable and type_info once, in the library
  ReplyError(const ReplyError&);
  ReplyError(ReplyError&&) noexcept;
  ReplyError& operator=(const ReplyError&);
  ReplyError& operator=(ReplyError&&) noexcept;
  explicit ReplyError(std::string what, Document raw_reply = {})
      : Error(std::move(what)), raw_reply_(std::move(raw_reply)) {}
  /// The reply as the server (or libmongoc, for a write or a network error) gave it;
  /// often `{}` for a network error.
  const Document& raw_reply() const noexcept { return raw_reply_; }
  /// Whether the reply carries an error label such as "TransientTransactionError".
  bool has_label(const char* label) const noexcept;

 private:
  Document raw_reply_;
};

/// No suitable server within ClientOptions::server_selection_timeout (the server is down,
/// the address is wrong, the network is unreachable), or a socket error mid-operation.
/// Arrives after at most that timeout: odm never waits forever for a server. Inside a
/// transaction its raw_reply() carries the "TransientTransactionError" label.
class ConnectionError : public ReplyError {
 public:
  ~ConnectionError() override;  // in errors.cpp: the vtable and type_info once, in the library
  ConnectionError(const ConnectionError&);
  ConnectionError(ConnectionError&&) noexcept;
  ConnectionError& operator=(const ConnectionError&);
  ConnectionError& operator=(ConnectionError&&) noexcept;
  using ReplyError::ReplyError;
};

/// The server answered without an error, but not as the command's documented reply
/// looks (a field missing, a cursor that should have been exhausted). raw_reply() is
/// what it sent. Not the data's fault and not the caller's: a server or proxy odm
/// cannot work with.
class ProtocolError : public ReplyError {
 public:
  ~ProtocolError() override;  // in errors.cpp: the vtable and type_info once, in the library
  ProtocolError(const ProtocolError&);
  ProtocolError(ProtocolError&&) noexcept;
  ProtocolError& operator=(const ProtocolError&);
  ProtocolError& operator=(ProtocolError&&) noexcept;
  using ReplyError::ReplyError;
};

/// Every connection of the client's pool stayed in use for ClientOptions::pool_wait_timeout.
/// Each running operation, open cursor and session holds one connection: a thread that
/// keeps a cursor open while it runs another operation needs two, so with
/// `max_pool_size(1)` that operation can never get one.
class PoolExhausted : public ConnectionError {
 public:
  ~PoolExhausted() override;  // in errors.cpp: the vtable and type_info once, in the library
  PoolExhausted(const PoolExhausted&);
  PoolExhausted(PoolExhausted&&) noexcept;
  PoolExhausted& operator=(const PoolExhausted&);
  PoolExhausted& operator=(PoolExhausted&&) noexcept;
  PoolExhausted(std::string what, std::uint32_t max_pool_size, std::chrono::milliseconds wait_timeout)
      : ConnectionError(std::move(what)), max_pool_size_(max_pool_size), wait_timeout_(wait_timeout) {}
  /// The pool's size: this many connections were all in use.
  std::uint32_t max_pool_size() const noexcept { return max_pool_size_; }
  /// How long the operation waited for one of them.
  std::chrono::milliseconds wait_timeout() const noexcept { return wait_timeout_; }

 private:
  std::uint32_t max_pool_size_;
  std::chrono::milliseconds wait_timeout_;
};

/// libmongoc refused the operation itself (invalid arguments, a transaction the
/// topology cannot run, a session used after its client ended). Keeps libmongoc's error
/// domain and code (see mongoc-error.h).
class DriverError : public Error {
 public:
  ~DriverError() override;  // in errors.cpp: the vtable and type_info once, in the library
  DriverError(const DriverError&);
  DriverError(DriverError&&) noexcept;
  DriverError& operator=(const DriverError&);
  DriverError& operator=(DriverError&&) noexcept;
  DriverError(std::string what, std::uint32_t domain, std::uint32_t code)
      : Error(std::move(what)), domain_(domain), code_(code) {}
  std::uint32_t domain() const noexcept { return domain_; }
  std::uint32_t code() const noexcept { return code_; }

 private:
  std::uint32_t domain_;
  std::uint32_t code_;
};

/// get_by_id() found no document with that id (find_by_id() returns std::nullopt instead).
class NotFound : public Error {
 public:
  ~NotFound() override;  // in errors.cpp: the vtable and type_info once, in the library
  using Error::Error;
};

/// The server answered with an error. Keeps the server's numeric code (e.g. 11000,
/// 251 NoSuchTransaction), its message, and the whole reply document.
class ServerError : public ReplyError {
 public:
  ~ServerError() override;  // in errors.cpp: the vtable and type_info once, in the library
  ServerError(const ServerError&);
  ServerError(ServerError&&) noexcept;
  ServerError& operator=(const ServerError&);
  ServerError& operator=(ServerError&&) noexcept;
  ServerError(std::string what, std::int32_t code, std::string message, Document raw_reply)
      : ReplyError(std::move(what), std::move(raw_reply)), code_(code), message_(std::move(message)) {}

  /// The server's error code (https://www.mongodb.com/docs/manual/reference/error-codes/).
  std::int32_t code() const noexcept { return code_; }
  /// The server's own message (errmsg), without odm's context.
  const std::string& message() const noexcept { return message_; }

 private:
  std::int32_t code_;
  std::string message_;
};

/// A write the server rejected (the reply's `writeErrors`).
class WriteError : public ServerError {
 public:
  ~WriteError() override;  // in errors.cpp: the vtable and type_info once, in the library
  using ServerError::ServerError;
};

/// A write that would have given two documents the same value of a unique index (E11000).
class DuplicateKeyError : public WriteError {
 public:
  ~DuplicateKeyError() override;  // in errors.cpp: the vtable and type_info once, in the library
  DuplicateKeyError(const DuplicateKeyError&);
  DuplicateKeyError(DuplicateKeyError&&) noexcept;
  DuplicateKeyError& operator=(const DuplicateKeyError&);
  DuplicateKeyError& operator=(DuplicateKeyError&&) noexcept;
  DuplicateKeyError(std::string what, std::int32_t code, std::string message, Document raw_reply,
                    std::string index_name, Document key_pattern, Document key_value)
      : WriteError(std::move(what), code, std::move(message), std::move(raw_reply)),
        index_name_(std::move(index_name)),
        key_pattern_(std::move(key_pattern)),
        key_value_(std::move(key_value)) {}

  /// The unique index, e.g. "_id_" or "isbn_1" ("" when the server did not say).
  const std::string& index_name() const noexcept { return index_name_; }
  /// The index's key pattern, e.g. `{isbn: 1}` (`{}` when the server did not give it).
  const Document& key_pattern() const noexcept { return key_pattern_; }
  /// The duplicated key, e.g. `{isbn: "978-1449344689"}` (`{}` when not given).
  const Document& key_value() const noexcept { return key_value_; }

 private:
  std::string index_name_;
  Document key_pattern_;
  Document key_value_;
};

/// The server applied a write, then returned a document (find_one_and_update/_replace/
/// _delete) or an id (an upsert, an insert) that does not fit the model. The write is
/// done: do not run it again (an `$inc` would count twice). returned() keeps what the
/// server sent, so nothing is lost, not even the document find_one_and_delete removed.
/// The error decoding raised is nested in it: `std::rethrow_if_nested(error)` throws that
/// (an odm::SchemaVersionError, with its versions, for a version the model cannot read).
class DecodeAfterWriteError : public DecodeError {
 public:
  ~DecodeAfterWriteError() override;  // in errors.cpp: the vtable and type_info once, in the library
  DecodeAfterWriteError(const DecodeAfterWriteError&);
  DecodeAfterWriteError(DecodeAfterWriteError&&) noexcept;
  DecodeAfterWriteError& operator=(const DecodeAfterWriteError&);
  DecodeAfterWriteError& operator=(DecodeAfterWriteError&&) noexcept;
  DecodeAfterWriteError(std::string reason, std::string operation, Document returned)
      : DecodeError(std::move(reason)), operation_(std::move(operation)), returned_(std::move(returned)) {}
  /// "findAndModify in db.coll", "update in db.coll", "insert into db.coll", ...
  const std::string& operation() const noexcept { return operation_; }
  /// The document (or `{_id: value}`) the server returned; `{}` when its bytes were not BSON.
  const Document& returned() const noexcept { return returned_; }

 private:
  std::string operation_;
  Document returned_;
};

/// One write of an insert_many() or bulk_write() that the server refused (an element of
/// the reply's `writeErrors`).
struct WriteFailure {
  /// The write's position: in the input range of insert_many(), among the writes of a bulk write.
  std::size_t index = 0;
  /// The server's error code, e.g. 11000 for a duplicate key.
  std::int32_t code = 0;
  std::string message;
  /// The whole `writeErrors` element (errInfo, keyPattern, keyValue, ...), its index made
  /// the write's position as above.
  Document details;
};

/// What became of one write of a failed insert_many() or bulk_write().
enum class WriteStatus {
  applied,       ///< the server acknowledged it
  refused,       ///< the server refused it: it has a WriteFailure
  unconfirmed,   ///< sent, but the connection failed before the reply, or the reply contradicted itself
                 ///< (a ProtocolError): it may or may not be applied
  not_attempted  ///< never sent (an ordered write stopped before it, or the connection was lost)
};

}  // namespace odm
