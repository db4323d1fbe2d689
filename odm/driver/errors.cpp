// Translation of libmongoc errors (error API version 2) into odm's exceptions.

#include "state.hpp"
#include "special_members.hpp"

#include <cstring>

#include <odm/driver/client.hpp>
#include <odm/driver/errors.hpp>

#include <chrono>
#include <exception>
#include <optional>
#include <string>

namespace odm {

bool ReplyError::has_label(const char* label) const noexcept { return mongoc_error_has_label(raw_reply_.get(), label); }

namespace detail {
namespace {

bool is_duplicate_key_code(std::int64_t code) { return code == 11000 || code == 11001 || code == 12582; }

/// The document-valued field `key` of `parent`, or `{}`.
Document document_field(const bson_t* parent, const char* key) {
  bson_iter_t it;
  if (parent == nullptr || !bson_iter_init_find(&it, parent, key) || !BSON_ITER_HOLDS_DOCUMENT(&it)) return {};
  return copy_held_document(it);
}

/// The first element of the reply's `writeErrors`, if any (a view into the reply).
bool first_write_error(const bson_t* reply, bson_t* out) {
  bson_iter_t it;
  bson_iter_t child;
  if (reply == nullptr || !bson_iter_init_find(&it, reply, "writeErrors") || !BSON_ITER_HOLDS_ARRAY(&it) ||
      !bson_iter_recurse(&it, &child) || !bson_iter_next(&child) || !BSON_ITER_HOLDS_DOCUMENT(&child))
    return false;
  return held_document(child, *out);
}

bool has_field(const bson_t* reply, const char* key) { return reply != nullptr && bson_has_field(reply, key); }

/// "E11000 duplicate key error collection: db.c index: isbn_1 dup key: { ... }" -> "isbn_1".
std::string index_name_from_message(std::string_view message) {
  const std::size_t at = message.find("index: ");
  if (at == std::string_view::npos) return {};
  std::string_view rest = message.substr(at + 7);
  const std::size_t end = rest.find(' ');
  return std::string(end == std::string_view::npos ? rest : rest.substr(0, end));
}

/// " (ClientOptions::<setter>, <uri option>: <value> ms)", the value when the operation's
/// client is known.
std::string limit_text(const char* setter, const char* uri_option, std::optional<std::chrono::milliseconds> value) {
  std::string text = std::string(" (ClientOptions::") + setter + ", the URI's " + uri_option;
  if (value) text += ": " + std::to_string(value->count()) + " ms";
  return text + ")";
}

/// What a lost or stalled connection means, in the terms of the settings that bound it:
/// libmongoc names the command that failed, which for a new connection is the handshake
/// (a `hello`, sent as "isMaster") that the user never sent.
std::string connection_failure(const bson_error_t& error) {
  const ClientState* client = operation_client();
  std::optional<ClientLimits> limits;
  if (client != nullptr) limits = client_limits(*client);
  const auto value = [&](std::chrono::milliseconds ClientLimits::*limit) {
    return limits ? std::optional<std::chrono::milliseconds>((*limits).*limit) : std::nullopt;
  };
  const std::string_view message = error.message;
  if (error.domain == MONGOC_ERROR_SERVER_SELECTION)
    return "no server was available within the server selection timeout" +
           limit_text("server_selection_timeout", "serverSelectionTimeoutMS",
                      value(&ClientLimits::server_selection_timeout)) +
           ": check that the server runs at the URI's address and is reachable, or raise the timeout if it is only "
           "slow to come up";
  const bool handshake = message.find("\"isMaster\"") != std::string_view::npos ||
                         message.find("\"hello\"") != std::string_view::npos ||
                         message.find("\"ismaster\"") != std::string_view::npos;
  if (handshake)
    return "the server did not complete the handshake of a new connection (the hello libmongoc sends first) within "
           "the connect timeout" +
           limit_text("connect_timeout", "connectTimeoutMS", value(&ClientLimits::connect_timeout)) +
           ": it is stalled, overloaded or not a MongoDB server; raise the timeout if it is only slow";
  if (error.code == MONGOC_ERROR_STREAM_SOCKET)
    return "the connection failed, or no reply came within the socket timeout" +
           limit_text("socket_timeout", "socketTimeoutMS", value(&ClientLimits::socket_timeout)) +
           "; a write may or may not have been applied. Raise the timeout above the longest the command may run "
           "(its max_time) if the server is only slow";
  return "the connection to the server failed";
}

/// For a server error that a limit the program set ran into, which limit and what to
/// change (empty for any other error).
std::string limit_advice(std::int32_t code) {
  switch (code) {
    case 50:  // MaxTimeMSExpired
      return ": the operation ran past its time limit (the max_time(...) of its options, sent as maxTimeMS); "
             "raise it, or make the operation cheaper (an index that serves its filter and sort)";
    case 64:  // WriteConcernFailed: the write concern's wtimeout
      return ": the write was not confirmed by its write concern within the write concern's timeout "
             "(WriteConcern::timeout, wtimeout); it was applied on the primary and may still replicate: raise "
             "the timeout, or check the replica set's members";
    default: return {};
  }
}

}  // namespace

std::int64_t int64_field(const bson_t* reply, const char* key) noexcept {
  bson_iter_t it;
  if (reply == nullptr || !bson_iter_init_find(&it, reply, key)) return 0;
  return bson_iter_as_int64(&it);
}

void throw_error(const bson_error_t& error, const bson_t* reply, std::string_view operation) {
  std::string what(operation);
  what += ": ";

  switch (error.domain) {
    case MONGOC_ERROR_SERVER_SELECTION:
    case MONGOC_ERROR_STREAM:
      what += connection_failure(error) + " (libmongoc: " + error.message + ")";
      throw ConnectionError(what, reply != nullptr ? Document::copy_of(reply) : Document{});
    case MONGOC_ERROR_SERVER:
    case MONGOC_ERROR_WRITE_CONCERN:
      break;
    default:
      // A client-side domain: libmongoc's own error, unless the reply shows the server
      // rejected writes (then it is a write error whatever the domain says).
      if (!has_field(reply, "writeErrors")) throw DriverError(what + error.message, error.domain, error.code);
  }

  what += error.message;
  const auto code = static_cast<std::int32_t>(error.code);
  what += " (server error " + std::to_string(code) + ")";
  what += limit_advice(code);
  Document raw = reply != nullptr ? Document::copy_of(reply) : Document{};
  std::string message = error.message;

  bson_t write_error;
  const bool has_write_error = first_write_error(reply, &write_error);
  if (is_duplicate_key_code(code) ||
      (has_write_error && is_duplicate_key_code(int64_field(&write_error, "code")))) {
    const bson_t* details = has_write_error ? &write_error : reply;
    std::string index = index_name_from_message(message);
    throw DuplicateKeyError(std::move(what), code, std::move(message), std::move(raw), std::move(index),
                            document_field(details, "keyPattern"), document_field(details, "keyValue"));
  }
  if (has_write_error || has_field(reply, "writeConcernErrors") || has_field(reply, "writeConcernError"))
    throw WriteError(std::move(what), code, std::move(message), std::move(raw));
  throw ServerError(std::move(what), code, std::move(message), std::move(raw));
}

bool is_write_concern_error_key(const char* key) noexcept {
  return std::strcmp(key, "writeConcernErrors") == 0 || std::strcmp(key, "writeConcernError") == 0;
}

void throw_if_write_concern_error(const bson_t* reply, const char* operation, const std::string& where) {
  if (reply == nullptr) return;
  // libmongoc's reply lists them in writeConcernErrors; findAndModify's raw reply has one
  // writeConcernError. A write concern error whose code is missing or not a number makes
  // libmongoc 1.23 report success: the reply is the evidence. One pass over the reply.
  bson_t concern_error;
  bson_iter_t it;
  bson_iter_t entry;
  bool found = false;
  if (!bson_iter_init(&it, reply)) return;
  while (!found && bson_iter_next(&it)) {
    const char* key = bson_iter_key(&it);
    if (std::strcmp(key, "writeConcernErrors") == 0) {
      if (BSON_ITER_HOLDS_ARRAY(&it) && bson_iter_recurse(&it, &entry) && bson_iter_next(&entry) &&
          BSON_ITER_HOLDS_DOCUMENT(&entry))
        found = held_document(entry, concern_error);
    } else if (std::strcmp(key, "writeConcernError") == 0 && BSON_ITER_HOLDS_DOCUMENT(&it)) {
      found = held_document(it, concern_error);
    }
  }
  if (!found) return;
  bson_iter_t field;
  std::int32_t code = 0;
  if (bson_iter_init_find(&field, &concern_error, "code") &&
      (BSON_ITER_HOLDS_INT32(&field) || BSON_ITER_HOLDS_INT64(&field)))
    code = static_cast<std::int32_t>(bson_iter_as_int64(&field));
  std::string message = "write concern error";
  if (bson_iter_init_find(&field, &concern_error, "errmsg") && BSON_ITER_HOLDS_UTF8(&field))
    message = bson_iter_utf8(&field, nullptr);
  std::string what(operation);
  what += where;
  what += ": " + message + " (server error " + std::to_string(code) + "; the write was applied)";
  throw WriteError(std::move(what), code, std::move(message), Document::copy_of(reply));
}

void throw_decode_after_write(const DecodeError& error, std::string operation, Document returned) {
  std::string reason =
      error.reason() + " (in what " + operation + " returned after the write was applied: do not run the write again)";
  DecodeAfterWriteError located(std::move(reason), std::move(operation), std::move(returned));
  if (!error.path().empty()) located.prepend(error.path());
  // Called in the handler of `error`: nested in what is thrown, so std::rethrow_if_nested
  // gives the caller the original with its type and data (a SchemaVersionError's versions).
  std::throw_with_nested(std::move(located));
}

}  // namespace detail

ConfigurationError::~ConfigurationError() = default;
ReplyError::~ReplyError() = default;
ConnectionError::~ConnectionError() = default;
ProtocolError::~ProtocolError() = default;
PoolExhausted::~PoolExhausted() = default;
DriverError::~DriverError() = default;
NotFound::~NotFound() = default;
ServerError::~ServerError() = default;
WriteError::~WriteError() = default;
DuplicateKeyError::~DuplicateKeyError() = default;
DecodeAfterWriteError::~DecodeAfterWriteError() = default;

// Their copies and moves too: each throw and rethrow site would otherwise compile them.
ODM_DEFINE_COPIES_AND_MOVES(ReplyError);
ODM_DEFINE_COPIES_AND_MOVES(ConnectionError);
ODM_DEFINE_COPIES_AND_MOVES(ProtocolError);
ODM_DEFINE_COPIES_AND_MOVES(PoolExhausted);
ODM_DEFINE_COPIES_AND_MOVES(DriverError);
ODM_DEFINE_COPIES_AND_MOVES(ServerError);
ODM_DEFINE_COPIES_AND_MOVES(DuplicateKeyError);
ODM_DEFINE_COPIES_AND_MOVES(DecodeAfterWriteError);

}  // namespace odm
