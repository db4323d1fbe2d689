#pragma once
// Save what changed: a loaded object remembers how it was stored, and saving it sends an
// update of the paths the program changed, not a replacement of the whole document.
//
//   odm::Tracked<Order> order = odm::track(orders.get_by_id(7));
//   order->status = "shipped";
//   order->lines.push_back(line);
//   order.save(orders);          // {$set: {status: "shipped"}, $push: {lines: {$each: [line]}}}
//
// So two writers that change different fields of one document both keep their change
// (a replace by either would have written back the other's field as it was when loaded).
//
// The update, from the BSON the object encodes to when it was loaded (or last saved) to
// the BSON it encodes to now:
//   - a field that appeared is `$set`, one that disappeared is `$unset`;
//   - a changed sub-document is followed down to the deepest changed path
//     (`$set: {"customer.address.city": ...}`);
//   - an array that only grew gets `$push: {path: {$each: [the new elements]}}`; one that
//     kept its length gets each changed element set at its own path (`lines.3.qty`); any
//     other change (shrunk, or grown with earlier elements changed, e.g. reordered) sets
//     the whole array;
//   - nothing changed: no command is sent.
// A sub-document whose keys cannot be path steps (a map key with '.' or a leading '$')
// is set whole. Saving two objects loaded from one document that change the *same* path
// is last-writer-wins for that path, unless the model has a version member:
//
//   struct odm_model { static constexpr auto fields = odm::fields(odm::version(&Order::version)); };
//
// Then every save also matches the version it loaded and increments it (`$inc`); a save
// that lost the race writes nothing and throws odm::VersionConflict, naming the document
// and both versions: reload, apply the change again, save. Every other write odm sends
// moves the version too (odm/driver/versioning.hpp), so a save also loses to a typed
// update, a replace or a migration that came after its load.
//
// A model with schema versions (odm/evolution/versions.hpp) whose stored document is
// older than the model: the object was decoded through the steps, but odm::track(value)
// cannot know it. So a save only matches a document at the model's version (or newer);
// when it misses on an older one, the document is read again and rewritten to its upgrade
// with this object's changes replayed over it (the top-level fields it changed), by the
// one guarded rewrite every write to older documents uses (odm/driver/upgrade.hpp): the
// update matches the document only as read (its _id, schema version and fields, as many
// as fit in 16 MiB), so a writer that changed it in between makes it miss, and it is read
// and rewritten again. odm::track(collection, id) knows the document is older and starts
// with the rewrite. Otherwise the next read would run the step over the stale old field
// and lose the change.

#include <odm/bson/convert.hpp>
#include <odm/bson/document.hpp>
#include <odm/bson/writer.hpp>
#include <odm/driver/collection.hpp>
#include <odm/driver/errors.hpp>
#include <odm/driver/session.hpp>
#include <odm/driver/upgrade.hpp>
#include <odm/driver/versioning.hpp>
#include <odm/model/id.hpp>
#include <odm/model/model.hpp>
#include <odm/query/previous_names.hpp>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <tuple>
#include <type_traits>
#include <utility>

namespace odm {

/// The update that turns the document `before` into `after`, as described above: a
/// document of `$set`, `$unset` and `$push` (each only when needed), `{}` when they are the
/// same. Throws odm::UsageError when a changed top-level field has a name no update path
/// can reach (a field kept by odm::Extra that another program named "a.b").
Document changes_between(const bson_t* before, const bson_t* after);
inline Document changes_between(const Document& before, const Document& after) {
  return changes_between(before.get(), after.get());
}

/// A save lost the race: another write changed the document since this object was loaded.
/// Nothing was written; reload, apply the change again and save.
class VersionConflict : public Error {
 public:
  VersionConflict(std::string message, std::int64_t loaded, std::int64_t stored)
      : Error(std::move(message)), loaded_(loaded), stored_(stored) {}
  ~VersionConflict() override;
  /// The version this object was loaded (or last saved) at.
  std::int64_t loaded_version() const noexcept { return loaded_; }
  /// The version stored now.
  std::int64_t stored_version() const noexcept { return stored_; }

 private:
  std::int64_t loaded_;
  std::int64_t stored_;
};


/// An object of the model T and how it was stored when loaded or last saved.
template <document_model T>
class Tracked {
  static_assert(has_id<T>, "odm::Tracked: the model needs an id member (stored as _id): a save finds its document by id");
  static constexpr std::size_t version_at = detail::version_index<T>();
  static constexpr bool versioned = detail::is_versioned<T>;
  static constexpr bool upgrades_on_read = detail::has_pending_steps<T>();

 public:
  /// Tracks `value` as it is now (as loaded from the database: the changes saved are the
  /// ones made after this). For a model with schema versions, a document still stored at
  /// an older version is upgraded by the first save (see the top of this file).
  explicit Tracked(T value) : value_(std::move(value)), saved_(to_bson(value_)) {}
  /// Tracks `value`, decoded from `stored` as it is in the database: the same as
  /// Tracked(value), but a save of a document known to be at an older schema version goes
  /// straight to the guarded rewrite (see the top of this file).
  Tracked(T value, const Document& stored) : Tracked(std::move(value)) {
    if constexpr (upgrades_on_read) {
      if (is_older(stored)) {
        older_ = stored;
        known_older_ = true;
      }
    }
  }

  T& operator*() noexcept { return value_; }
  const T& operator*() const noexcept { return value_; }
  T* operator->() noexcept { return &value_; }
  const T* operator->() const noexcept { return &value_; }
  T& value() noexcept { return value_; }
  const T& value() const noexcept { return value_; }

  /// The update a save would send now (`{}`: none), but for the timestamp a save sets.
  Document changes() const {
    const Document current = to_bson(value_);
    return detail::tracked_update_for_model<T>(changes_between(saved_, current), current);
  }
  /// Whether the object differs from what was loaded or last saved.
  bool changed() const { return !changes().empty(); }

  /// Sends the changes as one update of the document with this object's id; returns
  /// whether anything was sent. Throws odm::NotFound (nothing written) when the document
  /// is gone, odm::UsageError when the id itself changed, and, for a model with a version
  /// member, odm::VersionConflict (nothing written) when another write came first (a save,
  /// or any write odm sends: odm/driver/versioning.hpp) or the version is at its maximum; a
  /// successful save increments the version, in the document and in this object.
  bool save(Collection<T>& collection) { return save_in(nullptr, collection); }
  bool save(Session& session, Collection<T>& collection) { return save_in(&session, collection); }

 private:
  bool save_in(Session* session, Collection<T>& collection) {
    Document current = to_bson(value_);
    // A renamed member in its expand phase is set whole under both names (previous_names.hpp).
    Document update = detail::tracked_update_for_model<T>(changes_between(saved_, current), current);
    if (update.empty()) return false;
    // A save that writes sets updated_at (odm/driver/timestamps.hpp), in the object once it
    // succeeded, unless the program changed updated_at itself: that change is sent as made.
    [[maybe_unused]] const detail::StampTime now = detail::stamp_now();
    [[maybe_unused]] bool stamps_now = false;
    if constexpr (detail::stamps<T>::has_updated) {
      stamps_now = !detail::update_writes(update.get(), detail::stamp_field<T, detail::stamps<T>::updated>());
      if (stamps_now) {
        T stamped = value_;
        detail::stamp_updated(stamped, now);
        current = to_bson(stamped);
        update = detail::tracked_update_for_model<T>(changes_between(saved_, current), current);
      }
    }
    const Document by_id = id_filter_of(current, collection);
    const std::int64_t loaded_version = checked_version(by_id, collection);
    // The document as read, while it is at an older schema version: then the save is the
    // guarded rewrite of it into its upgrade with this object's changes replayed over it.
    // (A flag and a Document rather than std::optional<Document>: g++ 12 -O2 warns
    // maybe-uninitialized on the optional's move.)
    Document stored = std::move(older_);
    bool older = std::exchange(known_older_, false);
    for (int attempt = 0;; ++attempt) {
      std::optional<detail::GuardedRewrite> write;
      if (older) {
        // The fields the upgrade consumed (a rename's old name) are unset, not kept as unknown.
        write = detail::guarded_rewrite(stored.get(), target_over(stored, current, loaded_version).get(),
                                        detail::keeps_unknown_fields<T> ? nullptr : &undeclared,
                                        upgraded_of(stored).get());
      } else {
        write.emplace();
        write->filter = current_version_filter(by_id, loaded_version);
        write->update = update;
        if constexpr (versioned) append_increment(write->update);
      }
      if (!write) break;  // the stored document already is what this save writes
      auto where = Filter<T>::raw(std::move(write->filter));
      auto how = Update<T>::raw(std::move(write->update));
      const auto result = session ? collection.update_one(*session, where, how) : collection.update_one(where, how);
      if (result.matched == 1) break;
      // Missed: read the document again and say why, or try again from what it is now.
      auto again = Filter<T>::raw(by_id);
      std::optional<Document> now = session ? collection.template find_one<Document>(*session, again)
                                            : collection.template find_one<Document>(again);
      if (!now)
        throw NotFound("odm::Tracked::save: no " + which(by_id, collection) +
                       " (deleted since it was loaded); nothing was written");
      if constexpr (versioned) check_stored_version(*now, loaded_version, by_id, collection);
      if (attempt == 9)
        throw Error("odm::Tracked::save: the " + which(by_id, collection) +
                    " changed under this save 10 times in a row; nothing was written (reload and retry)");
      older = is_older(*now);
      stored = std::move(*now);
    }
    if constexpr (versioned) ++member<T, version_at>::of(value_);
    if (stamps_now) detail::stamp_updated(value_, now);
    saved_ = to_bson(value_);
    return true;
  }

  /// Whether a stored document is at an older schema version than the model writes.
  static bool is_older(const Document& stored) {
    if constexpr (upgrades_on_read)
      return detail::metadata_t<T>::schema.version_of(stored.get()) < detail::metadata_t<T>::schema.current;
    else
      return false;
  }

  /// What the save writes over a document stored at an older version: its upgrade (as the
  /// model reads it) with the fields this object changed since it was loaded, and the
  /// incremented version member.
  Document target_over(const Document& stored, const Document& current, std::int64_t loaded_version) const {
    Document target = detail::overlay_changes(to_bson(from_bson<T>(stored)).get(), saved_.get(), current.get());
    if constexpr (versioned) {
      T bumped = from_bson<T>(target);
      member<T, version_at>::of(bumped) = loaded_version + 1;
      target = to_bson(bumped);
    }
    return target;
  }

  /// The stored document as the upgrade steps leave it.
  static Document upgraded_of(const Document& stored) {
    if constexpr (upgrades_on_read)
      return detail::metadata_t<T>::schema.upgraded(stored.get());
    else
      return stored;
  }

  /// A stored field the model does not declare: a model without odm::Extra leaves it alone.
  static bool undeclared(std::string_view key) {
    return key != schema_version_field &&
           std::find(stored_names<T>.begin(), stored_names<T>.end(), key) == stored_names<T>.end();
  }

  /// `{_id: ..., version: loaded, schema_version: {$gte: current}}`: the document as this
  /// object was loaded, at the current schema version or a newer one (which this model
  /// reads as it is).
  static Document current_version_filter(const Document& by_id, [[maybe_unused]] std::int64_t loaded_version) {
    Document where = by_id;
    if constexpr (versioned) append_version_guard(where, loaded_version);
    if constexpr (upgrades_on_read) {
      detail::ChildWriter version(where.get_mutable(), schema_version_field);
      detail::check_append(bson_append_int32(version.get(), "$gte", 4, detail::metadata_t<T>::schema.current));
      version.close();
    }
    return where;
  }

  /// `{_id: ...}` of the object, which must be the one it was loaded with.
  Document id_filter_of(const Document& current, const Collection<T>&) const {
    bson_iter_t old_id;
    bson_iter_t new_id;
    if (!bson_iter_init_find(&old_id, saved_.get(), "_id") || !bson_iter_init_find(&new_id, current.get(), "_id"))
      throw UsageError("odm::Tracked::save: the object has no _id");
    Document filter;
    detail::check_append(bson_append_iter(filter.get_mutable(), "_id", 3, &old_id));
    Document new_filter;
    detail::check_append(bson_append_iter(new_filter.get_mutable(), "_id", 3, &new_id));
    if (!(filter == new_filter))
      throw UsageError("odm::Tracked::save: the id changed from " + filter.to_json() + " to " + new_filter.to_json() +
                       "; MongoDB never changes a stored _id (insert a new document instead)");
    return filter;
  }

  /// The version member as loaded (0 without one): unchanged by the program, and not at
  /// its maximum, which no save can increment.
  std::int64_t checked_version([[maybe_unused]] const Document& by_id,
                               [[maybe_unused]] const Collection<T>& collection) const {
    if constexpr (versioned) {
      using Version = member<T, version_at>;
      bson_iter_t stored;
      if (!bson_iter_init_find_w_len(&stored, saved_.get(), Version::stored_name.data(),
                                     static_cast<int>(Version::stored_name.size())))
        throw UsageError("odm::Tracked::save: the version member is missing");
      const std::int64_t loaded = bson_iter_as_int64(&stored);
      if (Version::of(value_) != loaded)
        throw UsageError("odm::Tracked::save: the version member changed from " + std::to_string(loaded) + " to " +
                         std::to_string(Version::of(value_)) + "; saves increment it themselves");
      if (loaded == std::numeric_limits<std::int64_t>::max())
        throw VersionConflict("odm::Tracked::save: the " + which(by_id, collection) + " is at version " +
                                  std::to_string(loaded) +
                                  ", the largest a std::int64_t holds: no save can increment it (MongoDB's $inc "
                                  "refuses to overflow); nothing was written",
                              loaded, loaded);
      return loaded;
    } else {
      return 0;
    }
  }

  /// Throws VersionConflict when the document read again is not at the loaded version.
  static void check_stored_version(const Document& now, std::int64_t loaded_version, const Document& by_id,
                                   const Collection<T>& collection) {
    // A document without the field is at version 0.
    bson_iter_t stored;
    const std::string_view name = member<T, version_at>::stored_name;
    const std::int64_t stored_version =
        bson_iter_init_find_w_len(&stored, now.get(), name.data(), static_cast<int>(name.size()))
            ? bson_iter_as_int64(&stored)
            : 0;
    if (stored_version != loaded_version)
      throw VersionConflict("odm::Tracked::save: the " + which(by_id, collection) + " is at version " +
                                std::to_string(stored_version) + ", but this object was loaded at version " +
                                std::to_string(loaded_version) +
                                ": another write changed it since; nothing was written (reload and retry)",
                            loaded_version, stored_version);
  }

  static std::string which(const Document& by_id, const Collection<T>& collection) {
    return "document with _id " + detail::field_json(by_id, "_id") + " in " + collection.database_name() + "." +
           collection.name();
  }

  /// `$inc` of the version member by 1.
  static void append_increment(Document& update) {
    using Version = member<T, version_at>;
    detail::ChildWriter inc(update.get_mutable(), "$inc");
    detail::check_append(bson_append_int64(inc.get(), Version::stored_name.data(),
                                           static_cast<int>(Version::stored_name.size()), 1));
    inc.close();
  }

  /// `{..., version: loaded}` (`{$in: [0, null]}` for 0: a document written before the
  /// model had a version member has none).
  static void append_version_guard(Document& where, std::int64_t loaded_version) {
    using Version = member<T, version_at>;
    if (loaded_version == 0) {
      detail::ChildWriter in(where.get_mutable(), Version::stored_name);
      detail::ChildWriter values(in.get(), "$in", detail::ChildWriter::Kind::array);
      detail::check_append(bson_append_int64(values.get(), "0", 1, 0));
      detail::check_append(bson_append_null(values.get(), "1", 1));
      values.close();
      in.close();
    } else {
      detail::check_append(bson_append_int64(where.get_mutable(), Version::stored_name.data(),
                                             static_cast<int>(Version::stored_name.size()), loaded_version));
    }
  }

  T value_;
  Document saved_;
  /// The stored document, when Tracked(value, stored) found it at an older schema version
  /// (used by the first save only).
  Document older_;
  bool known_older_ = false;
};

/// Tracks a loaded object: odm::track(orders.get_by_id(id)).
template <document_model T>
Tracked<T> track(T value) {
  return Tracked<T>(std::move(value));
}

/// Loads the document with this id and tracks it as stored (see Tracked(value, stored));
/// the way to track a model with schema versions. Throws odm::NotFound when there is none.
template <document_model T>
Tracked<T> track(const Collection<T>& collection, const typename Collection<T>::id_type& id) {
  std::optional<Document> stored = collection.template find_one<Document>(Filter<T>::raw(detail::id_filter(id)));
  if (!stored)
    throw NotFound("odm::track: no document with _id " + detail::field_json(detail::id_filter(id), "_id") + " in " +
                   collection.database_name() + "." + collection.name());
  T value = from_bson<T>(*stored);
  return Tracked<T>(std::move(value), *stored);
}

}  // namespace odm
