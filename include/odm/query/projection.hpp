#pragma once
// Typed projections into a smaller struct:
//
//   struct MovieSummary { std::string title; std::int32_t year; };
//   odm::projection<Movie, MovieSummary>()   -> {title: 1, year: 1, _id: 0}
//
// Every member of the result struct must have a member of the same name, the same type
// (or std::optional of it, for a field the result may lack) and the same stored name in
// the model; otherwise the projection does not compile. `_id` is included when the result
// struct has `id`, and excluded (`_id: 0`) otherwise.

#include <odm/bson/codec.hpp>
#include <odm/bson/document.hpp>
#include <odm/bson/members.hpp>
#include <odm/fields/embedded.hpp>
#include <odm/model/model.hpp>
#include <odm/query/expression.hpp>
#include <odm/reflect/members.hpp>

#include <boost/pfr/core.hpp>

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string_view>
#include <type_traits>
#include <utility>

namespace odm {
namespace detail {

template <class T>
struct strip_embedded {
  using type = T;
};
template <class T>
struct strip_embedded<Embedded<T>> {
  using type = T;
};

/// A member of type R in the result struct can read what a member of type M stores.
template <class R, class M>
inline constexpr bool projectable = std::is_same_v<R, M> || std::is_same_v<R, std::optional<M>> ||
                                    std::is_same_v<typename strip_embedded<R>::type, typename strip_embedded<M>::type>;

template <class T>
consteval std::size_t member_named(std::string_view name) {
  for (std::size_t i = 0; i < member_count<T>; ++i)
    if (member_names<T>[i] == name) return i;
  return member_count<T>;
}

/// Checks the I-th member of Result against Model (the failing I is in the trace).
template <class Model, class Result, std::size_t I>
consteval void check_projected_member() {
  constexpr std::size_t j = member_named<Model>(member_names<Result>[I]);
  static_assert(j < member_count<Model>,
                "odm: a member of the projection struct has no member of the same name in the model");
  if constexpr (j < member_count<Model>) {
    static_assert(projectable<boost::pfr::tuple_element_t<I, Result>, boost::pfr::tuple_element_t<j, Model>>,
                  "odm: a member of the projection struct has a different type than the model's member of the "
                  "same name");
    static_assert(stored_names<Result>[I] == stored_names<Model>[j],
                  "odm: a member of the projection struct is stored under a different name than the model's "
                  "member of the same name; rename it the same way");
    static_assert(member<Result, I>::previous_name == member<Model, j>::previous_name &&
                      member<Result, I>::writes_previous_name == member<Model, j>::writes_previous_name,
                  "odm: the model's member is renamed in its expand phase (odm::renamed_from): declare the same "
                  "odm::renamed_from on the projection struct's member, so that it reads the old name where a "
                  "document holds it (the projection asks for both names)");
  }
}

}  // namespace detail

/// The projection that reads documents of Model as Result: Result's stored names, each 1.
template <class Model, class Result>
Projection<Model, Result> projection() {
  static_assert(reflectable<Model> && reflectable<Result>,
                "odm: a projection maps a model struct onto a smaller struct (both plain aggregates)");
  [&]<std::size_t... I>(std::index_sequence<I...>) {
    (detail::check_projected_member<Model, Result, I>(), ...);
  }(std::make_index_sequence<detail::member_count<Result>>{});
  Document document;
  bool has_id = false;
  for (const std::string_view name : stored_names<Result>) {
    has_id = has_id || name == "_id";
    detail::check_append(bson_append_int32(document.get_mutable(), name.data(), detail::key_length(name), 1));
  }
  // A member renamed in its expand phase is read from either name.
  members<Result>::for_each([&](auto m) {
    using M = decltype(m);
    if constexpr (!M::previous_name.empty())
      detail::check_append(bson_append_int32(document.get_mutable(), M::previous_name.data(),
                                             detail::key_length(M::previous_name), 1));
  });
  if (!has_id) detail::check_append(bson_append_int32(document.get_mutable(), "_id", 3, 0));
  return detail::QueryAccess::make<Projection<Model, Result>>(std::move(document));
}

}  // namespace odm
