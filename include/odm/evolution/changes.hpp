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
// is last-writer-wins for that path.

#include <odm/bson/convert.hpp>
#include <odm/bson/document.hpp>
#include <odm/driver/collection.hpp>
#include <odm/driver/errors.hpp>
#include <odm/driver/session.hpp>
#include <odm/model/id.hpp>

#include <string>
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

/// An object of the model T and how it was stored when loaded or last saved.
template <document_model T>
class Tracked {
  static_assert(has_id<T>, "odm::Tracked: the model needs an id member (stored as _id): a save finds its document by id");

 public:
  /// Tracks `value` as it is now (as loaded from the database: the changes saved are the
  /// ones made after this).
  explicit Tracked(T value) : value_(std::move(value)), saved_(to_bson(value_)) {}

  T& operator*() noexcept { return value_; }
  const T& operator*() const noexcept { return value_; }
  T* operator->() noexcept { return &value_; }
  const T* operator->() const noexcept { return &value_; }
  T& value() noexcept { return value_; }
  const T& value() const noexcept { return value_; }

  /// The update a save would send now (`{}`: none).
  Document changes() const { return changes_between(saved_, to_bson(value_)); }
  /// Whether the object differs from what was loaded or last saved.
  bool changed() const { return !changes().empty(); }

  /// Sends the changes as one update of the document with this object's id; returns
  /// whether anything was sent. Throws odm::NotFound (nothing written) when the document
  /// is gone, odm::UsageError when the id itself changed.
  bool save(Collection<T>& collection) { return save_in(nullptr, collection); }
  bool save(Session& session, Collection<T>& collection) { return save_in(&session, collection); }

 private:
  bool save_in(Session* session, Collection<T>& collection) {
    Document current = to_bson(value_);
    Document update = changes_between(saved_, current);
    if (update.empty()) return false;
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
    auto where = Filter<T>::raw(filter);
    auto what = Update<T>::raw(std::move(update));
    const auto result = session ? collection.update_one(*session, where, what) : collection.update_one(where, what);
    if (result.matched == 0)
      throw NotFound("odm::Tracked::save: no document with _id " + filter.to_json() + " in " +
                     collection.database_name() + "." + collection.name() +
                     " (deleted since it was loaded); nothing was written");
    saved_ = std::move(current);
    return true;
  }

  T value_;
  Document saved_;
};

/// Tracks a loaded object: odm::track(orders.get_by_id(id)).
template <document_model T>
Tracked<T> track(T value) {
  return Tracked<T>(std::move(value));
}

}  // namespace odm
