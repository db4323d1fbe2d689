#pragma once
// How odm's layers reach what its public types keep private. A public type keeps the
// members only odm uses (a collection's core, a session's state, a reference's raw id)
// private and names `friend struct odm::detail::Access;`; the layers above call them
// through Access's forwarders, so no internal type appears in a public signature and
// user code has no way in but through odm::detail.

#include <utility>

namespace odm::detail {

struct Access {
  /// A T made by one of its private constructors (Collection from its core, Cursor from
  /// a cursor's core).
  template <class T, class... Args>
  static T make(Args&&... args) {
    return T(std::forward<Args>(args)...);
  }
  /// A Session's state (detail::SessionState*).
  template <class Session>
  static auto* session_state(const Session& session) noexcept {
    return session.state();
  }
  /// The client a cursor's results came from (null for a cursor made elsewhere).
  template <class Cursor>
  static const auto& client_state(const Cursor& cursor) noexcept {
    return cursor.client_state();
  }
  /// A collection's core (detail::CollectionCore), for code that needs no model.
  template <class Collection>
  static const auto& core(const Collection& collection) noexcept {
    return collection.core();
  }
  /// The id a Ref or ParentRef holds (detail::ReferenceId), or the ids of a RefMany.
  template <class Reference>
  static const auto& raw_id(const Reference& reference) noexcept {
    return reference.raw_id();
  }
  template <class References>
  static const auto& raw_ids(const References& references) noexcept {
    return references.raw_ids();
  }
  /// Gives a reference the target(s) a join found (none: dangling): a
  /// std::shared_ptr<const T> for a Ref or ParentRef, one per id for a RefMany.
  template <class Reference>
  static void resolve(Reference& reference, typename Reference::resolved_targets targets) {
    reference.resolve(std::move(targets));
  }
  /// Reads libbson's BID representation into a Decimal: nullptr, or the name of the value
  /// a Decimal cannot hold.
  template <class Decimal, class Bid>
  static const char* decode_bid(const Bid& bid, Decimal& out) noexcept {
    return Decimal::decode_bid(bid, out);
  }
  /// Assigns a new ObjectId to the value's id when it is an unset ObjectId.
  template <class Collection, class T>
  static void assign_id_if_unset(T& value) {
    Collection::assign_id_if_unset(value);
  }
};

}  // namespace odm::detail
