#pragma once
// Typed paths: the fields of a model, named by member pointers, with the operators of
// MongoDB's filters and updates.
//
//   odm::field(&Book::available)                     "available"   (an int32 field)
//   odm::field(&Book::id)                            "_id"
//   odm::field(&Patron::addresses) / &Address::city  "addresses.city"
//
// A step `/` enters the struct a field holds, through std::vector (an array of
// documents), odm::Embedded and std::optional; the names are the stored names of
// odm::stored_names (renames apply; `id` is `_id` only at the top level). A misspelled
// member does not compile, a member of another struct after `/` does not compile, and a
// value of the wrong type does not compile.
//
// Member pointers become names at compile time, so field() and `/` are consteval: call
// them with the member pointers written out, and keep a path in a `constexpr` variable
// if you want to name it (`constexpr auto city = odm::field(&Patron::addresses) /
// &Address::city;`).
//
// Filters (each makes an odm::Filter<T>; combine them with &&, || and !):
//   field(&Book::available) > 0                {available: {$gt: 0}}
//   == != < <= > >=                            {f: v}, $ne, $lt, $lte, $gt, $gte
//   field(&Volume::topics) == "voyage"         {topics: "voyage"} (an array field compared
//                                              with one element matches any element)
//   .in({1, 2}) / .nin({1, 2})                 {f: {$in: [1, 2]}} / $nin
//   .exists() / .exists(false)                 {f: {$exists: true}}
//   .all({"a", "b"})                           {f: {$all: ["a", "b"]}}    (arrays)
//   .size(3)                                   {f: {$size: 3}}            (arrays)
//   .regex("^Moby", "i")                       {f: /^Moby/i}              (strings)
//   .elem_match([](auto a) { return a / &Address::city == "Paris"; })
//                                              {f: {$elemMatch: {city: "Paris"}}}
//   .elem_match([](auto s) { return s >= 80 && s < 85; })
//                                              {f: {$elemMatch: {$gte: 80, $lt: 85}}}
//   The element passed to the function must be taken by value (`auto a`).
//
// Updates (each makes an odm::Update<T>; combine them with +):
//   .set(v)  .unset()  .inc(n)  .mul(n)  .min(v)  .max(v)  .set_on_insert(v)
//   .push(e)  .push_each({...}).position(i).sort(...).slice(n)
//   .add_to_set(e)  .add_to_set_each({...})  .pull(e)  .pull(condition)  .pull_all({...})
//   .pop_first()  .pop_last()
//   Fields inside array elements are updated through a positional step:
//   (odm::field(&Book::checkout).matched() / &Checkout::date).set(t)  {$set: {"checkout.$.date": t}}
//   odm::field(&Movie::scores).all_elements().inc(1)                  {$inc: {"scores.$[]": 1}}
//   A positional path is for updates only: in a filter or a sort it does not compile.

#include <odm/bson/codec.hpp>
#include <odm/bson/document.hpp>
#include <odm/error.hpp>
#include <odm/model/model.hpp>
#include <odm/query/expression.hpp>
#include <odm/query/filter.hpp>
#include <odm/query/update.hpp>
#include <odm/query/value.hpp>
#include <odm/reflect/members.hpp>

#include <cstdint>
#include <functional>
#include <initializer_list>
#include <ranges>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>

namespace odm {

template <class Scope, class Value, bool ThroughArray = false, bool Positional = false>
class Path {
 public:
  /// The document type the path starts from (or Element<E> in an element condition).
  using scope_type = Scope;
  /// The C++ type of the field the path names.
  using value_type = Value;
  /// Whether an array lies on the way (`addresses.city`): such a path matches in any
  /// element, and cannot be updated without a positional operator.
  static constexpr bool through_array = ThroughArray;
  /// Whether the path holds a positional operator ($ or $[]): an update-only path.
  static constexpr bool positional = Positional;

  /// The empty path: the value in scope itself (an array element in an element condition).
  constexpr Path() = default;
  constexpr explicit Path(detail::PathNames names) : names_(names) {}

  /// The dotted stored name: "addresses.city".
  std::string name() const { return names_.dotted(); }
  constexpr const detail::PathNames& names() const noexcept { return names_; }

  /// The field `member` of the struct this field holds.
  template <class M, class C>
  consteval Path<Scope, detail::query_view_t<M>, ThroughArray || detail::is_array_field<Value>, Positional> operator/(
      M C::*member) const {
    static_assert(detail::is_document<Value>,
                  "odm: '/' steps into an embedded document, but this field does not hold a struct");
    static_assert(std::is_same_v<C, detail::document_of_t<Value>>,
                  "odm: the member after '/' belongs to a different struct than the one this field holds");
    detail::PathNames next = names_;
    next.push(stored_names<C, false>[detail::member_index(member)]);
    next.may_be_unset = detail::absent_decodes<C>[detail::member_index(member)];
    next.through_optional = names_.through_optional || detail::is_optional<Value>;
    if (next.depth == 1) next.first_nested = next.names[0];
    return Path<Scope, detail::query_view_t<M>, ThroughArray || detail::is_array_field<Value>, Positional>(next);
  }

  /// `checkout.$`: in an update, the first element the update's filter matched (MongoDB's
  /// positional operator): odm::field(&Book::checkout).matched() / &Checkout::date.
  consteval Path<Scope, detail::element_t<Value>, ThroughArray, true> matched() const {
    static_assert(detail::is_array_field<Value>, "odm: matched() ($) names an element of an array field");
    static_assert(!Positional, "odm: MongoDB allows one positional $ per path");
    return positional_step("$");
  }
  /// `scores.$[]`: in an update, every element of the array (MongoDB's all-positional
  /// operator): odm::field(&Movie::scores).all_elements().inc(1).
  consteval Path<Scope, detail::element_t<Value>, ThroughArray, true> all_elements() const {
    static_assert(detail::is_array_field<Value>, "odm: all_elements() ($[]) names the elements of an array field");
    return positional_step("$[]");
  }

  // ---- filters ---------------------------------------------------------------------

  /// {f: v}; for an array field, v may also be one element.
  template <class X>
  Filter<Scope> operator==(const X& value) const {
    check_comparable<X>();
    return condition(detail::ConditionOp::eq,
                     [&](bson_t* doc, std::string_view key) { detail::append_comparable<Value>(doc, key, value); });
  }
  template <class X>
  Filter<Scope> operator!=(const X& value) const {
    return compare(detail::ConditionOp::ne, value);
  }
  template <class X>
  Filter<Scope> operator<(const X& value) const {
    return compare(detail::ConditionOp::lt, value);
  }
  template <class X>
  Filter<Scope> operator<=(const X& value) const {
    return compare(detail::ConditionOp::lte, value);
  }
  template <class X>
  Filter<Scope> operator>(const X& value) const {
    return compare(detail::ConditionOp::gt, value);
  }
  template <class X>
  Filter<Scope> operator>=(const X& value) const {
    return compare(detail::ConditionOp::gte, value);
  }

  /// {f: {$in: [...]}}: the field (or, for an array, an element) equals one of them.
  Filter<Scope> in(std::initializer_list<detail::query_value_t<Value>> values) const {
    return listed(detail::ConditionOp::in, values);
  }
  template <std::ranges::input_range R>
  Filter<Scope> in(const R& values) const {
    return listed(detail::ConditionOp::in, values);
  }
  /// {f: {$nin: [...]}}
  Filter<Scope> nin(std::initializer_list<detail::query_value_t<Value>> values) const {
    return listed(detail::ConditionOp::nin, values);
  }
  template <std::ranges::input_range R>
  Filter<Scope> nin(const R& values) const {
    return listed(detail::ConditionOp::nin, values);
  }

  /// {f: {$exists: true}} (or false).
  Filter<Scope> exists(bool present = true) const {
    return condition(detail::ConditionOp::exists, [&](bson_t* doc, std::string_view key) {
      detail::check_append(bson_append_bool(doc, key.data(), detail::key_length(key), present));
    });
  }

  /// {f: {$all: [...]}}: the array holds every one of them.
  Filter<Scope> all(std::initializer_list<detail::query_value_t<Value>> values) const {
    check_array<Value>();
    return listed(detail::ConditionOp::all, values);
  }
  template <std::ranges::input_range R>
  Filter<Scope> all(const R& values) const {
    check_array<Value>();
    return listed(detail::ConditionOp::all, values);
  }

  /// {f: {$size: n}}: the array has exactly n elements.
  Filter<Scope> size(std::int32_t count) const {
    check_array<Value>();
    return condition(detail::ConditionOp::size, [&](bson_t* doc, std::string_view key) {
      detail::check_append(bson_append_int32(doc, key.data(), detail::key_length(key), count));
    });
  }

  /// {f: /pattern/options}, a BSON regular expression; options from "ilmsux".
  /// Throws odm::ValueError for other options or a pattern containing NUL.
  Filter<Scope> regex(std::string_view pattern, std::string_view options = {}) const {
    using S = detail::strip_optional_t<Value>;
    static_assert(std::is_same_v<S, std::string> || std::is_same_v<detail::query_value_t<Value>, std::string> ||
                      std::is_same_v<detail::strip_optional_t<detail::query_value_t<Value>>, std::string>,
                  "odm: regex applies only to string fields (or arrays of strings)");
    if (pattern.find('\0') != std::string_view::npos)
      throw ValueError("a regular expression cannot contain a NUL character");
    if (!detail::is_valid_utf8(pattern.data(), pattern.size()))
      throw ValueError("a regular expression must be valid UTF-8");
    for (const char c : options)
      if (std::string_view("ilmsux").find(c) == std::string_view::npos)
        throw ValueError("regular expression option '" + std::string(1, c) +
                         "' is not one of i, l, m, s, u, x");
    const std::string options_text(options);
    return condition(detail::ConditionOp::regex, [&](bson_t* doc, std::string_view key) {
      detail::check_append(bson_append_regex_w_len(doc, key.data(), detail::key_length(key), pattern.data(),
                                                   static_cast<int>(pattern.size()), options_text.c_str()));
    });
  }

  /// {f: {$elemMatch: ...}}: one element meets the whole condition. `condition` is a
  /// function of the element (taken by value) returning a filter on it.
  template <class F>
  Filter<Scope> elem_match(F&& condition_on_element) const {
    check_array<Value>();
    check_filter();
    return detail::QueryAccess::make<Filter<Scope>>(
        detail::elem_match_node(name(), element_condition(std::forward<F>(condition_on_element))));
  }

  // ---- updates ---------------------------------------------------------------------

  /// {$set: {f: v}}
  template <class X>
  Update<Scope> set(const X& value) const {
    return assign("$set", value);
  }
  /// {$setOnInsert: {f: v}}: set only when an upsert inserts the document.
  template <class X>
  Update<Scope> set_on_insert(const X& value) const {
    return assign("$setOnInsert", value);
  }
  /// {$unset: {f: ""}}; only for a field the member table says may be absent (a
  /// std::optional, a ParentRef, a member with odm::defaulted; not one with odm::required).
  /// Checked where the path is written, so call it on the path itself:
  /// `odm::field(&Book::note).unset()` (or on a constexpr path).
  consteval Unset<Scope> unset() const {
    check_updatable();
    if (!names_.may_be_unset)
      throw "odm: unset applies only to a field that may be absent (std::optional, or a member with odm::defaulted); "
            "unsetting a required field would leave a document odm cannot decode";
    return Unset<Scope>(names_);
  }
  /// {$inc: {f: n}}; numeric fields only.
  template <class X>
  Update<Scope> inc(const X& amount) const {
    static_assert(is_numeric<detail::strip_optional_t<Value>>,
                  "odm: inc and mul apply only to numeric fields (integers, double, odm::Decimal)");
    return assign_number("$inc", amount);
  }
  /// {$mul: {f: n}}; numeric fields only.
  template <class X>
  Update<Scope> mul(const X& factor) const {
    static_assert(is_numeric<detail::strip_optional_t<Value>>,
                  "odm: inc and mul apply only to numeric fields (integers, double, odm::Decimal)");
    return assign_number("$mul", factor);
  }
  /// {$min: {f: v}}: set to v if v is smaller than the stored value.
  template <class X>
  Update<Scope> min(const X& value) const {
    return assign("$min", value);
  }
  /// {$max: {f: v}}: set to v if v is larger than the stored value.
  template <class X>
  Update<Scope> max(const X& value) const {
    return assign("$max", value);
  }

  /// {$push: {f: e}}; array fields, one element.
  template <class X>
  Update<Scope> push(const X& element) const {
    return add_element("$push", element);
  }
  /// {$push: {f: {$each: [...]}}}, with .position(i), .sort(...), .slice(n) to follow.
  PushEach<Scope, detail::element_t<Value>> push_each(
      std::initializer_list<detail::list_element_t<Value>> elements) const {
    return push_each_of(elements);
  }
  template <std::ranges::input_range R>
  PushEach<Scope, detail::element_t<Value>> push_each(const R& elements) const {
    return push_each_of(elements);
  }
  /// {$addToSet: {f: e}}
  template <class X>
  Update<Scope> add_to_set(const X& element) const {
    return add_element("$addToSet", element);
  }
  /// {$addToSet: {f: {$each: [...]}}}
  Update<Scope> add_to_set_each(std::initializer_list<detail::list_element_t<Value>> elements) const {
    return add_to_set_each_of(elements);
  }
  template <std::ranges::input_range R>
  Update<Scope> add_to_set_each(const R& elements) const {
    return add_to_set_each_of(elements);
  }
  /// {$pull: {f: e}} for an element, or {$pull: {f: condition}} for a function of the
  /// element as elem_match takes: .pull([](auto s) { return s < 50; }).
  template <class X>
  Update<Scope> pull(const X& element_or_condition) const {
    check_updatable();
    check_array<Value>();
    check_resizable();
    using E = detail::element_t<Value>;
    if constexpr (std::is_invocable_v<const X&, Element<E>>) {
      return detail::QueryAccess::make<Update<Scope>>(
          detail::pull_where(name(), element_condition(element_or_condition)));
    } else {
      return add_element("$pull", element_or_condition);
    }
  }
  /// {$pullAll: {f: [...]}}
  Update<Scope> pull_all(std::initializer_list<detail::list_element_t<Value>> elements) const {
    return pull_all_of(elements);
  }
  template <std::ranges::input_range R>
  Update<Scope> pull_all(const R& elements) const {
    return pull_all_of(elements);
  }
  /// {$pop: {f: -1}}: remove the first element.
  Update<Scope> pop_first() const { return pop(-1); }
  /// {$pop: {f: 1}}: remove the last element.
  Update<Scope> pop_last() const { return pop(1); }

 private:
  template <class X>
  static constexpr void check_comparable() {
    static_assert(detail::comparable<Value, X>,
                  "odm: the value's type does not match the field's type (an array field also takes one "
                  "element); convert the value to the member's type");
  }
  /// An operator that writes element values of the array.
  static constexpr void check_element_values() {
    check_array<Value>();
    static_assert(detail::writes_element_values<Value>,
                  "odm: the items of an odm::Subset are written by the odm::subset operations (odm/join/subset.hpp), "
                  "which keep the items' own collection in step; query them with size() and elem_match()");
  }
  /// An operator that adds or removes elements.
  static constexpr void check_resizable() {
    static_assert(!detail::is_fixed_size_array<Value>,
                  "odm: this operator changes the number of elements, but the field is a std::array of a fixed "
                  "length (a stored array of another length would not decode); set elements through a "
                  "positional path, or use std::vector");
  }
  template <class V>
  static constexpr void check_array() {
    static_assert(detail::is_array_field<V>,
                  "odm: this operator applies only to array fields (fields stored as arrays: std::vector, std::array, "
                  "odm::Subset, or a type whose codec's kind is odm::kinds::array)");
  }
  static constexpr void check_updatable() {
    static_assert(!detail::is_element_scope<Scope>,
                  "odm: update operators apply to fields of a document, not inside an element condition");
    static_assert(!ThroughArray,
                  "odm: this path goes through an array; MongoDB cannot update a field of an array's elements "
                  "without a positional operator: name the element with .matched() ($) or .all_elements() ($[]) "
                  "before '/'");
  }

  static constexpr void check_filter() {
    static_assert(!Positional,
                  "odm: a positional path ($, $[]) names elements to update, so it cannot be used in a filter");
  }

  /// `op` on this path, its operand appended by `append(bson_t*, key)`.
  template <class Append>
  Filter<Scope> condition(detail::ConditionOp op, Append&& append) const {
    check_filter();
    std::string key = name();
    Document value;
    append(value.get_mutable(), std::string_view(key));
    return detail::QueryAccess::make<Filter<Scope>>(detail::condition_node(op, std::move(key), std::move(value)));
  }

  template <class X>
  Filter<Scope> compare(detail::ConditionOp op, const X& value) const {
    check_comparable<X>();
    return condition(op, [&](bson_t* doc, std::string_view key) { detail::append_comparable<Value>(doc, key, value); });
  }

  template <class R>
  Filter<Scope> listed(detail::ConditionOp op, const R& values) const {
    if constexpr (detail::is_array_field<Value>) check_element_values();
    using Q = detail::query_value_t<Value>;
    static_assert(detail::accepts<Q, std::ranges::range_value_t<R>>,
                  "odm: the values' type does not match the field's type (for an array field: its elements' type)");
    return condition(op, [&](bson_t* doc, std::string_view key) { detail::append_array<Q>(doc, key, values); });
  }

  template <class F>
  static detail::FilterExpr element_condition(F&& condition_on_element) {
    using E = detail::element_t<Value>;
    static_assert(std::is_invocable_v<F, Element<E>>,
                  "odm: the condition must be a function of the element, e.g. [](auto address) { return address / "
                  "&Address::city == \"Paris\"; }");
    using Result = std::invoke_result_t<F, Element<E>>;
    static_assert(std::is_same_v<Result, Filter<Element<E>>>,
                  "odm: the condition on the element must return a filter built from the element it is given");
    return detail::QueryAccess::expression(std::invoke(std::forward<F>(condition_on_element), Element<E>{}));
  }

  template <class Append>
  Update<Scope> update(std::string_view op, Append&& append) const {
    check_updatable();
    return detail::QueryAccess::make<Update<Scope>>(detail::single_update(op, name(), std::forward<Append>(append)));
  }

  template <class X>
  Update<Scope> assign(std::string_view op, const X& value) const {
    static_assert(detail::accepts<Value, X>,
                  "odm: the value's type does not match the field's type; convert the value to the member's type");
    if (names_.assigned != detail::PathNames::Assigned::any) [[unlikely]]
      detail::check_assigned(names_, value);
    return update(op, [&](bson_t* doc, std::string_view key) { detail::append_value<Value>(doc, key, value); });
  }

  /// $inc and $mul take a number, never null: an optional field's value type.
  template <class X>
  Update<Scope> assign_number(std::string_view op, const X& value) const {
    using N = detail::strip_optional_t<Value>;
    static_assert(detail::accepts<N, X>,
                  "odm: the value's type does not match the field's type; convert the value to the member's type");
    return update(op, [&](bson_t* doc, std::string_view key) { detail::append_value<N>(doc, key, value); });
  }

  template <class X>
  Update<Scope> add_element(std::string_view op, const X& element) const {
    check_element_values();
    check_resizable();
    using E = detail::element_t<Value>;
    static_assert(detail::accepts<E, X>, "odm: the value's type does not match the array's element type");
    return update(op, [&](bson_t* doc, std::string_view key) { detail::append_value<E>(doc, key, element); });
  }

  template <class R>
  static Document element_array(const R& elements) {
    check_element_values();
    check_resizable();
    using E = detail::element_t<Value>;
    static_assert(detail::accepts<E, std::ranges::range_value_t<R>>,
                  "odm: the values' type does not match the array's element type");
    Document array;
    std::uint32_t index = 0;
    for (const auto& element : elements) {
      const detail::ArrayKey key(index++);
      detail::append_value<E>(array.get_mutable(), key.view(), element);
    }
    return array;
  }

  template <class R>
  PushEach<Scope, detail::element_t<Value>> push_each_of(const R& elements) const {
    check_updatable();
    return PushEach<Scope, detail::element_t<Value>>(name(), element_array(elements));
  }

  template <class R>
  Update<Scope> add_to_set_each_of(const R& elements) const {
    check_updatable();
    detail::UpdateExpr expr;
    expr.entries.push_back(
        detail::UpdateEntry{"$addToSet", name(), element_array(elements), nullptr, detail::EachModifiers{}});
    return detail::QueryAccess::make<Update<Scope>>(std::move(expr));
  }

  template <class R>
  Update<Scope> pull_all_of(const R& elements) const {
    const Document array = element_array(elements);
    return update("$pullAll", [&](bson_t* doc, std::string_view key) {
      detail::check_append(bson_append_array(doc, key.data(), detail::key_length(key), array.get()));
    });
  }

  Update<Scope> pop(std::int32_t end) const {
    check_array<Value>();
    check_resizable();
    return update("$pop", [&](bson_t* doc, std::string_view key) {
      detail::check_append(bson_append_int32(doc, key.data(), detail::key_length(key), end));
    });
  }

  consteval Path<Scope, detail::element_t<Value>, ThroughArray, true> positional_step(std::string_view step) const {
    detail::PathNames next = names_;
    next.push(step);
    next.may_be_unset = may_be_absent<detail::element_t<Value>>;  // $unset nulls an element
    return Path<Scope, detail::element_t<Value>, ThroughArray, true>(next);
  }

  detail::PathNames names_{};
};

/// One element of an array whose elements are E, in a condition on it (elem_match,
/// pull). For an array of structs, `/` names the element's fields; for an array of
/// values, the comparison operators apply to the element itself.
template <class E>
class Element : public Path<Element<E>, E, false> {
 public:
  /// The field `member` of the element.
  template <class M, class C>
  consteval Path<Element<E>, detail::query_view_t<M>, detail::is_array_field<E>> operator/(M C::*member) const {
    static_assert(detail::is_document<E>, "odm: '/' names a field of a document element, but the elements of "
                                          "this array are not structs");
    static_assert(std::is_same_v<C, detail::document_of_t<E>>,
                  "odm: the member after '/' belongs to a different struct than the array's elements");
    detail::PathNames names;
    names.push(stored_names<C, false>[detail::member_index(member)]);
    names.first_nested = names.names[0];
    return Path<Element<E>, detail::query_view_t<M>, detail::is_array_field<E>>(names);
  }
};

/// The path of a model's member: odm::field(&Book::available) names "available".
/// A reference member (Ref, ParentRef, RefMany) is queried as the id(s) it stores.
template <class T, class M>
consteval Path<T, detail::query_view_t<M>> field(M T::*member) {
  static_assert(reflectable<T>, "odm: field() takes a member of a model struct (a plain aggregate)");
  return Path<T, detail::query_view_t<M>>(detail::root_names(member));
}

}  // namespace odm
