#pragma once
// The holders of typed query pieces. Each one owns the BSON it stands for; the typed
// builders (query/filter.hpp, update.hpp, sort.hpp, projection.hpp) are the only way
// user code makes them, except for the explicit raw escape hatches.

#include <odm/bson/document.hpp>

#include <utility>

namespace odm {

namespace detail {
/// The builders' way to wrap a document they made in a holder.
struct QueryAccess {
  template <class Holder>
  static Holder make(Document document) {
    return Holder(std::move(document));
  }
};
}  // namespace detail

/// A query filter over documents of T, e.g. `{_id: 123456789, available: {$gt: 0}}`.
template <class T>
class Filter {
 public:
  /// Matches every document: `{}`.
  Filter() = default;
  /// The escape hatch: a filter written as BSON by hand. Nothing in it is checked.
  static Filter raw(Document document) { return Filter(std::move(document)); }
  const Document& bson() const noexcept { return document_; }

 protected:
  friend struct detail::QueryAccess;
  explicit Filter(Document document) : document_(std::move(document)) {}
  Document document_;
};

/// An update over documents of T, e.g. `{$inc: {available: -1}, $push: {checkout: {...}}}`.
template <class T>
class Update {
 public:
  Update() = default;
  static Update raw(Document document) { return Update(std::move(document)); }
  const Document& bson() const noexcept { return document_; }

 protected:
  friend struct detail::QueryAccess;
  explicit Update(Document document) : document_(std::move(document)) {}
  Document document_;
};

/// A sort specification over documents of T, e.g. `{published_date: -1}`.
template <class T>
class Sort {
 public:
  Sort() = default;
  static Sort raw(Document document) { return Sort(std::move(document)); }
  const Document& bson() const noexcept { return document_; }

 protected:
  friend struct detail::QueryAccess;
  explicit Sort(Document document) : document_(std::move(document)) {}
  Document document_;
};

/// A projection of documents of T that reads them back as `Result`, e.g.
/// `{title: 1, year: 1, _id: 0}` for a summary struct with `title` and `year`.
/// Made by odm::projection<T, Result>() (query/projection.hpp).
template <class T, class Result = T>
class Projection {
 public:
  using model_type = T;
  using result_type = Result;

  /// `{}`: every field.
  Projection() = default;
  static Projection raw(Document document) { return Projection(std::move(document)); }
  const Document& bson() const noexcept { return document_; }

 protected:
  friend struct detail::QueryAccess;
  explicit Projection(Document document) : document_(std::move(document)) {}
  Document document_;
};

}  // namespace odm
