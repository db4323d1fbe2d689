#pragma once
// Typed paths to the parts of odm's own sub-document types, for filters, sorts, updates
// and aggregation, so that no code names how odm stores them:
//
//   odm::amount(odm::field(&Product::price))      "price.value",    an odm::Decimal   (odm::Money)
//   odm::currency(odm::field(&Product::price))    "price.currency", a std::string     (odm::Money, odm::DisplayMoney)
//   odm::approx(odm::field(&Listing::price))      "price.approx",   a double          (odm::DisplayMoney)
//
//   products.find(odm::amount(odm::field(&Product::price)) >= odm::Decimal("10"))
//           .sort(odm::sort(odm::asc(odm::amount(odm::field(&Product::price)))));
//
// A part of an optional Money is an optional (a document without the Money has none).
// Of an array of Money, it is a path through the array (`prices.value`: any element). A
// part can be compared, sorted by and set, but not unset, nor set to null, nor a currency
// to anything but an ISO 4217 code (odm::ValueError): the Money would no longer decode.
// odm::LocalTime is a plain struct, so its parts are ordinary steps
// (`odm::field(&Event::when) / &odm::LocalTime::date`). An index names the stored path,
// which the model's stored names check when it compiles: `odm::index("price.value")`.

#include <odm/fields/money.hpp>
#include <odm/query/path.hpp>
#include <odm/query/value.hpp>

#include <optional>
#include <string>
#include <string_view>
#include <type_traits>

namespace odm {

namespace detail {

/// What a path to one of odm's sub-document types holds it in: the field itself, or each
/// element of an array field (a path through the array, as `/` makes).
template <class M, bool = is_array_field<M>>
struct part_owner {
  using type = M;
};
template <class M>
struct part_owner<M, true> {
  using type = element_t<M>;
};
template <class M>
using part_owner_t = typename part_owner<M>::type;

/// The path to the field `part` of the sub-document `path` names (or of each element of
/// the array it names), whose value is Part (std::optional<Part> when the sub-document
/// itself is optional). A value assigned to it must pass `assigned`.
template <class Part, class S, class M, bool A, bool P>
constexpr auto part_path(const Path<S, M, A, P>& path, std::string_view part, PathNames::Assigned assigned) {
  using Owner = part_owner_t<M>;
  using Value = std::conditional_t<is_optional<Owner>, std::optional<Part>, Part>;
  PathNames names = path.names();
  names.push(part);
  names.may_be_unset = false;  // the sub-document would no longer decode without it
  names.assigned = assigned;   // nor with it null (or a currency that is no code)
  if (names.depth == 1) names.first_nested = names.names[0];  // an element's part, as Path::operator/
  return Path<S, Value, A || is_array_field<M>, P>(names);
}

template <class M, class... Types>
inline constexpr bool holds_one_of = (std::is_same_v<strip_optional_t<part_owner_t<M>>, Types> || ...);

}  // namespace detail

/// The amount of a Money: `price.value`, an odm::Decimal (Decimal128 on the server).
template <class S, class M, bool A, bool P>
constexpr auto amount(const Path<S, M, A, P>& path) {
  static_assert(detail::holds_one_of<M, Money>,
                "odm::amount names the amount of an odm::Money field (or of each Money of an array), and this "
                "path holds another type "
                "(a DisplayMoney's is odm::approx for queries, an odm::Decimal member is its own path)");
  return detail::part_path<Decimal>(path, "value", detail::PathNames::Assigned::not_null);
}

/// The ISO 4217 code of a Money or a DisplayMoney: `price.currency`, a std::string.
template <class S, class M, bool A, bool P>
constexpr auto currency(const Path<S, M, A, P>& path) {
  static_assert(detail::holds_one_of<M, Money, DisplayMoney>,
                "odm::currency names the currency of an odm::Money or odm::DisplayMoney field (or of each one of "
                "an array), and this path holds another type");
  return detail::part_path<std::string>(path, "currency", detail::PathNames::Assigned::currency_code);
}

/// The double odm writes beside a DisplayMoney's exact `display` for range queries and
/// sorts on the server: `price.approx`. It is never read back, so setting it changes
/// what such queries see and not the amount.
template <class S, class M, bool A, bool P>
constexpr auto approx(const Path<S, M, A, P>& path) {
  static_assert(detail::holds_one_of<M, DisplayMoney>,
                "odm::approx names the approximate amount of an odm::DisplayMoney field, and this path holds "
                "another type (an odm::Money's exact amount is odm::amount)");
  return detail::part_path<double>(path, "approx", detail::PathNames::Assigned::not_null);
}

}  // namespace odm
