#pragma once
// Combining typed updates: `a + b` merges the operators of both into one update
// document ({$inc: {available: -1}, $push: {checkout: {...}}}). Two operators on the same
// path, or on a path and a path inside it (`address` and `address.city`), throw
// odm::ValueError when the update is built: MongoDB would refuse the whole update with a
// conflict error, and the client-side message names both operators.
//
// The single-field operators are built from paths: see query/path.hpp
// (odm::field(&Book::available).inc(-1), odm::field(&Book::checkout).push(...)).

#include <odm/error.hpp>
#include <odm/query/expression.hpp>
#include <odm/query/value.hpp>

#include <cstdint>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>

namespace odm {
namespace detail {

/// `{op: {path: value}}`, the value appended by `append(bson_t*, std::string_view key)`
/// under the path (so that encoding errors name it).
template <class Append>
UpdateExpr single_update(std::string_view op, std::string path, Append&& append) {
  Document value;
  append(value.get_mutable(), std::string_view(path));
  UpdateExpr expr;
  expr.entries.push_back(UpdateEntry{std::string(op), std::move(path), std::move(value), nullptr, std::nullopt});
  return expr;
}

/// `a` and `b` are the same path, or one lies inside the other.
bool paths_conflict(std::string_view a, std::string_view b);

}  // namespace detail

/// Both updates in one: their operators merged. Throws odm::ValueError when the two
/// touch the same path.
template <class T>
Update<T> operator+(const Update<T>& a, const Update<T>& b) {
  using detail::QueryAccess;
  return QueryAccess::make<Update<T>>(
      detail::UpdateExpr::combine(QueryAccess::expression(a), QueryAccess::expression(b)));
}

template <class T>
Update<T>& operator+=(Update<T>& a, const Update<T>& b) {
  a = a + b;
  return a;
}

/// `{$unset: {path: ""}}`, as Path::unset() makes it: checked against the member table
/// while the path is still a constant, then used as the Update<T> it converts to.
template <class T>
class Unset {
 public:
  /// The update: `{$unset: {path: ""}}`.
  operator Update<T>() const {  // NOLINT(google-explicit-constructor): an unset is an update
    return detail::QueryAccess::make<Update<T>>(
        detail::single_update("$unset", names_.dotted(), [](bson_t* doc, std::string_view key) {
          detail::check_append(bson_append_utf8(doc, key.data(), detail::key_length(key), "", 0));
        }));
  }
  Document bson() const { return Update<T>(*this).bson(); }

  friend Update<T> operator+(const Unset& a, const Update<T>& b) { return Update<T>(a) + b; }
  friend Update<T> operator+(const Update<T>& a, const Unset& b) { return a + Update<T>(b); }
  friend Update<T> operator+(const Unset& a, const Unset& b) { return Update<T>(a) + Update<T>(b); }
  friend Update<T>& operator+=(Update<T>& a, const Unset& b) { return a += Update<T>(b); }

 private:
  template <class, class, bool, bool>
  friend class Path;
  constexpr explicit Unset(detail::PathNames names) : names_(names) {}
  detail::PathNames names_;
};

/// `$push` (or `$addToSet`) of several elements with `$each`, and for `$push` the
/// modifiers `$position`, `$sort` and `$slice`:
///
///   odm::field(&Product::reviews).push_each(latest)
///       .sort(odm::desc(&Review::published_date)).slice(10)
///   -> {$push: {reviews: {$each: [...], $sort: {published_date: -1}, $slice: 10}}}
///
/// Made by Path::push_each; E is the array's element type.
template <class T, class E>
class PushEach : public Update<T> {
 public:
  /// `$position`: insert at this index (negative: counted from the end).
  PushEach position(std::int32_t index) const {
    PushEach copy = *this;
    copy.modifiers().position = index;
    return copy;
  }
  /// `$slice`: keep the first n elements after the push (negative: the last -n).
  PushEach slice(std::int32_t count) const {
    PushEach copy = *this;
    copy.modifiers().slice = count;
    return copy;
  }
  /// `$sort` of document elements by their fields: .sort(odm::desc(&Review::published_date)).
  template <class D, class... More>
    requires(std::is_same_v<SortKey<D>, More> && ...)
  PushEach sort(const SortKey<D>& key, const More&... more) const {
    static_assert(detail::is_document<E>, "odm: sorting by fields needs an array of documents; sort an array of "
                                          "values with .sort(odm::ascending) or .sort(odm::descending)");
    static_assert(std::is_same_v<D, detail::document_of_t<E>>,
                  "odm: the sort keys of $push name fields of a different struct than the array's elements");
    PushEach copy = *this;
    auto& modifiers = copy.modifiers();
    modifiers.sort_keys.clear();
    for (const SortKey<D>* k : {&key, &more...})
      detail::add_sort_key(modifiers.sort_keys, k->path.dotted(true), k->direction);
    modifiers.sort_direction.reset();
    return copy;
  }
  /// `$sort` of the elements themselves: .sort(odm::descending).
  PushEach sort(Direction direction) const {
    PushEach copy = *this;
    copy.modifiers().sort_keys.clear();
    copy.modifiers().sort_direction = direction;
    return copy;
  }

 private:
  template <class, class, bool, bool>
  friend class Path;
  /// `values` is a BSON array (keys "0", "1", ...) of the elements to add.
  PushEach(std::string path, Document values)
      : Update<T>(detail::UpdateExpr{
            {detail::UpdateEntry{"$push", std::move(path), std::move(values), nullptr, detail::EachModifiers{}}},
            std::nullopt}) {}
  detail::EachModifiers& modifiers() { return *this->expr_.entries.front().each; }
};

}  // namespace odm
