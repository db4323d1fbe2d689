#pragma once
// The holders of typed query pieces. A filter, an update and a sort keep the expression
// they were built from (which operator on which path, combined how); only its values are
// encoded when it is built, each by the codec of its field's type. The whole expression
// is written as BSON in one place, odm/query/query.cpp, where MongoDB's rules for the
// implicit and, `$and`, `$not`, `$nor` and `$elemMatch` live; combining two expressions
// (&&, ||, !, +) combines the expressions and never reads BSON back.
//
// The typed builders (query/path.hpp, filter.hpp, update.hpp, sort.hpp, projection.hpp)
// are the only way user code makes them, except for the explicit raw escape hatches.

#include <odm/bson/document.hpp>
#include <odm/model/direction.hpp>
#include <odm/query/previous_names.hpp>

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace odm {

namespace detail {

/// The builders' way to make a holder from what they built, and to read its expression.
struct QueryAccess {
  template <class Holder, class Built>
  static Holder make(Built built) {
    return Holder(std::move(built));
  }
  template <class Holder>
  static const auto& expression(const Holder& holder) noexcept {
    return holder.expr_;
  }
};

/// The operator of a condition on one path.
enum class ConditionOp : std::uint8_t { eq, ne, lt, lte, gt, gte, in, nin, all, exists, size, regex, elem_match };

struct FilterNode;
/// A filter expression; null is the empty filter `{}`, which matches every document.
using FilterExpr = std::shared_ptr<const FilterNode>;

struct FilterNode {
  enum class Kind : std::uint8_t {
    condition,  ///< `op` on `path`
    all_of,     ///< every child: the implicit and, or `$and`
    any_of,     ///< `$or`
    none_of,    ///< `$nor`
    negation,   ///< not the one child: `$not` where MongoDB takes it, `$nor` elsewhere
    raw,        ///< a filter written by hand: `value`
  };
  Kind kind = Kind::condition;
  ConditionOp op = ConditionOp::eq;
  /// The dotted stored path of a condition; "" for the element itself (elem_match, pull).
  std::string path;
  /// A condition's operand, encoded as one element (its key is the path, so encoding
  /// errors name it); a raw filter's document. Empty for elem_match.
  Document value;
  /// The operands of a logical node; elem_match's condition on the element.
  std::vector<FilterExpr> children;
  /// The levels of nodes from this one down (1 for a condition); at most
  /// max_filter_depth, so that writing and destroying a filter recurse only so deep.
  std::uint32_t depth = 1;
};

/// Deeper than MongoDB's limit of 100 levels of nested documents in any case.
inline constexpr std::uint32_t max_filter_depth = 100;

FilterExpr condition_node(ConditionOp op, std::string path, Document value);
/// `$elemMatch` on `path`. Throws odm::ValueError when MongoDB cannot express
/// `on_element` as an element condition (see write_element_condition).
FilterExpr elem_match_node(std::string path, FilterExpr on_element);
FilterExpr raw_filter_node(Document document);
FilterExpr all_of(const FilterExpr& a, const FilterExpr& b);
FilterExpr any_of(const FilterExpr& a, const FilterExpr& b);
FilterExpr none_of(std::vector<FilterExpr> operands);
FilterExpr negation(const FilterExpr& operand);

/// The filter as MongoDB takes it.
Document write_filter(const FilterExpr& filter);
/// The same, appended to a document being written (a pipeline's `$match` stage).
void append_filter(bson_t* out, const FilterExpr& filter);
/// Appends `key: {from, localField: local_field, foreignField: "_id", as}`: the `$lookup`
/// of the documents a reference holds the ids of. The typed pipeline's stage and the
/// server-side join both write it here.
void append_lookup_by_id(bson_t* out, std::string_view key, std::string_view from, std::string_view local_field,
                         std::string_view as);
/// Appends `filter` as the condition `$elemMatch` and `$pull` take: conditions on the
/// element itself in the operator form `{$gte: 80, $lt: 85}`, conditions on the fields of
/// a document element as a filter. Throws odm::ValueError for what that cannot express.
void write_element_condition(bson_t* out, const FilterNode& filter);

/// `$each` with the modifiers of `$push` (or plain `$addToSet`).
struct EachModifiers {
  std::optional<std::int32_t> position;
  std::optional<std::int32_t> slice;
  /// `$sort` of the elements themselves.
  std::optional<Direction> sort_direction;
  /// `$sort` of document elements by their fields, in order (used when not empty).
  std::vector<std::pair<std::string, Direction>> sort_keys;
};

/// One operator on one path of an update.
struct UpdateEntry {
  UpdateEntry(std::string op, std::string path, Document value, FilterExpr condition,
              std::optional<EachModifiers> each);
  // Copied, moved and destroyed in the library (odm/query/query.cpp): compiled once, not in every file.
  UpdateEntry(const UpdateEntry&);
  UpdateEntry(UpdateEntry&&) noexcept;
  UpdateEntry& operator=(const UpdateEntry&);
  UpdateEntry& operator=(UpdateEntry&&) noexcept;
  ~UpdateEntry();

  std::string op;    ///< "$set", "$inc", ...
  std::string path;  ///< the dotted stored path
  /// The operand encoded as one element (for `$each`, the array of elements).
  Document value;
  /// `$pull` of the elements meeting a condition, written as elem_match writes it.
  FilterExpr condition;
  /// `{$each: value, ...modifiers}` instead of the value.
  std::optional<EachModifiers> each;
};

/// An update expression: its operators on paths, or a document written by hand that
/// is not made of operators on paths (which cannot be combined).
struct UpdateExpr {
  UpdateExpr() = default;
  UpdateExpr(std::vector<UpdateEntry> entries, std::optional<Document> opaque);
  // Copied, moved and destroyed in the library (odm/query/query.cpp): compiled once, not in every file.
  UpdateExpr(const UpdateExpr&);
  UpdateExpr(UpdateExpr&&) noexcept;
  UpdateExpr& operator=(const UpdateExpr&);
  UpdateExpr& operator=(UpdateExpr&&) noexcept;
  ~UpdateExpr();

  std::vector<UpdateEntry> entries;
  std::optional<Document> opaque;

  /// A hand-written update, split into its operators and paths when it has that shape.
  static UpdateExpr raw(Document document);
  /// Both: throws odm::ValueError when they touch the same path, or one path and a path
  /// inside it (MongoDB would refuse the whole update with a conflict).
  static UpdateExpr combine(const UpdateExpr& a, const UpdateExpr& b);
  /// `{$op: {path: value, ...}, ...}`, each operator once, in the order it first appears.
  Document write() const;
  /// The update as a write sends it. Throws odm::ValueError when it has no operator, or a
  /// top-level key that is not one: MongoDB reads such a document (`{}` included) as a
  /// replacement, which would erase every field but `_id`.
  Document write_to_send() const;
};

/// Throws odm::ValueError unless every top-level key of `update` is an update operator and
/// there is at least one (what UpdateExpr::write_to_send checks of a hand-written update).
void check_update_operators(const Document& update);

/// `{$pull: {path: condition}}`: removes the elements meeting a condition on the element.
/// Throws odm::ValueError as elem_match_node does.
UpdateExpr pull_where(std::string path, FilterExpr on_element);

/// A sort: its keys in order, or a document written by hand.
struct SortExpr {
  SortExpr() = default;
  SortExpr(std::vector<std::pair<std::string, Direction>> keys, std::optional<Document> opaque);
  // Copied, moved and destroyed in the library (odm/query/query.cpp): compiled once, not in every file.
  SortExpr(const SortExpr&);
  SortExpr(SortExpr&&) noexcept;
  SortExpr& operator=(const SortExpr&);
  SortExpr& operator=(SortExpr&&) noexcept;
  ~SortExpr();

  std::vector<std::pair<std::string, Direction>> keys;
  std::optional<Document> opaque;

  Document write() const;
  /// The same, appended to a document being written (a pipeline's `$sort` stage).
  void write_into(bson_t* out) const;
  /// Whether it names no key (MongoDB refuses such a `$sort` stage).
  bool empty() const noexcept { return opaque ? opaque->empty() : keys.empty(); }
};

/// Appends `{key: direction, ...}` in order: a sort, or the `$sort` of a `$push`.
void append_sort_keys(bson_t* out, const std::vector<std::pair<std::string, Direction>>& keys);
/// Adds one key to a sort or to the `$sort` of a `$push`; throws odm::ValueError when the
/// field is already there (a document with a repeated key is not a sort MongoDB can read).
void add_sort_key(std::vector<std::pair<std::string, Direction>>& keys, std::string path, Direction direction);

}  // namespace detail

/// A query filter over documents of T, e.g. `{_id: 123456789, available: {$gt: 0}}`.
template <class T>
class Filter {
 public:
  /// Matches every document: `{}`.
  Filter() = default;
  /// The escape hatch: a filter written as BSON by hand. Nothing in it is checked.
  static Filter raw(Document document) { return Filter(detail::raw_filter_node(std::move(document))); }
  /// The filter as BSON, written from the expression (a typed condition on a member
  /// renamed in its expand phase addresses both names: odm/query/previous_names.hpp).
  Document bson() const {
    if constexpr (reflectable<T>) {
      if (!expr_ || expr_->kind != detail::FilterNode::Kind::raw)
        return detail::filter_for_model<T>(detail::write_filter(expr_));
    }
    return detail::write_filter(expr_);
  }

 private:
  friend struct detail::QueryAccess;
  explicit Filter(detail::FilterExpr expr) : expr_(std::move(expr)) {}
  detail::FilterExpr expr_;
};

/// An update over documents of T, e.g. `{$inc: {available: -1}, $push: {checkout: {...}}}`.
template <class T>
class Update {
 public:
  Update() = default;
  static Update raw(Document document) { return Update(detail::UpdateExpr::raw(std::move(document))); }
  /// The update as BSON, written from the expression (a path of a member renamed in its
  /// expand phase is written under both names: odm/query/previous_names.hpp).
  Document bson() const {
    if constexpr (reflectable<T>)
      return detail::update_for_model<T>(expr_.write());
    else
      return expr_.write();
  }

 protected:
  friend struct detail::QueryAccess;
  explicit Update(detail::UpdateExpr expr) : expr_(std::move(expr)) {}
  detail::UpdateExpr expr_;
};

namespace detail {
/// The update as update_one, update_many, find_one_and_update and bulk writes send it
/// (see UpdateExpr::write_to_send).
template <class T>
Document update_to_send(const Update<T>& update) {
  if constexpr (reflectable<T>)
    return update_for_model<T>(QueryAccess::expression(update).write_to_send());
  else
    return QueryAccess::expression(update).write_to_send();
}
/// The same, for an update that may upsert with `filter`: MongoDB seeds the inserted
/// document from the filter's equality conditions, but a condition on a member renamed in
/// its expand phase is sent inside `$or` (previous_names.hpp), from which it seeds nothing;
/// so its value is added as `$setOnInsert` under both names.
template <class T>
Document update_to_send(const Update<T>& update, const Filter<T>& filter, bool upsert) {
  if constexpr (reflectable<T>) {
    if constexpr (written_previous_names<T>.size() > 0) {
      const FilterExpr& expr = QueryAccess::expression(filter);
      if (upsert && expr && expr->kind != FilterNode::Kind::raw)
        return seed_previous_names(update_to_send(update).get(), write_filter(expr).get(),
                                   written_previous_names<T>.data(), written_previous_names<T>.size());
    }
  }
  return update_to_send(update);
}
}  // namespace detail

/// A sort specification over documents of T, e.g. `{published_date: -1}`.
template <class T>
class Sort {
 public:
  Sort() = default;
  static Sort raw(Document document) { return Sort(detail::SortExpr{{}, std::move(document)}); }
  /// The sort as BSON, written from its keys.
  Document bson() const { return expr_.write(); }

 private:
  friend struct detail::QueryAccess;
  explicit Sort(detail::SortExpr expr) : expr_(std::move(expr)) {}
  detail::SortExpr expr_;
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
