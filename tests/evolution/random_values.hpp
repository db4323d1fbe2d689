#pragma once
// Random values of a model, member by member (boost::pfr), for the randomized $jsonSchema
// tests: every kind of member odm's codecs write (scalars, enums, dates, ids, decimals and
// the money models, optionals, arrays, maps, variants, embedded structs, references and
// subsets), and bytes and text of any length. Same seed, same values.

#include <odm/odm.hpp>

#include <boost/pfr.hpp>

#include <array>
#include <chrono>
#include <cstdint>
#include <map>
#include <optional>
#include <random>
#include <string>
#include <type_traits>
#include <variant>
#include <vector>

namespace odm_test::random_values {

using Rng = std::mt19937_64;

template <class T, class Enable = void>
struct Gen;

template <class T>
T make(Rng& rng, int depth) {
  return Gen<T>::make(rng, depth);
}

inline std::int64_t between(Rng& rng, std::int64_t low, std::int64_t high) {
  return std::uniform_int_distribution<std::int64_t>(low, high)(rng);
}
/// How many elements a container gets: fewer the deeper it is, none past depth 3 (so a
/// struct that contains itself ends).
inline std::size_t count(Rng& rng, int depth) { return depth > 3 ? 0 : static_cast<std::size_t>(between(rng, 0, 3)); }

template <>
struct Gen<bool> {
  static bool make(Rng& rng, int) { return between(rng, 0, 1) == 1; }
};
template <class I>
  requires(std::is_integral_v<I> && !std::is_same_v<I, bool>)
struct Gen<I> {
  static I make(Rng& rng, int) {
    return static_cast<I>(between(rng, std::numeric_limits<I>::min(), std::numeric_limits<I>::max()));
  }
};
template <>
struct Gen<double> {
  static double make(Rng& rng, int) { return std::uniform_real_distribution<double>(-1e9, 1e9)(rng); }
};
template <>
struct Gen<std::string> {
  static std::string make(Rng& rng, int) {
    static constexpr std::string_view letters[] = {"a", "Z", "0", " ", "é", "ж", "中", "$", ".", "\""};
    std::string out;
    for (auto n = between(rng, 0, 8); n > 0; --n) out += letters[between(rng, 0, std::size(letters) - 1)];
    return out;
  }
};
template <class E>
  requires std::is_enum_v<E>
struct Gen<E> {
  static E make(Rng& rng, int) {
    const auto& entries = odm::detail::enum_entries<E>;
    return entries[static_cast<std::size_t>(between(rng, 0, static_cast<std::int64_t>(entries.size()) - 1))].value;
  }
};
template <class Duration>
struct Gen<std::chrono::time_point<std::chrono::system_clock, Duration>> {
  static auto make(Rng& rng, int) {
    using namespace std::chrono;
    const sys_time<milliseconds> instant(milliseconds(between(rng, -2'000'000'000'000, 4'000'000'000'000)));
    return floor<Duration>(instant);
  }
};
template <>
struct Gen<odm::ObjectId> {
  static odm::ObjectId make(Rng&, int) { return odm::ObjectId::generate(); }
};
template <>
struct Gen<odm::Decimal> {
  static odm::Decimal make(Rng& rng, int) {
    return odm::Decimal(between(rng, -1'000'000'000, 1'000'000'000), static_cast<int>(between(rng, -6, 2)));
  }
};
template <>
struct Gen<odm::Money> {
  static odm::Money make(Rng& rng, int) {
    static constexpr std::string_view codes[] = {"EUR", "USD", "BGN", "CNY"};
    return odm::Money(odm::Decimal(between(rng, -100'000, 100'000), -2), codes[between(rng, 0, 3)]);
  }
};
template <>
struct Gen<odm::DisplayMoney> {
  static odm::DisplayMoney make(Rng& rng, int depth) { return odm::DisplayMoney(Gen<odm::Money>::make(rng, depth)); }
};
template <std::int64_t F>
struct Gen<odm::ScaledAmount<F>> {
  static auto make(Rng& rng, int) { return odm::ScaledAmount<F>::from_units(between(rng, -1'000'000, 1'000'000)); }
};
template <std::int64_t F>
struct Gen<odm::DecimalFromLegacy<F>> {
  static auto make(Rng& rng, int depth) { return odm::DecimalFromLegacy<F>(Gen<odm::Decimal>::make(rng, depth)); }
};
template <>
struct Gen<odm::Binary> {
  static odm::Binary make(Rng& rng, int) {
    odm::Binary out;
    for (auto n = between(rng, 0, 6); n > 0; --n) out.bytes.push_back(static_cast<std::uint8_t>(between(rng, 0, 255)));
    return out;
  }
};
template <class T>
struct Gen<std::optional<T>> {
  static std::optional<T> make(Rng& rng, int depth) {
    if (between(rng, 0, 2) == 0) return std::nullopt;
    return Gen<T>::make(rng, depth + 1);
  }
};
template <class T>
struct Gen<std::vector<T>> {
  static std::vector<T> make(Rng& rng, int depth) {
    std::vector<T> out;
    for (auto n = count(rng, depth); n > 0; --n) out.push_back(Gen<T>::make(rng, depth + 1));
    return out;
  }
};
template <class T, std::size_t N>
struct Gen<std::array<T, N>> {
  static std::array<T, N> make(Rng& rng, int depth) {
    std::array<T, N> out;
    for (T& element : out) element = Gen<T>::make(rng, depth + 1);
    return out;
  }
};
template <class T>
struct Gen<std::map<std::string, T>> {
  static std::map<std::string, T> make(Rng& rng, int depth) {
    std::map<std::string, T> out;
    for (auto n = count(rng, depth); n > 0; --n) out["k" + std::to_string(between(rng, 0, 99))] = Gen<T>::make(rng, depth + 1);
    return out;
  }
};
template <class... T>
struct Gen<std::variant<T...>> {
  static std::variant<T...> make(Rng& rng, int depth) {
    const auto pick = static_cast<std::size_t>(between(rng, 0, sizeof...(T) - 1));
    std::variant<T...> out;
    std::size_t at = 0;
    ((at++ == pick ? (out = Gen<T>::make(rng, depth + 1), 0) : 0), ...);
    return out;
  }
};
template <class T>
struct Gen<odm::Embedded<T>> {
  static odm::Embedded<T> make(Rng& rng, int depth) { return odm::Embedded<T>(Gen<T>::make(rng, depth + 1)); }
};
template <class T, odm::Dangling P>
struct Gen<odm::Ref<T, P>> {
  static odm::Ref<T, P> make(Rng& rng, int depth) { return odm::Ref<T, P>(Gen<odm::id_type_t<T>>::make(rng, depth)); }
};
template <class T, odm::Dangling P>
struct Gen<odm::ParentRef<T, P>> {
  static odm::ParentRef<T, P> make(Rng& rng, int depth) {
    if (between(rng, 0, 2) == 0) return odm::ParentRef<T, P>(std::nullopt);
    return odm::ParentRef<T, P>(Gen<odm::id_type_t<T>>::make(rng, depth));
  }
};
template <class T, odm::Dangling P>
struct Gen<odm::RefMany<T, P>> {
  static odm::RefMany<T, P> make(Rng& rng, int depth) {
    return odm::RefMany<T, P>(Gen<std::vector<odm::id_type_t<T>>>::make(rng, depth));
  }
};
template <class T, std::size_t N, auto K, odm::Direction D>
struct Gen<odm::Subset<T, N, K, D>> {
  static odm::Subset<T, N, K, D> make(Rng& rng, int depth) {
    std::vector<T> items;
    for (auto n = std::min<std::size_t>(count(rng, depth), N); n > 0; --n) items.push_back(Gen<T>::make(rng, depth + 1));
    return odm::Subset<T, N, K, D>(std::move(items));
  }
};
template <>
struct Gen<odm::Extra> {
  static odm::Extra make(Rng&, int) { return {}; }
};
/// A struct: each member at random.
template <class T>
  requires(std::is_class_v<T> && std::is_aggregate_v<T> && odm::is_record<T>)
struct Gen<T> {
  static T make(Rng& rng, int depth) {
    T out{};
    boost::pfr::for_each_field(out, [&](auto& field) { field = Gen<std::remove_cvref_t<decltype(field)>>::make(rng, depth + 1); });
    return out;
  }
};

}  // namespace odm_test::random_values

namespace odm_test::random_values {

/// A scalar field (or array element) of a document: where it is and its BSON type.
struct Leaf {
  std::vector<std::string> path;
  bson_type_t type;
};

/// Every non-null scalar inside `document` (through sub-documents and arrays).
inline void collect_leaves(const bson_t* document, std::vector<std::string>& path, std::vector<Leaf>& out) {
  bson_iter_t it;
  if (!bson_iter_init(&it, document)) return;
  while (bson_iter_next(&it)) {
    path.emplace_back(bson_iter_key(&it));
    if (BSON_ITER_HOLDS_DOCUMENT(&it) || BSON_ITER_HOLDS_ARRAY(&it)) {
      bson_t child;
      if (odm::detail::held_document(it, child)) collect_leaves(&child, path, out);
    } else if (!BSON_ITER_HOLDS_NULL(&it)) {
      out.push_back({path, bson_iter_type(&it)});
    }
    path.pop_back();
  }
}

/// `document` with the value at `path` replaced by the first element of `replacement`.
inline void copy_replacing(const bson_t* document, const std::vector<std::string>& path, std::size_t depth,
                           const bson_iter_t& replacement, bson_t* out) {
  bson_iter_t it;
  if (!bson_iter_init(&it, document)) return;
  while (bson_iter_next(&it)) {
    const char* key = bson_iter_key(&it);
    if (path[depth] != key) {
      bson_append_iter(out, key, -1, &it);
    } else if (depth + 1 == path.size()) {
      bson_append_iter(out, key, -1, &replacement);
    } else {
      const bool array = BSON_ITER_HOLDS_ARRAY(&it);
      bson_t child, written;
      if (!odm::detail::held_document(it, child)) continue;
      if (array)
        bson_append_array_begin(out, key, -1, &written);
      else
        bson_append_document_begin(out, key, -1, &written);
      copy_replacing(&child, path, depth + 1, replacement, &written);
      if (array)
        bson_append_array_end(out, &written);
      else
        bson_append_document_end(out, &written);
    }
  }
}

/// One value of each scalar BSON type odm writes, as {"v": value} documents.
inline const std::vector<odm::Document>& scalar_samples() {
  static const std::vector<odm::Document> samples = [] {
    std::vector<odm::Document> out;
    for (const char* json : {R"({"v": {"$numberInt": "1"}})", R"({"v": {"$numberLong": "1"}})", R"({"v": 1.5})",
                             R"({"v": "text"})", R"({"v": true})", R"({"v": {"$date": {"$numberLong": "0"}}})",
                             R"({"v": {"$numberDecimal": "1.5"}})", R"({"v": {"$oid": "0123456789abcdef01234567"}})",
                             R"({"v": {"$binary": {"base64": "AQI=", "subType": "00"}}})"})
      out.push_back(odm::Document::from_json(json));
    return out;
  }();
  return samples;
}

/// A single-field mutation of `document` to a wrong type: one scalar somewhere in it
/// replaced by a scalar of another BSON type (null excluded: an optional member takes it).
/// For models none of whose variants has two scalar alternatives, every such document
/// breaks the model's schema. `what` says which field became what.
inline std::optional<odm::Document> wrong_type_mutation(const odm::Document& document, Rng& rng, std::string& what) {
  std::vector<Leaf> leaves;
  std::vector<std::string> path;
  collect_leaves(document.get(), path, leaves);
  if (leaves.empty()) return std::nullopt;
  const Leaf& leaf = leaves[static_cast<std::size_t>(between(rng, 0, static_cast<std::int64_t>(leaves.size()) - 1))];
  std::vector<const odm::Document*> other;
  for (const odm::Document& sample : scalar_samples()) {
    bson_iter_t v;
    if (bson_iter_init_find(&v, sample.get(), "v") && bson_iter_type(&v) != leaf.type) other.push_back(&sample);
  }
  const odm::Document& sample = *other[static_cast<std::size_t>(between(rng, 0, static_cast<std::int64_t>(other.size()) - 1))];
  bson_iter_t replacement;
  bson_iter_init_find(&replacement, sample.get(), "v");
  odm::Document out;
  copy_replacing(document.get(), leaf.path, 0, replacement, out.get_mutable());
  what.clear();
  for (const std::string& step : leaf.path) what += (what.empty() ? "" : ".") + step;
  what += " (" + std::string(odm::detail::bson_type_name(leaf.type)) + ") became " + sample.to_json();
  return out;
}

}  // namespace odm_test::random_values
