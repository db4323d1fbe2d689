// CollectionCore and CursorCore: every collection-level libmongoc call.

#include "state.hpp"
#include "special_members.hpp"

#include <odm/bson/containers.hpp>
#include <odm/driver/collection.hpp>
#include <odm/driver/cursor.hpp>
#include <odm/driver/errors.hpp>

#include <algorithm>
#include <charconv>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <limits>
#include <optional>
#include <string>
#include <string_view>

namespace odm::detail {

Document id_field(const bson_t* document) {
  Document holder;
  bson_iter_t it;
  if (bson_iter_init_find(&it, document, "_id")) bson_append_iter(holder.get_mutable(), "_id", 3, &it);
  return holder;
}

namespace {

void append_int64(bson_t* document, const char* key, std::int64_t value) {
  check_append(bson_append_int64(document, key, -1, value));
}

void append_document(bson_t* document, const char* key, const Document& value) {
  check_append(bson_append_document(document, key, -1, value.get()));
}

void append_bool(bson_t* document, const char* key, bool value) { check_append(bson_append_bool(document, key, -1, value)); }

void append_documents(bson_t* parent, const char* key, const std::vector<Document>& documents) {
  ChildWriter array(parent, key, ChildWriter::Kind::array);
  for (const Document& document : documents) {
    const ArrayKey index(array.next_index());
    check_append(bson_append_document(array.get(), index.view().data(), key_length(index.view()), document.get()));
  }
  array.close();
}

void append_collation(bson_t* opts, const Collation& collation) {
  ChildWriter child(opts, "collation");
  check_append(bson_append_utf8(child.get(), "locale", 6, collation.locale().data(),
                                static_cast<int>(collation.locale().size())));
  if (collation.strength()) check_append(bson_append_int32(child.get(), "strength", 8, *collation.strength()));
  if (collation.case_level()) append_bool(child.get(), "caseLevel", *collation.case_level());
  if (collation.numeric_ordering()) append_bool(child.get(), "numericOrdering", *collation.numeric_ordering());
  child.close();
}


/// Gives `document` a new ObjectId `_id` in front when it has none (a copy; none is made
/// of a document that has its _id).
void ensure_id(Document& document) {
  if (bson_has_field(document.get(), "_id")) return;
  Document copy;
  bson_oid_t oid;
  bson_oid_init(&oid, nullptr);
  bson_append_oid(copy.get_mutable(), "_id", 3, &oid);
  bson_concat(copy.get_mutable(), document.get());
  document = std::move(copy);
}

/// The counts of an update's or delete's reply, and its upsertedId as `{_id: value}`, read
/// in one pass; throws WriteError when it carries a write concern error.
WriteOutcome write_outcome(const bson_t* reply, const char* operation, const std::string& where) {
  WriteOutcome outcome;
  bool concern_error = false;
  bson_iter_t it;
  if (bson_iter_init(&it, reply)) {
    while (bson_iter_next(&it)) {
      const char* key = bson_iter_key(&it);
      if (std::strcmp(key, "matchedCount") == 0) {
        outcome.matched = bson_iter_as_int64(&it);
      } else if (std::strcmp(key, "modifiedCount") == 0) {
        outcome.modified = bson_iter_as_int64(&it);
      } else if (std::strcmp(key, "upsertedCount") == 0) {
        outcome.upserted = bson_iter_as_int64(&it);
      } else if (std::strcmp(key, "deletedCount") == 0) {
        outcome.deleted = bson_iter_as_int64(&it);
      } else if (std::strcmp(key, "upsertedId") == 0 && outcome.upserted_ids.empty()) {
        Document holder;
        bson_append_iter(holder.get_mutable(), "_id", 3, &it);
        outcome.upserted_ids.emplace_back(0, std::move(holder));
      } else if (is_write_concern_error_key(key)) {
        concern_error = true;
      }
    }
  }
  if (concern_error) throw_if_write_concern_error(reply, operation, where);
  return outcome;
}

const std::string& namespace_of(const CollectionCore& core) { return core.names()->full; }

/// What kind of command an operation sends, for the settings that apply to it.
enum class Sends { read, write, read_write };

/// The collection an operation works on, with the client it borrowed and the settings of
/// every level applied; `opts` receives the command's shared options. This is the one
/// place where the read preference, read and write concerns, comment, maxTimeMS, hint,
/// collation and session of every operation reach libmongoc.
struct Target {
  Target(const CollectionCore& core, SessionState* session, const CommonSpec& spec, bson_t* opts, Sends sends)
      : client(core.client(), session) {
    if (session != nullptr && in_transaction(*session) &&
        (spec.concerns.read_concern || spec.concerns.write_concern))
      throw ConfigurationError("an operation in a transaction cannot set its own read or write concern (the "
                               "transaction's apply); on " + core.names()->full);
    const Concerns concerns = spec.concerns.over(core.concerns());
    // With nothing set on the database, collection or operation, the client's settings
    // apply: the handle the client keeps has them. Otherwise a handle of its own.
    if (concerns.empty())
      collection = CollectionRef::borrowed(
          core.client()->kept_collection(client.get(), core.database_name(), core.name(), core.names()->full));
    if (collection.get() == nullptr) {
      collection = CollectionRef::owned(
          mongoc_client_get_collection(client.get(), core.database_name().c_str(), core.name().c_str()));
      apply_concerns(collection.get(), concerns);
    }
    if (sends != Sends::write && concerns.read_concern &&
        concerns.read_concern->level() == ReadConcernLevel::linearizable &&
        mongoc_read_prefs_get_mode(mongoc_collection_get_read_prefs(collection.get())) != MONGOC_READ_PRIMARY)
      throw ConfigurationError("read concern linearizable reads only from the primary, but the read "
                               "preference is not primary; on " + core.names()->full);
    if (opts == nullptr) return;
    if (spec.comment) check_append(bson_append_utf8(opts, "comment", 7, spec.comment->data(),
                                                    static_cast<int>(spec.comment->size())));
    if (spec.max_time) append_int64(opts, "maxTimeMS", spec.max_time->count());
    if (!spec.hint.empty()) check_append(bson_concat(opts, spec.hint.get()));
    if (spec.collation) append_collation(opts, *spec.collation);
    client.append_session(opts);
  }

  OperationClient client;
  CollectionRef collection;  // destroyed before the client goes back to the pool
};

}  // namespace

Document make_pipeline(const std::vector<Document>& stages) {
  Document pipeline;
  append_documents(pipeline.get_mutable(), "pipeline", stages);
  return pipeline;
}

// ---- cursors ---------------------------------------------------------------------

CursorCore::CursorCore(std::unique_ptr<CursorState> state) noexcept : state_(std::move(state)) {}
CursorCore::CursorCore(CursorCore&&) noexcept = default;
CursorCore& CursorCore::operator=(CursorCore&&) noexcept = default;
CursorCore::~CursorCore() = default;

void locate_decode_error(DecodeError& error, const bson_t* document, std::string_view source) {
  std::string context = " (document ";
  const Document id = id_field(document);
  context += id.empty() ? std::string("without _id") : id.to_json();
  if (!source.empty()) context += " from " + std::string(source);
  context += ")";
  error.append_to_reason(context);
}

DecodeError located_decode_error(const DecodeError& error, const bson_t* document, std::string_view source) {
  DecodeError located(error.reason());
  located.prepend_path_of(error);
  locate_decode_error(located, document, source);
  return located;
}

DecodeError CursorCore::decode_error(const DecodeError& error, const bson_t* document) const {
  return located_decode_error(error, document, state_ ? std::string_view(state_->source()) : std::string_view());
}

void CursorCore::locate(DecodeError& error, const bson_t* document) const {
  locate_decode_error(error, document, state_ ? std::string_view(state_->source()) : std::string_view());
}

bool decode_next(CursorCore& core, const DecodeInto& into, BadDocuments bad_documents,
                 std::vector<SkippedDocument>& skipped) {
  while (const bson_t* document = core.next()) {
    try {
      into.take(into.out, document);
      return true;
    } catch (DecodeError& error) {
      if (bad_documents == BadDocuments::raise) {
        core.locate(error, document);
        throw;  // the same exception: its type and data (a SchemaVersionError's) are kept
      }
      skipped.push_back(SkippedDocument{id_field(document), core.decode_error(error, document)});
    }
  }
  return false;
}

void find_first(const CollectionCore& core, SessionState* session, const Document& filter, const FindSpec& spec,
                const DecodeInto& into) {
  CursorCore cursor = core.find(session, filter, spec);
  std::vector<SkippedDocument> none;  // never added to: raise
  decode_next(cursor, into, BadDocuments::raise, none);
}

std::optional<NewerMatch> find_newer(const CollectionCore& core, SessionState* session, const Document& filter,
                                     std::int32_t current, const char* operation,
                                     const std::optional<Collation>& collation) {
  FindSpec one;
  one.limit = 1;
  one.collation = collation;  // the replace's own: it decides what the filter matches
  CursorCore cursor = core.find(session, newer_within(filter.get(), current), one);
  const bson_t* found = cursor.next();
  if (found == nullptr) return std::nullopt;
  // newer_within asked for a number above `current`: an int or a long, or a double or a
  // decimal another program wrote, which SchemaVersionError reports as a version of the
  // wrong type (-1). A server that answers with anything else gets the same.
  std::int64_t stored = -1;
  std::string shown = "(not a number)";
  bson_iter_t version;
  if (bson_iter_init_find_w_len(&version, found, schema_version_field.data(),
                                static_cast<int>(schema_version_field.size()))) {
    if (BSON_ITER_HOLDS_INT32(&version) || BSON_ITER_HOLDS_INT64(&version)) {
      stored = bson_iter_as_int64(&version);
      shown = std::to_string(stored);
    } else if (BSON_ITER_HOLDS_DOUBLE(&version)) {
      char text[32];
      const auto end = std::to_chars(text, text + sizeof text, bson_iter_double(&version)).ptr;
      shown = "(a double) " + std::string(text, end);
    } else if (BSON_ITER_HOLDS_DECIMAL128(&version)) {
      bson_decimal128_t value;
      bson_iter_decimal128(&version, &value);
      char text[BSON_DECIMAL128_STRING];
      bson_decimal128_to_string(&value, text);
      shown = "(a decimal) " + std::string(text);
    }
  } else {
    shown = "(none)";
  }
  return NewerMatch{Document::copy_of(found), stored,
                    std::string(operation) + " in " + core.database_name() + "." + core.name() +
                        ": the document is at schema version " + shown + ", newer than this model's (" +
                        std::to_string(current) +
                        "); replacing it would write this version and its defaults over the newer fields, so nothing "
                        "was written (change it with update_one or an odm::Tracked save, which leave its version alone)"};
}

const bson_t* CursorCore::next() {
  if (!state_) return nullptr;
  const bson_t* document = nullptr;
  if (mongoc_cursor_next(state_->get(), &document)) return document;
  bson_error_t error;
  const bson_t* reply = nullptr;
  if (mongoc_cursor_error_document(state_->get(), &error, &reply)) {
    // The reply belongs to the cursor: copy it before the cursor goes. A failed cursor
    // cannot go on, so its connection goes back to the pool now.
    const Document kept = reply != nullptr ? Document::copy_of(reply) : Document{};
    const std::string source = state_->source();
    const std::shared_ptr<ClientState> client = state_->client();
    state_.reset();
    const ClientInUse in_use(client.get());  // the message names its limits
    throw_error(error, kept.get(), source);
  }
  state_.reset();  // exhausted: give the connection back now rather than at destruction
  return nullptr;
}

namespace {

CursorCore make_cursor(const char* operation, const std::shared_ptr<const CollectionNames>& names,
                       const std::shared_ptr<ClientState>& client, Target& target,
                       mongoc_cursor_t* cursor) {
  CursorHandle owned(cursor);
  return CursorCore(std::make_unique<CursorState>(operation, names, client, target.client.take_lease(),
                                                  std::move(target.collection), std::move(owned)));
}

}  // namespace

// ---- collection ------------------------------------------------------------------

ODM_DEFINE_SPECIAL_MEMBERS(CollectionCore);
BulkOperation::BulkOperation(Kind kind, Document first, Document second, Document options)
    : kind(kind), first(std::move(first)), second(std::move(second)), options(std::move(options)) {}
ODM_DEFINE_SPECIAL_MEMBERS(BulkOperation);
ODM_DEFINE_SPECIAL_MEMBERS(BulkOutcome);

CollectionCore::CollectionCore(std::shared_ptr<ClientState> client, std::string database, std::string name,
                               Concerns concerns)
    : client_(std::move(client)) {
  check_database_name(database);
  check_collection_name(name);
  std::string full = database + "." + name;
  names_ = std::make_shared<const CollectionNames>(
      CollectionNames{std::move(database), std::move(name), std::move(full), std::move(concerns)});
}

void CollectionCore::set_concerns(const Concerns& concerns) {
  CollectionNames changed = *names_;
  changed.concerns = concerns.over(names_->concerns);
  names_ = std::make_shared<const CollectionNames>(std::move(changed));
}

namespace {
/// Refuses a setting of the whole command on one write of a bulk write; `takes` says what
/// that write's statement does take.
void refuse_command_settings(const CommonSpec& spec, const char* takes) {
  if (spec.has_command_settings())
    throw ConfigurationError(std::string(takes) +
                             "; set the comment, time limit and write concern on the bulk write (BulkWriteOptions)");
}

/// The hint and collation a statement shares with its command's other statements' kinds.
void append_statement_settings(bson_t* opts, const CommonSpec& spec) {
  if (!spec.hint.empty()) check_append(bson_concat(opts, spec.hint.get()));
  if (spec.collation) append_collation(opts, *spec.collation);
}
}  // namespace

Document statement_options(const UpdateSpec& spec) {
  refuse_command_settings(spec, "an update or replace of a bulk write takes only upsert, array_filters, hint and "
                                "collation");
  Document opts;
  bson_t* o = opts.get_mutable();
  if (spec.upsert) append_bool(o, "upsert", true);
  if (!spec.array_filters.empty()) append_documents(o, "arrayFilters", spec.array_filters);
  append_statement_settings(o, spec);
  return opts;
}

Document statement_options(const DeleteSpec& spec) {
  refuse_command_settings(spec, "a delete of a bulk write takes only hint and collation");
  Document opts;
  append_statement_settings(opts.get_mutable(), spec);
  return opts;
}

namespace {
/// Sends `document`, which has an _id.
void insert_complete(const CollectionCore& core, SessionState* session, const bson_t* document,
                     const InsertSpec& spec, bool checked) {
  OutDocument opts;
  Target target(core, session, spec, opts.get(), Sends::write);
  if (checked) append_bool(opts.get(), "validate", false);
  OutDocument reply;
  bson_error_t error;
  if (!mongoc_collection_insert_one(target.collection.get(), document, opts.if_any(), reply.get(), &error))
    throw_error(error, reply.get(), "insert into " + namespace_of(core));
  throw_if_write_concern_error(reply.get(), "insert into ", namespace_of(core));
}
}  // namespace

Document CollectionCore::insert_one(SessionState* session, Document document, const InsertSpec& spec,
                                    bool checked) const {
  ensure_id(document);
  insert_complete(*this, session, document.get(), spec, checked);
  return id_field(document.get());
}

void CollectionCore::insert_one_with_id(SessionState* session, const Document& document, const InsertSpec& spec,
                                        bool checked) const {
  insert_complete(*this, session, document.get(), spec, checked);
}

CursorCore CollectionCore::find(SessionState* session, const Document& filter, const FindSpec& spec) const {
  OutDocument opts;
  bson_t* o = opts.get();
  Target target(*this, session, spec, o, Sends::read);
  if (!spec.sort.empty()) append_document(o, "sort", spec.sort);
  if (!spec.projection.empty()) append_document(o, "projection", spec.projection);
  if (spec.skip) append_int64(o, "skip", *spec.skip);
  if (spec.limit && *spec.limit < 0) {
    // A negative limit asks for one batch of that many (drivers' CRUD specification); the
    // find command takes it as limit and singleBatch, and refuses a negative limit.
    append_int64(o, "limit", one_batch_limit(*spec.limit));
    append_bool(o, "singleBatch", true);
  } else if (spec.limit) {
    append_int64(o, "limit", *spec.limit);
  }
  if (spec.batch_size) check_append(bson_append_int32(o, "batchSize", -1, *spec.batch_size));
  mongoc_cursor_t* cursor = mongoc_collection_find_with_opts(target.collection.get(), filter.get(), opts.if_any(), nullptr);
  return make_cursor("find on ", names_, client_, target, cursor);
}

CursorCore CollectionCore::aggregate(SessionState* session, const bson_t* pipeline, const AggregateSpec& spec) const {
  OutDocument opts;
  bson_t* o = opts.get();
  Target target(*this, session, spec, o, Sends::read_write);
  if (spec.batch_size) check_append(bson_append_int32(o, "batchSize", -1, *spec.batch_size));
  if (spec.allow_disk_use) append_bool(o, "allowDiskUse", *spec.allow_disk_use);
  mongoc_cursor_t* cursor =
      mongoc_collection_aggregate(target.collection.get(), MONGOC_QUERY_NONE, pipeline, opts.if_any(), nullptr);
  return make_cursor("aggregate on ", names_, client_, target, cursor);
}

std::int64_t CollectionCore::count(SessionState* session, const Document& filter, const CountSpec& spec) const {
  OutDocument opts;
  Target target(*this, session, spec, opts.get(), Sends::read);
  if (spec.skip) append_int64(opts.get(), "skip", *spec.skip);
  if (spec.limit) append_int64(opts.get(), "limit", *spec.limit);
  OutDocument reply;
  bson_error_t error;
  const std::int64_t count =
      mongoc_collection_count_documents(target.collection.get(), filter.get(), opts.if_any(), nullptr, reply.get(), &error);
  if (count < 0) throw_error(error, reply.get(), "count in " + namespace_of(*this));
  return count;
}

WriteOutcome CollectionCore::update(SessionState* session, UpdateKind kind, const Document& filter,
                                    const Document& update, const UpdateSpec& spec) const {
  // upsert, arrayFilters, hint and collation belong to the statement (statement_options);
  // hint and collation are added by the Target like every command's.
  OutDocument opts;
  if (spec.upsert) append_bool(opts.get(), "upsert", true);
  if (!spec.array_filters.empty()) append_documents(opts.get(), "arrayFilters", spec.array_filters);
  Target target(*this, session, spec, opts.get(), Sends::write);
  OutDocument reply;
  bson_error_t error;
  mongoc_collection_t* collection = target.collection.get();
  bool ok = false;
  switch (kind) {
    case UpdateKind::one:
      ok = mongoc_collection_update_one(collection, filter.get(), update.get(), opts.if_any(), reply.get(), &error);
      break;
    case UpdateKind::many:
      ok = mongoc_collection_update_many(collection, filter.get(), update.get(), opts.if_any(), reply.get(), &error);
      break;
    case UpdateKind::replace:
      ok = mongoc_collection_replace_one(collection, filter.get(), update.get(), opts.if_any(), reply.get(), &error);
      break;
  }
  const char* operation = kind == UpdateKind::replace ? "replace in " : "update in ";
  if (!ok) throw_error(error, reply.get(), operation + namespace_of(*this));
  return write_outcome(reply.get(), operation, namespace_of(*this));
}

WriteOutcome CollectionCore::remove(SessionState* session, bool many, const Document& filter,
                                    const DeleteSpec& spec) const {
  OutDocument opts;
  Target target(*this, session, spec, opts.get(), Sends::write);
  OutDocument reply;
  bson_error_t error;
  const bool ok = many ? mongoc_collection_delete_many(target.collection.get(), filter.get(), opts.if_any(), reply.get(), &error)
                       : mongoc_collection_delete_one(target.collection.get(), filter.get(), opts.if_any(), reply.get(), &error);
  if (!ok) throw_error(error, reply.get(), "delete from " + namespace_of(*this));
  return write_outcome(reply.get(), "delete from ", namespace_of(*this));
}

std::optional<Document> CollectionCore::find_one_and_modify(SessionState* session, const Document& filter,
                                                            const Document* update,
                                                            const FindAndModifySpec& spec) const {
  Document extra;
  if (!spec.array_filters.empty()) append_documents(extra.get_mutable(), "arrayFilters", spec.array_filters);
  Target target(*this, session, spec, extra.get_mutable(), Sends::write);
  FindAndModifyHandle opts(mongoc_find_and_modify_opts_new());
  int flags = MONGOC_FIND_AND_MODIFY_NONE;
  if (update == nullptr) {
    flags |= MONGOC_FIND_AND_MODIFY_REMOVE;
  } else {
    mongoc_find_and_modify_opts_set_update(opts.get(), update->get());
    if (spec.upsert) flags |= MONGOC_FIND_AND_MODIFY_UPSERT;
    if (spec.image == ReturnDocument::after) flags |= MONGOC_FIND_AND_MODIFY_RETURN_NEW;
  }
  mongoc_find_and_modify_opts_set_flags(opts.get(), static_cast<mongoc_find_and_modify_flags_t>(flags));
  if (!spec.sort.empty()) mongoc_find_and_modify_opts_set_sort(opts.get(), spec.sort.get());
  if (!spec.projection.empty()) mongoc_find_and_modify_opts_set_fields(opts.get(), spec.projection.get());
  if (!extra.empty()) check_append(mongoc_find_and_modify_opts_append(opts.get(), extra.get()));

  OutDocument reply;
  bson_error_t error;
  if (!mongoc_collection_find_and_modify_with_opts(target.collection.get(), filter.get(), opts.get(), reply.get(),
                                                   &error))
    throw_error(error, reply.get(), "findAndModify in " + namespace_of(*this));
  throw_if_write_concern_error(reply.get(), "findAndModify in ", namespace_of(*this));
  bson_iter_t it;
  if (!bson_iter_init_find(&it, reply.get(), "value") || !BSON_ITER_HOLDS_DOCUMENT(&it)) return std::nullopt;
  // Checked by the model's decoder, as a find's documents are (one level of checking).
  return detail::copy_held_document(it);
}

namespace {

/// The command a write travels in. libmongoc sends consecutive writes of one command
/// together, splitting them only by the server's limits.
enum class CommandKind { insert, update, remove };

CommandKind command_of(BulkOperation::Kind kind) {
  switch (kind) {
    case BulkOperation::Kind::insert_one:
      return CommandKind::insert;
    case BulkOperation::Kind::delete_one:
    case BulkOperation::Kind::delete_many:
      return CommandKind::remove;
    default:
      return CommandKind::update;
  }
}

/// An upper bound on what a write adds to its command: the document, or the statement
/// `{q: filter, u: update, upsert: true, multi: true}` / `{q: filter, limit: 1}`.
std::size_t wire_size(const BulkOperation& op) {
  constexpr std::size_t statement_keys = 64;
  if (op.kind == BulkOperation::Kind::insert_one) return op.first.get()->len;
  return op.first.get()->len + op.second.get()->len + op.options.get()->len + statement_keys;
}

/// The most writes and bytes odm puts in one command, from the hello of the server the
/// writes go to: within them libmongoc sends each group of writes as one command, so a
/// failed command tells exactly which writes were in it.
struct BatchLimits {
  std::size_t writes = 100'000;
  std::size_t bytes = 48'000'000 - 16 * 1024;
  /// The largest document the server stores (maxBsonObjectSize).
  std::size_t document = 16 * 1024 * 1024;
};

BatchLimits batch_limits(mongoc_client_t* client) {
  // Room for the command document around the writes (collection, lsid, txnNumber,
  // $clusterTime, writeConcern) and the message header.
  constexpr std::int64_t command_room = 16 * 1024;
  bson_error_t error;
  const ServerDescriptionHandle server(mongoc_client_select_server(client, true, nullptr, &error));
  if (!server) throw_error(error, nullptr, "select a server for writes");
  const bson_t* hello = mongoc_server_description_hello_response(server.get());
  BatchLimits limits;
  if (const std::int64_t writes = int64_field(hello, "maxWriteBatchSize"); writes > 0)
    limits.writes = static_cast<std::size_t>(writes);
  if (const std::int64_t bytes = int64_field(hello, "maxMessageSizeBytes"); bytes > 2 * command_room)
    limits.bytes = static_cast<std::size_t>(bytes - command_room);
  if (const std::int64_t document = int64_field(hello, "maxBsonObjectSize"); document > 0)
    limits.document = static_cast<std::size_t>(document);
  return limits;
}

/// Writes [begin, end) of a bulk write, sent as one libmongoc bulk operation.
struct Segment {
  std::size_t begin;
  std::size_t end;
  BulkHandle bulk;
};

/// Splits the writes into segments of one command each and appends them to libmongoc
/// bulk operations. Throws odm::Error when libmongoc refuses a write (nothing is sent then).
std::vector<Segment> make_segments(mongoc_collection_t* collection, const std::vector<BulkOperation>& operations,
                                   const BatchLimits& limits, const Document& opts, const std::string& what) {
  std::vector<Segment> segments;
  std::size_t bytes = 0;
  bson_error_t error;
  for (std::size_t i = 0; i < operations.size(); ++i) {
    const BulkOperation& op = operations[i];
    // A document, replacement or update above the server's limit: libmongoc refuses it only
    // as it sends the command holding it, after the writes before it in that command went
    // out, and without saying which did.
    const bool deletes = op.kind == BulkOperation::Kind::delete_one || op.kind == BulkOperation::Kind::delete_many;
    const bson_t* stored = op.kind == BulkOperation::Kind::insert_one ? op.first.get() : op.second.get();
    if (!deletes && stored->len > limits.document)
      throw DriverError(what + " (write " + std::to_string(i) + "): the document is " + std::to_string(stored->len) +
                            " bytes, more than the " + std::to_string(limits.document) +
                            " the server stores (maxBsonObjectSize); nothing was sent",
                        MONGOC_ERROR_BSON, MONGOC_ERROR_BSON_INVALID);
    const std::size_t size = wire_size(op);
    if (segments.empty() || command_of(op.kind) != command_of(operations[segments.back().begin].kind) ||
        i - segments.back().begin >= limits.writes || bytes + size > limits.bytes) {
      segments.push_back(
          Segment{i, i, BulkHandle(mongoc_collection_create_bulk_operation_with_opts(collection, opts.get()))});
      bytes = 0;
    }
    bytes += size;
    mongoc_bulk_operation_t* bulk = segments.back().bulk.get();
    const bson_t* statement_opts = op.options.empty() ? nullptr : op.options.get();
    bool ok = false;
    switch (op.kind) {
      case BulkOperation::Kind::insert_one:
        ok = mongoc_bulk_operation_insert_with_opts(bulk, op.first.get(), nullptr, &error);
        break;
      case BulkOperation::Kind::update_one:
        ok = mongoc_bulk_operation_update_one_with_opts(bulk, op.first.get(), op.second.get(), statement_opts, &error);
        break;
      case BulkOperation::Kind::update_many:
        ok = mongoc_bulk_operation_update_many_with_opts(bulk, op.first.get(), op.second.get(), statement_opts, &error);
        break;
      case BulkOperation::Kind::replace_one:
        ok = mongoc_bulk_operation_replace_one_with_opts(bulk, op.first.get(), op.second.get(), statement_opts, &error);
        break;
      case BulkOperation::Kind::delete_one:
        ok = mongoc_bulk_operation_remove_one_with_opts(bulk, op.first.get(), statement_opts, &error);
        break;
      case BulkOperation::Kind::delete_many:
        ok = mongoc_bulk_operation_remove_many_with_opts(bulk, op.first.get(), statement_opts, &error);
        break;
    }
    if (!ok) throw_error(error, nullptr, what + " (write " + std::to_string(i) + ")");
    segments.back().end = i + 1;
  }
  return segments;
}

/// Calls `visit(element)` for each sub-document of the array `key` of `reply`.
template <class Visit>
void for_each_entry(const bson_t* reply, const char* key, Visit&& visit) {
  bson_iter_t it;
  bson_iter_t entries;
  if (!bson_iter_init_find(&it, reply, key) || !BSON_ITER_HOLDS_ARRAY(&it) || !bson_iter_recurse(&it, &entries)) return;
  while (bson_iter_next(&entries)) {
    bson_t entry;
    if (BSON_ITER_HOLDS_DOCUMENT(&entries) && held_document(entries, entry)) visit(&entry);
  }
}

/// `entry` with its `index` moved by `offset` (a segment's position in the bulk write).
Document shifted(const bson_t* entry, std::size_t offset, std::size_t* index) {
  Document copy;
  bson_iter_t it;
  if (!bson_iter_init(&it, entry)) return copy;
  while (bson_iter_next(&it)) {
    if (std::string_view(bson_iter_key(&it)) == "index") {
      *index = offset + static_cast<std::size_t>(bson_iter_as_int64(&it));
      bson_append_int64(copy.get_mutable(), "index", 5, static_cast<std::int64_t>(*index));
    } else {
      bson_append_iter(copy.get_mutable(), bson_iter_key(&it), -1, &it);
    }
  }
  return copy;
}

std::string string_field(const bson_t* document, const char* key) {
  bson_iter_t it;
  if (!bson_iter_init_find(&it, document, key) || !BSON_ITER_HOLDS_UTF8(&it)) return {};
  std::uint32_t length = 0;
  const char* text = bson_iter_utf8(&it, &length);
  return std::string(text, length);
}

/// The reply one bulk write over every segment would have had (positions in the whole
/// bulk write), for the raw_reply() of the exception; with the error labels of the
/// failure that decided the exception.
Document merged_reply(const BulkOutcome& outcome, const std::vector<Document>& concern_errors,
                      const Document& labels) {
  Document reply;
  bson_t* r = reply.get_mutable();
  append_int64(r, "nInserted", outcome.counts.inserted);
  append_int64(r, "nMatched", outcome.counts.matched);
  append_int64(r, "nModified", outcome.counts.modified);
  append_int64(r, "nRemoved", outcome.counts.deleted);
  append_int64(r, "nUpserted", outcome.counts.upserted);
  std::vector<Document> upserted;
  for (const auto& [index, holder] : outcome.counts.upserted_ids) {
    Document entry;
    append_int64(entry.get_mutable(), "index", static_cast<std::int64_t>(index));
    bson_concat(entry.get_mutable(), holder.get());
    upserted.push_back(std::move(entry));
  }
  append_documents(r, "upserted", upserted);
  std::vector<Document> write_errors;
  for (const WriteFailure& failure : outcome.write_errors) write_errors.push_back(failure.details);
  append_documents(r, "writeErrors", write_errors);
  if (!concern_errors.empty()) append_documents(r, "writeConcernErrors", concern_errors);
  bson_concat(r, labels.get());
  return reply;
}

}  // namespace

BulkOutcome CollectionCore::bulk_write(SessionState* session, std::vector<BulkOperation> operations,
                                       const InsertSpec& spec, const char* operation) const {
  const std::size_t count = operations.size();
  BulkOutcome outcome;
  outcome.statuses.assign(count, WriteStatus::not_attempted);
  outcome.insert_ids.resize(count);
  for (std::size_t i = 0; i < count; ++i) {
    if (operations[i].kind != BulkOperation::Kind::insert_one) continue;
    ensure_id(operations[i].first);  // odm's id, so that it can report it
    outcome.insert_ids[i] = id_field(operations[i].first.get());
  }
  const std::string what = operation + namespace_of(*this);

  // Nothing is sent until every write is in a libmongoc bulk operation.
  std::optional<Target> target;
  std::vector<Segment> segments;
  try {
    Document opts;
    append_bool(opts.get_mutable(), "ordered", spec.ordered);
    target.emplace(*this, session, spec, opts.get_mutable(), Sends::write);
    segments = make_segments(target->collection.get(), operations, batch_limits(target->client.get()), opts, what);
  } catch (const Error&) {
    outcome.error = std::current_exception();
    return outcome;
  }

  bool failed = false;
  bson_error_t decisive{};  // the error the exception reports (when failed)
  Document labels;                       // `{errorLabels: [...]}` of its reply
  std::vector<Document> concern_errors;
  for (Segment& segment : segments) {
    OutDocument reply;
    bson_error_t error;
    const bool ok = mongoc_bulk_operation_execute(segment.bulk.get(), reply.get(), &error) != 0;
    const bson_t* r = reply.get();
    const std::int64_t inserted = int64_field(r, "nInserted");
    for_each_entry(r, "upserted", [&](const bson_t* entry) {
      std::size_t index = 0;
      const Document moved = shifted(entry, segment.begin, &index);
      outcome.counts.upserted_ids.emplace_back(index, id_field(moved.get()));
    });
    std::optional<std::size_t> first_refused;
    for_each_entry(r, "writeErrors", [&](const bson_t* entry) {
      std::size_t index = segment.begin;
      Document details = shifted(entry, segment.begin, &index);
      if (index < segment.begin || index >= segment.end) return;  // not one of ours: ignore
      outcome.statuses[index] = WriteStatus::refused;
      if (!first_refused || index < *first_refused) first_refused = index;
      outcome.write_errors.push_back(WriteFailure{index, static_cast<std::int32_t>(int64_field(entry, "code")),
                                                  string_field(entry, "errmsg"), std::move(details)});
    });
    bool concern_failed = false;
    for_each_entry(r, "writeConcernErrors", [&](const bson_t* entry) {
      concern_errors.push_back(Document::copy_of(entry));
      concern_failed = true;
    });

    // What became of the writes the server did not refuse.
    auto mark = [&](std::size_t from, std::size_t to, WriteStatus status) {
      for (std::size_t i = from; i < to; ++i)
        if (outcome.statuses[i] != WriteStatus::refused) outcome.statuses[i] = status;
    };
    // Counted only when the reply is consistent: a count of inserts that contradicts the
    // reply's own write errors (mongo-java-server counts refused inserts) is a server fault.
    const auto add_counts = [&] {
      outcome.counts.inserted += inserted;
      outcome.counts.matched += int64_field(r, "nMatched");
      outcome.counts.modified += int64_field(r, "nModified");
      outcome.counts.deleted += int64_field(r, "nRemoved");
      outcome.counts.upserted += int64_field(r, "nUpserted");
    };
    // An unacknowledged write (w: 0) has no counts to check.
    const bool inserts =
        command_of(operations[segment.begin].kind) == CommandKind::insert && bson_has_field(r, "nInserted");
    const auto contradicted = [&](std::int64_t expected) {
      mark(segment.begin, segment.end, WriteStatus::unconfirmed);
      const std::size_t refused = static_cast<std::size_t>(
          std::count(outcome.statuses.begin() + static_cast<std::ptrdiff_t>(segment.begin),
                     outcome.statuses.begin() + static_cast<std::ptrdiff_t>(segment.end), WriteStatus::refused));
      failed = true;
      try {
        throw ProtocolError(what + ": the server's reply contradicts itself: of the " +
                                std::to_string(segment.end - segment.begin) + " inserts of one command it refuses " +
                                std::to_string(refused) + " and counts " + std::to_string(inserted) +
                                " inserted, where its write errors leave " + std::to_string(expected) +
                                " (a server fault); that command's writes are unconfirmed and not counted, and "
                                "nothing after it was sent: read back what is stored before retrying",
                            Document::copy_of(r));
      } catch (const Error&) {
        outcome.error = std::current_exception();
      }
    };
    if (ok) {
      const auto sent = static_cast<std::int64_t>(segment.end - segment.begin);
      if (inserts && inserted != sent) {
        contradicted(sent);
        break;
      }
      add_counts();
      mark(segment.begin, segment.end, WriteStatus::applied);
      continue;
    }
    const bool connection_lost = error.domain == MONGOC_ERROR_STREAM || error.domain == MONGOC_ERROR_SERVER_SELECTION;
    const bool writes_reported = !connection_lost && (first_refused || concern_failed);
    if (error.domain == MONGOC_ERROR_STREAM) {
      mark(segment.begin, segment.end, WriteStatus::unconfirmed);  // sent; the reply was lost
    } else if (writes_reported) {
      // The server answered for every write: an ordered one stops at its first refusal.
      const bool stopped = spec.ordered && first_refused;
      mark(segment.begin, stopped ? *first_refused : segment.end, WriteStatus::applied);
      const auto applied = std::count(outcome.statuses.begin() + static_cast<std::ptrdiff_t>(segment.begin),
                                      outcome.statuses.begin() + static_cast<std::ptrdiff_t>(segment.end),
                                      WriteStatus::applied);
      if (inserts && applied != inserted) {
        contradicted(applied);
        break;
      }
    } else if (error.domain != MONGOC_ERROR_SERVER_SELECTION) {
      // A command error: the server did not say which writes it applied.
      mark(segment.begin, segment.end, WriteStatus::unconfirmed);
    }
    add_counts();
    if (!failed || connection_lost) {
      failed = true;
      decisive = error;
      labels = Document();
      bson_iter_t it;
      if (bson_iter_init_find(&it, r, "errorLabels")) bson_append_iter(labels.get_mutable(), "errorLabels", -1, &it);
    }
    // A lost connection ends every bulk write; a refusal or a command error ends an ordered
    // one; a write concern error alone ends none (the writes were applied).
    if (connection_lost || (spec.ordered && !(writes_reported && !first_refused))) break;
  }
  if (failed && !outcome.error) {
    const Document reply = merged_reply(outcome, concern_errors, labels);
    try {
      throw_error(decisive, reply.get(), what);
    } catch (const Error&) {
      outcome.error = std::current_exception();
    }
  }
  return outcome;
}

bool namespace_not_found(std::int32_t code, std::string_view message) noexcept {
  if (code == 26) return true;  // NamespaceNotFound
  // Servers before 3.2 (and some stand-ins) send only the message, which libmongoc then
  // reports with its own code for a reply without one.
  return message.starts_with("ns not found") || message.starts_with("ns does not exist");
}

void CollectionCore::drop(SessionState* session) const {
  Document opts;
  Target target(*this, session, CommonSpec{}, opts.get_mutable(), Sends::write);
  bson_error_t error;
  if (!mongoc_collection_drop_with_opts(target.collection.get(), opts.get(), &error)) {
    // Already gone, in whichever form the server says it (7.0+ replies ok).
    if (error.domain == MONGOC_ERROR_SERVER && namespace_not_found(static_cast<std::int32_t>(error.code), error.message))
      return;
    throw_error(error, nullptr, "drop " + namespace_of(*this));
  }
}

}  // namespace odm::detail

namespace odm {
SkippedDocument::SkippedDocument(Document id, DecodeError error) : id(std::move(id)), error(std::move(error)) {}
ODM_DEFINE_SPECIAL_MEMBERS(SkippedDocument);
}  // namespace odm
