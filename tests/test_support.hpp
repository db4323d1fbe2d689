#pragma once
// Helpers shared by odm's unit tests: Extended JSON in and out, error capture, and the
// golden-document check used by tests/golden/.

#include <odm/odm.hpp>

#include "evolution/schema_check.hpp"

#include <gtest/gtest.h>

#include <chrono>
#include <cstdint>
#include <functional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace odm_test {

/// Canonical Extended JSON of a document: every BSON type spelled out, so two texts are
/// equal exactly when the documents have the same fields, order, types and values.
inline std::string canonical(const odm::Document& doc) { return doc.to_canonical_json(); }
inline std::string canonical(const bson_t* doc) { return odm::Document::copy_of(doc).to_canonical_json(); }

/// Parses Extended JSON (relaxed or canonical) with libbson. Throws odm::JsonError.
inline odm::Document doc_from_json(std::string_view json) { return odm::Document::from_json(json); }

/// The canonical form of some Extended JSON text.
inline std::string canonical(std::string_view json) { return canonical(doc_from_json(json)); }
inline std::string canonical(const char* json) { return canonical(std::string_view(json)); }

/// Runs `fn` and returns the what() of the odm::Error it throws, or "<no error>".
template <class Fn>
std::string error_of(Fn&& fn) {
  try {
    std::invoke(std::forward<Fn>(fn));
  } catch (const odm::Error& e) {
    return e.what();
  }
  return "<no error>";
}

/// what() of the DecodeError thrown while decoding `json` as T ("<no error>" if none;
/// an exception of any other type escapes and fails the test).
template <class T>
std::string decode_error(std::string_view json) {
  const odm::Document doc = doc_from_json(json);
  try {
    (void)odm::from_bson<T>(doc);
  } catch (const odm::DecodeError& e) {
    return e.what();
  }
  return "<no error>";
}

/// what() of the EncodeError thrown while encoding `value` ("<no error>" if none).
template <class T>
std::string encode_error(const T& value) {
  try {
    (void)odm::to_bson(value);
  } catch (const odm::EncodeError& e) {
    return e.what();
  }
  return "<no error>";
}

/// Decodes Extended JSON text as T.
template <class T>
T decode(std::string_view json) {
  return odm::from_bson<T>(doc_from_json(json));
}

/// Encodes `value` and prints it as canonical Extended JSON.
template <class T>
std::string encoded(const T& value) {
  return canonical(odm::to_bson(value));
}

/// Encodes and decodes `value`.
template <class T>
T round_trip(const T& value) {
  return odm::from_bson<T>(odm::to_bson(value));
}

/// The golden check of a document model:
///  - `value` encodes to exactly `golden` (canonical Extended JSON written out by hand):
///    same canonical text and the same bytes;
///  - decoding the encoded bytes, the golden document, and `seed` (the seed's own
///    document written as relaxed Extended JSON, if given) all give `value` back;
///  - the seed text and the golden text are the same document (which checks the golden
///    text's types against what a shell stores for the seed's literals);
///  - the relaxed JSON output of odm reads back as `value`;
///  - the encoded document passes the model's $jsonSchema (odm/evolution/schema.hpp).
template <class T>
::testing::AssertionResult golden(const T& value, std::string_view golden_json, std::string_view seed_json = {}) {
  odm::Document expected;
  try {
    expected = doc_from_json(golden_json);
  } catch (const odm::JsonError& e) {
    return ::testing::AssertionFailure() << "the golden text is not Extended JSON: " << e.what();
  }
  odm::Document actual;
  try {
    actual = odm::to_bson(value);
  } catch (const odm::Error& e) {
    return ::testing::AssertionFailure() << "encoding threw: " << e.what();
  }
  if (canonical(actual) != canonical(expected))
    return ::testing::AssertionFailure() << "encoded document differs from the golden one\n  encoded: "
                                         << canonical(actual) << "\n  golden:  " << canonical(expected);
  if (!(actual == expected))
    return ::testing::AssertionFailure() << "encoded bytes differ from the golden document's bytes";
  if constexpr (odm::is_record<T>) {
    const odm::Document schema = odm::json_schema<T>();
    if (const auto broken = schema_violations(schema.get(), actual.get()); !broken.empty())
      return ::testing::AssertionFailure() << "the encoded document does not pass the model's $jsonSchema: "
                                           << broken.front() << "\n  schema: " << schema.to_json();
  }

  const auto decodes_back = [&](const odm::Document& doc, const char* what) -> ::testing::AssertionResult {
    try {
      if (!(odm::from_bson<T>(doc) == value))
        return ::testing::AssertionFailure() << what << " decodes to a different value";
      if (!(odm::from_bson<T>(doc.bytes()) == value))
        return ::testing::AssertionFailure() << what << " (as raw bytes) decodes to a different value";
    } catch (const odm::Error& e) {
      return ::testing::AssertionFailure() << "decoding " << what << " threw: " << e.what();
    }
    return ::testing::AssertionSuccess();
  };
  if (auto r = decodes_back(actual, "the encoded document"); !r) return r;
  if (auto r = decodes_back(expected, "the golden document"); !r) return r;

  if (!seed_json.empty()) {
    odm::Document seed;
    try {
      seed = doc_from_json(seed_json);
    } catch (const odm::JsonError& e) {
      return ::testing::AssertionFailure() << "the seed text is not Extended JSON: " << e.what();
    }
    if (canonical(seed) != canonical(expected))
      return ::testing::AssertionFailure() << "the seed text and the golden text are different documents\n  seed:   "
                                           << canonical(seed) << "\n  golden: " << canonical(expected);
    if (auto r = decodes_back(seed, "the seed document"); !r) return r;
  }

  try {
    if (!(odm::from_json<T>(odm::to_json(value)) == value))
      return ::testing::AssertionFailure() << "to_json/from_json does not give the value back: " << odm::to_json(value);
  } catch (const odm::Error& e) {
    return ::testing::AssertionFailure() << "to_json/from_json threw: " << e.what();
  }
  return ::testing::AssertionSuccess();
}

// ---- building values -------------------------------------------------------------

/// A date at midnight UTC, e.g. day(2019, 2, 18).
inline std::chrono::sys_days day(int y, unsigned m, unsigned d) {
  return std::chrono::sys_days(std::chrono::year(y) / std::chrono::month(m) / std::chrono::day(d));
}

/// An instant in UTC to the millisecond, as std::chrono::system_clock::time_point.
inline std::chrono::system_clock::time_point instant(int y, unsigned m, unsigned d, int hour = 0, int minute = 0,
                                                     int second = 0, int millisecond = 0) {
  return std::chrono::system_clock::time_point(day(y, m, d)) + std::chrono::hours(hour) +
         std::chrono::minutes(minute) + std::chrono::seconds(second) + std::chrono::milliseconds(millisecond);
}

/// An ObjectId from 24 hex digits.
inline odm::ObjectId oid(std::string_view hex) { return odm::ObjectId::parse(hex); }

/// The bytes of a document, as a vector that a test may damage.
inline std::vector<std::uint8_t> bytes_of(const odm::Document& doc) {
  return std::vector<std::uint8_t>(doc.data(), doc.data() + doc.size());
}

}  // namespace odm_test
