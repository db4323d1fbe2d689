#pragma once
// odm::Collection<T>: the typed collection of a model.
//
//   auto books = client.database("library").collection<Book>();   // "book", or the model's name
//   books.insert_one(book);                                         // assigns book.id if it is an unset ObjectId
//   std::optional<Book> found = books.find_by_id(book.id);
//   for (const BookSummary& s : books.find<BookSummary>(filter))    // fetches only BookSummary's fields
//     ...
//   auto result = books.update_one(has_copy, checkout);             // result.matched, result.modified
//
// Every operation has an overload taking an odm::Session& first, which runs it in that
// session (and in its transaction, if one is open).
//
// A Collection is a cheap handle (a shared pointer to the client and two names): copy it
// freely, and use one from many threads at once; each operation borrows its own pooled
// connection.
//
// Filters, updates and sorts are the typed holders of odm/query/expression.hpp; their
// raw() factories are the escape hatch for what the typed builders do not cover, and
// aggregate() takes a raw pipeline.

#include <odm/bson/convert.hpp>
#include <odm/bson/document.hpp>
#include <odm/bson/stored_path.hpp>
#include <odm/bson/writer.hpp>
#include <odm/driver/checked_encoding.hpp>
#include <odm/driver/core.hpp>
#include <odm/driver/cursor.hpp>
#include <odm/driver/errors.hpp>
#include <odm/driver/options.hpp>
#include <odm/driver/results.hpp>
#include <odm/driver/session.hpp>
#include <odm/driver/upgrade.hpp>
#include <odm/driver/timestamps.hpp>
#include <odm/driver/versioning.hpp>
#include <odm/fields/object_id.hpp>
#include <odm/model/collection_name.hpp>
#include <odm/model/id.hpp>
#include <odm/model/model.hpp>
#include <odm/query/expression.hpp>
#include <odm/query/projection.hpp>

#include <algorithm>
#include <concepts>
#include <cstddef>
#include <cstdint>
#include <exception>
#include <optional>
#include <ranges>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

namespace odm {

namespace detail {

/// A typed aggregation pipeline (odm::Pipeline, a layer above this one): its input and
/// output types, and its stages as a BSON array.
template <class P>
concept typed_pipeline = requires(const P& pipeline) {
  typename P::input_type;
  typename P::output_type;
  pipeline.bson_view().get();  // the stages as a const bson_t*, sent without a copy
};

/// Reads the value of `{_id: value}`.
template <class Id>
Id decode_id(const Document& holder) {
  bson_iter_t it;
  if (!bson_iter_init_find(&it, holder.get(), "_id")) throw DecodeError("_id: missing from the server's reply");
  Id id{};
  at_path("_id", [&] { codec<Id>::decode(it, id); });
  return id;
}

/// `decode(returned)`, where `returned` is what `operation` ("insert into ", "update in ",
/// ...) returned after its write was applied: a DecodeError becomes a DecodeAfterWriteError.
template <class Decode>
auto decode_after_write(const Document& returned, const CollectionCore& core, const char* operation, Decode decode) {
  try {
    return decode(returned);
  } catch (const DecodeError& error) {
    throw_decode_after_write(error, operation + core.names()->full, returned);
  }
}

/// The id in `{_id: value}` that a write returned.
template <class Id>
Id decode_written_id(const Document& holder, const CollectionCore& core, const char* operation) {
  return decode_after_write(holder, core, operation, decode_id<Id>);
}

/// The typed result of a bulk write (or insert_many()); throws its error, if any, as a
/// PartialWrite<T> that says what was written.
template <class T>
BulkWriteResult<typename collection_id<T>::type> finish_bulk(BulkOutcome outcome, const CollectionCore& core,
                                                             const char* operation) {
  using Id = typename collection_id<T>::type;
  WrittenSoFar<Id> written;
  BulkWriteResult<Id>& result = written.result;
  static_cast<WriteCounts&>(result) = outcome.counts;
  written.ids.resize(outcome.insert_ids.size());
  for (std::size_t i = 0; i < outcome.insert_ids.size(); ++i) {
    if (outcome.insert_ids[i].empty()) continue;
    written.ids[i] = decode_written_id<Id>(outcome.insert_ids[i], core, operation);
    if (outcome.statuses[i] == WriteStatus::applied) result.inserted_ids.push_back(*written.ids[i]);
  }
  // An upserted id that does not fit the model is a DecodeAfterWriteError, but thrown as a
  // PartialWrite like any other failure, so that the other writes stay accounted for (the
  // error that stopped the writes, if any, comes first).
  std::exception_ptr error = outcome.error;
  for (auto& [index, holder] : outcome.counts.upserted_ids) {
    try {
      result.upserted_ids.emplace_back(index, decode_written_id<Id>(holder, core, operation));
    } catch (const DecodeAfterWriteError&) {
      if (!error) error = std::current_exception();
    }
  }
  if (!error) return std::move(written.result);
  written.write_errors = std::move(outcome.write_errors);
  written.statuses = std::move(outcome.statuses);
  throw_partial<T>(error, std::move(written));
}

/// `{<field>: value}`, the value as its codec stores it.
template <class Value>
Document equals_filter(std::string_view field, const Value& value) {
  Document filter;
  codec<Value>::encode(filter.get_mutable(), field, value);
  return filter;
}

/// `{_id: id}`.
template <class Id>
Document id_filter(const Id& id) {
  return equals_filter("_id", id);
}

/// The names T's upgrade steps retire (see RetiredNames), but for a path T stores itself
/// (a later step may reuse a retired name): `home.road` is retired while T's `home` has
/// no `road`, though T stores `home`.
template <class T>
const RetiredNames& retired_names() {
  static const RetiredNames names = [] {
    RetiredNames out;
    if constexpr (has_schema_versions<T>) {
      metadata_t<T>::schema.for_each_retired_name([&](std::string_view name) {
        if (!has_stored_path<T>(name)) out.push_back(name);
      });
    }
    return out;
  }();
  return names;
}

/// What a replace of T sends. A model that keeps unknown fields (odm::Extra) sends the
/// whole document: its unknown fields are in it. Any other model sends an update that sets
/// every field of `replacement` and unsets every declared field it leaves out, so that the
/// stored fields T does not know (written by a newer version of T, or another program)
/// survive: replacing never erases what the model cannot see (README, "Fields a model does
/// not know"). `_id` is set like the other fields: MongoDB accepts a `$set` of `_id` to the
/// value it has, refuses one that would change it (ImmutableField, as it refuses such a
/// replacement), and an upsert that inserts takes it. No operator is ever empty (MongoDB
/// before 5.0 refuses `{$set: {}}`).
/// For a model with a version member, the stored version is incremented instead of set
/// to the replacement's, unless `keep_version` (odm/driver/versioning.hpp): a model that
/// keeps unknown fields is then refused, its replacement cannot increment a stored value.
/// A model with timestamps has its updated_at set to now, and its created_at left as
/// stored (odm/driver/timestamps.hpp), unless `keep_timestamps`: then both are written as
/// the replacement holds them.
template <class T>
Document replacement_of(const T& replacement, bool keep_version, bool keep_timestamps, const char* operation) {
  [[maybe_unused]] const StampTime now = stamp_now();
  Document encoded = [&] {
    if constexpr (has_timestamps<T>) {
      if (!keep_timestamps) {
        T stamped = replacement;
        stamp_updated(stamped, now);
        // A whole document (odm::Extra) writes its created_at: a fresh object's is now.
        if constexpr (keeps_unknown_fields<T>) stamp_created_if_unset(stamped, now);
        return to_bson(stamped);
      }
    }
    return to_bson(replacement);
  }();
  // The stored created_at stays (set on insert below, for an upsert that inserts).
  constexpr std::string_view created_field = stamp_field<T, stamps<T>::created>();  // empty for none
  [[maybe_unused]] const bool keeps_created = stamps<T>::has_created && !keep_timestamps;
  if constexpr (!keeps_unknown_fields<T> && stamps<T>::has_created)
    if (keeps_created) encoded = without_field(encoded.get(), created_field);
  if constexpr (is_versioned<T>) {
    if (!keep_version) {
      if constexpr (keeps_unknown_fields<T>)
        throw UsageError(std::string(operation) +
                         ": a model with both odm::Extra and a version member is replaced by a whole document, which "
                         "cannot increment the stored version; save it with odm::Tracked or a typed update, or pass "
                         "keep_version() to write the replacement's version as it is");
      encoded = without_field(encoded.get(), version_field<T>);
    }
  }
  if constexpr (keeps_unknown_fields<T>) {
    // A retired name kept as an unknown field (a program wrote it to a current document)
    // is not written back.
    for (const std::string_view name : retired_names<T>()) {
      bson_iter_t at;
      if (name.find('.') == std::string_view::npos &&
          bson_iter_init_find_w_len(&at, encoded.get(), name.data(), static_cast<int>(name.size())))
        encoded = without_field(encoded.get(), name);
    }
    return encoded;
  } else {
    Document update;
    bson_t* out = update.get_mutable();
    if (!encoded.empty()) check_append(bson_append_document(out, "$set", 4, encoded.get()));
    // A declared field the encoder left out (a codec may write nothing) is unset.
    std::optional<ChildWriter> unset;
    for (std::string_view name : stored_names<T>) {
      bson_iter_t stored;
      if (name == "_id" || bson_iter_init_find_w_len(&stored, encoded.get(), name.data(), key_length(name)))
        continue;
      if constexpr (is_versioned<T>)
        if (!keep_version && name == version_field<T>) continue;  // incremented below
      if (keeps_created && name == created_field) continue;  // kept as stored
      if (!unset) unset.emplace(out, "$unset");
      check_append(bson_append_int32(unset->get(), name.data(), key_length(name), 1));
    }
    if (unset) unset->close();
    if (!retired_names<T>().empty()) update = with_retired_unset(update.get(), retired_names<T>());
    if constexpr (is_versioned<T>)
      if (!keep_version) update = with_version_moved(update.get(), version_field<T>);
    if (keeps_created) update = with_stamps(update.get(), "", created_field, now);
    if (update.empty())
      throw UsageError("a replace of a model that stores no field has nothing to send (MongoDB before 5.0 "
                       "refuses an empty $set); use insert_one or update_one");
    return update;
  }
}

/// How a replace of T is sent: see replacement_of.
template <class T>
inline constexpr UpdateKind replace_kind = keeps_unknown_fields<T> ? UpdateKind::replace : UpdateKind::one;

/// Whether reading T runs upgrade steps (documents of older schema versions exist for it).
template <class T>
consteval bool has_pending_steps() {
  if constexpr (has_schema_versions<T>) {
    using Schema = std::remove_cvref_t<decltype(metadata_t<T>::schema)>;
    return Schema::oldest < Schema::current;
  } else {
    return false;
  }
}

/// A typed update as sent: renamed members written under both names (update_to_send),
/// the names the model's upgrade steps retire unset (with_retired_unset), an upsert of a
/// tagged model writes its kind's tag on insert, and for a model
/// with schema versions, an upsert that inserts also writes the current
/// version (`$setOnInsert`), or every read would take the new document for the oldest
/// version and run the steps over the current shape. A model's version member is moved
/// (moving_version). `options`: an UpdateSpec or FindAndModifySpec; `operation`: what the
/// user called.
template <class T, class Spec>
Document update_as_sent(const Update<T>& typed, const Filter<T>& filter, const Spec& options, const char* operation) {
  Document update = moving_version<T>(update_to_send(typed, filter, options.upsert), options.keep_version, operation);
  update = stamping<T>(std::move(update), options.upsert, options.keep_timestamps);
  if constexpr (tagged<T>) {
    if (options.upsert) update = with_tag_on_insert(update.get(), tag_of<T>.field, tag_of<T>.value);
  }
  if constexpr (has_schema_versions<T>) {
    if (!retired_names<T>().empty()) update = with_retired_unset(update.get(), retired_names<T>());
    if (options.upsert) return with_version_on_insert(update.get(), metadata_t<T>::schema.current);
  }
  return update;
}

/// The filter a replace of T sends: for a model with schema versions, only documents not
/// newer than its version (a replace by an older release would write its version and
/// defaults over the newer fields: see refuse_newer).
template <class T>
Document replace_filter(Document filter) {
  if constexpr (has_schema_versions<T>)
    return not_newer_within(filter.get(), metadata_t<T>::schema.current);
  else
    return filter;
}

// A typed update names the current shape's fields. A document still at an older schema
// version would be missed by its filter, or take a write the next read's upgrade
// overwrites (the step runs again over the old field). So the older documents the
// update can reach (those with its `_id` condition, else all) are upgraded first, each
// by a guarded rewrite (guarded_rewrite), retried when another writer got there first.
// A raw filter is sent as written: it names stored fields itself.
template <class T>
void upgrade_reachable(CollectionCore& core, SessionState* session, const Filter<T>& filter) {
  if constexpr (has_pending_steps<T>()) {
    const auto& schema = metadata_t<T>::schema;
    const auto& expr = QueryAccess::expression(filter);
    if (expr && expr->kind == FilterNode::Kind::raw) return;
    const Document selection = older_versions_within(filter.bson().get(), schema.current);
    auto old = Access::make<Cursor<Document>>(core.find(session, selection, OptionsAccess::spec(FindOptions<T>())), core);
    for (const Document& found : old) {
      Document stored = found;
      for (int attempt = 0;; ++attempt) {
        try {
          if (schema.version_of(stored.get()) >= schema.current) break;
        } catch (const DecodeError&) {
          break;  // a version the model cannot read: left as it is, reading it says why
        }
        const Document upgraded = schema.upgraded(stored.get());
        (void)from_bson<T>(upgraded);  // must read as the model, else DecodeError and nothing is written
        std::optional<GuardedRewrite> rewrite = guarded_rewrite(stored.get(), upgraded.get());
        if (!rewrite) break;
        rewrite->update = moving_version<T>(std::move(rewrite->update), false, "a typed update's schema upgrade");
        if (core.update(session, UpdateKind::one, rewrite->filter, rewrite->update,
                        OptionsAccess::spec(UpdateOptions<T>()))
                .matched == 1)
          break;
        auto again = Access::make<Cursor<Document>>(
            core.find(session, id_field(stored.get()), OptionsAccess::spec(FindOptions<T>())), core);
        auto next = again.begin();
        if (next == again.end()) break;  // deleted meanwhile
        if (attempt == 9)
          throw Error("upgrading " + id_field(stored.get()).to_json() + " in " + core.database_name() + "." +
                      core.name() + " to schema version " + std::to_string(schema.current) +
                      " before a typed update: other writers changed it 10 times in a row; nothing was written "
                      "(retry the update)");
        stored = *next;
      }
    }
  }
}

/// The first document matching `filter` that is newer than `current`, with its version
/// and the message refuse_newer throws for it (nullopt when there is none).
struct NewerMatch {
  Document document;
  std::int64_t version;
  std::string message;
};
std::optional<NewerMatch> find_newer(const CollectionCore& core, SessionState* session, const Document& filter,
                                     std::int32_t current, const char* operation,
                                     const std::optional<Collation>& collation);

/// Whether an upserting replace with `filter` must first ask for a newer match (see
/// refuse_newer): unless the filter pins `_id` and no collation widens what it matches.
inline bool asks_for_newer_first(const bson_t* filter, const CommonSpec& options) {
  return options.collation.has_value() || !pins_id(filter);
}

/// Throws SchemaVersionError when a document matching `filter` is newer than T's schema
/// version: a replace by an older release matches nothing there (replace_filter), and an
/// upserting one would insert a second, older document beside it. An upserting replace
/// whose filter does not pin `_id` (pins_id: then a duplicate key stops the twin) asks
/// before it writes; a writer that makes a newer match between the two commands is not seen.
template <class T>
void refuse_newer(const CollectionCore& core, SessionState* session, const Document& filter, const char* operation,
                  const std::optional<Collation>& collation) {
  const auto& schema = metadata_t<T>::schema;
  if (auto newer = find_newer(core, session, filter, schema.current, operation, collation))
    schema.refuse(newer->document.get(), newer->version, newer->message);
}

/// Decodes the first document of a find into `into`, if there is one: what
/// Collection::find_one does for every model (a document that does not fit throws its
/// DecodeError, located, as Cursor does).
void find_first(const CollectionCore& core, SessionState* session, const Document& filter, const FindSpec& spec,
                const DecodeInto& into);

}  // namespace detail

template <document_model T>
class Collection;

/// Writes collected and sent together (as few commands as the server allows):
///   books.bulk_write().insert_one(a).update_one(f, u).delete_many(g).execute();
template <document_model T>
class BulkWrite {
 public:
  using id_type = typename detail::collection_id<T>::type;

  /// Inserts `value`, first assigning a new id when its id is an unset ObjectId (a model
  /// without an id member gets one too, in the document only: see the result's inserted_ids).
  BulkWrite& insert_one(T& value) {
    detail::Access::assign_id_if_unset<Collection<T>>(value);
    detail::stamp_inserted(value, detail::stamp_now());
    return push(detail::BulkOperation::Kind::insert_one, to_bson(value));
  }
  BulkWrite& insert_one(const T& value) {
    if constexpr (Collection<T>::writes_into_inserted) {
      T copy = value;
      return insert_one(copy);
    } else {
      return push(detail::BulkOperation::Kind::insert_one, to_bson(value));
    }
  }
  /// The per-write options (upsert, array_filters, hint, collation) travel with the write;
  /// a comment, time limit or write concern belongs to the whole bulk write
  /// (BulkWriteOptions): set here, it throws ConfigurationError.
  /// A typed update of a model with schema versions first upgrades the older documents
  /// its filter can reach, when execute() runs, as Collection::update_one does.
  BulkWrite& update_one(const Filter<T>& filter, const Update<T>& update, const UpdateOptions<T>& options = {}) {
    return push_update(detail::BulkOperation::Kind::update_one, filter, update, options);
  }
  BulkWrite& update_many(const Filter<T>& filter, const Update<T>& update, const UpdateOptions<T>& options = {}) {
    return push_update(detail::BulkOperation::Kind::update_many, filter, update, options);
  }
  /// For a model with schema versions, a document of a newer version is not replaced (nor
  /// counted as matched): a replace by an older release would downgrade it.
  /// Older documents its filter can reach are upgraded first, when execute() runs, as
  /// Collection::replace_one does.
  /// An upserting replace first checks that no document its filter matches is newer, when
  /// execute() runs, and throws SchemaVersionError before anything is sent if one is.
  BulkWrite& replace_one(const Filter<T>& filter, const T& replacement, const ReplaceOptions<T>& options = {}) {
    // Built first: a refused write leaves nothing behind for execute().
    Document document = detail::replacement_of(replacement, detail::OptionsAccess::spec(options).keep_version,
                                               detail::OptionsAccess::spec(options).keep_timestamps,
                                               "a bulk write's replace_one");
    if constexpr (detail::has_pending_steps<T>()) to_upgrade_.push_back(filter);
    Document where = filter.bson();
    if constexpr (has_schema_versions<T>)
      if (const auto& spec = detail::OptionsAccess::spec(options); spec.upsert && detail::asks_for_newer_first(where.get(), spec))
        upserting_replaces_.push_back({where, spec.collation});
    return push(detail::keeps_unknown_fields<T> ? detail::BulkOperation::Kind::replace_one
                                                : detail::BulkOperation::Kind::update_one,
                detail::replace_filter<T>(std::move(where)), std::move(document), statement(options));
  }
  /// A delete's hint and collation travel with the write, as an update's do; its comment,
  /// time limit or write concern belongs to the whole bulk write (set here, it throws
  /// ConfigurationError).
  BulkWrite& delete_one(const Filter<T>& filter, const DeleteOptions<T>& options = {}) {
    return push(detail::BulkOperation::Kind::delete_one, filter.bson(), {}, statement(options));
  }
  BulkWrite& delete_many(const Filter<T>& filter, const DeleteOptions<T>& options = {}) {
    return push(detail::BulkOperation::Kind::delete_many, filter.bson(), {}, statement(options));
  }

  std::size_t size() const noexcept { return operations_.size(); }
  bool empty() const noexcept { return operations_.empty(); }

  /// Sends the writes and empties the bulk write (an empty one sends nothing). A write
  /// the server refused, a lost connection or any other failure throws the matching
  /// odm::Error, which is also an odm::PartialWrite<T> saying what became of each write.
  BulkWriteResult<id_type> execute() { return execute_in(nullptr); }
  BulkWriteResult<id_type> execute(Session& session) { return execute_in(detail::Access::session_state(session)); }

 private:
  friend class Collection<T>;
  BulkWrite(detail::CollectionCore core, BulkWriteOptions<T> options) : core_(std::move(core)), options_(std::move(options)) {}

  template <class Options>
  static Document statement(const Options& options) {
    return detail::statement_options(detail::OptionsAccess::spec(options));
  }

  BulkWrite& push_update(detail::BulkOperation::Kind kind, const Filter<T>& filter, const Update<T>& update,
                         const UpdateOptions<T>& options) {
    // Built first: a refused write leaves nothing behind for execute().
    Document document = detail::update_as_sent(update, filter, detail::OptionsAccess::spec(options),
                                               kind == detail::BulkOperation::Kind::update_one
                                                   ? "a bulk write's update_one"
                                                   : "a bulk write's update_many");
    if constexpr (detail::has_pending_steps<T>()) to_upgrade_.push_back(filter);
    return push(kind, filter.bson(), std::move(document), statement(options));
  }

  BulkWrite& push(detail::BulkOperation::Kind kind, Document first, Document second = {}, Document options = {}) {
    operations_.push_back(detail::BulkOperation{kind, std::move(first), std::move(second), std::move(options)});
    return *this;
  }

  BulkWriteResult<id_type> execute_in(detail::SessionState* session) {
    if (operations_.empty()) return {};
    std::vector<detail::BulkOperation> operations = std::exchange(operations_, {});
    if constexpr (has_schema_versions<T>)
      for (const UpsertingReplace& replace : std::exchange(upserting_replaces_, {}))
        detail::refuse_newer<T>(core_, session, replace.filter, "a bulk write's upserting replace_one", replace.collation);
    for (const Filter<T>& filter : std::exchange(to_upgrade_, {})) detail::upgrade_reachable<T>(core_, session, filter);
    return detail::finish_bulk<T>(core_.bulk_write(session, std::move(operations),
                                                   detail::OptionsAccess::spec(options_), "bulk write to "),
                                  core_, "bulk write to ");
  }

  detail::CollectionCore core_;
  BulkWriteOptions<T> options_;
  std::vector<detail::BulkOperation> operations_;
  std::vector<Filter<T>> to_upgrade_;  // the filters of typed updates (a model with pending steps)
  struct UpsertingReplace {
    Document filter;
    std::optional<Collation> collation;
  };
  std::vector<UpsertingReplace> upserting_replaces_;  // checked for a newer match first (a model with schema versions)
};

template <document_model T>
class Collection {
 public:
  using value_type = T;
  using id_type = typename detail::collection_id<T>::type;
  /// Whether inserts assign ObjectId::generate() to an unset (all-zero) id.
  static constexpr bool generates_ids = has_id<T> && std::same_as<id_type, ObjectId>;
  /// Whether an insert writes into the object (an id generated, timestamps set): one
  /// passed const is copied first.
  static constexpr bool writes_into_inserted = generates_ids || detail::has_timestamps<T>;


  const std::string& name() const noexcept { return core_.name(); }
  const std::string& database_name() const noexcept { return core_.database_name(); }

  /// This handle's read preference, read concern and write concern, over its database's
  /// (copies made before keep theirs); an operation's own options override them.
  Collection& read_preference(ReadPreference preference) {
    core_.set_concerns(detail::Concerns{std::move(preference), std::nullopt, std::nullopt});
    return *this;
  }
  Collection& read_concern(ReadConcern concern) {
    core_.set_concerns(detail::Concerns{std::nullopt, concern, std::nullopt});
    return *this;
  }
  Collection& write_concern(WriteConcern concern) {
    core_.set_concerns(detail::Concerns{std::nullopt, std::nullopt, std::move(concern)});
    return *this;
  }
  /// The settings in effect at this level (unset: the client's).
  const std::optional<ReadPreference>& read_preference() const noexcept { return core_.concerns().read_preference; }
  const std::optional<ReadConcern>& read_concern() const noexcept { return core_.concerns().read_concern; }
  const std::optional<WriteConcern>& write_concern() const noexcept { return core_.concerns().write_concern; }

  // ---- insert -------------------------------------------------------------------

  /// Inserts `value`. When T's id is an ObjectId that is unset, a new one is generated
  /// and stored in `value` first. Throws DuplicateKeyError when a unique index refuses it.
  InsertOneResult<id_type> insert_one(T& value, const InsertOneOptions<T>& options = {}) {
    return insert_one_in(nullptr, value, spec(options));
  }
  InsertOneResult<id_type> insert_one(const T& value, const InsertOneOptions<T>& options = {}) {
    return insert_one_copy(nullptr, value, spec(options));
  }
  InsertOneResult<id_type> insert_one(Session& session, T& value, const InsertOneOptions<T>& options = {}) {
    return insert_one_in(detail::Access::session_state(session), value, spec(options));
  }
  InsertOneResult<id_type> insert_one(Session& session, const T& value, const InsertOneOptions<T>& options = {}) {
    return insert_one_copy(detail::Access::session_state(session), value, spec(options));
  }

  /// Inserts every element of `values` (a range of T), assigning ids into the elements
  /// when the range is mutable. Ordered by default: stops at the first failure. A failure
  /// throws the matching odm::Error, which is also an odm::PartialWrite<T> saying which
  /// documents were stored.
  template <std::ranges::input_range R>
    requires std::same_as<std::remove_cvref_t<std::ranges::range_reference_t<R>>, T>
  InsertManyResult<id_type> insert_many(R&& values, const InsertManyOptions<T>& options = {}) {
    return insert_many_in(nullptr, std::forward<R>(values), spec(options));
  }
  template <std::ranges::input_range R>
    requires std::same_as<std::remove_cvref_t<std::ranges::range_reference_t<R>>, T>
  InsertManyResult<id_type> insert_many(Session& session, R&& values, const InsertManyOptions<T>& options = {}) {
    return insert_many_in(detail::Access::session_state(session), std::forward<R>(values), spec(options));
  }

  // ---- read ---------------------------------------------------------------------

  /// The documents matching `filter`, decoded as R: T itself, a smaller struct whose
  /// fields are then the projection (only they travel from the server), or odm::Document.
  template <cursor_value R = T, class Reads = T>
  Cursor<R> find(const Filter<T>& filter = {}, FindOptions<T, Reads> options = {}) const {
    return find_in<R>(nullptr, filter, untyped<R>(std::move(options)));
  }
  template <cursor_value R = T, class Reads = T>
  Cursor<R> find(Session& session, const Filter<T>& filter = {}, FindOptions<T, Reads> options = {}) const {
    return find_in<R>(detail::Access::session_state(session), filter, untyped<R>(std::move(options)));
  }

  /// The first document matching `filter` (in the options' sort order), if any.
  template <cursor_value R = T, class Reads = T>
  std::optional<R> find_one(const Filter<T>& filter = {}, FindOptions<T, Reads> options = {}) const {
    return find_one_in<R>(nullptr, filter, untyped<R>(std::move(options.limit(1))));
  }
  template <cursor_value R = T, class Reads = T>
  std::optional<R> find_one(Session& session, const Filter<T>& filter = {}, FindOptions<T, Reads> options = {}) const {
    return find_one_in<R>(detail::Access::session_state(session), filter, untyped<R>(std::move(options.limit(1))));
  }

  /// The document with this id, if there is one.
  std::optional<T> find_by_id(const id_type& id) const { return find_by_id_in(nullptr, id); }
  std::optional<T> find_by_id(Session& session, const id_type& id) const {
    return find_by_id_in(detail::Access::session_state(session), id);
  }
  /// The document with this id. Throws odm::NotFound when there is none.
  T get_by_id(const id_type& id) const { return get_by_id_in(nullptr, id); }
  T get_by_id(Session& session, const id_type& id) const { return get_by_id_in(detail::Access::session_state(session), id); }

  /// The number of documents matching `filter` (an exact count, not the metadata estimate).
  std::int64_t count(const Filter<T>& filter = {}, const CountOptions<T>& options = {}) const {
    return core_.count(nullptr, filter.bson(), spec(options));
  }
  std::int64_t count(Session& session, const Filter<T>& filter = {}, const CountOptions<T>& options = {}) const {
    return core_.count(detail::Access::session_state(session), filter.bson(), spec(options));
  }

  /// Runs an aggregation pipeline (raw BSON stages) and decodes each result as R.
  template <cursor_value R = Document>
  Cursor<R> aggregate(const std::vector<Document>& stages, const AggregateOptions<T>& options = {}) const {
    return detail::Access::make<Cursor<R>>(core_.aggregate(nullptr, detail::make_pipeline(stages).get(), spec(options)), core_);
  }
  template <cursor_value R = Document>
  Cursor<R> aggregate(Session& session, const std::vector<Document>& stages,
                      const AggregateOptions<T>& options = {}) const {
    return detail::Access::make<Cursor<R>>(
        core_.aggregate(detail::Access::session_state(session), detail::make_pipeline(stages).get(), spec(options)), core_);
  }
  /// Runs a typed pipeline (odm/aggregation/pipeline.hpp) over this collection's
  /// documents; each result is read as the pipeline's last output type.
  template <detail::typed_pipeline P>
  Cursor<typename P::output_type> aggregate(const P& pipeline, const AggregateOptions<T>& options = {}) const {
    return aggregate_typed(nullptr, pipeline, options);
  }
  template <detail::typed_pipeline P>
  Cursor<typename P::output_type> aggregate(Session& session, const P& pipeline,
                                            const AggregateOptions<T>& options = {}) const {
    return aggregate_typed(detail::Access::session_state(session), pipeline, options);
  }
  /// The same with the pipeline as one BSON document: an array of stages or `{pipeline: [...]}`.
  template <cursor_value R = Document>
  Cursor<R> aggregate_raw(const Document& pipeline, const AggregateOptions<T>& options = {}) const {
    return detail::Access::make<Cursor<R>>(core_.aggregate(nullptr, pipeline.get(), spec(options)), core_);
  }

  // ---- update -------------------------------------------------------------------

  /// Replaces the first document matching `filter` with `replacement`: every field T
  /// declares is written, and the stored fields T does not declare are kept, never erased
  /// (in an odm::Extra member if T has one, else left in place: see detail::replacement_of).
  /// For a model with schema versions, a document of a newer version is not replaced:
  /// odm::SchemaVersionError, nothing written (an older release would write its version
  /// and defaults over the newer fields).
  UpdateResult<id_type> replace_one(const Filter<T>& filter, const T& replacement,
                                    const ReplaceOptions<T>& options = {}) {
    return replace_in(nullptr, filter, replacement, spec(options));
  }
  UpdateResult<id_type> replace_one(Session& session, const Filter<T>& filter, const T& replacement,
                                    const ReplaceOptions<T>& options = {}) {
    return replace_in(detail::Access::session_state(session), filter, replacement, spec(options));
  }

  /// Applies `update` to the first document matching `filter`, atomically.
  UpdateResult<id_type> update_one(const Filter<T>& filter, const Update<T>& update,
                                   const UpdateOptions<T>& options = {}) {
    // Built first: a refused update upgrades nothing.
    const Document document = detail::update_as_sent(update, filter, spec(options), "update_one");
    detail::upgrade_reachable<T>(core_, nullptr, filter);
    return update_in(nullptr, detail::UpdateKind::one, filter.bson(), document, spec(options));
  }
  UpdateResult<id_type> update_one(Session& session, const Filter<T>& filter, const Update<T>& update,
                                   const UpdateOptions<T>& options = {}) {
    const Document document = detail::update_as_sent(update, filter, spec(options), "update_one");
    detail::upgrade_reachable<T>(core_, detail::Access::session_state(session), filter);
    return update_in(detail::Access::session_state(session), detail::UpdateKind::one, filter.bson(), document,
                     spec(options));
  }
  /// Applies `update` to every document matching `filter`.
  UpdateResult<id_type> update_many(const Filter<T>& filter, const Update<T>& update,
                                    const UpdateOptions<T>& options = {}) {
    // Built first: a refused update upgrades nothing.
    const Document document = detail::update_as_sent(update, filter, spec(options), "update_many");
    detail::upgrade_reachable<T>(core_, nullptr, filter);
    return update_in(nullptr, detail::UpdateKind::many, filter.bson(), document, spec(options));
  }
  UpdateResult<id_type> update_many(Session& session, const Filter<T>& filter, const Update<T>& update,
                                    const UpdateOptions<T>& options = {}) {
    const Document document = detail::update_as_sent(update, filter, spec(options), "update_many");
    detail::upgrade_reachable<T>(core_, detail::Access::session_state(session), filter);
    return update_in(detail::Access::session_state(session), detail::UpdateKind::many, filter.bson(), document,
                     spec(options));
  }

  // ---- delete -------------------------------------------------------------------

  DeleteResult delete_one(const Filter<T>& filter, const DeleteOptions<T>& options = {}) {
    return {core_.remove(nullptr, false, filter.bson(), spec(options)).deleted};
  }
  DeleteResult delete_one(Session& session, const Filter<T>& filter, const DeleteOptions<T>& options = {}) {
    return {core_.remove(detail::Access::session_state(session), false, filter.bson(), spec(options)).deleted};
  }
  DeleteResult delete_many(const Filter<T>& filter, const DeleteOptions<T>& options = {}) {
    return {core_.remove(nullptr, true, filter.bson(), spec(options)).deleted};
  }
  DeleteResult delete_many(Session& session, const Filter<T>& filter, const DeleteOptions<T>& options = {}) {
    return {core_.remove(detail::Access::session_state(session), true, filter.bson(), spec(options)).deleted};
  }

  // ---- find and modify ----------------------------------------------------------

  /// Updates the first match and returns it as it was before (the default) or after
  /// the update; std::nullopt when nothing matched (and no upsert happened). A returned
  /// document that does not fit T throws odm::DecodeAfterWriteError: the update was
  /// applied (the same for _replace and _delete).
  std::optional<T> find_one_and_update(const Filter<T>& filter, const Update<T>& update,
                                       const FindOneAndUpdateOptions<T>& options = {}) {
    const Document document = detail::update_as_sent(update, filter, spec(options), "find_one_and_update");
    detail::upgrade_reachable<T>(core_, nullptr, filter);
    return modify_in(nullptr, filter, &document, spec(options));
  }
  std::optional<T> find_one_and_update(Session& session, const Filter<T>& filter, const Update<T>& update,
                                       const FindOneAndUpdateOptions<T>& options = {}) {
    const Document document = detail::update_as_sent(update, filter, spec(options), "find_one_and_update");
    detail::upgrade_reachable<T>(core_, detail::Access::session_state(session), filter);
    return modify_in(detail::Access::session_state(session), filter, &document, spec(options));
  }
  std::optional<T> find_one_and_replace(const Filter<T>& filter, const T& replacement,
                                        const FindOneAndReplaceOptions<T>& options = {}) {
    return replace_and_return(nullptr, filter, replacement, spec(options));
  }
  std::optional<T> find_one_and_replace(Session& session, const Filter<T>& filter, const T& replacement,
                                        const FindOneAndReplaceOptions<T>& options = {}) {
    return replace_and_return(detail::Access::session_state(session), filter, replacement, spec(options));
  }
  /// Deletes the first match and returns it.
  std::optional<T> find_one_and_delete(const Filter<T>& filter, const FindOneAndDeleteOptions<T>& options = {}) {
    return modify_in(nullptr, filter, nullptr, spec(options));
  }
  std::optional<T> find_one_and_delete(Session& session, const Filter<T>& filter,
                                       const FindOneAndDeleteOptions<T>& options = {}) {
    return modify_in(detail::Access::session_state(session), filter, nullptr, spec(options));
  }

  // ---- bulk and admin -----------------------------------------------------------

  BulkWrite<T> bulk_write(BulkWriteOptions<T> options = {}) const { return BulkWrite<T>(core_, std::move(options)); }

  /// Drops the collection (and its indexes). Dropping a missing collection is not an error.
  void drop() const { core_.drop(nullptr); }

 private:
  friend struct detail::Access;
  /// Made by Database::collection<T>() (`name` there overrides the model's collection).
  explicit Collection(detail::CollectionCore core) : core_(std::move(core)) {}
  /// For the code that works on raw documents, not on T (joins' batched finds).
  const detail::CollectionCore& core() const noexcept { return core_; }

  /// Assigns a new ObjectId to `value`'s id when it is an unset ObjectId.
  static void assign_id_if_unset(T& value) {
    if constexpr (generates_ids) {
      auto& id = id_of(value);
      if (id.is_zero()) id = ObjectId::generate();
    }
  }

  template <class P>
  Cursor<typename P::output_type> aggregate_typed(detail::SessionState* session, const P& pipeline,
                                                  const AggregateOptions<T>& options) const {
    static_assert(std::is_same_v<typename P::input_type, T>,
                  "odm: this pipeline starts from another model than the collection's documents; start it with "
                  "odm::pipeline<Model>() of this collection's model");
    static_assert(cursor_value<typename P::output_type>,
                  "odm: a pipeline's last stage passes on a type a cursor cannot read; end it with a stage whose "
                  "output is a plain struct (or odm::Document)");
    return detail::Access::make<Cursor<typename P::output_type>>(
        core_.aggregate(session, pipeline.bson_view().get(), spec(options)), core_);
  }
  template <class Options>
  static const auto& spec(const Options& options) noexcept {
    return detail::OptionsAccess::spec(options);
  }

  InsertOneResult<id_type> insert_one_in(detail::SessionState* session, T& value, const detail::InsertSpec& options) {
    assign_id_if_unset(value);
    detail::stamp_inserted(value, detail::stamp_now());
    if constexpr (has_id<T>) {  // the id is the member's: no need to read it back
      core_.insert_one_with_id(session, to_bson(value), options, detail::checked_encoding<T>);
      return {id_of(value)};
    } else {
      return {detail::decode_written_id<id_type>(core_.insert_one(session, to_bson(value), options, detail::checked_encoding<T>), core_,
                                                 "insert into ")};
    }
  }
  InsertOneResult<id_type> insert_one_copy(detail::SessionState* session, const T& value,
                                           const detail::InsertSpec& options) {
    if constexpr (writes_into_inserted) {
      T copy = value;
      return insert_one_in(session, copy, options);
    } else if constexpr (has_id<T>) {
      core_.insert_one_with_id(session, to_bson(value), options, detail::checked_encoding<T>);
      return {id_of(value)};
    } else {
      return {detail::decode_written_id<id_type>(core_.insert_one(session, to_bson(value), options, detail::checked_encoding<T>), core_,
                                                 "insert into ")};
    }
  }

  template <class R>
  InsertManyResult<id_type> insert_many_in(detail::SessionState* session, R&& values, const detail::InsertSpec& options) {
    std::vector<detail::BulkOperation> operations;
    if constexpr (std::ranges::sized_range<R>) operations.reserve(std::ranges::size(values));
    [[maybe_unused]] const detail::StampTime now = detail::stamp_now();
    auto push = [&](const T& value) {
      operations.push_back(detail::BulkOperation{detail::BulkOperation::Kind::insert_one, to_bson(value), {}, {}});
    };
    auto prepare = [&](T& value) {
      assign_id_if_unset(value);
      detail::stamp_inserted(value, now);
    };
    for (auto&& value : values) {
      if constexpr (std::is_const_v<std::remove_reference_t<decltype(value)>>) {
        if constexpr (writes_into_inserted) {
          T copy = value;
          prepare(copy);
          push(copy);
        } else {
          push(value);
        }
      } else {
        prepare(value);
        push(value);
      }
    }
    if (operations.empty()) return {};
    BulkWriteResult<id_type> written =
        detail::finish_bulk<T>(core_.bulk_write(session, std::move(operations), options, "insert into "), core_,
                               "insert into ");
    return {written.inserted, std::move(written.inserted_ids)};
  }

  /// The options of a find decoding documents as R, once their projection is known to
  /// leave what R reads.
  template <class R, class Reads>
  static FindOptions<T> untyped(FindOptions<T, Reads>&& options) {
    static_assert(std::is_same_v<Reads, T> || std::is_same_v<R, Reads> || std::is_same_v<R, Document>,
                  "odm: these FindOptions project onto fewer fields than the collection's model requires, so the "
                  "documents would not decode as the model: read them as the projection's result type, "
                  "find<Summary>(filter, options) (or find<odm::Document>), or let find<Summary>(filter) "
                  "project onto Summary's fields itself");
    if constexpr (std::is_same_v<Reads, T>) {
      return std::move(options);
    } else {
      FindOptions<T> plain;
      detail::OptionsAccess::mutable_spec(plain) = detail::OptionsAccess::spec(options);
      return plain;
    }
  }

  template <class R>
  static void project_onto(FindOptions<T>& options) {
    if constexpr (!std::same_as<R, T> && !std::same_as<R, Document>) {
      // Compile-time checked: every member of R is a member of T of the same type.
      if (options.projection().empty()) detail::OptionsAccess::mutable_spec(options).projection = projection<T, R>().bson();
    }
  }

  template <class R>
  Cursor<R> find_in(detail::SessionState* session, const Filter<T>& filter, FindOptions<T> options) const {
    project_onto<R>(options);
    return detail::Access::make<Cursor<R>>(core_.find(session, filter.bson(), spec(options)), core_);
  }

  /// The first document a find returns, read without a Cursor<R> (detail::find_first).
  template <class R>
  std::optional<R> find_one_in(detail::SessionState* session, const Filter<T>& filter, FindOptions<T> options) const {
    project_onto<R>(options);
    std::optional<R> found;
    detail::find_first(core_, session, filter.bson(), spec(options), detail::decode_into(found));
    return found;
  }

  std::optional<T> find_by_id_in(detail::SessionState* session, const id_type& id) const {
    FindOptions<T> options;
    options.limit(1);
    return find_one_in<T>(session, Filter<T>::raw(detail::id_filter(id)), std::move(options));
  }
  T get_by_id_in(detail::SessionState* session, const id_type& id) const {
    std::optional<T> found = find_by_id_in(session, id);
    if (!found) {
      throw NotFound("no document with _id " + detail::field_json(detail::id_filter(id), "_id") + " in " + core_.database_name() +
                     "." + core_.name());
    }
    return std::move(*found);
  }

  UpdateResult<id_type> replace_in(detail::SessionState* session, const Filter<T>& filter, const T& replacement,
                                   const detail::UpdateSpec& options) {
    const Document update = detail::replacement_of(replacement, options.keep_version, options.keep_timestamps, "replace_one");
    if constexpr (!has_schema_versions<T>) {
      return update_in(session, detail::replace_kind<T>, filter.bson(), update, options);
    } else {
      // An older document is upgraded first (its consumed fields unset), as before a typed
      // update: the replace keeps the fields T does not declare, and would keep those too.
      detail::upgrade_reachable<T>(core_, session, filter);
      const Document where = filter.bson();
      if (options.upsert && detail::asks_for_newer_first(where.get(), options))
        refuse_newer(session, where, "replace_one", options);
      try {
        UpdateResult<id_type> result =
            update_in(session, detail::replace_kind<T>, detail::replace_filter<T>(where), update, options);
        if (result.matched == 0 && !result.upserted_id) refuse_newer(session, where, "replace_one", options);
        return result;
      } catch (const DuplicateKeyError&) {
        refuse_newer(session, where, "replace_one", options);  // an upsert that passed over a newer document
        throw;
      }
    }
  }

  std::optional<T> replace_and_return(detail::SessionState* session, const Filter<T>& filter, const T& replacement,
                                      const detail::FindAndModifySpec& options) {
    const Document update = detail::replacement_of(replacement, options.keep_version, options.keep_timestamps, "find_one_and_replace");
    if constexpr (!has_schema_versions<T>) {
      return modify_in(session, filter, &update, options);
    } else {
      detail::upgrade_reachable<T>(core_, session, filter);
      const Document where = filter.bson();
      if (options.upsert && detail::asks_for_newer_first(where.get(), options))
        refuse_newer(session, where, "find_one_and_replace", options);
      try {
        std::optional<T> result = modify_in(session, Filter<T>::raw(detail::replace_filter<T>(where)), &update, options);
        if (!result && !options.upsert) refuse_newer(session, where, "find_one_and_replace", options);
        return result;
      } catch (const DuplicateKeyError&) {
        refuse_newer(session, where, "find_one_and_replace", options);
        throw;
      }
    }
  }

  void refuse_newer(detail::SessionState* session, const Document& filter, const char* operation,
                    const detail::CommonSpec& options) const {
    detail::refuse_newer<T>(core_, session, filter, operation, options.collation);
  }

  UpdateResult<id_type> update_in(detail::SessionState* session, detail::UpdateKind kind, const Document& filter,
                                  const Document& update, const detail::UpdateSpec& options) {
    detail::WriteOutcome outcome = core_.update(session, kind, filter, update, options);
    UpdateResult<id_type> result{outcome.matched, outcome.modified, std::nullopt};
    if (!outcome.upserted_ids.empty())
      result.upserted_id = detail::decode_written_id<id_type>(outcome.upserted_ids.front().second, core_,
                                                              kind == detail::UpdateKind::replace ? "replace in "
                                                                                                  : "update in ");
    return result;
  }

  std::optional<T> modify_in(detail::SessionState* session, const Filter<T>& filter, const Document* update,
                             const detail::FindAndModifySpec& options) {
    std::optional<Document> image = core_.find_one_and_modify(session, filter.bson(), update, options);
    if (!image) return std::nullopt;
    return detail::decode_after_write(*image, core_, "findAndModify in ",
                                      [](const Document& returned) { return from_bson<T>(returned); });
  }

  detail::CollectionCore core_;
};

}  // namespace odm
