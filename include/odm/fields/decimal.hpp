#pragma once
// odm::Decimal: an exact decimal number with the precision and range of IEEE 754-2008
// Decimal128 (34 significant digits, coefficient exponents -6176..+6111), stored as
// BSON Decimal128.
//
// Why not double: binary floating point cannot hold 0.10 exactly, and amounts that are
// silently off by 1e-17 are how money gets corrupted. A Decimal is built from a string or
// an integer, never from a double (that is a compile error).
//
// A Decimal keeps its cohort, like Decimal128 and MongoDB do: "2.0990" and "2.099" are
// equal numbers (==, <=>) but print and store differently (same_representation()).
//
// Only finite values exist: NaN and the infinities are refused on the way in, and
// arithmetic that would overflow throws odm::ValueError instead of producing infinity.
//
// The coefficient is kept as two 64-bit words so that the conversion to libbson's
// bson_decimal128_t (the encoder's hot path) is a few shifts, and so that this header
// stays cheap to include; the arithmetic lives in decimal.cpp on Boost.Multiprecision.

#include <bson/bson.h>

#include <odm/bson/codec.hpp>
#include <odm/bson/kind.hpp>
#include <odm/error.hpp>
#include <odm/model/access.hpp>

#include <compare>
#include <concepts>
#include <cstdint>
#include <iosfwd>
#include <limits>
#include <string>
#include <string_view>
#include <type_traits>

namespace odm {

/// How a result that has more digits than it may keep is rounded.
enum class RoundingMode {
  half_even,  ///< to nearest, ties to the even digit (banker's rounding; IEEE's default)
  half_up,    ///< to nearest, ties away from zero (school rounding)
  half_down,  ///< to nearest, ties toward zero
  down,       ///< toward zero (truncate)
  up,         ///< away from zero
  floor,      ///< toward negative infinity
  ceiling,    ///< toward positive infinity
};

class Decimal;

/// a + b, a - b, a × b with an explicit rounding mode for results over 34 digits.
Decimal add(const Decimal& a, const Decimal& b, RoundingMode mode);
Decimal subtract(const Decimal& a, const Decimal& b, RoundingMode mode);
Decimal multiply(const Decimal& a, const Decimal& b, RoundingMode mode);
/// a ÷ b to 34 significant digits. ValueError on division by zero.
Decimal divide(const Decimal& a, const Decimal& b, RoundingMode mode = RoundingMode::half_even);
/// a ÷ b rounded once, directly to `places` digits after the point (no double rounding):
/// divide(Decimal(100), Decimal(3), 2) is 33.33. ValueError on division by zero or when
/// the quotient needs more than 34 digits at that scale.
Decimal divide(const Decimal& a, const Decimal& b, int places, RoundingMode mode = RoundingMode::half_even);

namespace detail {

struct DecimalAccess;  // decimal.cpp's window into the representation

/// Integers a Decimal is built from: every integer type but bool and the character types.
template <class T>
concept decimal_integer =
    std::integral<T> && !std::same_as<std::remove_cv_t<T>, bool> && !std::same_as<std::remove_cv_t<T>, char> &&
    !std::same_as<std::remove_cv_t<T>, wchar_t> && !std::same_as<std::remove_cv_t<T>, char8_t> &&
    !std::same_as<std::remove_cv_t<T>, char16_t> && !std::same_as<std::remove_cv_t<T>, char32_t>;

/// |value| without overflow for the most negative value.
template <decimal_integer I>
constexpr std::uint64_t magnitude(I value) noexcept {
  if constexpr (std::is_signed_v<I>)
    return value < 0 ? std::uint64_t{0} - static_cast<std::uint64_t>(value) : static_cast<std::uint64_t>(value);
  else
    return static_cast<std::uint64_t>(value);
}

template <decimal_integer I>
constexpr bool is_negative(I value) noexcept {
  if constexpr (std::is_signed_v<I>)
    return value < 0;
  else
    return false;
}

}  // namespace detail

class Decimal {
 public:
  static constexpr int max_digits = 34;        ///< significant digits of Decimal128
  static constexpr int min_exponent = -6176;   ///< smallest exponent of the coefficient
  static constexpr int max_exponent = 6111;    ///< largest exponent of the coefficient
  static constexpr int exponent_bias = 6176;   ///< Decimal128's biased-exponent offset

  /// Zero (coefficient 0, exponent 0: prints "0").
  constexpr Decimal() noexcept = default;

  /// Any integer, exactly (exponent 0). Implicit: an integer is an exact decimal.
  template <detail::decimal_integer I>
  constexpr Decimal(I value) noexcept  // NOLINT(google-explicit-constructor)
      : lo_(detail::magnitude(value)), negative_(detail::is_negative(value)) {}

  /// coefficient × 10^exponent, exactly: Decimal(1999, -2) is 19.99. An exponent outside
  /// -6176..6111 is accepted when the value can still be held exactly (1 × 10^6112 is
  /// 10 × 10^6111); otherwise odm::ValueError.
  template <detail::decimal_integer I>
  Decimal(I coefficient, int exponent) {
    if (exponent >= min_exponent && exponent <= max_exponent) {
      lo_ = detail::magnitude(coefficient);
      exponent_ = exponent;
      negative_ = detail::is_negative(coefficient);
    } else {
      *this = from_parts(detail::is_negative(coefficient), 0, detail::magnitude(coefficient), exponent);
    }
  }

  /// Refused: a double such as 0.1 is already inexact before odm ever sees it.
  template <std::floating_point F>
  Decimal(F) {  // NOLINT(google-explicit-constructor)
    static_assert(detail::dependent_false<F>,
                  "odm::Decimal cannot be built from a floating-point number: binary floating point cannot "
                  "hold values such as 0.10 exactly. Use a string, Decimal(\"0.10\"), or an integer "
                  "coefficient and exponent, Decimal(10, -2).");
  }

  /// Parses "2.099", "-0.10", "1E+3", "1.50e-2" exactly, keeping trailing zeros ("2.0990"
  /// keeps its four places). Throws odm::ValueError for anything else: text that is not a
  /// decimal number, NaN or infinity, more than 34 significant digits, or a value out of
  /// Decimal128's range.
  explicit Decimal(std::string_view text);

  /// The sign bit, the coefficient as two 64-bit words (high, low) and the exponent,
  /// normalized exactly as Decimal(I, int) does. ValueError if it cannot be held exactly.
  static Decimal from_parts(bool negative, std::uint64_t coefficient_high, std::uint64_t coefficient_low,
                            std::int64_t exponent);

  /// Exact conversion from libbson's BID representation. A non-canonical coefficient
  /// (more than 34 digits) is zero, as IEEE 754 says. NaN and infinities: ValueError.
  static Decimal from_bson_decimal128(const bson_decimal128_t& value) {
    Decimal out;
    if (const char* special = decode_bid(value, out)) [[unlikely]]
      throw ValueError(std::string("expected a finite decimal, got ") + special);
    return out;
  }

  /// Exact conversion to libbson's BID representation (no strings involved).
  bson_decimal128_t to_bson_decimal128() const noexcept {
    bson_decimal128_t out;
    out.high = (static_cast<std::uint64_t>(negative_) << 63) |
               (static_cast<std::uint64_t>(exponent_ + exponent_bias) << 49) | hi_;
    out.low = lo_;
    return out;
  }

 private:
  friend struct detail::Access;
  /// Reads a BID value into `out`. Returns nullptr, or "NaN"/"Infinity"/"-Infinity" for
  /// the values a Decimal cannot hold (then `out` is unchanged).
  static const char* decode_bid(const bson_decimal128_t& value, Decimal& out) noexcept {
    const std::uint64_t high = value.high;
    const bool negative = (high >> 63) != 0;
    std::uint64_t coefficient_high;
    int biased_exponent;
    if (((high >> 61) & 3) == 3) {
      // "11" combination: infinity, NaN, or a coefficient of at least 2^113 (non-canonical).
      if (((high >> 59) & 3) == 3) return ((high >> 58) & 1) ? "NaN" : (negative ? "-Infinity" : "Infinity");
      biased_exponent = static_cast<int>((high >> 47) & 0x3fff);
      coefficient_high = 0;
      out.lo_ = 0;
    } else {
      biased_exponent = static_cast<int>((high >> 49) & 0x3fff);
      coefficient_high = high & ((std::uint64_t{1} << 49) - 1);
      out.lo_ = value.low;
      // 10^34 = 542101086242752 × 2^64 + 4003012203950112768; a larger coefficient is non-canonical.
      if (coefficient_high > 542101086242752u ||
          (coefficient_high == 542101086242752u && value.low >= 4003012203950112768u)) {
        coefficient_high = 0;
        out.lo_ = 0;
      }
    }
    out.hi_ = coefficient_high;
    out.exponent_ = biased_exponent - exponent_bias;
    out.negative_ = negative;
    return nullptr;
  }
 public:

  // --- accessors -------------------------------------------------------------------

  /// The exponent of the coefficient: -2 for 19.99, 3 for 1E+3.
  constexpr int exponent() const noexcept { return exponent_; }
  /// Digits after the decimal point (-exponent): 2 for 19.99, 4 for 2.0990, -3 for 1E+3.
  constexpr int scale() const noexcept { return -exponent_; }
  /// The coefficient's high and low 64-bit words (coefficient < 10^34 < 2^113).
  constexpr std::uint64_t coefficient_high() const noexcept { return hi_; }
  constexpr std::uint64_t coefficient_low() const noexcept { return lo_; }
  /// The coefficient as an integer type: a built-in one (ValueError when it does not
  /// fit) or any type with << and | such as boost::multiprecision::uint128_t.
  template <class Int>
  Int coefficient() const {
    if constexpr (std::is_integral_v<Int>) {
      if (hi_ != 0 || lo_ > static_cast<std::uint64_t>(std::numeric_limits<Int>::max())) [[unlikely]]
        throw ValueError("the coefficient of " + to_string() + " does not fit the requested integer type");
      return static_cast<Int>(lo_);
    } else {
      return (Int(hi_) << 64) | Int(lo_);
    }
  }
  /// Number of digits of the coefficient (1 for zero).
  int digits() const noexcept;

  constexpr bool is_zero() const noexcept { return hi_ == 0 && lo_ == 0; }
  /// -1, 0 or 1 (0 for zero of either sign).
  constexpr int sign() const noexcept { return is_zero() ? 0 : (negative_ ? -1 : 1); }
  /// True for negative values; false for zero, even "-0".
  constexpr bool is_negative() const noexcept { return negative_ && !is_zero(); }
  /// The IEEE sign bit (set for "-0" too).
  constexpr bool sign_bit() const noexcept { return negative_; }
  constexpr Decimal abs() const noexcept {
    Decimal out = *this;
    out.negative_ = false;
    return out;
  }

  /// Same sign, coefficient and exponent: "2.0990" and "2.099" are == but not this.
  constexpr bool same_representation(const Decimal& other) const noexcept {
    return hi_ == other.hi_ && lo_ == other.lo_ && exponent_ == other.exponent_ && negative_ == other.negative_;
  }

  // --- conversions -----------------------------------------------------------------

  /// The Decimal128 string form, exactly as libbson's bson_decimal128_to_string and the
  /// shell's NumberDecimal print it: "119.99", "2.0990", "1E+3", "0.000001", "1E-7".
  std::string to_string() const;
  /// The nearest double, for display and approximate uses (e.g. sorting keys). ±infinity
  /// or ±0 when the value is beyond double's range.
  double to_double() const noexcept;

  // --- arithmetic ------------------------------------------------------------------

  /// Quantizes to `places` digits after the point (exponent -places), rounding if digits
  /// are dropped and padding with zeros otherwise: Decimal("2.345").round(2) is 2.34,
  /// Decimal("7").round(2) is 7.00. ValueError if the result needs more than 34 digits.
  Decimal round(int places, RoundingMode mode = RoundingMode::half_even) const;

  /// Negation; -0 becomes 0 (as in 0 - x), so amounts never print as "-0.00" from it.
  Decimal operator-() const noexcept {
    Decimal out = *this;
    out.negative_ = is_zero() ? false : !negative_;
    return out;
  }
  constexpr Decimal operator+() const noexcept { return *this; }

  // Exact when the result fits in 34 digits, otherwise rounded half-even to 34
  // significant digits (see add()/multiply() for other modes). ValueError on overflow
  // beyond Decimal128's range and on results too small to represent without loss.
  friend Decimal operator+(const Decimal& a, const Decimal& b) { return add(a, b, RoundingMode::half_even); }
  friend Decimal operator-(const Decimal& a, const Decimal& b) { return subtract(a, b, RoundingMode::half_even); }
  friend Decimal operator*(const Decimal& a, const Decimal& b) { return multiply(a, b, RoundingMode::half_even); }
  /// Rounded half-even to 34 significant digits; ValueError on division by zero.
  friend Decimal operator/(const Decimal& a, const Decimal& b) { return divide(a, b, RoundingMode::half_even); }
  Decimal& operator+=(const Decimal& other) { return *this = *this + other; }
  Decimal& operator-=(const Decimal& other) { return *this = *this - other; }
  Decimal& operator*=(const Decimal& other) { return *this = *this * other; }
  Decimal& operator/=(const Decimal& other) { return *this = *this / other; }

  /// Numeric comparison: cohorts compare equal ("2.0990" == "2.099", 0 == -0).
  friend bool operator==(const Decimal& a, const Decimal& b) noexcept { return compare(a, b) == 0; }
  friend std::weak_ordering operator<=>(const Decimal& a, const Decimal& b) noexcept {
    const int c = compare(a, b);
    return c < 0 ? std::weak_ordering::less : c > 0 ? std::weak_ordering::greater : std::weak_ordering::equivalent;
  }

  friend std::ostream& operator<<(std::ostream& out, const Decimal& value);

 private:
  friend struct detail::DecimalAccess;
  static int compare(const Decimal& a, const Decimal& b) noexcept;

  std::uint64_t hi_ = 0;  // coefficient bits 64..112
  std::uint64_t lo_ = 0;  // coefficient bits 0..63
  int exponent_ = 0;
  bool negative_ = false;
};

// Decimal128, never double. Decoding refuses a double too: reading binary floating point
// into an exact type would hide the corruption it may already carry. Documents with old
// shapes are read with odm::DecimalFromLegacy (odm/fields/money.hpp).
template <>
struct codec<Decimal> {
  using kind = kinds::scalar<BSON_TYPE_DECIMAL128>;
  static void encode(bson_t* parent, std::string_view key, const Decimal& value) {
    const bson_decimal128_t bid = value.to_bson_decimal128();
    detail::check_append(bson_append_decimal128(parent, key.data(), detail::key_length(key), &bid));
  }
  static void decode(const bson_iter_t& it, Decimal& out) {
    detail::expect_type(it, BSON_TYPE_DECIMAL128, "decimal");
    bson_decimal128_t bid;
    bson_iter_decimal128(&it, &bid);
    if (const char* special = detail::Access::decode_bid(bid, out)) [[unlikely]]
      throw DecodeError(std::string("expected a finite decimal, got ") + special);
  }
};

template <>
struct detail::variant_shape<Decimal> : detail::decoded_shape<Decimal, detail::type_bits(BSON_TYPE_DECIMAL128)> {};

}  // namespace odm
