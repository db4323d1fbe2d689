#pragma once
// The hand-written libbson code the benchmarks compare odm with: the small readers and
// writers a careful C programmer writes once and uses for every struct. Each checks the
// BSON type, accepts the same type alternatives odm's codecs accept, and validates
// strings with libbson's bson_utf8_validate, unless `validate_utf8` is off (the "plain"
// baseline: libbson's own checks only, as issue 11 measured odm against).

#include <bson/bson.h>

#include <chrono>
#include <climits>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

namespace handwritten {

using Millis = std::chrono::sys_time<std::chrono::milliseconds>;
using std::chrono::sys_days;

/// Whether strings are UTF-8 validated (the benchmarks' "plain" cases turn it off).
inline bool validate_utf8 = true;

inline bool append_string(bson_t* doc, const char* key, int key_length, const std::string& value) {
  if (validate_utf8 && !bson_utf8_validate(value.data(), value.size(), true)) return false;
  if (value.size() > static_cast<std::size_t>(INT_MAX - 5)) return false;
  return bson_append_utf8(doc, key, key_length, value.data(), static_cast<int>(value.size()));
}

inline bool read_int32(const bson_iter_t* it, std::int32_t* out) {
  std::int64_t value;
  switch (bson_iter_type(it)) {
    case BSON_TYPE_INT32: value = bson_iter_int32(it); break;
    case BSON_TYPE_INT64: value = bson_iter_int64(it); break;
    default: return false;
  }
  if (value < INT32_MIN || value > INT32_MAX) return false;
  *out = static_cast<std::int32_t>(value);
  return true;
}

inline bool read_int64(const bson_iter_t* it, std::int64_t* out) {
  switch (bson_iter_type(it)) {
    case BSON_TYPE_INT64: *out = bson_iter_int64(it); return true;
    case BSON_TYPE_INT32: *out = bson_iter_int32(it); return true;
    default: return false;
  }
}

inline bool read_double(const bson_iter_t* it, double* out) {
  switch (bson_iter_type(it)) {
    case BSON_TYPE_DOUBLE: *out = bson_iter_double(it); return true;
    case BSON_TYPE_INT32: *out = bson_iter_int32(it); return true;
    case BSON_TYPE_INT64: {
      const std::int64_t value = bson_iter_int64(it);
      if (value > (std::int64_t{1} << 53) || value < -(std::int64_t{1} << 53)) return false;
      *out = static_cast<double>(value);
      return true;
    }
    default: return false;
  }
}

inline bool read_bool(const bson_iter_t* it, bool* out) {
  if (bson_iter_type(it) != BSON_TYPE_BOOL) return false;
  *out = bson_iter_bool(it);
  return true;
}

inline bool read_string(const bson_iter_t* it, std::string* out) {
  if (bson_iter_type(it) != BSON_TYPE_UTF8) return false;
  std::uint32_t length = 0;
  const char* data = bson_iter_utf8(it, &length);
  if (validate_utf8 && !bson_utf8_validate(data, length, true)) return false;
  out->assign(data, length);
  return true;
}

inline bool read_millis(const bson_iter_t* it, Millis* out) {
  if (bson_iter_type(it) != BSON_TYPE_DATE_TIME) return false;
  *out = Millis(std::chrono::milliseconds(bson_iter_date_time(it)));
  return true;
}

inline bool read_days(const bson_iter_t* it, sys_days* out) {
  if (bson_iter_type(it) != BSON_TYPE_DATE_TIME) return false;
  const std::int64_t ms = bson_iter_date_time(it);
  constexpr std::int64_t day = 86'400'000;
  if (ms % day != 0) return false;
  *out = sys_days(std::chrono::days(ms / day));
  return true;
}

/// Marks field `bit` as seen; false if it was seen before (a duplicate field).
inline bool claim(std::uint32_t* seen, std::uint32_t bit) {
  if (*seen & bit) return false;
  *seen |= bit;
  return true;
}

/// Compares a key whose length is already known to equal sizeof(literal) - 1.
template <std::size_t N>
inline bool is_key(const char* key, const char (&literal)[N]) {
  return std::memcmp(key, literal, N - 1) == 0;
}

/// An array whose elements `read_element(const bson_iter_t*, Element*)` reads; the keys
/// "0", "1", ... are not checked (nor by odm).
template <class Element, class ReadElement>
inline bool read_array(const bson_iter_t* it, std::vector<Element>* out, ReadElement read_element) {
  if (bson_iter_type(it) != BSON_TYPE_ARRAY) return false;
  bson_iter_t element;
  if (!bson_iter_recurse(it, &element)) return false;
  out->clear();
  while (bson_iter_next(&element))
    if (!read_element(&element, &out->emplace_back())) return false;
  return element.err_off == 0;
}

}  // namespace handwritten
