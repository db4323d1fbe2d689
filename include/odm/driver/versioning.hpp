#pragma once
// How writes move a model's version member (odm::version, odm/model/version.hpp).
//
// Every write odm sends to documents of a versioned model moves the version by one, in the
// same command as the write: a typed or raw update (update_one, update_many,
// find_one_and_update, their bulk forms, upserts) gets `$inc: {version: 1}` merged into it;
// a replace sets every other field and increments the stored version (the replacement's
// own version member is not written); the rewrites of migrations and schema upgrades, and
// the Subset operations, are updates too. An odm::Tracked save, which matches the version
// it loaded, therefore misses after any of them instead of overwriting what they wrote.
//
// An upsert that inserts starts the document at 1 (one above a version its filter names).
// Two ways to keep the version as it is: an update that itself writes the version member
// (`field(&Item::version).set(7)`, Tracked's own `$inc`) is sent as written (it takes
// charge of the counter: one that does not raise it lets a save pass), and the
// option keep_version() (UpdateOptions, ReplaceOptions, FindOneAndUpdateOptions,
// FindOneAndReplaceOptions) sends the write unchanged, a replace with the replacement's
// version. A `$setOnInsert` of the version member alone is refused (MongoDB refuses it
// beside the `$inc`), and so is a replace of a model with both odm::Extra and a version
// member without keep_version (it is sent as a whole document, which cannot increment a
// stored value).

#include <odm/bson/document.hpp>
#include <odm/bson/members.hpp>
#include <odm/model/version.hpp>

#include <cstddef>
#include <string_view>
#include <type_traits>

namespace odm::detail {

/// The member of T marked odm::version, or members<T>::size.
template <class T>
consteval std::size_t version_index() {
  constexpr std::size_t count = [] {
    std::size_t n = 0;
    members<T>::for_each([&](auto member) {
      if (has_version_option<std::remove_cvref_t<decltype(decltype(member)::options)>>::value) ++n;
    });
    return n;
  }();
  static_assert(count <= 1, "odm::version: a model has one version member");
  return members<T>::find_if([](auto member) {
    return has_version_option<std::remove_cvref_t<decltype(decltype(member)::options)>>::value;
  });
}

/// Whether T has a version member.
template <class T>
inline constexpr bool is_versioned = [] {
  if constexpr (reflectable<T>) {
    constexpr std::size_t at = version_index<T>();
    if constexpr (at < members<T>::size) {
      // Moved under one name, read under either: a save or a write of one release would
      // not see the other's (and MongoDB cannot $inc two names as one counter).
      static_assert(member<T, at>::previous_name.empty(),
                    "odm::version: the version member cannot be renamed in its expand phase (odm::renamed_from): "
                    "each release would count writes under its own name and miss the other's; rename it with a "
                    "Migration (odm::rename_field) while no tracked object is in use, or keep its stored name");
      return true;
    } else {
      return false;
    }
  } else {
    return false;
  }
}();

/// The stored name of T's version member.
template <class T>
inline constexpr std::string_view version_field = member<T, version_index<T>()>::stored_name;

/// `update` (an operator document) with `$inc: {name: 1}` (an int64) merged into its own
/// `$inc`, if it has one.
Document with_version_moved(const bson_t* update, std::string_view name);

/// Refuses an update whose only write of the version member is `$setOnInsert`; returns
/// whether the update writes the member itself. `operation`: what the user called.
bool writes_version_itself(const bson_t* update, std::string_view name, const char* operation);

/// The update a write of T sends (see the top of this file): with the version moved,
/// unless `keep` or the update writes the version itself.
template <class T>
Document moving_version(Document update, bool keep, const char* operation) {
  if constexpr (is_versioned<T>) {
    if (!keep && !writes_version_itself(update.get(), version_field<T>, operation))
      return with_version_moved(update.get(), version_field<T>);
  }
  return update;
}

}  // namespace odm::detail
