// CollectionCore and CursorCore: every collection-level libmongoc call.

#include "state.hpp"

#include <odm/bson/containers.hpp>
#include <odm/driver/errors.hpp>

#include <string>

namespace odm::detail {
namespace {

void append_int64(bson_t* document, const char* key, std::int64_t value) {
  bson_append_int64(document, key, -1, value);
}

void append_document(bson_t* document, const char* key, const Document& value) {
  bson_append_document(document, key, -1, value.get());
}

void append_bool(bson_t* document, const char* key, bool value) { bson_append_bool(document, key, -1, value); }

/// `{_id: <the _id of document>}`, or `{}` when it has none.
Document id_of(const bson_t* document) {
  Document holder;
  bson_iter_t it;
  if (bson_iter_init_find(&it, document, "_id")) bson_append_iter(holder.get_mutable(), "_id", 3, &it);
  return holder;
}

/// `document`, or a copy with a new ObjectId `_id` in front when it has none.
Document with_id(const Document& document) {
  if (bson_has_field(document.get(), "_id")) return document;
  Document copy;
  bson_oid_t oid;
  bson_oid_init(&oid, nullptr);
  bson_append_oid(copy.get_mutable(), "_id", 3, &oid);
  bson_concat(copy.get_mutable(), document.get());
  return copy;
}

/// The upsertedId of an update reply as `{_id: value}`.
std::optional<Document> upserted_id(const bson_t* reply) {
  bson_iter_t it;
  if (!bson_iter_init_find(&it, reply, "upsertedId")) return std::nullopt;
  Document holder;
  bson_append_iter(holder.get_mutable(), "_id", 3, &it);
  return holder;
}

struct BsonFreer {
  void operator()(void* memory) const noexcept { bson_free(memory); }
};

const std::string& namespace_of(const CollectionCore& core) { return core.names()->full; }

/// The collection an operation works on, with the client it borrowed.
struct Target {
  Target(const CollectionCore& core, SessionState* session)
      : client(core.client(), session),
        collection(mongoc_client_get_collection(client.get(), core.database_name().c_str(), core.name().c_str())) {}

  OperationClient client;
  CollectionHandle collection;
};

}  // namespace

Document make_pipeline(const std::vector<Document>& stages) {
  Document pipeline;
  bson_t array;
  bson_append_array_begin(pipeline.get_mutable(), "pipeline", 8, &array);
  for (std::size_t i = 0; i < stages.size(); ++i) {
    const std::string key = std::to_string(i);
    bson_append_document(&array, key.c_str(), static_cast<int>(key.size()), stages[i].get());
  }
  bson_append_array_end(pipeline.get_mutable(), &array);
  return pipeline;
}

// ---- cursors ---------------------------------------------------------------------

CursorCore::CursorCore(std::unique_ptr<CursorState> state) noexcept : state_(std::move(state)) {}
CursorCore::CursorCore(CursorCore&&) noexcept = default;
CursorCore& CursorCore::operator=(CursorCore&&) noexcept = default;
CursorCore::~CursorCore() = default;

DecodeError CursorCore::decode_error(const DecodeError& error, const bson_t* document) const {
  std::string context = " (document ";
  const Document id = id_of(document);
  context += id.empty() ? std::string("without _id") : id.to_json();
  if (state_) context += " from " + state_->source();
  context += ")";
  DecodeError located(error.reason() + context);
  located.prepend_path_of(error);
  return located;
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
    state_.reset();
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

CollectionCore::CollectionCore(std::shared_ptr<ClientState> client, std::string database, std::string name)
    : client_(std::move(client)) {
  std::string full = database + "." + name;
  names_ = std::make_shared<const CollectionNames>(CollectionNames{std::move(database), std::move(name), std::move(full)});
}

namespace {
/// Sends `document`, which has an _id.
void insert_complete(const CollectionCore& core, SessionState* session, const bson_t* document) {
  Target target(core, session);
  Document opts;  // free unless the session appends to it
  if (session != nullptr) target.client.append_session(opts.get_mutable());
  OutDocument reply;
  bson_error_t error;
  if (!mongoc_collection_insert_one(target.collection.get(), document, opts.get(), reply.get(), &error))
    throw_error(error, reply.get(), "insert into " + namespace_of(core));
}
}  // namespace

Document CollectionCore::insert_one(SessionState* session, const Document& document) const {
  if (bson_has_field(document.get(), "_id")) {  // no copy of a document that has its _id
    insert_complete(*this, session, document.get());
    return id_of(document.get());
  }
  const Document complete = with_id(document);
  insert_complete(*this, session, complete.get());
  return id_of(complete.get());
}

void CollectionCore::insert_one_with_id(SessionState* session, const Document& document) const {
  insert_complete(*this, session, document.get());
}

std::vector<Document> CollectionCore::insert_many(SessionState* session, const std::vector<Document>& documents,
                                                  const WriteManyOptions& options) const {
  Target target(*this, session);
  std::vector<Document> complete;
  complete.reserve(documents.size());
  for (const Document& document : documents) complete.push_back(with_id(document));
  // libmongoc wants `const bson_t**`. (A std::vector<const bson_t*> would do, but g++
  // warns that it drops bson_t's alignment attribute from the template argument.)
  std::unique_ptr<void, BsonFreer> storage(bson_malloc(complete.size() * sizeof(const bson_t*)));
  auto** pointers = static_cast<const bson_t**>(storage.get());
  for (std::size_t i = 0; i < complete.size(); ++i) pointers[i] = complete[i].get();
  Document opts;
  append_bool(opts.get_mutable(), "ordered", options.ordered());
  target.client.append_session(opts.get_mutable());
  OutDocument reply;
  bson_error_t error;
  if (!mongoc_collection_insert_many(target.collection.get(), pointers, complete.size(), opts.get(), reply.get(),
                                     &error))
    throw_error(error, reply.get(), "insert into " + namespace_of(*this));
  std::vector<Document> ids;
  ids.reserve(complete.size());
  for (const Document& document : complete) ids.push_back(id_of(document.get()));
  return ids;
}

CursorCore CollectionCore::find(SessionState* session, const Document& filter, const FindOptions& options) const {
  Target target(*this, session);
  Document opts;
  bson_t* o = opts.get_mutable();
  if (!options.sort().empty()) append_document(o, "sort", options.sort());
  if (!options.projection().empty()) append_document(o, "projection", options.projection());
  if (options.skip()) append_int64(o, "skip", *options.skip());
  if (options.limit()) append_int64(o, "limit", *options.limit());
  if (options.batch_size()) bson_append_int32(o, "batchSize", -1, *options.batch_size());
  if (options.max_time()) append_int64(o, "maxTimeMS", options.max_time()->count());
  target.client.append_session(o);
  mongoc_cursor_t* cursor = mongoc_collection_find_with_opts(target.collection.get(), filter.get(), opts.get(), nullptr);
  return make_cursor("find on ", names_, client_, target, cursor);
}

CursorCore CollectionCore::aggregate(SessionState* session, const Document& pipeline,
                                     const AggregateOptions& options) const {
  Target target(*this, session);
  Document opts;
  bson_t* o = opts.get_mutable();
  if (options.batch_size()) bson_append_int32(o, "batchSize", -1, *options.batch_size());
  if (options.allows_disk_use()) append_bool(o, "allowDiskUse", *options.allows_disk_use());
  target.client.append_session(o);
  mongoc_cursor_t* cursor =
      mongoc_collection_aggregate(target.collection.get(), MONGOC_QUERY_NONE, pipeline.get(), opts.get(), nullptr);
  return make_cursor("aggregate on ", names_, client_, target, cursor);
}

std::int64_t CollectionCore::count(SessionState* session, const Document& filter, const CountOptions& options) const {
  Target target(*this, session);
  Document opts;
  if (options.skip()) append_int64(opts.get_mutable(), "skip", *options.skip());
  if (options.limit()) append_int64(opts.get_mutable(), "limit", *options.limit());
  target.client.append_session(opts.get_mutable());
  OutDocument reply;
  bson_error_t error;
  const std::int64_t count =
      mongoc_collection_count_documents(target.collection.get(), filter.get(), opts.get(), nullptr, reply.get(), &error);
  if (count < 0) throw_error(error, reply.get(), "count in " + namespace_of(*this));
  return count;
}

WriteOutcome CollectionCore::update(SessionState* session, UpdateKind kind, const Document& filter,
                                    const Document& update, const UpdateOptions& options) const {
  Target target(*this, session);
  Document opts;
  if (options.upserts()) append_bool(opts.get_mutable(), "upsert", true);
  if (!options.array_filters().empty()) {
    bson_t filters;
    detail::check_append(bson_append_array_begin(opts.get_mutable(), "arrayFilters", 12, &filters));
    std::uint32_t index = 0;
    for (const Document& filter : options.array_filters()) {
      const detail::ArrayKey key(index++);
      detail::check_append(bson_append_document(&filters, key.view().data(), detail::key_length(key.view()), filter.get()));
    }
    detail::check_append(bson_append_array_end(opts.get_mutable(), &filters));
  }
  target.client.append_session(opts.get_mutable());
  OutDocument reply;
  bson_error_t error;
  mongoc_collection_t* collection = target.collection.get();
  bool ok = false;
  switch (kind) {
    case UpdateKind::one:
      ok = mongoc_collection_update_one(collection, filter.get(), update.get(), opts.get(), reply.get(), &error);
      break;
    case UpdateKind::many:
      ok = mongoc_collection_update_many(collection, filter.get(), update.get(), opts.get(), reply.get(), &error);
      break;
    case UpdateKind::replace:
      ok = mongoc_collection_replace_one(collection, filter.get(), update.get(), opts.get(), reply.get(), &error);
      break;
  }
  if (!ok) throw_error(error, reply.get(), (kind == UpdateKind::replace ? "replace in " : "update in ") + namespace_of(*this));
  WriteOutcome outcome;
  outcome.matched = int64_field(reply.get(), "matchedCount");
  outcome.modified = int64_field(reply.get(), "modifiedCount");
  outcome.upserted = int64_field(reply.get(), "upsertedCount");
  if (auto id = upserted_id(reply.get())) outcome.upserted_ids.emplace_back(0, std::move(*id));
  return outcome;
}

WriteOutcome CollectionCore::remove(SessionState* session, bool many, const Document& filter) const {
  Target target(*this, session);
  Document opts;
  target.client.append_session(opts.get_mutable());
  OutDocument reply;
  bson_error_t error;
  const bool ok = many ? mongoc_collection_delete_many(target.collection.get(), filter.get(), opts.get(), reply.get(), &error)
                       : mongoc_collection_delete_one(target.collection.get(), filter.get(), opts.get(), reply.get(), &error);
  if (!ok) throw_error(error, reply.get(), "delete from " + namespace_of(*this));
  WriteOutcome outcome;
  outcome.deleted = int64_field(reply.get(), "deletedCount");
  return outcome;
}

std::optional<Document> CollectionCore::find_one_and_modify(SessionState* session, const Document& filter,
                                                            const Document* update,
                                                            const FindOneAndModifyOptions& options) const {
  Target target(*this, session);
  FindAndModifyHandle opts(mongoc_find_and_modify_opts_new());
  int flags = MONGOC_FIND_AND_MODIFY_NONE;
  if (update == nullptr) {
    flags |= MONGOC_FIND_AND_MODIFY_REMOVE;
  } else {
    mongoc_find_and_modify_opts_set_update(opts.get(), update->get());
    if (options.upserts()) flags |= MONGOC_FIND_AND_MODIFY_UPSERT;
    if (options.return_document() == ReturnDocument::after) flags |= MONGOC_FIND_AND_MODIFY_RETURN_NEW;
  }
  mongoc_find_and_modify_opts_set_flags(opts.get(), static_cast<mongoc_find_and_modify_flags_t>(flags));
  if (!options.sort().empty()) mongoc_find_and_modify_opts_set_sort(opts.get(), options.sort().get());
  if (!options.projection().empty()) mongoc_find_and_modify_opts_set_fields(opts.get(), options.projection().get());
  Document extra;
  target.client.append_session(extra.get_mutable());
  if (!extra.empty()) mongoc_find_and_modify_opts_append(opts.get(), extra.get());

  OutDocument reply;
  bson_error_t error;
  if (!mongoc_collection_find_and_modify_with_opts(target.collection.get(), filter.get(), opts.get(), reply.get(),
                                                   &error))
    throw_error(error, reply.get(), "findAndModify in " + namespace_of(*this));
  bson_iter_t it;
  if (!bson_iter_init_find(&it, reply.get(), "value") || !BSON_ITER_HOLDS_DOCUMENT(&it)) return std::nullopt;
  std::uint32_t length = 0;
  const std::uint8_t* data = nullptr;
  bson_iter_document(&it, &length, &data);
  return Document::from_bytes({data, length});
}

WriteOutcome CollectionCore::bulk_write(SessionState* session, const std::vector<BulkOperation>& operations,
                                        const WriteManyOptions& options) const {
  Target target(*this, session);
  Document opts;
  append_bool(opts.get_mutable(), "ordered", options.ordered());
  target.client.append_session(opts.get_mutable());
  BulkHandle bulk(mongoc_collection_create_bulk_operation_with_opts(target.collection.get(), opts.get()));
  Document upsert_opts;
  append_bool(upsert_opts.get_mutable(), "upsert", true);
  bson_error_t error;
  for (const BulkOperation& op : operations) {
    const bson_t* update_opts = op.upsert ? upsert_opts.get() : nullptr;
    bool ok = false;
    switch (op.kind) {
      case BulkOperation::Kind::insert_one:
        ok = mongoc_bulk_operation_insert_with_opts(bulk.get(), op.first.get(), nullptr, &error);
        break;
      case BulkOperation::Kind::update_one:
        ok = mongoc_bulk_operation_update_one_with_opts(bulk.get(), op.first.get(), op.second.get(), update_opts, &error);
        break;
      case BulkOperation::Kind::update_many:
        ok = mongoc_bulk_operation_update_many_with_opts(bulk.get(), op.first.get(), op.second.get(), update_opts,
                                                         &error);
        break;
      case BulkOperation::Kind::replace_one:
        ok = mongoc_bulk_operation_replace_one_with_opts(bulk.get(), op.first.get(), op.second.get(), update_opts,
                                                         &error);
        break;
      case BulkOperation::Kind::delete_one:
        ok = mongoc_bulk_operation_remove_one_with_opts(bulk.get(), op.first.get(), nullptr, &error);
        break;
      case BulkOperation::Kind::delete_many:
        ok = mongoc_bulk_operation_remove_many_with_opts(bulk.get(), op.first.get(), nullptr, &error);
        break;
    }
    if (!ok) throw_error(error, nullptr, "bulk write to " + namespace_of(*this));
  }
  OutDocument reply;
  if (mongoc_bulk_operation_execute(bulk.get(), reply.get(), &error) == 0)
    throw_error(error, reply.get(), "bulk write to " + namespace_of(*this));

  WriteOutcome outcome;
  outcome.inserted = int64_field(reply.get(), "nInserted");
  outcome.matched = int64_field(reply.get(), "nMatched");
  outcome.modified = int64_field(reply.get(), "nModified");
  outcome.deleted = int64_field(reply.get(), "nRemoved");
  outcome.upserted = int64_field(reply.get(), "nUpserted");
  bson_iter_t it;
  bson_iter_t entries;
  if (bson_iter_init_find(&it, reply.get(), "upserted") && BSON_ITER_HOLDS_ARRAY(&it) &&
      bson_iter_recurse(&it, &entries)) {
    while (bson_iter_next(&entries)) {
      bson_iter_t field;
      if (!BSON_ITER_HOLDS_DOCUMENT(&entries) || !bson_iter_recurse(&entries, &field)) continue;
      std::size_t index = 0;
      Document holder;
      while (bson_iter_next(&field)) {
        if (std::string_view(bson_iter_key(&field)) == "index")
          index = static_cast<std::size_t>(bson_iter_as_int64(&field));
        else if (std::string_view(bson_iter_key(&field)) == "_id")
          bson_append_iter(holder.get_mutable(), "_id", 3, &field);
      }
      outcome.upserted_ids.emplace_back(index, std::move(holder));
    }
  }
  return outcome;
}

void CollectionCore::drop(SessionState* session) const {
  Target target(*this, session);
  Document opts;
  target.client.append_session(opts.get_mutable());
  bson_error_t error;
  if (!mongoc_collection_drop_with_opts(target.collection.get(), opts.get(), &error)) {
    if (error.domain == MONGOC_ERROR_SERVER && error.code == 26) return;  // NamespaceNotFound: already gone
    throw_error(error, nullptr, "drop " + namespace_of(*this));
  }
}

}  // namespace odm::detail
