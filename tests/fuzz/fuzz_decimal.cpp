// libFuzzer target: odm::Decimal's parser against libbson's bson_decimal128_from_string
// and against a small exact reference model of the grammar. Promises checked:
// - Decimal(text) throws only odm::ValueError;
// - it reads exactly the texts the reference says are decimal numbers Decimal128 can hold
//   (at most 34 significant digits, the exponent in range once trailing zeros are moved),
//   with the reference's value, and refuses the rest (NaN, infinities, white space, NUL);
// - wherever both read a text, they read the very same Decimal128 bits (odm keeps the
//   cohort: "2.0990" is not "2.099");
// - what odm prints reads back, through odm and through libbson, as the same bits.
// The reference, not libbson, decides what must be read: libbson 1.23 refuses some exact
// texts (zeros beyond the 34th digit after leading zeros or around the point:
// "300.0E-6177"), reads some inexact ones rounded ("0200023566765000000000000565000000008",
// checking the wrong digit), wraps an exponent beyond int32 ("0E-617702000000000" is
// 0E+6111 to it), and skips white space before an exponent's digits.

#include "fuzz_support.hpp"

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <optional>
#include <string>
#include <string_view>

namespace {

bool is_finite(const bson_decimal128_t& value) { return ((value.high >> 58) & 0x1E) != 0x1E; }
bool same(const bson_decimal128_t& a, const bson_decimal128_t& b) { return a.high == b.high && a.low == b.low; }
std::string hex(const bson_decimal128_t& value) {
  char text[40];
  std::snprintf(text, sizeof text, "%016llx%016llx", static_cast<unsigned long long>(value.high),
                static_cast<unsigned long long>(value.low));
  return text;
}

/// A decimal number's value: sign, digits without leading or trailing zeros ("" for zero),
/// and the exponent of the last digit (any, for zero); and the exponent the text wrote.
struct Exact {
  bool negative = false;
  std::string digits;
  std::int64_t exponent = 0;
  std::int64_t written_exponent = 0;
  bool operator==(const Exact& other) const {
    return negative == other.negative && digits == other.digits && (digits.empty() || exponent == other.exponent);
  }
};

/// The reference reading of [+-] (digits [. digits] | . digits) [(e|E) [+-] digits].
std::optional<Exact> reference(std::string_view text) {
  Exact out;
  std::size_t i = 0;
  if (i < text.size() && (text[i] == '+' || text[i] == '-')) out.negative = text[i++] == '-';
  std::string all;
  std::int64_t fraction = 0;
  bool point = false;
  for (; i < text.size(); ++i) {
    if (text[i] >= '0' && text[i] <= '9') {
      all += text[i];
      if (point) ++fraction;
    } else if (text[i] == '.' && !point) {
      point = true;
    } else {
      break;
    }
  }
  if (all.empty()) return std::nullopt;
  std::int64_t exponent = 0;
  if (i < text.size() && (text[i] == 'e' || text[i] == 'E')) {
    ++i;
    bool negative = false;
    if (i < text.size() && (text[i] == '+' || text[i] == '-')) negative = text[i++] == '-';
    if (i == text.size()) return std::nullopt;
    for (; i < text.size() && text[i] >= '0' && text[i] <= '9'; ++i)
      exponent = std::min<std::int64_t>(exponent * 10 + (text[i] - '0'), std::int64_t{1} << 40);
    if (negative) exponent = -exponent;
  }
  if (i != text.size()) return std::nullopt;
  out.written_exponent = exponent;
  const std::size_t first = all.find_first_not_of('0');
  if (first == std::string::npos) return out;  // zero
  const std::size_t last = all.find_last_not_of('0');
  out.digits = all.substr(first, last - first + 1);
  out.exponent = exponent - fraction + static_cast<std::int64_t>(all.size() - 1 - last);
  return out;
}

/// Whether Decimal128 holds the value exactly: some exponent in -6176..6111 at which its
/// coefficient has at most 34 digits (zeros clamp to any exponent).
bool representable(const Exact& value) {
  if (value.digits.empty()) return true;
  const auto length = static_cast<std::int64_t>(value.digits.size());
  return length <= 34 && value.exponent >= -6176 && value.exponent - (34 - length) <= 6111;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  const std::optional<Exact> expected = reference(text);
  std::optional<odm::Decimal> ours;
  try {
    ours = odm::Decimal(text);
  } catch (const odm::ValueError&) {
  }
  if (expected && representable(*expected)) {
    if (!ours) fuzz_support::broken("odm refuses \"" + text + "\", an exact Decimal128");
    if (reference(ours->to_string()) != expected)
      fuzz_support::broken("odm reads \"" + text + "\" as " + ours->to_string() + ", another value");
  } else if (ours) {
    fuzz_support::broken("odm reads \"" + text + "\" as " + ours->to_string() + ", not an exact Decimal128");
  }
  if (ours) {
    const bson_decimal128_t bits = ours->to_bson_decimal128();
    const std::string printed = ours->to_string();
    bson_decimal128_t back;
    if (!bson_decimal128_from_string(printed.c_str(), &back) || !same(back, bits) ||
        !same(odm::Decimal(printed).to_bson_decimal128(), bits))
      fuzz_support::broken("\"" + text + "\" prints as \"" + printed + "\", which does not read back");
  }
  // libbson: where both read the text, the same bits.
  const bool wrapped_exponent = expected && (expected->written_exponent > INT32_MAX / 2 ||
                                             expected->written_exponent < INT32_MIN / 2);
  if (!ours || wrapped_exponent) return 0;
  bson_decimal128_t theirs;
  if (!bson_decimal128_from_string_w_len(text.c_str(), static_cast<int>(text.size()), &theirs) || !is_finite(theirs))
    return 0;
  if (!same(ours->to_bson_decimal128(), theirs))
    fuzz_support::broken("\"" + text + "\": odm " + hex(ours->to_bson_decimal128()) + ", libbson " + hex(theirs));
  return 0;
}
