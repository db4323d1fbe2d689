#pragma once
// Combining typed updates: `a + b` merges the operators of both into one update
// document ({$inc: {available: -1}, $push: {checkout: {...}}}). Two operators on the same
// path, or on a path and a path inside it (`address` and `address.city`), throw
// odm::ValueError when the update is built: MongoDB would refuse the whole update with a
// conflict error, and the client-side message names both operators.
//
// The single-field operators are built from paths: see query/path.hpp
// (odm::field(&Book::available).inc(-1), odm::field(&Book::checkout).push(...)).

#include <odm/bson/codec.hpp>
#include <odm/bson/scalars.hpp>
#include <odm/bson/containers.hpp>
#include <odm/bson/document.hpp>
#include <odm/error.hpp>
#include <odm/query/expression.hpp>
#include <odm/query/value.hpp>

#include <algorithm>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace odm {
namespace detail {

/// {op: {path: <value appended by `append(bson_t*, key)`>}}
template <class Append>
Document single_update(std::string_view op, std::string_view path, Append&& append) {
  Document out;
  bson_t fields;
  check_append(bson_append_document_begin(out.get_mutable(), op.data(), key_length(op), &fields));
  append(&fields, path);
  check_append(bson_append_document_end(out.get_mutable(), &fields));
  return out;
}

struct UpdateEntry {
  std::string op;
  std::string path;
};

std::vector<UpdateEntry> update_entries(const Document& update);

/// `a` and `b` are the same path, or one lies inside the other.
bool paths_conflict(std::string_view a, std::string_view b);

Document merge_updates(const Document& a, const Document& b);

}  // namespace detail

/// Both updates in one: their operators merged. Throws odm::ValueError when the two
/// touch the same path.
template <class T>
Update<T> operator+(const Update<T>& a, const Update<T>& b) {
  return detail::QueryAccess::make<Update<T>>(detail::merge_updates(a.bson(), b.bson()));
}

template <class T>
Update<T>& operator+=(Update<T>& a, const Update<T>& b) {
  a = a + b;
  return a;
}

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
  /// `values` is a BSON array (keys "0", "1", ...) of the elements to add.
  PushEach(std::string path, Document values) : path_(std::move(path)), values_(std::move(values)) { rebuild(); }

  /// `$position`: insert at this index (negative: counted from the end).
  PushEach position(std::int32_t index) const {
    PushEach copy = *this;
    copy.position_ = index;
    copy.rebuild();
    return copy;
  }
  /// `$slice`: keep the first n elements after the push (negative: the last -n).
  PushEach slice(std::int32_t count) const {
    PushEach copy = *this;
    copy.slice_ = count;
    copy.rebuild();
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
    Document spec;
    for (const SortKey<D>* k : {&key, &more...}) {
      const std::string name = k->path.dotted(true);
      detail::check_append(bson_append_int32(spec.get_mutable(), name.c_str(), detail::key_length(name),
                                             static_cast<std::int32_t>(k->direction)));
    }
    copy.sort_ = std::move(spec);
    copy.sort_direction_.reset();
    copy.rebuild();
    return copy;
  }
  /// `$sort` of the elements themselves: .sort(odm::descending).
  PushEach sort(Direction direction) const {
    PushEach copy = *this;
    copy.sort_.reset();
    copy.sort_direction_ = direction;
    copy.rebuild();
    return copy;
  }

 private:
  void rebuild() {
    Document out;
    bson_t fields;
    bson_t modifiers;
    bson_t* root = out.get_mutable();
    detail::check_append(bson_append_document_begin(root, "$push", 5, &fields));
    detail::check_append(bson_append_document_begin(&fields, path_.c_str(), detail::key_length(path_), &modifiers));
    detail::check_append(bson_append_array(&modifiers, "$each", 5, values_.get()));
    if (position_) detail::check_append(bson_append_int32(&modifiers, "$position", 9, *position_));
    if (sort_) detail::check_append(bson_append_document(&modifiers, "$sort", 5, sort_->get()));
    if (sort_direction_)
      detail::check_append(bson_append_int32(&modifiers, "$sort", 5, static_cast<std::int32_t>(*sort_direction_)));
    if (slice_) detail::check_append(bson_append_int32(&modifiers, "$slice", 6, *slice_));
    detail::check_append(bson_append_document_end(&fields, &modifiers));
    detail::check_append(bson_append_document_end(root, &fields));
    this->document_ = std::move(out);
  }

  std::string path_;
  Document values_;
  std::optional<std::int32_t> position_;
  std::optional<std::int32_t> slice_;
  std::optional<Document> sort_;
  std::optional<Direction> sort_direction_;
};

}  // namespace odm
