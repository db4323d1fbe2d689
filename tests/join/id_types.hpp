#pragma once
// The id types a reference may hold, for tests that run over all of them: the native ones
// (std::string, ObjectId, std::int64_t, std::int32_t) and a user type with its own codec
// (a compound part number stored as a sub-document, as MongoDB allows for `_id`).

#include <odm/odm.hpp>

#include <gtest/gtest.h>

#include <cstdint>
#include <ostream>
#include <string>

namespace id_types {

/// A compound key: stored as `{line: "A", number: 7}`.
struct PartNumber {
  std::string line;
  std::int32_t number = 0;
  friend bool operator==(const PartNumber&, const PartNumber&) = default;
  friend std::ostream& operator<<(std::ostream& out, const PartNumber& p) { return out << p.line << "-" << p.number; }
};

}  // namespace id_types

template <>
struct odm::codec<id_types::PartNumber> {
  // A sub-document: the key has two parts, and MongoDB compares `_id` documents field by field.
  using kind = odm::kinds::document<id_types::PartNumber>;  // {line, number}, as the struct's members
  static void encode(bson_t* parent, std::string_view key, const id_types::PartNumber& value) {
    bson_t document;
    odm::detail::check_append(bson_append_document_begin(parent, key.data(), odm::detail::key_length(key), &document));
    odm::codec<std::string>::encode(&document, "line", value.line);
    odm::codec<std::int32_t>::encode(&document, "number", value.number);
    odm::detail::check_append(bson_append_document_end(parent, &document));
  }
  static void decode(const bson_iter_t& it, id_types::PartNumber& out) {
    if (!BSON_ITER_HOLDS_DOCUMENT(&it)) throw odm::DecodeError("expected a part number document");
    bson_iter_t child;
    if (!bson_iter_recurse(&it, &child)) throw odm::DecodeError("malformed part number");
    while (bson_iter_next(&child)) {
      const std::string_view key = bson_iter_key(&child);
      if (key == "line")
        odm::codec<std::string>::decode(child, out.line);
      else if (key == "number")
        odm::codec<std::int32_t>::decode(child, out.number);
    }
  }
};

namespace id_types {

/// Distinct ids of each type, by number.
template <class Id>
Id make_id(int n) {
  if constexpr (std::is_same_v<Id, std::string>) {
    return "p" + std::to_string(n);
  } else if constexpr (std::is_same_v<Id, odm::ObjectId>) {
    std::string hex = std::to_string(n);
    hex.insert(0, 24 - hex.size(), '0');
    return odm::ObjectId::parse(hex);
  } else if constexpr (std::is_same_v<Id, std::int64_t>) {
    return std::int64_t{n} * 10'000'000'000LL;  // beyond 32 bits
  } else if constexpr (std::is_same_v<Id, std::int32_t>) {
    return n;
  } else {
    return PartNumber{"line " + std::to_string(n % 2), n};
  }
}

/// One test case: an id type and a Dangling policy.
template <class Id, odm::Dangling P>
struct Case {
  using id_type = Id;
  static constexpr odm::Dangling policy = P;
};

using AllCases = ::testing::Types<
    Case<std::string, odm::Dangling::keep>, Case<std::string, odm::Dangling::drop>, Case<std::string, odm::Dangling::raise>,
    Case<odm::ObjectId, odm::Dangling::keep>, Case<odm::ObjectId, odm::Dangling::drop>,
    Case<odm::ObjectId, odm::Dangling::raise>, Case<std::int64_t, odm::Dangling::keep>,
    Case<std::int64_t, odm::Dangling::drop>, Case<std::int64_t, odm::Dangling::raise>,
    Case<std::int32_t, odm::Dangling::keep>, Case<std::int32_t, odm::Dangling::drop>,
    Case<std::int32_t, odm::Dangling::raise>, Case<PartNumber, odm::Dangling::keep>,
    Case<PartNumber, odm::Dangling::drop>, Case<PartNumber, odm::Dangling::raise>>;

/// A referenced model with an id of type Id.
template <class Id>
struct Target {
  Id id{};
  std::string name;
  struct odm_model {
    static constexpr std::string_view collection = "targets";
  };
};

/// A model holding child references to Target<Id> under policy P.
template <class Id, odm::Dangling P>
struct Holder {
  std::int32_t id = 0;
  odm::RefMany<Target<Id>, P> refs;
  struct odm_model {
    static constexpr std::string_view collection = "holders";
  };
};

}  // namespace id_types
