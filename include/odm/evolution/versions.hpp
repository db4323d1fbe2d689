#pragma once
// Schema versions: a model says which version of its documents it writes, and how a
// document of each older version is upgraded, one version at a time.
//
//   OrderV2 from_v1(const OrderV1& old);                        // a typed step: old shape -> new shape
//   odm::Document drop_legacy(const odm::Document& stored);      // a step over the stored document
//
//   struct Order {
//     ...
//     struct odm_model {
//       static constexpr auto schema = odm::schema_versions<3>(odm::upgrade<1>(&from_v1),
//                                                              odm::upgrade<2>(&drop_legacy));
//     };
//   };
//
// Every document odm writes for Order carries `schema_version: 3` (an int32, after the
// members). Reading a document of version 1 applies from_v1 then drop_legacy before
// decoding it (lazily, in memory: the stored document changes when it is saved, or when a
// batch migration, odm/evolution/migrate.hpp, rewrites it). A document without the field
// was written before the model had versions: it is at the oldest version the steps
// upgrade from (1 here). A step from version N gives version N+1; the steps must cover every
// version from the oldest to the current one, which is checked at compile time.
//
// A typed step is a function `To f(const From&)` between two plain structs (the old shape,
// decoded from the stored document, and the next shape, encoded back): the compiler checks
// both shapes. Give both an odm::Extra member and copy it to carry the fields neither
// declares; without one they are dropped. (A field the new shape declares that the Extra
// also carries, from a document a newer program wrote, is written once: the member's.) A document step is any callable
// `odm::Document f(const odm::Document&)`: it sees and returns the whole document (without
// its version field) and keeps whatever it copies.
//
// What a stored version odm cannot use does (odm::SchemaVersionError, a DecodeError naming
// the document, the version found and the model's): a version that is not an int32 or
// int64 (a string, a double), one older than the oldest step (0, negative), and one newer
// than the model's. A model that must read newer documents (the old version of a service
// during a rolling deploy) says `.reading_newer()`: it decodes them as they are (its
// defaulted members cover fields the newer version removed). When such a model writes
// the document back, it writes its own version, so the newer model upgrades it again on
// reading: steps must accept a document that already has the fields they add.

#include <odm/bson/convert.hpp>
#include <odm/bson/document.hpp>
#include <odm/bson/record.hpp>
#include <odm/error.hpp>
#include <odm/model/model.hpp>

#include <algorithm>
#include <array>
#include <concepts>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <exception>
#include <string>
#include <tuple>
#include <type_traits>
#include <utility>

namespace odm {

/// A stored document whose schema version cannot be read or upgraded: the version is of
/// the wrong type, out of range, or a step failed. Says which document (its _id) and which
/// versions; nothing is written.
class SchemaVersionError : public DecodeError {
 public:
  SchemaVersionError(std::string message, std::string document_id, std::int64_t stored_version,
                     std::int32_t model_version)
      : DecodeError(std::move(message)),
        document_id_(std::move(document_id)),
        stored_version_(stored_version),
        model_version_(model_version) {}
  ~SchemaVersionError() override;
  /// The document's _id as Extended JSON (`{ "_id" : 7 }`), or "" when it has none.
  const std::string& document_id() const noexcept { return document_id_; }
  /// The version stored (for a version of the wrong type: -1).
  std::int64_t stored_version() const noexcept { return stored_version_; }
  /// The version the model writes.
  std::int32_t model_version() const noexcept { return model_version_; }

 private:
  std::string document_id_;
  std::int64_t stored_version_;
  std::int32_t model_version_;
};

namespace detail {

/// `{ "_id" : ... }` of a document, or "" (for messages).
std::string id_json_of(const bson_t* document);
/// `document` without its schema_version field.
Document without_version(const bson_t* document);
/// `document` with only the first of fields that share a name (itself when none do).
Document first_of_each_field(Document document);

template <class Fn>
concept document_step = std::is_invocable_r_v<Document, const Fn&, const Document&>;

/// A typed step: a function pointer `To (*)(const From&)` or `To (*)(From)`.
template <class Fn>
struct typed_step {
  static constexpr bool value = false;
};
template <class To, class From>
struct typed_step<To (*)(const From&)> {
  static constexpr bool value = true;
  using from = From;
  using to = To;
};
template <class To, class From>
struct typed_step<To (*)(From)> : typed_step<To (*)(const From&)> {};

template <class Fn>
constexpr void check_step() {
  static_assert(document_step<Fn> || typed_step<Fn>::value,
                "odm::upgrade: a step is a function `To f(const From&)` between two plain structs (pass &f), or a "
                "callable `odm::Document f(const odm::Document&)` over the stored document");
  if constexpr (!document_step<Fn> && typed_step<Fn>::value) {
    using From = std::remove_cvref_t<typename typed_step<Fn>::from>;
    using To = std::remove_cvref_t<typename typed_step<Fn>::to>;
    static_assert(reflectable<From> && is_record<From> && reflectable<To> && is_record<To>,
                  "odm::upgrade: both shapes of a typed step must be plain structs odm stores as documents");
  }
}

}  // namespace detail

/// Document steps applied in turn as one step (each a callable
/// `odm::Document f(const odm::Document&)`): odm::upgrade<1>(odm::chain(odm::rename_field("hits", "visits"),
/// odm::rename_field("items", "lines"))). The names its steps retire are the chain's.
template <class... Steps>
struct Chain {
  std::tuple<Steps...> steps;
  Document operator()(const Document& document) const {
    Document current = Document::copy_of(document.get());
    std::apply([&](const auto&... step) { ((current = step(current)), ...); }, steps);
    return current;
  }
  template <class Fn>
  constexpr void for_each_retired_name(Fn&& fn) const {
    std::apply(
        [&](const auto&... step) {
          (
              [&] {
                if constexpr (requires { step.for_each_retired_name(fn); }) step.for_each_retired_name(fn);
              }(),
              ...);
        },
        steps);
  }
};
template <class... Steps>
constexpr Chain<Steps...> chain(Steps... steps) {
  static_assert(sizeof...(Steps) > 0 && (detail::document_step<Steps> && ...),
                "odm::chain: each step is a callable `odm::Document f(const odm::Document&)`");
  return {std::tuple<Steps...>(steps...)};
}

/// One step: documents at version `From` become version `From + 1` (see the top of this file).
/// A step that renames fields away with odm::rename_field (alone or in an odm::chain)
/// retires their old names: a document of the current version never holds one, so every
/// write of the model also unsets them (a program still writing the old name beside the
/// contract release, the expand release, leaves them behind; see the README's renames).
template <std::int32_t From, class Fn>
struct Upgrade {
  static constexpr std::int32_t from = From;
  Fn fn;

  template <class F>
  constexpr void for_each_retired_name(F&& f) const {
    if constexpr (requires { fn.for_each_retired_name(f); }) fn.for_each_retired_name(f);
  }

  /// Applies the step to `document` (without its version field).
  Document apply(const Document& document) const {
    if constexpr (detail::document_step<Fn>) {
      return fn(document);
    } else {
      using Old = std::remove_cvref_t<typename detail::typed_step<Fn>::from>;
      // Both shapes as plain documents: a shape that is itself versioned is not re-upgraded.
      Old old{};
      bson_iter_t it;
      bson_iter_init(&it, document.get());
      decode_members<true>(it, old);
      Document next;
      encode_members<true>(next.get_mutable(), fn(old));
      // An Extra carried from the old shape may hold a field the new shape declares (a
      // document a newer program already wrote): the member, written first, wins.
      return detail::first_of_each_field(std::move(next));
    }
  }
};

template <std::int32_t From, class Fn>
constexpr Upgrade<From, Fn> upgrade(Fn fn) {
  static_assert(From >= 0, "odm::upgrade<From>: a schema version is 0 or more");
  detail::check_step<Fn>();
  return {fn};
}

namespace detail {
template <class S>
inline constexpr bool is_upgrade = false;
template <std::int32_t From, class Fn>
inline constexpr bool is_upgrade<Upgrade<From, Fn>> = true;
}  // namespace detail

/// A model's schema versions: the version it writes (`Current`) and the steps from each
/// older one. Declared as `static constexpr auto schema = odm::schema_versions<N>(steps...);`.
template <std::int32_t Current, class... Steps>
struct SchemaVersions {
  static constexpr std::int32_t current = Current;
  /// The oldest version the steps upgrade from; a document without a version is at it.
  static constexpr std::int32_t oldest = [] {
    if constexpr (sizeof...(Steps) == 0)
      return Current;
    else
      return std::tuple_element_t<0, std::tuple<Steps...>>::from;
  }();

  std::tuple<Steps...> steps;
  bool reads_newer = false;

  /// The same versions, decoding documents of a newer version as they are instead of refusing them.
  constexpr SchemaVersions reading_newer() const {
    SchemaVersions copy = *this;
    copy.reads_newer = true;
    return copy;
  }

  /// Calls fn(name) for each stored name the steps retire (see Upgrade).
  template <class Fn>
  constexpr void for_each_retired_name(Fn&& fn) const {
    std::apply([&](const auto&... step) { (step.for_each_retired_name(fn), ...); }, steps);
  }

  /// The version of a stored document (`oldest` when it has none). Throws
  /// odm::SchemaVersionError for one that is not an integer or older than `oldest`, and
  /// for a newer one unless reading_newer().
  std::int64_t version_of(const bson_t* document) const {
    bson_iter_t it;
    if (!bson_iter_init_find_w_len(&it, document, schema_version_field.data(),
                                   static_cast<int>(schema_version_field.size())))
      return oldest;
    std::int64_t version;
    if (bson_iter_type(&it) == BSON_TYPE_INT32)
      version = bson_iter_int32(&it);
    else if (bson_iter_type(&it) == BSON_TYPE_INT64)
      version = bson_iter_int64(&it);
    else
      fail(document, -1,
           std::string("schema_version: expected an int32 or int64 version, got ") +
               std::string(detail::bson_type_name(bson_iter_type(&it))));
    // A second schema_version would be read by another reader in its place (as any field twice).
    for (bson_iter_t rest = it; bson_iter_next(&rest);)
      if (bson_iter_key_len(&rest) == schema_version_field.size() &&
          std::memcmp(bson_iter_key(&rest), schema_version_field.data(), schema_version_field.size()) == 0)
        fail(document, -1, "schema_version: field appears twice in the document");
    if (version < oldest)
      fail(document, version,
           "schema_version: version " + std::to_string(version) + " is older than any this model upgrades (from " +
               std::to_string(oldest) + " to " + std::to_string(Current) + ")");
    if (version > Current && !reads_newer)
      fail(document, version,
           "schema_version: version " + std::to_string(version) + " is newer than this model's (" +
               std::to_string(Current) + "): a newer program wrote it; read it with that program, or declare "
               "the schema .reading_newer()");
    return version;
  }

  /// `document` upgraded to the current version: every step from its version applied, and
  /// `schema_version: Current` last. A document at the current version or newer is copied.
  Document upgraded(const bson_t* document) const {
    const std::int64_t from = version_of(document);
    Document result = from >= Current ? Document::copy_of(document) : apply_steps(document, from);
    if (from < Current) append_version(result.get_mutable());
    return result;
  }

  /// from_bson's decoding of a versioned model.
  template <class T>
  void decode(const bson_t* document, T& out) const {
    const std::int64_t from = version_of(document);
    bson_iter_t it;
    if (from >= Current) {
      bson_iter_init(&it, document);
      decode_members<true>(it, out);
      return;
    }
    const Document upgraded = apply_steps(document, from);
    bson_iter_init(&it, upgraded.get());
    decode_members<true>(it, out);
  }

  /// Appends `schema_version: Current` (to_bson's last field for the model T).
  template <class T>
  void append_version(bson_t* document) const {
    static_assert(std::find(stored_names<T>.begin(), stored_names<T>.end(), schema_version_field) ==
                      stored_names<T>.end(),
                  "odm::schema_versions: odm writes the version in the field \"schema_version\"; rename the "
                  "member stored under that name");
    append_version(document);
  }
  void append_version(bson_t* document) const {
    detail::check_append(bson_append_int32(document, schema_version_field.data(),
                                           static_cast<int>(schema_version_field.size()), Current));
  }

  /// Throws odm::SchemaVersionError for `document`, stored at `version`, for `reason`
  /// (a write refused because of the document's version).
  [[noreturn]] static void refuse(const bson_t* document, std::int64_t version, const std::string& reason) {
    fail(document, version, reason);
  }

 private:
  [[noreturn]] static void fail(const bson_t* document, std::int64_t version, const std::string& reason) {
    const std::string id = detail::id_json_of(document);
    throw SchemaVersionError((id.empty() ? std::string("a document without _id") : "the document " + id) + ": " + reason,
                             id, version, Current);
  }

  /// The document (version `from` < Current) after the steps from `from`, without a version field.
  Document apply_steps(const bson_t* document, std::int64_t from) const {
    Document current = detail::without_version(document);
    [&]<std::size_t... I>(std::index_sequence<I...>) {
      (
          [&] {
            const auto& step = std::get<I>(steps);
            using Step = std::remove_cvref_t<decltype(step)>;
            if (Step::from < from) return;
            try {
              current = step.apply(current);
            } catch (const std::exception& error) {
              fail(document, from,
                   "upgrading from schema version " + std::to_string(from) + " to " + std::to_string(Current) +
                       ", the step from " + std::to_string(Step::from) + " to " + std::to_string(Step::from + 1) +
                       " failed: " + error.what());
            }
          }(),
          ...);
    }(std::index_sequence_for<Steps...>{});
    // A step that wrote a version field of its own: the version is odm's to write.
    bson_iter_t it;
    if (bson_iter_init_find_w_len(&it, current.get(), schema_version_field.data(),
                                  static_cast<int>(schema_version_field.size())))
      current = detail::without_version(current.get());
    return current;
  }
};

namespace detail {
template <std::int32_t Current, std::int32_t... From>
consteval bool steps_are_consecutive() {
  constexpr std::array<std::int32_t, sizeof...(From)> froms{From...};
  for (std::size_t i = 1; i < froms.size(); ++i)
    if (froms[i] != froms[i - 1] + 1) return false;
  return froms.empty() || froms.back() == Current - 1;
}
}  // namespace detail

/// The schema versions of a model that writes version `Current` (see the top of this file):
/// odm::schema_versions<3>(odm::upgrade<1>(&v1_to_v2), odm::upgrade<2>(&v2_to_v3)).
template <std::int32_t Current, class... Steps>
constexpr SchemaVersions<Current, Steps...> schema_versions(Steps... steps) {
  static_assert(Current >= 1, "odm::schema_versions<N>: the current version is 1 or more");
  static_assert((detail::is_upgrade<Steps> && ...),
                "odm::schema_versions: every step is an odm::upgrade<From>(function)");
  if constexpr ((detail::is_upgrade<Steps> && ...)) {
    static_assert(detail::steps_are_consecutive<Current, Steps::from...>(),
                  "odm::schema_versions<N>: the steps must go one version at a time, in order, up to N "
                  "(odm::upgrade<1>, odm::upgrade<2>, ..., odm::upgrade<N - 1>)");
  }
  return {{steps...}};
}

}  // namespace odm
