#pragma once
// A one-off migration: rewrites every document of a collection that is older than its
// model's schema version (odm/evolution/versions.hpp), in batches, while the service keeps
// reading and writing it.
//
//   odm::MigrationReport report = odm::Migration<Order>(db)
//       .batch_size(500)
//       .on_progress([](const odm::MigrationProgress& p) { std::cout << p.done << "/" << p.to_do << "\n"; })
//       .run();
//
// - Which documents: those whose `schema_version` is not an int32/int64 at the model's
//   version or newer (older ones, those without the field, and those with a version the
//   model cannot read: a double `2.0`, a string, a negative number), in `_id` order,
//   `batch_size` at a time. `$ne: N` would not do: it compares numbers across types, so
//   `2.0`, which the model refuses to read, would pass for current. A document of a newer
//   version is not selected (counted in `newer`, left alone).
// - Order and position: the run walks `_id` in MongoDB's sort order, which orders ids of
//   different BSON types by type bracket (numbers < strings < documents < ObjectIds < ...).
//   `$gt` compares only within the bracket of its operand (type bracketing), so the next
//   batch selects `{$or: [{_id: {$gt: last}}, {_id: {$type: [every later bracket]}}]}`:
//   the rest of last's bracket and every later bracket, which is exactly what follows
//   `last` in the sort. Ids of mixed types (1, "a", ObjectId, {k: 1}) are all visited.
// - Each document is upgraded by the model's steps, checked to decode as the model, and
//   written by the guarded rewrite every write to an older document uses
//   (odm/driver/upgrade.hpp): `$set`/`$unset` of the top-level fields that changed (and the
//   new version), matching the `_id`, the stored version and the top-level fields as read,
//   smallest first, as many as fit next to the update within MongoDB's 16 MiB (so any
//   document that itself fits can be migrated, even one whose step rewrites a 15 MB field;
//   a field too large to be compared is not). A writer that changed the document in
//   between makes the guard miss; the migration reads it again and retries
//   (`max_retries`), so a concurrent change is never overwritten; a field added in between
//   is kept. A document a writer upgraded in between (a save by the new model) is left alone.
// - Resumable: after each batch the last `_id` done is saved in the `odm_migrations`
//   collection (`checkpoints(name)` to change it), keyed by collection and version; a run
//   that was interrupted (a crash, an exception) starts after it, and when it reaches the
//   end makes one more pass from the first `_id`: a checkpoint is only a hint (one that is
//   stale, tampered or of another id type cannot make a run skip documents), and the
//   second pass only reads the documents still old. A run that finishes deletes its
//   checkpoint, so the next run looks at every document again.
// - A true report: at the end the run counts the documents still old (`remaining`). When
//   that is more than the ones it left (a writer of an older program wrote behind it) it
//   makes one more pass from the start; `remaining` is then 0 unless something is still
//   writing old documents or a document was left for the next run.
// - Idempotent: a document at the current version is never selected, so running it again
//   writes nothing; a document written by an older program after the migration passed it
//   is picked up by the next run.
// - `dry_run()`: reads and upgrades every document (a step that fails throws, as in a real
//   run), counts what would be written, and writes nothing, no checkpoint either.
// - A document whose version cannot be read (not an int32/int64, older than the oldest
//   step), whose step fails, or whose upgrade does not decode as the model stops the run
//   with that odm::Error (odm::SchemaVersionError or odm::DecodeError naming its `_id`);
//   the checkpoint keeps what was done. Repair it and run again.

#include <odm/bson/convert.hpp>
#include <odm/bson/document.hpp>
#include <odm/bson/writer.hpp>
#include <odm/driver/client.hpp>
#include <odm/driver/collection.hpp>
#include <odm/evolution/changes.hpp>
#include <odm/evolution/versions.hpp>
#include <odm/model/model.hpp>

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <utility>

namespace odm {

/// Where a migration stands, given to on_progress after each batch.
struct MigrationProgress {
  /// Documents examined so far in this run (written, or found current, newer or gone).
  std::int64_t done = 0;
  /// Documents that were to be migrated when the run started (after its checkpoint).
  std::int64_t to_do = 0;
  /// Seconds since the run started.
  double seconds = 0;
  /// Documents per second so far.
  double rate() const noexcept { return seconds > 0 ? static_cast<double>(done) / seconds : 0; }
};

/// What a run did.
struct MigrationReport {
  /// Documents rewritten at the current version (in a dry run: that would be).
  std::int64_t migrated = 0;
  /// Documents a writer brought to the current version before the migration reached them.
  std::int64_t already_current = 0;
  /// Documents of a newer version than the model's, left alone.
  std::int64_t newer = 0;
  /// Documents deleted between being selected and being written.
  std::int64_t vanished = 0;
  /// Guarded writes that missed because a writer changed the document first (each retried).
  std::int64_t retries = 0;
  /// Documents still changing after max_retries attempts, left for the next run.
  std::int64_t left_for_next_run = 0;
  /// Documents still older than the model when the run ended (counted then): 0 unless some
  /// were left for the next run or another program kept writing old documents (in a dry
  /// run: all of them).
  std::int64_t remaining = 0;
  /// Whether this run continued an interrupted one.
  bool resumed = false;
  bool dry_run = false;
  MigrationProgress progress;
};

namespace detail {
/// The collection that keeps migrations' checkpoints, one document per migration:
/// `{_id: "collection@version", last_id, done_in_last_run}`. The same for every model:
/// compiled once (odm/evolution/migrate.cpp).
class MigrationCheckpoints {
 public:
  MigrationCheckpoints(const Database& db, std::string name);
  /// `{_id: value}` of the last document an earlier run of `key` did, if one was saved.
  std::optional<Document> last_id(const std::string& key) const;
  /// After a batch: `last_id` (`{_id: value}`) is done, and `done` documents this run.
  void save(const std::string& key, const Document& last_id, std::int64_t done);
  /// The run of `key` is complete.
  void remove(const std::string& key);

 private:
  struct Handle;  // the collection's handle, in migrate.cpp
  std::shared_ptr<Handle> handle_;
};
/// The documents after `last` (`{_id: value}`) in MongoDB's `_id` sort order, across type
/// brackets, appended to `filter` as a `$or`.
void append_after(bson_t* filter, const bson_t* last);
}  // namespace detail

/// A migration of the documents of model T (see the top of this file).
template <document_model T>
class Migration {
  static_assert(has_schema_versions<T>,
                "odm::Migration: the model declares no schema versions (static constexpr auto schema = "
                "odm::schema_versions<N>(...); in its odm_model)");
  using Schema = std::remove_cvref_t<decltype(detail::metadata_t<T>::schema)>;

 public:
  /// The collection of T in `db` (its model's name, or `collection`).
  explicit Migration(const Database& db) : Migration(db, db.collection<T>()) {}
  Migration(const Database& db, Collection<T> collection)
      : collection_(std::move(collection)), checkpoints_(db, "odm_migrations") {}

  /// Documents read and written per batch (and per checkpoint). At least 1.
  Migration& batch_size(std::int32_t count) {
    if (count < 1) throw UsageError("odm::Migration::batch_size: at least 1, got " + std::to_string(count));
    batch_size_ = count;
    return *this;
  }
  /// Reads and upgrades, writes nothing.
  Migration& dry_run(bool value = true) {
    dry_run_ = value;
    return *this;
  }
  /// Called after each batch (an exception from it stops the run after the checkpoint).
  Migration& on_progress(std::function<void(const MigrationProgress&)> callback) {
    on_progress_ = std::move(callback);
    return *this;
  }
  /// How often a document a writer keeps changing is read and tried again. At least 1.
  Migration& max_retries(std::int32_t count) {
    if (count < 1) throw UsageError("odm::Migration::max_retries: at least 1, got " + std::to_string(count));
    max_retries_ = count;
    return *this;
  }
  /// The collection that keeps checkpoints (default "odm_migrations").
  Migration& checkpoints(const Database& db, std::string name) {
    checkpoints_ = detail::MigrationCheckpoints(db, std::move(name));
    return *this;
  }

  MigrationReport run() {
    const auto start = std::chrono::steady_clock::now();
    MigrationReport report;
    report.dry_run = dry_run_;
    const std::string key = collection_.name() + "@" + std::to_string(Schema::current);

    std::optional<Document> checkpoint;  // `{_id: value}` of the last document an earlier run did
    if (!dry_run_) {
      checkpoint = checkpoints_.last_id(key);
      report.resumed = checkpoint.has_value();
    }
    const Document old = to_migrate();
    report.progress.to_do = collection_.count(Filter<T>::raw(old));

    pass(checkpoint, key, start, report);
    report.remaining = collection_.count(Filter<T>::raw(old));
    // The part before a checkpoint (only a hint), or old documents written behind the run.
    if (!dry_run_ && (report.resumed || report.remaining > report.left_for_next_run)) {
      report.left_for_next_run = 0;  // the second pass visits them again and counts what it leaves
      pass(std::nullopt, key, start, report);
      report.remaining = collection_.count(Filter<T>::raw(old));
    }
    if (!dry_run_) checkpoints_.remove(key);
    report.newer = collection_.count(Filter<T>::raw(detail::newer_version_filter(Schema::current)));
    report.progress.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    return report;
  }

 private:
  /// One walk over the old documents in `_id` order, from after `last_id` (or the first).
  void pass(std::optional<Document> last_id, const std::string& key, std::chrono::steady_clock::time_point start,
            MigrationReport& report) {
    while (true) {
      FindOptions<T> options;
      options.sort(Sort<T>::raw(Document::from_json(R"({"_id": 1})"))).limit(batch_size_);
      auto cursor = collection_.template find<Document>(Filter<T>::raw(selection(last_id)), std::move(options));
      std::int64_t in_batch = 0;
      for (const Document& stored : cursor) {
        ++in_batch;
        migrate_one(stored, report);
        ++report.progress.done;
        last_id = id_of(stored);
      }
      if (in_batch == 0) return;
      report.progress.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
      if (!dry_run_) checkpoints_.save(key, *last_id, report.progress.done);
      if (on_progress_) on_progress_(report.progress);
      if (in_batch < batch_size_) return;
    }
  }

  /// `{_id: <the stored document's _id>}`: the filter of one document, and the checkpoint.
  static Document id_of(const Document& stored) {
    bson_iter_t id;
    if (!bson_iter_init_find(&id, stored.get(), "_id"))
      throw DecodeError("odm::Migration: a stored document the server returned has no _id");
    Document by_id;
    detail::check_append(bson_append_iter(by_id.get_mutable(), "_id", 3, &id));
    return by_id;
  }

  /// Documents not at the current version, or current (not newer: a newer release may
  /// store a field under a name this one retired, and the run leaves newer documents
  /// alone) and holding a name the steps retire, which a program still writing the old
  /// name put there.
  static Document to_migrate() {
    Document old = detail::old_version_filter(Schema::current);
    const detail::RetiredNames& retired = detail::retired_names<T>();
    if (retired.empty()) return old;
    Document either;
    detail::ChildWriter all(either.get_mutable(), "$and", detail::ChildWriter::Kind::array);
    {
      detail::ChildWriter first(all.get(), "0");
      {
        detail::ChildWriter any(first.get(), "$or", detail::ChildWriter::Kind::array);
        detail::check_append(bson_append_document(any.get(), "0", 1, old.get()));
        {
          detail::ChildWriter current(any.get(), "1");
          detail::ChildWriter both(current.get(), "$and", detail::ChildWriter::Kind::array);
          detail::check_append(bson_append_document(both.get(), "0", 1, detail::holding_any(retired).get()));
          detail::check_append(bson_append_document(both.get(), "1", 1, detail::not_newer_filter(Schema::current).get()));
          both.close();
          current.close();
        }
        any.close();
      }
      first.close();
    }
    all.close();
    return either;
  }

  /// The documents to migrate after `last_id`.
  static Document selection(const std::optional<Document>& last_id) {
    Document filter = to_migrate();
    if (last_id) detail::append_after(filter.get_mutable(), last_id->get());
    return filter;
  }

  void migrate_one(Document stored, MigrationReport& report) {
    const Schema& schema = detail::metadata_t<T>::schema;
    for (std::int32_t attempt = 0;; ++attempt) {
      if (newer_than_model(stored.get())) return;  // a newer program saved it first: counted in `newer` at the end
      const std::int64_t version = schema.version_of(stored.get());  // throws for a hostile version
      std::optional<detail::GuardedRewrite> rewrite;
      if (version == Schema::current) {
        rewrite = detail::guarded_retire(stored.get(), detail::retired_names<T>());  // its retired names unset
      } else {
        Document upgraded = schema.upgraded(stored.get());
        (void)from_bson<T>(upgraded);  // what is written must read as the model: else DecodeError, nothing written
        rewrite = detail::guarded_rewrite(stored.get(), upgraded.get());
      }
      if (!rewrite) {  // a current document without retired names (an older one always differs)
        ++report.already_current;
        return;
      }
      if (dry_run_) {
        ++report.migrated;
        return;
      }
      const auto result =
          collection_.update_one(Filter<T>::raw(std::move(rewrite->filter)), Update<T>::raw(std::move(rewrite->update)),
                             UpdateOptions<T>{}.keep_timestamps());  // a rewrite, not a change of the document
      if (result.matched == 1) {
        ++report.migrated;
        return;
      }
      std::optional<Document> now = collection_.template find_one<Document>(Filter<T>::raw(id_of(stored)));
      if (!now) {
        ++report.vanished;
        return;
      }
      if (attempt + 1 >= max_retries_) {
        ++report.left_for_next_run;
        return;
      }
      ++report.retries;
      stored = std::move(*now);
    }
  }

  static bool newer_than_model(const bson_t* document) {
    bson_iter_t it;
    if (!bson_iter_init_find_w_len(&it, document, schema_version_field.data(),
                                   static_cast<int>(schema_version_field.size())))
      return false;
    return (bson_iter_type(&it) == BSON_TYPE_INT32 || bson_iter_type(&it) == BSON_TYPE_INT64) &&
           bson_iter_as_int64(&it) > Schema::current;
  }

  Collection<T> collection_;
  detail::MigrationCheckpoints checkpoints_;
  std::int32_t batch_size_ = 100;
  std::int32_t max_retries_ = 10;
  bool dry_run_ = false;
  std::function<void(const MigrationProgress&)> on_progress_;
};

}  // namespace odm
