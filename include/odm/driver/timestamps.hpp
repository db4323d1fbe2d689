#pragma once
// How writes keep a model's timestamps (odm::created_at, odm::updated_at,
// odm/model/timestamps.hpp).
//
// The time is the client's: std::chrono::system_clock::now(), floored to the millisecond
// MongoDB stores, taken once per call (one insert_many stamps all its documents alike; a
// bulk write's operation is stamped when it is added). The client's, not the server's
// `$currentDate`, because an insert has no server-side clock to call on, and an object
// inserted or saved then holds the same value as its stored document. Servers' and
// clients' clocks can differ: keep clients synchronized (NTP), as with Mongoose.
//
// - An insert (insert_one, insert_many, a bulk insert_one) sets both members, in the object
//   when it is passed mutable (as an id is assigned), else in a copy that is written.
// - An update (typed or raw: update_one, update_many, find_one_and_update, their bulk forms,
//   the Subset operations, odm::Tracked saves) `$set`s updated_at; one that upserts also
//   `$setOnInsert`s created_at. An update that writes a stamp member itself is sent as
//   written for that member (it takes charge of it).
// - A replace (replace_one, find_one_and_replace, a bulk replace_one) sets updated_at and
//   never changes a stored created_at: the replacement's is left out (`$setOnInsert` of now
//   instead, for an upsert that inserts). A model with odm::Extra is replaced by a whole
//   document, which cannot keep a stored value: its created_at is the replacement's own.
// - Rewrites that are not the program's changes (schema upgrades, Migrations) and deletes
//   leave the stamps alone, as does a write with the option keep_timestamps().

#include <odm/bson/document.hpp>
#include <odm/bson/members.hpp>
#include <odm/model/timestamps.hpp>

#include <chrono>
#include <cstddef>
#include <optional>
#include <string_view>
#include <type_traits>

namespace odm::detail {

/// The member of T marked with the option Has (has_created_at_option, has_updated_at_option),
/// or members<T>::size.
template <class T, template <class> class Has>
consteval std::size_t stamp_index() {
  constexpr std::size_t count = [] {
    std::size_t n = 0;
    members<T>::for_each([&](auto member) { n += Has<std::remove_cvref_t<decltype(decltype(member)::options)>>::value; });
    return n;
  }();
  static_assert(count <= 1,
                "odm::created_at, odm::updated_at: a model has at most one member of each, and names it once");
  constexpr std::size_t at = members<T>::find_if(
      [](auto member) { return Has<std::remove_cvref_t<decltype(decltype(member)::options)>>::value != 0; });
  if constexpr (at < members<T>::size) {
    static_assert(member<T, at>::previous_name.empty(),
                  "odm::created_at, odm::updated_at: a stamp member cannot be renamed in its expand phase "
                  "(odm::renamed_from); rename it with a Migration (odm::rename_field)");
    static_assert(member<T, at>::stored_name != "_id",
                  "odm::created_at, odm::updated_at: the id cannot be a stamp (a stamp changes, an _id never does; an "
                  "upsert would insert under the time instead of the filter's id): stamp another member");
  }
  return at;
}

/// What odm keeps of T's timestamps: each member's index (members<T>::size for none).
template <class T>
struct stamps {
  static constexpr std::size_t created = stamp_index<T, has_created_at_option>();
  static constexpr std::size_t updated = stamp_index<T, has_updated_at_option>();
  static constexpr bool has_created = created < members<T>::size;
  static constexpr bool has_updated = updated < members<T>::size;
  static_assert(!has_created || created != updated,
                "odm::created_at, odm::updated_at: two members, one for each (a member cannot be both)");
};

/// Whether writes of T keep timestamps.
template <class T>
inline constexpr bool has_timestamps = stamps<T>::has_created || stamps<T>::has_updated;

/// The time a write stamps.
using StampTime = std::chrono::sys_time<std::chrono::milliseconds>;
inline StampTime stamp_now() { return std::chrono::floor<std::chrono::milliseconds>(std::chrono::system_clock::now()); }

template <class M>
void assign_stamp(M& member, StampTime now) {
  if constexpr (requires { member.emplace(now); })
    member.emplace(now);
  else
    member = M(now);
}

/// An insert's stamps, in `value`: both members at `now`.
template <class T>
void stamp_inserted(T& value, StampTime now) {
  if constexpr (stamps<T>::has_created) assign_stamp(member<T, stamps<T>::created>::of(value), now);
  if constexpr (stamps<T>::has_updated) assign_stamp(member<T, stamps<T>::updated>::of(value), now);
}
/// A replace's or a save's stamp, in `value`: updated_at at `now`.
template <class T>
void stamp_updated(T& value, StampTime now) {
  if constexpr (stamps<T>::has_updated) assign_stamp(member<T, stamps<T>::updated>::of(value), now);
}

/// A whole document's created_at (odm::Extra, replaced whole): `now` where the object holds
/// none (the epoch, or an empty optional), as a fresh object upserted does.
template <class T>
void stamp_created_if_unset(T& value, StampTime now) {
  if constexpr (stamps<T>::has_created) {
    auto& created = member<T, stamps<T>::created>::of(value);
    if constexpr (requires { created.has_value(); }) {
      if (!created) assign_stamp(created, now);
    } else if (created.time_since_epoch().count() == 0) {
      assign_stamp(created, now);
    }
  }
}

/// `update` (an operator document) with `{updated: now}` in its `$set` and `{created: now}`
/// in its `$setOnInsert` (each left out where its name is empty or the update writes the
/// field itself).
Document with_stamps(const bson_t* update, std::string_view updated, std::string_view created, StampTime now);

/// The stored name of the stamp member at `index` of T (empty for none).
template <class T, std::size_t Index>
constexpr std::string_view stamp_field() {
  if constexpr (Index < members<T>::size)
    return member<T, Index>::stored_name;
  else
    return {};
}

/// Whether `update` (an operator document) writes the field `name`.
bool update_writes(const bson_t* update, std::string_view name);

/// The update a write of T sends (see the top of this file): updated_at set, and for an
/// upsert created_at on insert; unchanged when `keep` (the write's keep_timestamps option).
template <class T>
Document stamping(Document update, bool upsert, bool keep = false) {
  if constexpr (has_timestamps<T>) {
    if (keep) return update;
    constexpr std::string_view updated = stamp_field<T, stamps<T>::updated>();  // empty for none
    constexpr std::string_view created = stamp_field<T, stamps<T>::created>();
    return with_stamps(update.get(), updated, upsert ? created : std::string_view(), stamp_now());
  } else {
    (void)upsert;
    (void)keep;
    return update;
  }
}

}  // namespace odm::detail
